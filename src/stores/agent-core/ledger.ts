import { idHash } from "../../format/common/hash.js";
import { messageUsageKey, pricingOf, TOOLS_AND_SUMMARIES, usageAmounts, type Pricing, type UsageAmounts } from "../../format/usage/records.js";
import type { Format4Entry, Format4Session } from "./format4.js";

/*
 * A format-4 session's usage is its ledger's alone (agent-core's `usage_ledger`): a row for each
 * request, the compactions' and summaries' requests included, and an adjustment repeating what a
 * pi v3 file's messages used when agent-core upgraded it; a fork copies none. Its messages' own
 * `usage` is not counted again. Each request is keyed as the v3 lines `migrate` writes hold it
 * (its entry's id and time), so that a session and its migrated copy count once: a summary's row
 * by the compaction or branch summary written after it, which carries its usage; an upgrade's
 * adjustment as the messages it repeats, where their usage sums to it exactly (their models
 * named, not `v3-import`).
 */

/** One request of the ledger as `usage` counts it: whose (a model, or what the row stands for), what it used, its entry's key and time. */
export interface LedgerRequest {
  key: string;
  amounts: UsageAmounts;
  /** `idHash` of the entry it is for (a copy of the session in v3 holds that entry: the two count once), else of the row. */
  entryKey: number;
  /** Milliseconds since the epoch: its entry's time, else that of the entry written after it (a summary's row precedes its entry), else the session's start. */
  time: number;
  /** What prices it where no cost is recorded: its message's provider and model, as the v3 lines hold them (none: a summary's, an adjustment's). */
  pricing?: Pricing;
}

const isUsage = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && typeof (u as { input?: unknown }).input === "number";

export function ledgerOf(session: Format4Session): LedgerRequest[] {
  const byId = new Map(session.entries.map((e) => [e.id, e]));
  const bySeq = session.entries.map((e) => e.seq);
  /** The first entry written after sequence `seq` (binary search: entries are in sequence order). */
  const after = (seq: number) => {
    let lo = 0;
    let hi = bySeq.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (bySeq[mid]! <= seq) lo = mid + 1;
      else hi = mid;
    }
    return session.entries[lo] ?? session.entries[session.entries.length - 1];
  };
  const claimed = new Set(session.ledger.flatMap((row) => (row.entryId !== undefined ? [row.entryId] : [])));
  const out: LedgerRequest[] = [];
  for (const row of session.ledger) {
    if (!isUsage(row.usage)) continue;
    const amounts = usageAmounts(row.usage);
    if (row.adjustment) {
      // (an upgrade's row repeats what the v3 file's messages used: counted as those requests, where it is exactly that)
      const repeated = repeatedMessages(session.entries, row.seq, claimed, amounts);
      if (repeated) {
        out.push(...repeated);
        continue;
      }
    }
    const entry = row.entryId !== undefined ? byId.get(row.entryId) : undefined;
    const key = row.adjustment ? adjustmentKey(row.details) : (messageKey(entry) ?? TOOLS_AND_SUMMARIES);
    // (a summary's row is written just before the compaction or branch summary it is for, which carries the same usage)
    const next = entry === undefined ? after(row.seq) : undefined;
    const summary = next && (next.type === "compaction" || next.type === "branch_summary") && isUsage(next.usage) && sameAmounts(usageAmounts(next.usage), amounts) ? next : undefined;
    const time = (entry ?? next)?.timestamp ?? session.createdAt;
    out.push({ key, amounts, entryKey: idHash(row.entryId ?? summary?.id ?? row.id), time, ...(row.adjustment ? {} : messagePricing(entry, row.usage)) });
  }
  return out;
}

type Message = { role?: unknown; provider?: unknown; model?: unknown; responseModel?: unknown; usage?: unknown };

/** A message entry's provider and model, which price a request of it (`usage`: the row's, for its hour-long cache writes). */
function messagePricing(entry: Format4Entry | undefined, usage: unknown): { pricing?: Pricing } {
  const message = entry?.type === "message" ? (entry.message as Message | undefined) : undefined;
  return message?.role === "assistant" ? pricingOf(message.provider, message.model, usage) : {};
}

function messageKey(entry: Format4Entry | undefined): string | undefined {
  const message = entry?.type === "message" ? (entry.message as Message | undefined) : undefined;
  return message ? messageUsageKey(message.role, message.provider, message.model, message.responseModel) : undefined;
}

const sameAmounts = (a: UsageAmounts, b: UsageAmounts) =>
  a.input === b.input && a.output === b.output && a.cacheRead === b.cacheRead && a.cacheWrite === b.cacheWrite && Math.abs(a.cost - b.cost) < 1e-9;

/**
 * The requests an adjustment row written at `seq` repeats: the messages written before it with
 * usage no other row is for, where their usage sums to the row's exactly; else undefined.
 */
function repeatedMessages(entries: readonly Format4Entry[], seq: number, claimed: ReadonlySet<string>, row: UsageAmounts): LedgerRequest[] | undefined {
  const out: LedgerRequest[] = [];
  const sum: UsageAmounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  for (const entry of entries) {
    if (entry.seq >= seq) break;
    const usage = entry.type === "message" ? (entry.message as Message | undefined)?.usage : undefined;
    const key = messageKey(entry);
    if (!isUsage(usage) || key === undefined || claimed.has(entry.id)) continue;
    const amounts = usageAmounts(usage);
    for (const k of ["input", "output", "cacheRead", "cacheWrite", "cost"] as const) sum[k] += amounts[k];
    out.push({ key, amounts, entryKey: idHash(entry.id), time: entry.timestamp, ...messagePricing(entry, usage) });
  }
  return out.length > 0 && sameAmounts(sum, row) ? out : undefined;
}

/** What an adjustment row stands for: agent-core's `details.source` (`v3-import`), else "adjustment". */
function adjustmentKey(details: unknown): string {
  const source = (details as { source?: unknown } | undefined)?.source;
  return typeof source === "string" && source !== "" ? source : "adjustment";
}
