import type { LineRecord } from "../../format/read/line-table.js";
import { imageBytes, type ReadOptions } from "../../format/read/pass-two.js";
import type { AgentMessage, AnyEntry } from "../../format/schema/types.js";
import { StatsCollector } from "../../format/usage/stats.js";
import type { Block } from "./blocks.js";
import { BlockBuilder } from "./model.js";
import { ToolPairing } from "./tools.js";
import { htmlBlock, markdownBlock, type ExportStyle, type Pieces } from "./document.js";

/**
 * The path view of an export, one entry at a time: each entry of the branch becomes text (its
 * Markdown or HTML blocks, or its JSON line) and adds to the totals, so a branch of any length is
 * written as it is read.
 */

/** `jsonl`: the branch as a pi session file, as pi's own `/export` writes it (one line an entry). */
export type ExportFormat = "md" | "json" | "html" | "jsonl";

/** How an export renders. */
export interface RenderSetup extends ExportStyle {
  format: ExportFormat;
  /** Current labels: target id -> label. */
  labels: ReadonlyMap<string, string>;
  /** Context edits on the branch: target id -> what the last edit did. */
  edits: ReadonlyMap<string, "replaced" | "dropped">;
}

/** Entry types that carry models, thinking levels, tokens or cost. */
const COUNTED = new Set(["model_change", "thinking_level_change", "usage", "compaction", "branch_summary"]);

export function countsTowardTotals(type: string | undefined, role: string | undefined): boolean {
  return COUNTED.has(type ?? "") || (type === "message" && (role === "assistant" || role === "toolResult"));
}

/** Replaces image data by a short description (images: placeholder) in JSON output. */
function placeholderImages(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(placeholderImages);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (o.type === "image" && typeof o.data === "string") return { ...o, data: `[omitted: ${imageBytes(o)} bytes]` };
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, placeholderImages(x)]));
  }
  return v;
}

export class EntryRenderer {
  readonly builder: BlockBuilder;
  /** The branch's totals (models, thinking levels, tokens, cost), gathered as entries render. */
  readonly stats = new StatsCollector();
  /** Tool results put under their calls (not in a literal export: there each stands where it is). */
  private readonly pairing: ToolPairing | undefined;

  constructor(readonly setup: RenderSetup) {
    this.builder = new BlockBuilder(setup.labels, setup.edits, setup.literal === true);
    this.pairing = setup.literal ? undefined : new ToolPairing();
  }

  /** How to read entries for this export: image data only when it is embedded. */
  get readOptions(): ReadOptions {
    return { imageData: this.setup.images === "embed" ? "full" : "length" };
  }

  /** The JSON of a value as the export writes it: image data per option. */
  json(v: unknown): string {
    return JSON.stringify(this.setup.images === "placeholder" ? placeholderImages(v) : v);
  }

  /**
   * Pushes one entry's text onto `out`: its blocks (Markdown, in pieces; HTML) or its JSON line.
   * `record` is asked for only when the entry counts toward the totals.
   */
  render(out: Pieces, entry: AnyEntry, record: () => LineRecord): void {
    const role = entry.type === "message" ? (entry.message as AgentMessage | undefined)?.role : undefined;
    if (countsTowardTotals(entry.type, role)) this.stats.onRecord(entry, record());
    const { format } = this.setup;
    if (format === "json") {
      out.push(this.json(entry));
      return;
    }
    this.write(out, this.builder.entry(entry));
  }

  /** Pushes one message of a rebuilt context (`--view context`) onto `out`. */
  renderMessage(out: Pieces, message: AgentMessage): void {
    this.write(out, [this.builder.message(message)]);
  }

  /** Pushes what is still held back (an assistant message waiting for its results) onto `out`: at the branch's end. */
  finish(out: Pieces): void {
    if (this.pairing) this.writeNow(out, this.pairing.flush());
  }

  private write(out: Pieces, blocks: Block[]): void {
    if (!this.pairing) return this.writeNow(out, blocks);
    for (const block of blocks) this.writeNow(out, this.pairing.push(block));
  }

  private writeNow(out: Pieces, blocks: Block[]): void {
    for (const block of blocks) {
      if (this.setup.format === "md") markdownBlock(out, block, this.setup);
      else out.push(htmlBlock(block, this.setup));
    }
  }
}
