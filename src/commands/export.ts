import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { isDevice, isStdout, wouldReplace, writeToDevice } from "../support/writers/output.js";
import { CliError, ExitCode } from "../errors.js";
import { contextMessages, contextSettingsAt } from "../format/context/branch.js";
import { CURRENT_VERSION, messageText, type AgentMessage, type AnyEntry } from "../format/schema/types.js";
import { messageGist } from "../format/session/labels.js";
import type { Session } from "../format/session/session.js";
import { StatsCollector } from "../format/usage/stats.js";
import { createFile, TargetExistsError } from "../format/write/atomic.js";
import { countsTowardTotals, EntryRenderer, type ExportFormat } from "../render/export/entry.js";
import { HTML_FOOTER, htmlHeader, htmlTotals, markdownHeader, markdownTotals, type ExportMeta, type ExportStyle, type Pieces } from "../render/export/document.js";
import { writeAll, type Sink } from "../render/sink.js";
import { nodeFor, readShape } from "../support/inputs/read.js";
import type { SourceAs } from "../support/inputs/input.js";
import { Redaction } from "../support/inputs/redacted.js";
import { formatCount, plural } from "../render/units.js";
import { graphemes } from "../render/width.js";
import { transcriptFacts } from "../stores/index.js";

export type { ExportFormat };

export interface ExportOptions extends ExportStyle {
  file: string;
  leaf?: string;
  format: ExportFormat;
  view: "path" | "context";
  /** The session exported as `redact` writes it (a copy with every secret replaced). */
  redact: boolean;
  /** With `redact`: what `redact --secret` and `--deny` take. */
  secrets?: string[];
  deny?: string[];
  out?: string;
  force?: boolean;
}

export function options(args: Args): ExportOptions {
  const secrets = args.repeated("secret");
  const deny = args.repeated("deny");
  if ((secrets.length > 0 || deny.length > 0) && !args.flag("redact")) throw new CliError(`${secrets.length > 0 ? "--secret" : "--deny"} says what --redact replaces: add --redact`);
  return {
    file: args.string("file"),
    leaf: args.optionalString("leaf"),
    format: args.choice("format", ["md", "json", "html", "jsonl"] as const, "md"),
    view: args.choice("view", ["path", "context"] as const, "path"),
    thinking: args.choice("thinking", ["collapsed", "full", "omit"] as const, "collapsed"),
    toolResults: args.choice("toolResults", ["collapsed", "full", "omit"] as const, "collapsed"),
    images: args.choice("images", ["placeholder", "embed"] as const, "placeholder"),
    literal: args.flag("literal"),
    redact: args.flag("redact"),
    secrets,
    deny,
    out: args.optionalString("out"),
    force: args.flag("force"),
  };
}

interface Branch {
  session: Session;
  nodes: Int32Array;
  leaf: number;
  labels: Map<string, string>;
  name: string | undefined;
  /** With `--redact`: a text from outside the session's lines (its store's label and key) redacted as they are. */
  redactText?: (text: string) => string;
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

const TITLE_LENGTH = 100;

/**
 * A first message cut to a title: at most `max` characters (whole ones: an emoji or a letter
 * and its marks is never split), at the last space within them where there is one in its second
 * half (text without spaces, Chinese say, is cut where it reaches `max`), and an ellipsis.
 */
function titleCut(text: string, max: number): string {
  const chars = [...graphemes(text)];
  if (chars.length <= max) return text;
  const head = chars.slice(0, max).join("");
  const space = head.lastIndexOf(" ");
  return `${(space > head.length / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** The title: the session's name, else the first user message of the branch. */
function titleOf(b: Branch): string {
  if (b.name) return b.name;
  const first = b.nodes.find((n) => {
    const k = b.session.nodeKind(n);
    return k.type === "message" && k.role === "user";
  });
  const text = first === undefined ? "" : messageGist(messageText(b.session.entry(first).message as AgentMessage));
  return text ? titleCut(text.split("\n")[0]!, TITLE_LENGTH) : `Session ${String(b.session.header!.id)}`;
}

function headerMeta(b: Branch, options: ExportOptions, clean: (s: unknown) => string): ExportMeta {
  const h = b.session.header!;
  // (an OpenClaw transcript: its label is its title where it has no name, and its key and agent are said)
  const facts = b.session.name === "<stdin>" ? undefined : transcriptFacts(b.session.name);
  const found = facts?.store === "openclaw" ? facts : undefined;
  // (what the store says of the transcript is no line of it: redacted here, as its lines were)
  const redact = b.redactText ?? ((text: string) => text);
  const claw = found ? { ...found, key: found.key === undefined || found.key === null ? found.key : redact(found.key), label: found.label === undefined || found.label === null ? found.label : redact(found.label), agent: found.agent === undefined || found.agent === null ? found.agent : redact(found.agent) } : undefined;
  return {
    title: clean(b.name ? titleOf(b) : (claw?.label ?? titleOf(b))),
    rows: [
      ["Session", clean(h.id), true],
      ...(claw?.key ? [["OpenClaw key", clean(claw.key), true] as [string, string, boolean]] : []),
      ...(claw ? [["OpenClaw agent", clean(claw.agent ?? "?")] as [string, string]] : []),
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
  if (format === "jsonl") {
    yield* sessionBranch(b);
    return;
  }
  yield [format === "md" ? markdownHeader(headerMeta(b, options, clean)) : htmlHeader(headerMeta(b, options, clean), options.literal)];
  let stats: StatsCollector;
  const out: Pieces = [];
  if (options.view === "context") {
    for (const m of contextMessages(b.session, b.leaf)) {
      renderer.renderMessage(out, m);
      yield out;
      out.length = 0;
    }
    stats = branchStats(b);
  } else {
    for (const { node, entry } of b.session.entriesInOrder(b.nodes, renderer.readOptions)) {
      renderer.render(out, entry, () => b.session.nodeRecord(node));
      yield out;
      out.length = 0;
    }
    stats = renderer.stats;
  }
  renderer.finish(out);
  yield out;
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

/**
 * JSONL: the branch as a session file of its own, as pi's `/export` writes it: a v3 header (the
 * session's id and cwd, the time of the export), then each entry of the branch, root first, as pi
 * read it, its `parentId` the entry before it (the first's null). Entries are written whole: the
 * file is for pi, `repair`, `jq`, not for reading (images kept; with `--redact`, the redacted
 * session's entries).
 */
function* sessionBranch(b: Branch): Generator<Pieces> {
  const h = b.session.header;
  yield [`${JSON.stringify({ type: "session", version: CURRENT_VERSION, id: h?.id, timestamp: new Date().toISOString(), cwd: h?.cwd })}\n`];
  let parentId: string | null = null;
  for (const { entry } of b.session.entriesInOrder(b.nodes, { imageData: "full" })) {
    const id = (entry as { id?: unknown }).id;
    yield [`${JSON.stringify({ ...entry, parentId })}\n`];
    parentId = typeof id === "string" ? id : parentId;
  }
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

/**
 * The export of a branch, open: its document is made piece by piece as it is written (one pass
 * over the branch's lines).
 */
export class ExportDocument {
  constructor(
    private readonly branch: Branch,
    readonly options: ExportOptions,
    private readonly renderer: EntryRenderer,
    /** With `--redact`: the secrets replaced in the session (every branch's), by kind. */
    readonly redacted?: { count: number; kinds: Record<string, number> },
  ) {}

  /** The document, a list of pieces at a time. */
  pieces(): Generator<Pieces> {
    return document(this.branch, this.options, this.renderer);
  }

  close(): void {
    this.branch.session.close();
  }
}

/** Opens the branch to the leaf (default: the current one) for export (see `ExportDocument`). */
export async function exportBranch(options: ExportOptions, ctx: CommandContext): Promise<ExportDocument> {
  // (an output that would be refused, refused before the session is read)
  if (!options.force && wouldReplace(options.out)) throw existsError(options.out!);
  // (--redact: the session read is its redacted copy, as `redact` writes it)
  let redacted: ExportDocument["redacted"];
  let as: SourceAs | undefined;
  let redactText: ((text: string) => string) | undefined;
  if (options.redact) {
    const redaction = await Redaction.load({ secrets: options.secrets ?? [], deny: options.deny ?? [], dropImages: false }, ctx.env);
    as = (source) => {
      const copy = redaction.copy(source);
      redactText = copy.text;
      const kinds: Record<string, number> = {};
      for (const f of copy.plan.findings) kinds[f.kind] = (kinds[f.kind] ?? 0) + 1;
      redacted = { count: copy.plan.findings.length, kinds };
      return copy.source;
    };
  }
  const { session, labels, name } = await readShape(options.file, ctx, undefined, as);
  let branch: Branch;
  try {
    if (!session.header) throw new CliError(`${session.name}: no session header; run \`pi-session repair\` first, then export`);
    const leaf = options.leaf !== undefined ? nodeFor(session, options.leaf) : session.leafNode;
    if (leaf === -1) throw new CliError(`${session.name}: the session has no entries to export`);
    branch = { session, nodes: session.tree.pathTo(leaf), leaf, labels, name, ...(redactText ? { redactText } : {}) };
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
    labels,
    edits: options.view === "path" ? branchEdits(branch) : new Map(),
  });
  return new ExportDocument(branch, options, renderer, redacted);
}

const existsError = (out: string) => new CliError(`${out} already exists; pass --force to replace it`);

/** What `export -o FILE` wrote. */
export interface ExportFileResult {
  file: string;
  format: ExportFormat;
  view: ExportOptions["view"];
  /** With `--redact`: how many secrets were replaced in the session. */
  redacted?: number;
}

/** Writes the document to `out` atomically (never over an existing file without `force`), and closes it. */
export function saveExport(doc: ExportDocument, out: string, force: boolean): ExportFileResult {
  try {
    const produce = (write: (chunk: string | Uint8Array) => void) => {
      for (const pieces of doc.pieces()) for (const piece of pieces) write(piece);
    };
    // (a device, /dev/null or a FIFO, cannot be replaced: it is written as it is)
    if (isDevice(out)) writeToDevice(out, produce);
    else createFile(out, produce, { force });
  } catch (error) {
    if (error instanceof TargetExistsError) throw existsError(out);
    throw error;
  } finally {
    doc.close();
  }
  return { file: out, format: doc.options.format, view: doc.options.view, ...(doc.redacted ? { redacted: doc.redacted.count } : {}) };
}

export async function run(options: ExportOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const doc = await exportBranch(options, ctx);
  const report = () => {
    const r = doc.redacted;
    if (r) ctx.warn(`redacted ${plural(r.count, "secret")} in the session${r.count ? ` (${Object.entries(r.kinds).map(([k, n]) => `${k} ${n}`).join(", ")})` : ""}, as \`pi-session redact\` writes it`);
  };
  // (`-o -`, or standard output by name: the document streamed there, as without -o)
  if (options.out && !isStdout(options.out)) {
    const written = saveExport(doc, options.out, options.force === true);
    report();
    return { human: ctx.json ? "" : `${written.file}\n`, json: written, exitCode: ExitCode.Ok };
  }
  const stream = async (out: Sink) => {
    try {
      for (const pieces of doc.pieces()) await writeAll(out, pieces);
    } finally {
      doc.close();
    }
    report();
  };
  return { stream, exitCode: ExitCode.Ok };
}
