import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { contextMessages, contextSettingsAt, createFile, messageText, StatsCollector, TargetExistsError, type AgentMessage, type AnyEntry, type Session } from "../format/index.js";
import { BlockBuilder, type Block } from "../render/export-model.js";
import { HTML_FOOTER, htmlBlock, htmlHeader, markdownBlock, markdownHeader, type ExportMeta, type ExportStyle } from "../render/export-render.js";
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
    if (o.type === "image" && typeof o.data === "string") return { ...o, data: `[omitted: ${Math.floor((o.data.length * 3) / 4)} bytes]` };
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, placeholderImages(x)]));
  }
  return v;
}

/** Models, thinking levels, tokens and cost of the branch: only the entries that carry them are read. */
function branchStats(b: Branch) {
  const stats = new StatsCollector();
  const counted = new Set(["model_change", "thinking_level_change", "usage", "compaction", "branch_summary"]);
  let firstUser: string | undefined;
  for (const n of b.nodes) {
    const { type, role } = b.session.nodeKind(n);
    const wanted = counted.has(type ?? "") || (type === "message" && role === "assistant") || (type === "message" && role === "user" && firstUser === undefined);
    if (!wanted) continue;
    const e = b.session.entry(n);
    if (type === "message" && role === "user") {
      firstUser = messageText(e.message as AgentMessage) || undefined;
      continue;
    }
    stats.onRecord(e, b.session.nodeRecord(n));
  }
  return { ...stats.stats, firstUser };
}

function metaFor(b: Branch, options: ExportOptions, clean: (s: unknown) => string): ExportMeta {
  const h = b.session.header!;
  const s = branchStats(b);
  const title = clean(b.name ?? (s.firstUser ? s.firstUser.split("\n")[0]!.slice(0, 100) : `Session ${String(h.id)}`));
  const tally = (m: Record<string, number>) => Object.entries(m).map(([k, n]) => `${k} (${n})`).join(", ") || "-";
  const t = s.tokens;
  return {
    title,
    rows: [
      ["Session", clean(h.id), true],
      ["Working directory", clean(h.cwd), true],
      ["Created", clean(h.timestamp)],
      ["Leaf", clean(b.session.nodeId(b.leaf) ?? "-"), true],
      ["Models", clean(tally(s.models))],
      ["Thinking levels", clean(tally(s.thinkingLevels))],
      ["Tokens", `input ${t.input.toLocaleString("en-US")} · output ${t.output.toLocaleString("en-US")} · cache read ${t.cacheRead.toLocaleString("en-US")} · cache write ${t.cacheWrite.toLocaleString("en-US")} · total ${t.total.toLocaleString("en-US")}`],
      ["Cost", `$${s.cost.toFixed(4)}`],
      ["View", options.view === "path" ? "every entry on the branch" : "the model's context (after compaction and context edits)"],
    ],
  };
}

/** The branch's blocks, one entry (or context message) at a time. */
function* blocks(b: Branch, options: ExportOptions, builder: BlockBuilder): Generator<Block> {
  if (options.view === "context") {
    for (const m of contextMessages(b.session, b.leaf)) yield builder.message(m);
    return;
  }
  for (const n of b.nodes) yield* builder.entry(b.session.entry(n));
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
  const meta = metaFor(b, options, (s) => builder.clean(s));
  if (options.format === "md") {
    yield markdownHeader(meta);
    for (const block of blocks(b, options, builder)) yield markdownBlock(block, options);
    return;
  }
  yield htmlHeader(meta);
  for (const block of blocks(b, options, builder)) yield htmlBlock(block, options);
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
  for (const n of b.nodes) {
    yield `${first ? "\n" : ",\n"}    ${line(b.session.entry(n))}`;
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
