import type { BuiltContext } from "../../format/context/context.js";
import { imageBytes } from "../../format/read/pass-two.js";
import type { AgentMessage, ContentBlock } from "../../format/schema/types.js";
import type { ToolCall } from "../export/blocks.js";
import { editDiff, toolCall } from "../export/tools.js";
import { sanitize, sanitizeOneLine } from "../safe.js";
import { layoutWidth, type Style } from "../style.js";
import { formatBytes, plural } from "../units.js";
import { cutToWidth, displayWidth, hardWrap, preview } from "../width.js";

/*
 * A message as people read it on a terminal: its heading (a rule naming the role, the model or the
 * tool), then its text, thinking, tool calls through export's views (a command, a file written, an
 * edit's diff), images named; session text made safe, wrapped to the terminal (piped: whole).
 * `context` prints a branch so, and `show FILE ENTRY` one entry.
 *
 * On a terminal, long parts fold so that a person can read a conversation: a tool result's first
 * lines, then how many more; a thinking block's, a call's body, a long call's arguments cut to a
 * line. Piped, or with `--full`, every part is whole, as the session holds it: what a script
 * reads, and what `diff` compares (a part cut short would hide a change past the cut).
 */

/** How many lines of each long part a folded message shows (then how many more). */
interface Folds {
  result: number;
  thinking: number;
  system: number;
  callBody: number;
  /** Characters of a call's arguments shown as JSON on its line, and of those a view leaves out. */
  args: number;
  rest: number;
  /** Said after how many more lines there are: how to see them. */
  more: string;
}

/** Whether `full` is asked for or output is piped: then a message is drawn whole. */
function drawnWhole(style: Style, full = false): boolean {
  return full || style.terminalWidth === undefined;
}

const FOLDED: Folds = { result: 20, thinking: 6, system: 10, callBody: 8, args: 300, rest: 200, more: " (--full shows them)" };
const WHOLE: Folds = { result: Infinity, thinking: Infinity, system: Infinity, callBody: Infinity, args: Infinity, rest: Infinity, more: "" };

type Paint = (s: string) => string;

/**
 * Session text as lines to print: made safe, at most `maxLines` of it (then how many more, and
 * `more`: how to see them), each line wrapped to the terminal's width (less the caller's `indent`)
 * when it is wider (piped: whole), then painted.
 */
export function textLines(text: string, style: Style, maxLines = Number.POSITIVE_INFINITY, paint?: Paint, indent = 0, more = ""): string[] {
  const all = text.split("\n");
  const shown = all.length <= maxLines ? all : all.slice(0, maxLines);
  // (`indent`: the columns the caller puts before each line, which the width leaves to it)
  const width = layoutWidth(style);
  const fit = width === undefined ? undefined : Math.max(10, width - indent);
  const out: string[] = [];
  for (const line of shown) for (const part of fit === undefined ? [sanitize(line)] : hardWrap(sanitize(line), fit)) out.push(paint ? paint(part) : part);
  if (shown.length < all.length) out.push(style.c.dim(`… ${plural(all.length - maxLines, "more line")}${more}`));
  return out;
}

function blockLines(content: AgentMessage["content"], style: Style, maxLines: number, folds: Folds): string[] {
  const { c } = style;
  if (content == null) return [c.dim("(no content)")];
  if (typeof content === "string") return textLines(content, style, maxLines, undefined, 0, folds.more);
  const out: string[] = [];
  for (const block of content as ContentBlock[]) {
    if (!block || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    switch (b.type) {
      case "text":
        out.push(...textLines(String(b.text ?? ""), style, maxLines, undefined, 0, folds.more));
        break;
      case "thinking":
        out.push(...textLines(`[thinking] ${String(b.thinking ?? "")}`, style, folds.thinking, (s) => c.dim(c.italic(s)), 0, folds.more));
        break;
      case "toolCall":
        out.push(...toolCallLines(toolCall(String(b.id ?? ""), String(b.name), b.arguments, (v) => (typeof v === "string" ? v : String(v))), style, folds));
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

/**
 * A tool call as `export` shows it (`toolCall`: the same view, cut for a terminal): pi's own
 * tools by what they did (a command, a file written, an edit's diff, a search), any other as its
 * JSON; arguments the view leaves out follow it as JSON.
 */
function toolCallLines(call: ToolCall, style: Style, folds: Folds): string[] {
  const { c } = style;
  const head = (text: string) => textLines(`→ ${call.name} ${text}`, style, 1, c.yellow);
  const body = (text: string, paint?: Paint) => textLines(text, style, folds.callBody, paint, 2, folds.more).map((l) => `  ${l}`);
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
      out = head(cut(compact(s.args), folds.args));
      break;
  }
  if (call.rest) out.push(...textLines(`  + ${cut(compact(call.rest), folds.rest)}`, style, 1, c.dim));
  return out;
}

/** One line of JSON: its start as a preview (`max` characters), or whole. */
function cut(json: string, max: number): string {
  return max === Infinity ? json : preview(json, max);
}

/** The view's JSON (indented, for a page) on one line, for a terminal. */
function compact(json: string): string {
  return JSON.stringify(JSON.parse(json));
}

/** A message's heading, a rule as wide as the terminal (at most 80 columns); its title cut to it on a terminal alone. */
function heading(m: AgentMessage, style: Style): string {
  const { c } = style;
  let extra = "";
  if (m.role === "assistant") extra = ` ${m.provider ?? "?"}/${m.model ?? "?"}${m.stopReason && m.stopReason !== "stop" && m.stopReason !== "toolUse" ? ` (${String(m.stopReason)})` : ""}`;
  else if (m.role === "toolResult") extra = ` ${String(m.toolName ?? "")}${m.isError ? " (error)" : ""}`;
  else if (m.role === "custom") extra = ` ${String(m.customType ?? "")}`;
  else if (m.role === "compactionSummary" && typeof m.tokensBefore === "number") extra = ` (${plural(m.tokensBefore, "token")} before)`;
  const rule = Math.min(style.width, 80);
  const named = sanitizeOneLine(`${String(m.role)}${extra}`);
  const title = `── ${style.terminalWidth === undefined ? named : cutToWidth(named, rule - 7)} `;
  const paint = m.role === "user" ? c.green : m.role === "assistant" ? c.cyan : c.magenta;
  return paint(c.bold(title + "─".repeat(Math.max(3, rule - displayWidth(title)))));
}

/** A message: folded on a terminal, whole when piped or `full` (`drawnWhole`). */
export function renderMessage(m: AgentMessage, style: Style, full = false): string {
  const folds = drawnWhole(style, full) ? WHOLE : FOLDED;
  let body: string[];
  switch (m.role) {
    case "bashExecution":
      body = [...textLines(`$ ${String(m.command ?? "")}`, style), ...textLines(String(m.output ?? ""), style, folds.result, undefined, 0, folds.more), ...(m.exitCode ? [`(exit ${m.exitCode})`] : [])];
      break;
    case "compactionSummary":
    case "branchSummary":
      body = textLines(String(m.summary ?? ""), style);
      break;
    case "system":
      body = typeof m.content === "string" && m.content ? textLines(m.content, style, folds.system, undefined, 0, folds.more) : [style.c.dim("(system prompt and tools)")];
      break;
    default:
      body = blockLines(m.content, style, m.role === "toolResult" ? folds.result : Number.POSITIVE_INFINITY, folds);
  }
  return `${heading(m, style)}\n${body.join("\n")}\n`;
}

/** A context's settings, the line `context` heads it with: model, thinking level, active tools. */
export function renderSettings(settings: Omit<BuiltContext, "messages">, style: Style): string {
  const model = settings.model ? `${settings.model.provider}/${settings.model.modelId}` : "none";
  return textLines(`model ${model} · thinking ${settings.thinkingLevel}${settings.activeToolNames ? ` · tools ${settings.activeToolNames.join(", ")}` : ""}`, style, 1, style.c.dim).join("\n") + "\n";
}
