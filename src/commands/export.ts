import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { contextMessages, contextSettingsAt, createFile, messageText, StatsCollector, TargetExistsError, type AgentMessage, type AnyEntry, type Session } from "../format/index.js";
import { countsTowardTotals, EntryRenderer, type ExportFormat } from "../render/export-entry.js";
import { HTML_FOOTER, htmlBlock, htmlHeader, htmlTotals, markdownBlock, markdownHeader, markdownTotals, type ExportMeta, type ExportStyle, type Pieces } from "../render/export-render.js";
import { writeAll, type Sink } from "../render/sink.js";
import { readShape } from "./common.js";
import { nodeFor } from "./path.js";
import { formatCount, plural } from "../render/text.js";

export type { ExportFormat };

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
  nodes: Int32Array;
  leaf: number;
  labels: Map<string, string>;
  name: string | undefined;
}

/** Totals of the branch, reading only the entries that carry them (for the context view). */
function branchStats(b: Branch): StatsCollector {
  const stats = new StatsCollector();
  for (const n of b.nodes) {
    const { type, role } = b.session.nodeKind(n);
    if (countsTowardTotals(type, role)) stats.onRecord(b.session.entry(n), b.session.nodeRecord(n));
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
      ["Tokens", `input ${formatCount(t.input)} · output ${formatCount(t.output)} · cache read ${formatCount(t.cacheRead)} · cache write ${formatCount(t.cacheWrite)} · total ${formatCount(t.total)}`],
      ["Cost", `$${s.cost.toFixed(4)}`],
    ],
  };
}

/** Context edits on the branch (path view): target id -> replaced or dropped in later contexts. */
function branchEdits(b: Branch): Map<string, "replaced" | "dropped"> {
  const edits = new Map<string, "replaced" | "dropped">();
  for (const n of b.nodes) {
    if (b.session.nodeKind(n).type !== "context_edit") continue;
    const e = b.session.entry(n) as AnyEntry & { targetId?: unknown; replacement?: unknown };
    if (typeof e.targetId === "string") edits.set(e.targetId, e.replacement === null ? "dropped" : "replaced");
  }
  return edits;
}

/**
 * The document, as lists of pieces (one step of the generator an entry, not a piece: an export of
 * 1 GB has over a million pieces). The Markdown and HTML close with the branch's totals (one pass).
 */
function* document(b: Branch, options: ExportOptions, renderer: EntryRenderer): Generator<Pieces> {
  const clean = (s: unknown) => renderer.builder.clean(s);
  const format = options.format;
  if (format === "json") {
    yield* options.view === "context" ? jsonContext(b, renderer) : jsonPath(b, renderer);
    return;
  }
  yield [format === "md" ? markdownHeader(headerMeta(b, options, clean)) : htmlHeader(headerMeta(b, options, clean), options.literal)];
  let stats: StatsCollector;
  if (options.view === "context") {
    const out: Pieces = [];
    for (const m of contextMessages(b.session, b.leaf)) {
      const block = renderer.builder.message(m);
      if (format === "md") markdownBlock(out, block, options);
      else out.push(htmlBlock(block, options));
      yield out;
      out.length = 0;
    }
    stats = branchStats(b);
  } else {
    const out: Pieces = [];
    for (const { node, entry } of b.session.entriesInOrder(b.nodes, renderer.readOptions)) {
      renderer.render(out, entry, () => b.session.nodeRecord(node));
      yield out;
      out.length = 0;
    }
    stats = renderer.stats;
  }
  const closing = totalsMeta(stats, clean);
  if (format === "md") yield [markdownTotals(closing)];
  else {
    yield [htmlTotals(closing)];
    yield [HTML_FOOTER];
  }
}

/** JSON, path view: the branch's entries, redacted, images per option. */
function* jsonPath(b: Branch, renderer: EntryRenderer): Generator<Pieces> {
  yield [`{\n  "header": ${renderer.json(b.session.header)},\n  "leaf": ${JSON.stringify(b.session.nodeId(b.leaf) ?? null)},\n  "entries": [`];
  let first = true;
  for (const { node, entry } of b.session.entriesInOrder(b.nodes, renderer.readOptions)) {
    const out: Pieces = [first ? "\n    " : ",\n    "];
    renderer.render(out, entry, () => b.session.nodeRecord(node));
    yield out;
    first = false;
  }
  yield [`${first ? "]" : "\n  ]"}\n}\n`];
}

/** JSON, context view: pi's context, redacted, images per option. */
function* jsonContext(b: Branch, renderer: EntryRenderer): Generator<Pieces> {
  const settings = contextSettingsAt(b.session, b.leaf);
  yield ['{\n  "messages": ['];
  let first = true;
  for (const m of contextMessages(b.session, b.leaf)) {
    yield [`${first ? "\n" : ",\n"}    ${renderer.json(m)}`];
    first = false;
  }
  yield [`${first ? "]" : "\n  ]"},\n  "thinkingLevel": ${JSON.stringify(settings.thinkingLevel)},\n  "model": ${JSON.stringify(settings.model)},\n  "activeToolNames": ${JSON.stringify(settings.activeToolNames)}\n}\n`];
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
    literal: args.literal === true,
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
  const renderer = new EntryRenderer({
    format: options.format,
    thinking: options.thinking,
    toolResults: options.toolResults,
    images: options.images,
    literal: options.literal,
    redact: options.redact,
    labels,
    edits: options.view === "path" ? branchEdits(branch) : new Map(),
  });
  const tally = renderer.redactor;
  const report = () => {
    if (options.redact) ctx.warn(`redacted ${plural(tally.count, "credential-shaped string")}${tally.count ? ` (${tally.summary()})` : ""}`);
  };
  if (options.out) {
    try {
      createFile(options.out, (write) => {
        for (const pieces of document(branch, options, renderer)) for (const piece of pieces) write(piece);
      }, { force: options.force });
    } catch (error) {
      if (error instanceof TargetExistsError) throw new CliError(`${options.out} already exists; pass --force to replace it`);
      throw error;
    } finally {
      session.close();
    }
    report();
    return { human: ctx.json ? "" : `${options.out}\n`, json: { file: options.out, format: options.format, view: options.view, redacted: tally.count }, exitCode: ExitCode.Ok };
  }
  const stream = async (out: Sink) => {
    try {
      for (const pieces of document(branch, options, renderer)) await writeAll(out, pieces);
    } finally {
      session.close();
    }
    report();
  };
  return { stream, exitCode: ExitCode.Ok };
}
