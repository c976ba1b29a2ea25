import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { contextMessages, contextParts, contextSettingsAt, imageBytes, RawMessage, PairingCheck, sentAt, type AgentMessage, type PairingProblem, type BuiltContext, type ContentBlock, type SentMessage, type Session } from "../format/index.js";
import { RawJson, writeAll, writeJsonLines, writeJsonWithArray, type Sink } from "../render/sink.js";
import { formatBytes, plural } from "../render/units.js";
import { cutToWidth, displayWidth, hardWrap, preview } from "../render/width.js";
import { sanitize, sanitizeOneLine } from "../render/safe.js";
import { layoutWidth, type Style } from "../render/style.js";
import { nodeFor, readShape } from "../support/inputs/read.js";
import { editDiff, toolCall } from "../render/export/tools.js";
import type { ToolCall } from "../render/export/blocks.js";

export interface ContextOptions {
  file: string;
  /** The leaf whose context is rebuilt (default: the current leaf). */
  leaf?: string;
  /** What pi sends the provider: the context converted (`convertToLlm`) and transformed as pi-ai does before sending. */
  llm?: boolean;
}

export function options(args: Args): ContextOptions {
  return { file: args.string("file"), leaf: args.optionalString("leaf"), llm: args.flag("llm") };
}

/** Thinking level, model and active tools at the leaf: `--json` prints them beside the messages, as pi's SessionContext has them (plus `activeToolNames`). */
export type ContextSettings = Omit<BuiltContext, "messages">;

/**
 * The context of a leaf, open: its settings known, its messages read one at a time as they are
 * written (a gigabyte branch is never held in memory). Close it when done.
 */
export class ContextResult {
  readonly settings: ContextSettings;

  constructor(
    private readonly session: Session,
    private readonly node: number,
    private readonly llm: boolean,
  ) {
    this.settings = node === -1 ? { thinkingLevel: "off", model: null, activeToolNames: null } : contextSettingsAt(session, node);
  }

  /** The messages, as pi would build them. */
  *messages(): Generator<AgentMessage> {
    yield* contextMessages(this.session, this.node);
  }

  /** With `llm`: what pi sends, each message traced to its entry, a result pi supplies marked `synthetic`. */
  *sent(): Generator<SentMessage> {
    if (this.node !== -1) yield* sentAt(this.session, this.node);
  }

  /** The line of the entry a node is. */
  lineOf(node: number): number {
    return this.session.nodeLine(node);
  }

  /**
   * The messages for JSON: one pi passes through unchanged is copied from the file as its bytes,
   * not parsed and written again. With `llm`, what is sent (the transform may change any message).
   */
  *jsonItems(): Generator<AgentMessage | RawJson> {
    if (this.llm) {
      for (const s of this.sent()) yield s.message;
      return;
    }
    for (const m of contextParts(this.session, this.node)) yield m instanceof RawMessage ? new RawJson(m.bytes) : m;
  }

  close(): void {
    this.session.close();
  }
}

/** Opens the context pi rebuilds for the leaf (see `ContextResult`). */
export async function context(options: ContextOptions, ctx: CommandContext): Promise<ContextResult> {
  const { session } = await readShape(options.file, ctx);
  try {
    const node = options.leaf !== undefined ? nodeFor(session, options.leaf) : session.leafNode;
    return new ContextResult(session, node, options.llm === true);
  } catch (error) {
    session.close();
    throw error;
  }
}

const TOOL_RESULT_LINES = 20;

type Paint = (s: string) => string;

/**
 * Session text as lines to print: made safe, at most `maxLines` of it (then how many more), each
 * line wrapped to the terminal's width when it is wider (piped: whole), then painted.
 */
function textLines(text: string, style: Style, maxLines = Number.POSITIVE_INFINITY, paint?: Paint): string[] {
  const all = text.split("\n");
  const shown = all.length <= maxLines ? all : all.slice(0, maxLines);
  const fit = layoutWidth(style);
  const out: string[] = [];
  for (const line of shown) for (const part of fit === undefined ? [sanitize(line)] : hardWrap(sanitize(line), fit)) out.push(paint ? paint(part) : part);
  if (shown.length < all.length) out.push(style.c.dim(`… ${plural(all.length - maxLines, "more line")}`));
  return out;
}

function blockLines(content: AgentMessage["content"], style: Style, maxLines: number): string[] {
  const { c } = style;
  if (content == null) return [c.dim("(no content)")];
  if (typeof content === "string") return textLines(content, style, maxLines);
  const out: string[] = [];
  for (const block of content as ContentBlock[]) {
    if (!block || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    switch (b.type) {
      case "text":
        out.push(...textLines(String(b.text ?? ""), style, maxLines));
        break;
      case "thinking":
        out.push(...textLines(`[thinking] ${String(b.thinking ?? "")}`, style, 6, (s) => c.dim(c.italic(s))));
        break;
      case "toolCall":
        out.push(...toolCallLines(toolCall(String(b.id ?? ""), String(b.name), b.arguments, (v) => (typeof v === "string" ? v : String(v))), style));
        break;
      case "image":
        out.push(c.dim(`[image ${sanitize(String(b.mimeType ?? "?"))}, ${formatBytes(imageBytes(b))}]`));
        break;
      default:
        out.push(...textLines(`[${String(b.type)} block]`, style, 1, c.dim));
    }
  }
  return out;
}

/** How many lines of a written file, an edit's diff or a command `context` shows under a call (then how many more). */
const TOOL_CALL_LINES = 8;

/**
 * A tool call as `export` shows it (`toolCall`: the same view, cut for a terminal): pi's own
 * tools by what they did (a command, a file written, an edit's diff, a search), any other as its
 * JSON; arguments the view leaves out follow it as JSON.
 */
function toolCallLines(call: ToolCall, style: Style): string[] {
  const { c } = style;
  const head = (text: string) => textLines(`→ ${call.name} ${text}`, style, 1, c.yellow);
  const body = (text: string, paint?: Paint) => textLines(text, style, TOOL_CALL_LINES, paint).map((l) => `  ${l}`);
  const s = call.shown;
  let out: string[];
  switch (s.kind) {
    case "bash":
      out = [...head(`$ ${s.command.split("\n")[0]}${s.timeout !== undefined ? `  (timeout ${s.timeout}s)` : ""}`), ...(s.command.includes("\n") ? body(s.command.split("\n").slice(1).join("\n")) : [])];
      break;
    case "read": {
      const range = s.offset !== undefined || s.limit !== undefined ? ` (from line ${s.offset ?? 1}${s.limit !== undefined ? `, ${plural(s.limit, "line")}` : ""})` : "";
      out = head(`${s.path}${range}`);
      break;
    }
    case "write":
      out = [...head(`${s.path} (${plural(s.content.split("\n").length, "line")})`), ...body(s.content, c.dim)];
      break;
    case "edit":
      out = [...head(`${s.path} (${plural(s.pairs.length, "edit")})`), ...body(s.pairs.map((p) => editDiff(s.path, p.oldText, p.newText)).join("\n"), (l) => (l.startsWith("+") ? c.green(l) : l.startsWith("-") ? c.red(l) : c.dim(l)))];
      break;
    case "search":
      out = head(s.line.map((group) => group.map(([text]) => text).join(" ")).join(" · "));
      break;
    case "json":
      out = head(preview(compact(s.args), 300));
      break;
  }
  if (call.rest) out.push(...textLines(`  + ${preview(compact(call.rest), 200)}`, style, 1, c.dim));
  return out;
}

/** The view's JSON (indented, for a page) on one line, for a terminal. */
function compact(json: string): string {
  return JSON.stringify(JSON.parse(json));
}

/** A message's heading, a rule as wide as the terminal (at most 80 columns). */
function heading(m: AgentMessage, style: Style): string {
  const { c } = style;
  let extra = "";
  if (m.role === "assistant") extra = ` ${m.provider ?? "?"}/${m.model ?? "?"}${m.stopReason && m.stopReason !== "stop" && m.stopReason !== "toolUse" ? ` (${String(m.stopReason)})` : ""}`;
  else if (m.role === "toolResult") extra = ` ${String(m.toolName ?? "")}${m.isError ? " (error)" : ""}`;
  else if (m.role === "custom") extra = ` ${String(m.customType ?? "")}`;
  else if (m.role === "compactionSummary" && typeof m.tokensBefore === "number") extra = ` (${plural(m.tokensBefore, "token")} before)`;
  const rule = Math.min(style.width, 80);
  const title = `── ${cutToWidth(sanitizeOneLine(`${String(m.role)}${extra}`), rule - 7)} `;
  const paint = m.role === "user" ? c.green : m.role === "assistant" ? c.cyan : c.magenta;
  return paint(c.bold(title + "─".repeat(Math.max(3, rule - displayWidth(title)))));
}

function renderMessage(m: AgentMessage, style: Style): string {
  let body: string[];
  switch (m.role) {
    case "bashExecution":
      body = [...textLines(`$ ${String(m.command ?? "")}`, style), ...textLines(String(m.output ?? ""), style, TOOL_RESULT_LINES), ...(m.exitCode ? [`(exit ${m.exitCode})`] : [])];
      break;
    case "compactionSummary":
    case "branchSummary":
      body = textLines(String(m.summary ?? ""), style);
      break;
    case "system":
      body = typeof m.content === "string" && m.content ? textLines(m.content, style, 10) : [style.c.dim("(system prompt and tools)")];
      break;
    default:
      body = blockLines(m.content, style, m.role === "toolResult" ? TOOL_RESULT_LINES : Number.POSITIVE_INFINITY);
  }
  return `${heading(m, style)}\n${body.join("\n")}\n`;
}

function renderHeader(settings: ContextSettings, style: Style): string {
  const model = settings.model ? `${settings.model.provider}/${settings.model.modelId}` : "none";
  return textLines(`model ${model} · thinking ${settings.thinkingLevel}${settings.activeToolNames ? ` · tools ${settings.activeToolNames.join(", ")}` : ""}`, style, 1, style.c.dim).join("\n") + "\n";
}

/** The conversation as people read it, a message at a time (with `llm`: what is sent, each result pi supplies or a provider refuses said so). */
export function* renderContext(result: ContextResult, style: Style, llm = false): Generator<string> {
  yield renderHeader(result.settings, style);
  if (!llm) {
    for (const m of result.messages()) yield "\n" + renderMessage(m, style);
    return;
  }
  const check = new PairingCheck();
  const refused: Record<PairingProblem, string> = { "empty-id": "it names no call", orphan: "its call is not in the turn right before it", duplicate: "its call was already answered" };
  for (const s of result.sent()) {
    const m = s.message;
    const problem = check.see(m);
    const note = problem ? `a provider refuses this (line ${result.lineOf(s.node)}): ${refused[problem]}` : s.synthetic ? `supplied by pi: no result was recorded for the call on line ${result.lineOf(s.node)}` : undefined;
    const text = renderMessage(m, style);
    yield "\n" + (note ? text.replace("\n", `\n${textLines(`(${note})`, style, 2, problem ? style.c.red : style.c.dim).join("\n")}\n`) : text);
  }
}

function* settingsThenMessages(result: ContextResult): Generator<unknown> {
  yield result.settings;
  yield* result.jsonItems();
}

export async function run(options: ContextOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await context(options, ctx);
  const stream = async (out: Sink) => {
    try {
      // --jsonl: the settings first, then a message a line
      if (ctx.jsonl) return await writeJsonLines(out, settingsThenMessages(result));
      if (ctx.json) return await writeJsonWithArray(out, {}, "messages", result.jsonItems(), result.settings, true);
      await writeAll(out, renderContext(result, ctx.style, options.llm === true));
    } finally {
      result.close();
    }
  };
  return { stream, exitCode: ExitCode.Ok };
}
