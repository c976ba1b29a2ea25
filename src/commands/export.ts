import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { contextMessages, contextSettingsAt, createFile, messageText, StatsCollector, TargetExistsError, type AgentMessage, type AnyEntry, type ReadOptions, type Session } from "../format/index.js";
import { BlockBuilder, imageDataLength, type Block } from "../render/export-model.js";
import { HTML_FOOTER, htmlBlock, htmlHeader, htmlTotals, markdownBlock, markdownHeader, markdownTotals, type ExportMeta, type ExportStyle } from "../render/export-render.js";
import { Redactor } from "../render/redact.js";
import type { Sink } from "../render/sink.js";
import { readShape } from "./common.js";
import { nodeFor } from "./path.js";

export type ExportFormat = "md" | "json" | "html";

export interface ExportOptions extends ExportStyle {
  file: string;
  leaf?: string;
  format: ExportFormat;
  view: "path" | "context";
  redact: boolean;
  out?: string;
  force?: boolean;
}

interface Branch {
  session: Session;
  nodes: number[];
  leaf: number;
  labels: Map<string, string>;
  name: string | undefined;
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

/** Image data is read only to be embedded; a placeholder needs just its length. */
function readOptions(options: ExportOptions): ReadOptions {
  return { imageData: options.images === "embed" ? "full" : "length" };
}

/** Entry types that carry models, thinking levels, tokens or cost. */
const COUNTED = new Set(["model_change", "thinking_level_change", "usage", "compaction", "branch_summary"]);

function counts(type: string | undefined, role: string | undefined): boolean {
  return COUNTED.has(type ?? "") || (type === "message" && role === "assistant");
}

/** Totals of the branch, reading only the entries that carry them (for the context view). */
function branchStats(b: Branch): StatsCollector {
  const stats = new StatsCollector();
  for (const n of b.nodes) {
    const { type, role } = b.session.nodeKind(n);
    if (counts(type, role)) stats.onRecord(b.session.entry(n), b.session.nodeRecord(n));
  }
  return stats;
}

/** The title: the session's name, else the first user message of the branch. */
function titleOf(b: Branch): string {
  if (b.name) return b.name;
  const first = b.nodes.find((n) => {
    const k = b.session.nodeKind(n);
    return k.type === "message" && k.role === "user";
  });
  const text = first === undefined ? "" : messageText(b.session.entry(first).message as AgentMessage);
  return text ? text.split("\n")[0]!.slice(0, 100) : `Session ${String(b.session.header!.id)}`;
}

function headerMeta(b: Branch, options: ExportOptions, clean: (s: unknown) => string): ExportMeta {
  const h = b.session.header!;
  return {
    title: clean(titleOf(b)),
    rows: [
      ["Session", clean(h.id), true],
      ["Working directory", clean(h.cwd), true],
      ["Created", clean(h.timestamp)],
      ["Leaf", clean(b.session.nodeId(b.leaf) ?? "-"), true],
      ["View", options.view === "path" ? "every entry on the branch" : "the model's context (after compaction and context edits)"],
    ],
  };
}

/** Models, thinking levels, tokens and cost of the branch: a closing block, so one pass suffices. */
function totalsMeta(stats: StatsCollector, clean: (s: unknown) => string): ExportMeta {
  const s = stats.stats;
  const tally = (m: Record<string, number>) => Object.entries(m).map(([k, n]) => `${k} (${n})`).join(", ") || "none";
  const t = s.tokens;
  return {
    title: "Totals",
    rows: [
      ["Models", clean(tally(s.models))],
      ["Thinking levels", clean(tally(s.thinkingLevels))],
      ["Tokens", `input ${t.input.toLocaleString("en-US")} · output ${t.output.toLocaleString("en-US")} · cache read ${t.cacheRead.toLocaleString("en-US")} · cache write ${t.cacheWrite.toLocaleString("en-US")} · total ${t.total.toLocaleString("en-US")}`],
      ["Cost", `$${s.cost.toFixed(4)}`],
    ],
  };
}

/** The branch's blocks, one entry (or context message) at a time; totals gathered on the way. */
function* blocks(b: Branch, options: ExportOptions, builder: BlockBuilder, stats: StatsCollector): Generator<Block> {
  if (options.view === "context") {
    for (const m of contextMessages(b.session, b.leaf)) yield builder.message(m);
    return;
  }
  for (const { node, entry } of b.session.entriesInOrder(b.nodes, readOptions(options))) {
    const { type, role } = b.session.nodeKind(node);
    if (counts(type, role)) stats.onRecord(entry, b.session.nodeRecord(node));
    yield* builder.entry(entry);
  }
}

/** The document, in chunks. */
function* document(b: Branch, options: ExportOptions, redactor: Redactor): Generator<string> {
  const edits = new Map<string, "replaced" | "dropped">();
  if (options.view === "path") {
    for (const n of b.nodes) {
      if (b.session.nodeKind(n).type !== "context_edit") continue;
      const e = b.session.entry(n) as AnyEntry & { targetId?: unknown; replacement?: unknown };
      if (typeof e.targetId === "string") edits.set(e.targetId, e.replacement === null ? "dropped" : "replaced");
    }
  }
  const builder = new BlockBuilder(redactor, b.labels, edits);
  if (options.format === "json") {
    yield* jsonDocument(b, options, redactor);
    return;
  }
  const clean = (s: unknown) => builder.clean(s);
  const meta = headerMeta(b, options, clean);
  const stats = options.view === "context" ? branchStats(b) : new StatsCollector();
  if (options.format === "md") {
    yield markdownHeader(meta);
    for (const block of blocks(b, options, builder, stats)) yield markdownBlock(block, options);
    yield markdownTotals(totalsMeta(stats, clean));
    return;
  }
  yield htmlHeader(meta);
  for (const block of blocks(b, options, builder, stats)) yield htmlBlock(block, options);
  yield htmlTotals(totalsMeta(stats, clean));
  yield HTML_FOOTER;
}

/** JSON: the branch's entries (path view) or pi's context (context view), redacted, images per option. */
function* jsonDocument(b: Branch, options: ExportOptions, redactor: Redactor): Generator<string> {
  const prep = (v: unknown) => redactor.value(options.images === "placeholder" ? placeholderImages(v) : v);
  const line = (v: unknown) => JSON.stringify(prep(v));
  if (options.view === "context") {
    const settings = contextSettingsAt(b.session, b.leaf);
    yield '{\n  "messages": [';
    let first = true;
    for (const m of contextMessages(b.session, b.leaf)) {
      yield `${first ? "\n" : ",\n"}    ${line(m)}`;
      first = false;
    }
    yield `${first ? "]" : "\n  ]"},\n  "thinkingLevel": ${JSON.stringify(settings.thinkingLevel)},\n  "model": ${JSON.stringify(settings.model)},\n  "activeToolNames": ${JSON.stringify(settings.activeToolNames)}\n}\n`;
    return;
  }
  yield `{\n  "header": ${line(b.session.header)},\n  "leaf": ${JSON.stringify(b.session.nodeId(b.leaf) ?? null)},\n  "entries": [`;
  let first = true;
  for (const { entry } of b.session.entriesInOrder(b.nodes, readOptions(options))) {
    yield `${first ? "\n" : ",\n"}    ${line(entry)}`;
    first = false;
  }
  yield `${first ? "]" : "\n  ]"}\n}\n`;
}

export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  const options: ExportOptions = {
    file: args.file as string,
    leaf: args.leaf as string | undefined,
    format: (args.format as ExportFormat) ?? "md",
    view: (args.view as "path" | "context") ?? "path",
    thinking: (args.thinking as ExportStyle["thinking"]) ?? "collapsed",
    toolResults: (args.toolResults as ExportStyle["toolResults"]) ?? "collapsed",
    images: (args.images as ExportStyle["images"]) ?? "placeholder",
    redact: args.redact === true,
    out: args.out as string | undefined,
    force: args.force === true,
  };
  const { session, labels, name } = await readShape(options.file, ctx);
  let branch: Branch;
  try {
    if (!session.header) throw new CliError(`${session.name}: no session header; run \`pi-session repair\` first, then export`);
    const leaf = options.leaf !== undefined ? nodeFor(session, options.leaf) : session.leafNode;
    if (leaf === -1) throw new CliError(`${session.name}: the session has no entries to export`);
    branch = { session, nodes: session.tree.pathTo(leaf), leaf, labels, name };
  } catch (error) {
    session.close();
    throw error;
  }
  const redactor = new Redactor(options.redact);
  const report = () => {
    if (options.redact) ctx.warn(`redacted ${redactor.count} credential-shaped string${redactor.count === 1 ? "" : "s"}${redactor.count ? ` (${redactor.summary()})` : ""}`);
  };
  if (options.out) {
    try {
      createFile(options.out, (write) => {
        for (const chunk of document(branch, options, redactor)) write(chunk);
      }, { force: options.force });
    } catch (error) {
      if (error instanceof TargetExistsError) throw new CliError(`${options.out} already exists; pass --force to replace it`);
      throw error;
    } finally {
      session.close();
    }
    report();
    return { human: ctx.json ? "" : `${options.out}\n`, json: { file: options.out, format: options.format, view: options.view, redacted: redactor.count }, exitCode: ExitCode.Ok };
  }
  const stream = async (out: Sink) => {
    try {
      for (const chunk of document(branch, options, redactor)) await out.write(chunk);
    } finally {
      session.close();
    }
    report();
  };
  return { stream, exitCode: ExitCode.Ok };
}
