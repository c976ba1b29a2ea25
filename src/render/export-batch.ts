import { readLines, StatsCollector, type AgentMessage, type AnyEntry, type ByteSource, type LineRecord, type LineSpan, type ReadOptions, type SessionStats } from "../format/index.js";
import { BlockBuilder, imageDataLength } from "./export-model.js";
import { htmlBlock, markdownBlock, type ExportStyle } from "./export-render.js";
import { Redactor } from "./redact.js";

/**
 * The path view of an export, one entry at a time: each entry of the branch becomes text (its
 * Markdown or HTML blocks, or its JSON line) and adds to the totals. Entries render independently,
 * so a long branch can be split into batches rendered on several threads (see `export-worker.ts`)
 * and written in order.
 */

export type ExportFormat = "md" | "json" | "html";

/** What a worker needs to render like the main thread (plain data: it crosses threads). */
export interface RenderSetup extends ExportStyle {
  format: ExportFormat;
  redact: boolean;
  labels: Array<[string, string]>;
  /** Context edits on the branch: target id -> what the last edit did. */
  edits: Array<[string, "replaced" | "dropped"]>;
}

/** Entry types that carry models, thinking levels, tokens or cost. */
const COUNTED = new Set(["model_change", "thinking_level_change", "usage", "compaction", "branch_summary"]);

export function countsTowardTotals(type: string | undefined, role: string | undefined): boolean {
  return COUNTED.has(type ?? "") || (type === "message" && role === "assistant");
}

/** The totals one batch added, and what it redacted: merged in batch order by the main thread. */
export interface BatchTotals {
  models: SessionStats["models"];
  thinkingLevels: SessionStats["thinkingLevels"];
  tokens: SessionStats["tokens"];
  cost: number;
  redacted: number;
  redactedKinds: Array<[string, number]>;
}

/** Replaces image data by a short description (images: placeholder) in JSON output. */
function placeholderImages(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(placeholderImages);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (o.type === "image" && typeof o.data === "string") return { ...o, data: `[omitted: ${Math.floor((imageDataLength(o) * 3) / 4)} bytes]` };
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, placeholderImages(x)]));
  }
  return v;
}

export class EntryRenderer {
  readonly builder: BlockBuilder;
  private stats = new StatsCollector();
  private redactor: Redactor;

  constructor(readonly setup: RenderSetup) {
    this.redactor = new Redactor(setup.redact);
    this.builder = new BlockBuilder(this.redactor, new Map(setup.labels), new Map(setup.edits));
  }

  /** How to read entries for this export: image data only when it is embedded. */
  get readOptions(): ReadOptions {
    return { imageData: this.setup.images === "embed" ? "full" : "length" };
  }

  /** The JSON of a value as the export writes it: image data per option, redacted. */
  json(v: unknown): string {
    return JSON.stringify(this.redactor.value(this.setup.images === "placeholder" ? placeholderImages(v) : v));
  }

  /** One entry's text: its blocks (Markdown, HTML) or its JSON line. */
  render(entry: AnyEntry, record: LineRecord): string {
    const role = entry.type === "message" ? (entry.message as AgentMessage | undefined)?.role : undefined;
    if (countsTowardTotals(entry.type, role)) this.stats.onRecord(entry, record);
    const { format } = this.setup;
    if (format === "json") return this.json(entry);
    let out = "";
    for (const block of this.builder.entry(entry)) out += format === "md" ? markdownBlock(block, this.setup) : htmlBlock(block, this.setup);
    return out;
  }

  /** What was counted and redacted since the last call (then starts again from zero). */
  takeTotals(): BatchTotals {
    const { models, thinkingLevels, tokens, cost } = this.stats.stats;
    const totals = { models, thinkingLevels, tokens, cost, redacted: this.redactor.count, redactedKinds: [...this.redactor.kinds] };
    this.stats = new StatsCollector();
    this.redactor.count = 0;
    this.redactor.kinds.clear();
    return totals;
  }
}

/**
 * Reads, parses and renders a run of entries (v3 lines: no upgrade needed), returning their texts
 * (JSON lines joined as array items).
 */
export function renderBatch(source: ByteSource, spans: readonly LineSpan[], renderer: EntryRenderer): string {
  const texts: string[] = [];
  let k = 0;
  for (const value of readLines(source, spans, renderer.readOptions)) {
    const span = spans[k++]!;
    const record: LineRecord = { index: span.line - 1, line: span.line, offset: span.offset, length: span.length, kind: "entry", flags: 0, ordinal: -1, time: NaN, ...(typeof value.id === "string" ? { id: value.id } : {}) };
    texts.push(renderer.render(value as AnyEntry, record));
  }
  return texts.join(renderer.setup.format === "json" ? ",\n    " : "");
}

/** Adds one batch's totals to `stats` and `redactor`, keeping first-seen order (as one pass would). */
export function mergeTotals(stats: StatsCollector, redactor: Redactor, totals: BatchTotals): void {
  const s = stats.stats;
  for (const [k, n] of Object.entries(totals.models)) s.models[k] = (s.models[k] ?? 0) + n;
  for (const [k, n] of Object.entries(totals.thinkingLevels)) s.thinkingLevels[k] = (s.thinkingLevels[k] ?? 0) + n;
  for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) s.tokens[key] += totals.tokens[key];
  s.cost += totals.cost;
  redactor.count += totals.redacted;
  for (const [k, n] of totals.redactedKinds) redactor.kinds.set(k, (redactor.kinds.get(k) ?? 0) + n);
}

