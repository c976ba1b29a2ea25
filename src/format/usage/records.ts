import { idHash } from "../common/hash.js";
import type { AnyEntry } from "../schema/types.js";
import { estimateCost, type PriceOf } from "./prices.js";

/**
 * What a session cost, as pi counts it (pi 1.6's `/session`, `AgentSession.getSessionStats`, and
 * its cost breakdown, `getUsageCostBreakdown`): over every entry of the file, on every branch
 * (each request was paid for, whichever branch it is on), the usage of assistant messages, of
 * `usage` entries, of tool results that carry one (tools that call a model) and of compactions
 * and branch summaries that carry one (the summariser's own calls). Total tokens are input +
 * output + cache read + cache write (not `totalTokens`); cost is `usage.cost.total` as recorded.
 */

/** The key pi's breakdown gives whatever is no model's own request: tool results and summaries. */
export const TOOLS_AND_SUMMARIES = "Tools/summaries";

export interface UsageAmounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
  /** Where no cost is recorded (none, or zero with tokens): what the request would have cost at its model's list price (`prices.ts`). */
  estimated?: number;
  /** Where no cost is recorded and no price is known: its tokens. */
  unpriced?: number;
}

/** A usage-bearing entry's usage and whose it is: `provider/model` of the request, or `TOOLS_AND_SUMMARIES`. */
export interface EntryUsage {
  key: string;
  amounts: UsageAmounts;
  /** What prices it: the request's provider and model as its entry records them, and its hour-long cache writes. */
  pricing?: Pricing;
}

export interface Pricing {
  provider: string;
  model: string;
  cacheWrite1h?: number;
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** A recorded usage object's amounts (a field that is not a number counts as none). */
export function usageAmounts(usage: unknown): UsageAmounts {
  const u = (usage ?? {}) as { input?: unknown; output?: unknown; cacheRead?: unknown; cacheWrite?: unknown; cost?: { total?: unknown } | null };
  return { input: num(u.input), output: num(u.output), cacheRead: num(u.cacheRead), cacheWrite: num(u.cacheWrite), cost: num(u.cost?.total) };
}

/** input + output + cache read + cache write, as pi totals tokens. */
export function totalTokens(a: UsageAmounts): number {
  return a.input + a.output + a.cacheRead + a.cacheWrite;
}

/**
 * The usage an entry carries and whose it is, by pi's rule; undefined for an entry that carries
 * none. An assistant message's request is keyed by the model that answered
 * (`provider/responseModel`), else the one asked (`provider/model`).
 */
export function entryUsage(entry: AnyEntry): EntryUsage | undefined {
  switch (entry.type) {
    case "message": {
      const m = entry.message as { role?: unknown; provider?: unknown; model?: unknown; responseModel?: unknown; usage?: unknown } | null | undefined;
      if (!m || typeof m !== "object" || !isUsage(m.usage)) return undefined;
      const key = messageUsageKey(m.role, m.provider, m.model, m.responseModel);
      return key === undefined ? undefined : { key, amounts: usageAmounts(m.usage), ...pricingOf(m.provider, m.model, m.usage) };
    }
    case "usage":
      return isUsage(entry.usage) ? { key: modelKey(entry.provider, entry.model), amounts: usageAmounts(entry.usage), ...pricingOf(entry.provider, entry.model, entry.usage) } : undefined;
    case "compaction":
    case "branch_summary":
      return isUsage(entry.usage) ? { key: TOOLS_AND_SUMMARIES, amounts: usageAmounts(entry.usage) } : undefined;
    default:
      return undefined;
  }
}

/**
 * A request's estimate (`usage` and `show` alike): where it spent tokens and no cost is recorded
 * (none, or zero), what its model's list price says it would have cost, else its tokens counted as
 * unpriced; where a cost is recorded, neither.
 */
export function estimateOf(a: UsageAmounts, pricing: Pricing | undefined, priceOf: PriceOf): { estimated: number; unpriced: number } {
  const tokens = a.input + a.output + a.cacheRead + a.cacheWrite;
  if (a.cost !== 0 || tokens === 0) return { estimated: 0, unpriced: 0 };
  const price = pricing && priceOf(pricing.provider, pricing.model);
  if (!price) return { estimated: 0, unpriced: tokens };
  return { estimated: estimateCost(price, { ...a, ...(pricing!.cacheWrite1h !== undefined ? { cacheWrite1h: pricing!.cacheWrite1h } : {}) }), unpriced: 0 };
}

/**
 * A model some requests have no price for: `model` as a report's rows name it (its key:
 * `provider/model`, where pi's `responseModel` may say another than was asked), and the `provider`
 * and model `id` it was asked of, which a price file names (null: the entries name none, as a tool
 * result's usage, and no price can be given); `tokens`: those unpriced.
 */
export interface UnpricedModel {
  model: string;
  provider: string | null;
  id: string | null;
  tokens: number;
}

/** Unpriced tokens summed by model (`UnpricedModel`), for `usage` and `show` alike. */
export class UnpricedTally {
  private readonly models = new Map<string, UnpricedModel>();

  add(model: string, pricing: { provider: string; model: string } | undefined, tokens: number): void {
    const id = `${model}\u0000${pricing?.provider ?? ""}\u0000${pricing?.model ?? ""}`;
    const known = this.models.get(id);
    if (known) known.tokens += tokens;
    else this.models.set(id, { model, provider: pricing?.provider ?? null, id: pricing?.model ?? null, tokens });
  }

  /** The most tokens first. */
  list(): UnpricedModel[] {
    return [...this.models.values()].sort((a, b) => b.tokens - a.tokens || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0) || ((a.id ?? "") < (b.id ?? "") ? -1 : 1));
  }
}

/** What prices a request, where its entry names a provider and a model (strings). */
export function pricingOf(provider: unknown, model: unknown, usage: unknown): { pricing?: Pricing } {
  if (typeof provider !== "string" || typeof model !== "string") return {};
  const long = (usage as { cacheWrite1h?: unknown } | null)?.cacheWrite1h;
  return { pricing: { provider, model, ...(typeof long === "number" && Number.isFinite(long) && long > 0 ? { cacheWrite1h: long } : {}) } };
}

/**
 * Whose a message's usage is: an assistant's, the model that answered (`provider/responseModel`,
 * else the one asked); a tool result's, `TOOLS_AND_SUMMARIES`; another role's, no one's.
 */
export function messageUsageKey(role: unknown, provider: unknown, model: unknown, responseModel: unknown): string | undefined {
  if (role === "assistant") return modelKey(provider, responseModel ?? model);
  return role === "toolResult" ? TOOLS_AND_SUMMARIES : undefined;
}

let lastProvider: unknown;
let lastModel: unknown;
let lastKey = "";

/** `provider/model`, as pi writes it into a template string (the last pair's kept: a session's requests mostly go to one model). */
function modelKey(provider: unknown, model: unknown): string {
  if (provider !== lastProvider || model !== lastModel || lastKey === "") {
    lastProvider = provider;
    lastModel = model;
    lastKey = `${String(provider)}/${String(model)}`;
  }
  return lastKey;
}

function isUsage(v: unknown): boolean {
  return !!v && typeof v === "object";
}

/** Amounts summed. */
export class UsageTotals implements UsageAmounts {
  input = 0;
  output = 0;
  cacheRead = 0;
  cacheWrite = 0;
  cost = 0;
  estimated = 0;
  unpriced = 0;

  add(a: UsageAmounts): void {
    this.input += a.input;
    this.output += a.output;
    this.cacheRead += a.cacheRead;
    this.cacheWrite += a.cacheWrite;
    this.cost += a.cost;
    this.estimated += a.estimated ?? 0;
    this.unpriced += a.unpriced ?? 0;
  }

  get total(): number {
    return totalTokens(this);
  }
}

/**
 * A file's records (a record a request) are kept in two arrays of numbers: `entries`, what says
 * which entry a record is (all a report reads to count each entry once), `ENTRY_STRIDE` a record:
 * its time (ms; NaN when the entry has none) and its entry's key (`idHash` of its id; -1 for an
 * entry without one, never shared); and `amounts`, `AMOUNT_STRIDE` a record: its model (an index
 * into `FileUsage.models`), then input, output, cache read, cache write, cost, the estimate where
 * no cost is recorded, and the tokens no price is known for.
 */
export const ENTRY_STRIDE = 2;
export const AMOUNT_STRIDE = 8;

/** Records summed by quarter hour of UTC: every zone's offset since 1980 is a whole number of them (a report buckets records one by one where it is not). */
export const BLOCK_MS = 15 * 60_000;

/**
 * Numbers a block keeps, in order: the quarter hour (`floor(time / BLOCK_MS)`; NaN for the records
 * without a time), the model (an index into `FileUsage.models`), the requests, then input,
 * output, cache read, cache write, cost, estimate and unpriced tokens summed.
 */
export const BLOCK_STRIDE = 10;

/**
 * What one file's entries cost, a record a usage-bearing entry, and what pi cannot read of it.
 * `blocks` holds the same sums by quarter hour and model: what a report reads of a session that
 * shares no entry with another (most), a few dozen numbers where its records are thousands.
 */
export interface FileUsage {
  /** `ENTRY_STRIDE` numbers a record. */
  entries: Float64Array;
  /** `AMOUNT_STRIDE` numbers a record. */
  amounts: Float64Array;
  /** `BLOCK_STRIDE` numbers a block, in order of quarter hour. */
  blocks: Float64Array;
  /** Model keys (`provider/model`, or `TOOLS_AND_SUMMARIES`) the records point into (a key may be there twice: `asked`). */
  models: string[];
  /**
   * The models the file's requests with no price were asked of: `[index, provider, model]`, the
   * records of `models[index]` whose provider and model (what a price is looked up by, which may
   * not be the key's: `responseModel`) are these, and have no price. Absent: none.
   */
  asked?: Array<[index: number, provider: string, model: string]>;
  /** Usage on lines pi skips (fused or torn records): not counted, reported. */
  skipped: SkippedUsage;
}

export interface SkippedUsage {
  requests: number;
  cost: number;
  /** The 1-based lines, the first few (`SKIPPED_LINES_KEPT`). */
  lines: number[];
  /** pi reads nothing of the file: its first record is not a session header. */
  wholeFile?: boolean;
}

const SKIPPED_LINES_KEPT = 10;

/**
 * Gathers a file's usage records in pass one: give `onRecord` every entry read (as
 * `OpenOptions.onRecord`, skimmed is enough) and `onSkipped` the records on lines pi skips.
 */
export class UsageCollector {
  private entries: Float64Array;
  private amounts: Float64Array;
  private count = 0;
  private readonly models: string[] = [];
  private readonly modelIndex = new Map<string, number>();
  /** The model indices of requests with no price, by key, provider and model (`FileUsage.asked`). */
  private readonly askedIndex = new Map<string, number>();
  private readonly asked: Array<[index: number, provider: string, model: string]> = [];
  private lastAsked: { key: string; provider: string; model: string; index: number } | undefined;
  private readonly skipped: SkippedUsage = { requests: 0, cost: 0, lines: [] };
  /** Whether a record's entry had an id. */
  anyId = false;

  /** `expected`: records to make room for at once (the tables grow past it); `priceOf`: the prices a request with no cost recorded is estimated by (none: not estimated). */
  constructor(
    expected = 64,
    private readonly priceOf?: PriceOf,
  ) {
    const n = Math.max(16, Math.ceil(expected));
    this.entries = new Float64Array(n * ENTRY_STRIDE);
    this.amounts = new Float64Array(n * AMOUNT_STRIDE);
  }

  onRecord(value: AnyEntry | { type: "session" }, record: { id?: string; time: number }): void {
    const used = entryUsage(value as AnyEntry);
    if (used) this.add(used.key, used.amounts, record.id === undefined ? -1 : idHash(record.id), record.time, used.pricing);
  }

  /** A request: whose (`EntryUsage.key`), what it used, and its entry's key (`idHash` of its id, -1 for none) and time. */
  add(key: string, a: UsageAmounts, entryKey: number, time: number, pricing?: Pricing): void {
    if ((this.count + 1) * ENTRY_STRIDE > this.entries.length) {
      this.entries = grown(this.entries);
      this.amounts = grown(this.amounts);
    }
    const { estimated, unpriced } = this.priceOf ? estimateOf(a, pricing, this.priceOf) : { estimated: a.estimated ?? 0, unpriced: a.unpriced ?? 0 };
    // (a request with no price is kept under the model it was asked of too, which a price file names)
    let model = unpriced > 0 && pricing ? this.askedModel(key, pricing) : this.modelIndex.get(key);
    if (model === undefined) {
      model = this.models.push(key) - 1;
      this.modelIndex.set(key, model);
    }
    const e = this.entries;
    const at = this.count * ENTRY_STRIDE;
    e[at] = time;
    e[at + 1] = entryKey;
    if (entryKey >= 0) this.anyId = true;
    const d = this.amounts;
    const m = this.count++ * AMOUNT_STRIDE;
    d[m] = model;
    d[m + 1] = a.input;
    d[m + 2] = a.output;
    d[m + 3] = a.cacheRead;
    d[m + 4] = a.cacheWrite;
    d[m + 5] = a.cost;
    d[m + 6] = estimated;
    d[m + 7] = unpriced;
  }

  /** The model index of `key`'s requests asked of `pricing`'s provider and model, with no price (the last one's kept: a session's requests mostly go to one model). */
  private askedModel(key: string, pricing: Pricing): number {
    const last = this.lastAsked;
    if (last && last.key === key && last.provider === pricing.provider && last.model === pricing.model) return last.index;
    const id = `${key}\u0000${pricing.provider}\u0000${pricing.model}`;
    let index = this.askedIndex.get(id);
    if (index === undefined) {
      index = this.models.push(key) - 1;
      this.askedIndex.set(id, index);
      this.asked.push([index, pricing.provider, pricing.model]);
    }
    this.lastAsked = { key, provider: pricing.provider, model: pricing.model, index };
    return index;
  }

  onSkipped(value: Record<string, unknown>, line: number): void {
    const used = entryUsage(value as AnyEntry);
    if (!used) return;
    this.skipped.requests++;
    this.skipped.cost += used.amounts.cost;
    if (this.skipped.lines.length < SKIPPED_LINES_KEPT && !this.skipped.lines.includes(line)) this.skipped.lines.push(line);
  }

  /** The records; `readable` false: pi reads nothing of the file, so every record is skipped. */
  result(readable = true): FileUsage {
    if (!readable && this.count > 0) {
      const s = this.skipped;
      s.wholeFile = true;
      for (let k = 0; k < this.count; k++) {
        s.requests++;
        s.cost += this.amounts[k * AMOUNT_STRIDE + 5]!;
      }
      this.count = 0;
    }
    // (views, not copies: the tables were made about the size the file needed)
    const entries = this.entries.subarray(0, this.count * ENTRY_STRIDE);
    const amounts = this.amounts.subarray(0, this.count * AMOUNT_STRIDE);
    return { entries, amounts, blocks: blocksOf(entries, amounts), models: this.count > 0 ? this.models : [], ...(this.count > 0 && this.asked.length > 0 ? { asked: this.asked } : {}), skipped: this.skipped };
  }
}

function grown(a: Float64Array): Float64Array {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}

/** The records summed by quarter hour and model (`FileUsage.blocks`). */
function blocksOf(entries: Float64Array, amounts: Float64Array): Float64Array {
  // (block, model) -> its row; records come in runs of one quarter hour and model
  const sums = new Map<number | string, number[]>();
  let lastId: number | string = NaN;
  let row: number[] = [];
  for (let k = 0; k * ENTRY_STRIDE < entries.length; k++) {
    const block = Math.floor(entries[k * ENTRY_STRIDE]! / BLOCK_MS);
    const m = k * AMOUNT_STRIDE;
    // (a time without a block, NaN, is one of its own; past 4,096 models a file, by text)
    const model = amounts[m]!;
    const id: number | string = model < 4096 ? (Number.isNaN(block) ? -1 : block) * 4096 + model : `${block}:${model}`;
    if (id !== lastId) {
      lastId = id;
      let found = sums.get(id);
      if (!found) sums.set(id, (found = [block, amounts[m]!, 0, 0, 0, 0, 0, 0, 0, 0]));
      row = found;
    }
    row[2]!++;
    for (let j = 1; j < AMOUNT_STRIDE; j++) row[2 + j]! += amounts[m + j]!;
  }
  const rows = [...sums.values()].sort((a, b) => (Number.isNaN(a[0]!) ? 1 : Number.isNaN(b[0]!) ? -1 : a[0]! - b[0]!) || a[1]! - b[1]!);
  return Float64Array.from(rows.flat());
}

/** One record of a session, as `forEachRecord` hands it on. */
export interface UsageRecordView extends UsageAmounts {
  time: number;
  model: string;
  /** Its index in `FileUsage.models` (what `asked` names). */
  modelIndex: number;
  /** An earlier session holds its entry (`sharedRecords`). */
  inherited: boolean;
}

/** Input, output, cache read, cache write, cost, the estimate and the unpriced tokens, as the seven numbers from `at` hold them (records and blocks keep them so). */
function amountsAt(numbers: Float64Array, at: number, out: UsageAmounts): void {
  out.input = numbers[at]!;
  out.output = numbers[at + 1]!;
  out.cacheRead = numbers[at + 2]!;
  out.cacheWrite = numbers[at + 3]!;
  out.cost = numbers[at + 4]!;
  out.estimated = numbers[at + 5]!;
  out.unpriced = numbers[at + 6]!;
}

/**
 * Calls `fn` with each record of `usage` (`shared`: its flags from `sharedRecords`); `only`: with
 * the records of these quarter hours alone (`inheritedQuarters`).
 */
export function forEachRecord(usage: FileUsage, shared: Uint8Array | null, fn: (record: UsageRecordView) => void, only?: ReadonlySet<number>): void {
  const e = usage.entries;
  const d = usage.amounts;
  const view: UsageRecordView = { time: 0, model: "", modelIndex: 0, inherited: false, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, estimated: 0, unpriced: 0 };
  for (let k = 0; k * ENTRY_STRIDE < e.length; k++) {
    const time = e[k * ENTRY_STRIDE]!;
    if (only && !only.has(Math.floor(time / BLOCK_MS))) continue;
    const m = k * AMOUNT_STRIDE;
    view.time = time;
    view.modelIndex = d[m]!;
    view.model = usage.models[view.modelIndex]!;
    view.inherited = shared !== null && shared[k] === 1;
    amountsAt(d, m + 1, view);
    fn(view);
  }
}

/**
 * The quarter hours (`floor(time / BLOCK_MS)`, NaN for records without a time) in which a
 * session inherits a record (`shared`: its flags from `sharedRecords`): a report reads its other
 * quarter hours by their blocks, and these record by record.
 */
export function inheritedQuarters(usage: FileUsage, shared: Uint8Array): Set<number> {
  const quarters = new Set<number>();
  const e = usage.entries;
  let last = NaN;
  for (let k = 0; k < shared.length; k++) {
    if (shared[k] !== 1) continue;
    const quarter = Math.floor(e[k * ENTRY_STRIDE]! / BLOCK_MS);
    if (quarter === last) continue;
    last = quarter;
    quarters.add(quarter);
  }
  return quarters;
}

/** One block of a session, as `forEachBlock` hands it on. */
export interface UsageBlockView extends UsageAmounts {
  /** The quarter hour (NaN: records without a time). */
  block: number;
  model: string;
  /** Its index in `FileUsage.models` (what `asked` names). */
  modelIndex: number;
  requests: number;
}

/** Calls `fn` with each block of `usage`; `except`: but those of these quarter hours (`inheritedQuarters`). */
export function forEachBlock(usage: FileUsage, fn: (block: UsageBlockView) => void, except?: ReadonlySet<number>): void {
  const b = usage.blocks;
  const view: UsageBlockView = { block: 0, model: "", modelIndex: 0, requests: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, estimated: 0, unpriced: 0 };
  for (let at = 0; at < b.length; at += BLOCK_STRIDE) {
    if (except?.has(b[at]!)) continue;
    view.block = b[at]!;
    view.modelIndex = b[at + 1]!;
    view.model = usage.models[view.modelIndex]!;
    view.requests = b[at + 2]!;
    amountsAt(b, at + 3, view);
    fn(view);
  }
}
