import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { contextMessages, contextSettingsAt, createFileAsync, CURRENT_VERSION, FileSource, messageText, StatsCollector, TargetExistsError, type AgentMessage, type AnyEntry, type LineSpan, type Session } from "../format/index.js";
import { countsTowardTotals, EntryRenderer, mergeTotals, renderBatch, type BatchTotals, type ExportFormat } from "../render/export-batch.js";
import { HTML_FOOTER, htmlBlock, htmlHeader, htmlTotals, markdownBlock, markdownHeader, markdownTotals, type ExportMeta, type ExportStyle } from "../render/export-render.js";
import { Redactor } from "../render/redact.js";
import type { Sink } from "../render/sink.js";
import { readShape } from "./common.js";
import type { BatchRequest } from "./export-worker.js";
import { nodeFor } from "./path.js";

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
  nodes: number[];
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
      ["Tokens", `input ${t.input.toLocaleString("en-US")} · output ${t.output.toLocaleString("en-US")} · cache read ${t.cacheRead.toLocaleString("en-US")} · cache write ${t.cacheWrite.toLocaleString("en-US")} · total ${t.total.toLocaleString("en-US")}`],
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
 * The document, in chunks. Totals (and redaction counts) gather in `totals` and `tally`, batch by
 * batch in branch order, so the Markdown and HTML can close with them after one pass.
 */
async function* document(b: Branch, options: ExportOptions, renderer: EntryRenderer, totals: StatsCollector, tally: Redactor, ctx: CommandContext): AsyncGenerator<string> {
  const clean = (s: unknown) => renderer.builder.clean(s);
  const format = options.format;
  if (format === "json") {
    if (options.view === "context") {
      yield* jsonContext(b, renderer);
    } else {
      yield `{\n  "header": ${renderer.json(b.session.header)},\n  "leaf": ${JSON.stringify(b.session.nodeId(b.leaf) ?? null)},\n  "entries": [`;
      let first = true;
      for await (const run of pathTexts(b, renderer, totals, tally, ctx)) {
        if (run === "") continue;
        yield `${first ? "\n" : ",\n"}    ${run}`;
        first = false;
      }
      yield `${first ? "]" : "\n  ]"}\n}\n`;
    }
    mergeTotals(totals, tally, renderer.takeTotals());
    return;
  }
  const meta = headerMeta(b, options, clean);
  yield format === "md" ? markdownHeader(meta) : htmlHeader(meta);
  if (options.view === "context") {
    for (const m of contextMessages(b.session, b.leaf)) {
      const block = renderer.builder.message(m);
      yield format === "md" ? markdownBlock(block, options) : htmlBlock(block, options);
    }
    const stats = branchStats(b);
    mergeTotals(totals, tally, { ...stats.stats, redacted: 0, redactedKinds: [] });
  } else {
    for await (const run of pathTexts(b, renderer, totals, tally, ctx)) yield run;
  }
  mergeTotals(totals, tally, renderer.takeTotals());
  const closing = totalsMeta(totals, clean);
  mergeTotals(totals, tally, renderer.takeTotals());
  if (format === "md") yield markdownTotals(closing);
  else {
    yield htmlTotals(closing);
    yield HTML_FOOTER;
  }
}

/** JSON, context view: pi's context, redacted, images per option. */
function* jsonContext(b: Branch, renderer: EntryRenderer): Generator<string> {
  const settings = contextSettingsAt(b.session, b.leaf);
  yield '{\n  "messages": [';
  let first = true;
  for (const m of contextMessages(b.session, b.leaf)) {
    yield `${first ? "\n" : ",\n"}    ${renderer.json(m)}`;
    first = false;
  }
  yield `${first ? "]" : "\n  ]"},\n  "thinkingLevel": ${JSON.stringify(settings.thinkingLevel)},\n  "model": ${JSON.stringify(settings.model)},\n  "activeToolNames": ${JSON.stringify(settings.activeToolNames)}\n}\n`;
}

/** Below this many bytes of entries to parse, a worker thread costs more than it saves. */
const PARALLEL_FROM = 8 * 1024 * 1024;
/** Bytes of entries per batch. */
const BATCH_BYTES = 2 * 1024 * 1024;

/**
 * The path view's texts: of each entry, or of batches of entries. A long branch of a v3 file is
 * split into batches, every other one rendered on a worker thread while this thread renders the
 * rest and writes: parsing and rendering are most of an export's time, and they are independent
 * per entry. The output is the same either way (tests compare the two).
 */
async function* pathTexts(b: Branch, renderer: EntryRenderer, totals: StatsCollector, tally: Redactor, ctx: CommandContext): AsyncGenerator<string> {
  const { session, nodes } = b;
  const batches = planBatches(b, renderer);
  const threads = Number(ctx.env.PI_SESSION_THREADS) || availableParallelism();
  if (!batches || threads < 2 || !(session.source instanceof FileSource) || session.version < CURRENT_VERSION) {
    const json = renderer.setup.format === "json";
    for (const { node, entry } of session.entriesInOrder(nodes, renderer.readOptions)) {
      const text = renderer.render(entry, session.nodeRecord(node));
      if (json || text) yield text;
    }
    return;
  }
  const worker = new Worker(new URL("./export-worker.js", import.meta.url), { workerData: { file: session.source.name, setup: renderer.setup } });
  const waiting = new Map<number, { resolve: (r: BatchResult) => void; reject: (e: Error) => void }>();
  const results = new Map<number, Promise<BatchResult>>();
  const fail = (error: Error) => {
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  worker.on("message", (r: BatchResult) => {
    waiting.get(r.id)?.resolve(r);
    waiting.delete(r.id);
  });
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`export worker exited with ${code}`)));
  const send = (id: number) => {
    if (id >= batches.length) return;
    results.set(id, new Promise<BatchResult>((resolve, reject) => waiting.set(id, { resolve, reject })));
    worker.postMessage({ id, spans: batches[id]! } satisfies BatchRequest);
  };
  // The worker takes the odd batches, at most two ahead of the writing.
  send(1);
  send(3);
  try {
    for (let id = 0; id < batches.length; id++) {
      if (id % 2 === 0) {
        yield renderBatch(session.source, batches[id]!, renderer);
        mergeTotals(totals, tally, renderer.takeTotals());
        continue;
      }
      const r = await results.get(id)!;
      results.delete(id);
      if (r.error !== undefined) throw new Error(r.error);
      mergeTotals(totals, tally, r.totals!);
      send(id + 4);
      yield r.text!;
    }
  } finally {
    worker.removeAllListeners("exit");
    await worker.terminate();
  }
}

interface BatchResult {
  id: number;
  text?: string;
  totals?: BatchTotals;
  error?: string;
}

/** The branch's lines in batches of about `BATCH_BYTES` to parse; undefined when too few to share. */
function planBatches(b: Branch, renderer: EntryRenderer): LineSpan[][] | undefined {
  const omitsLong = renderer.readOptions.imageData === "length";
  const spans = b.nodes.map((n) => b.session.nodeSpan(n));
  const cost = (s: LineSpan) => s.length - (omitsLong && s.longStart >= 0 ? s.longEnd - s.longStart : 0);
  let total = 0;
  for (const s of spans) total += cost(s);
  if (total < PARALLEL_FROM) return undefined;
  const batches: LineSpan[][] = [];
  let current: LineSpan[] = [];
  let size = 0;
  for (const s of spans) {
    current.push(s);
    size += cost(s);
    if (size >= BATCH_BYTES) {
      batches.push(current);
      current = [];
      size = 0;
    }
  }
  if (current.length > 0) batches.push(current);
  return batches;
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
  const renderer = new EntryRenderer({
    format: options.format,
    thinking: options.thinking,
    toolResults: options.toolResults,
    images: options.images,
    redact: options.redact,
    labels: [...labels],
    edits: options.view === "path" ? [...branchEdits(branch)] : [],
  });
  const totals = new StatsCollector();
  const tally = new Redactor(options.redact);
  const report = () => {
    if (options.redact) ctx.warn(`redacted ${tally.count} credential-shaped string${tally.count === 1 ? "" : "s"}${tally.count ? ` (${tally.summary()})` : ""}`);
  };
  const chunks = () => document(branch, options, renderer, totals, tally, ctx);
  if (options.out) {
    try {
      await createFileAsync(options.out, async (write) => {
        for await (const chunk of chunks()) write(chunk);
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
      for await (const chunk of chunks()) await out.write(chunk);
    } finally {
      session.close();
    }
    report();
  };
  return { stream, exitCode: ExitCode.Ok };
}
