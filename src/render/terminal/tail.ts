import type { AgentMessage, AnyEntry } from "../../format/schema/types.js";
import { entrySummary } from "../../format/session/summary.js";
import type { UsageAmounts } from "../../format/usage/records.js";
import { sanitize, sanitizeOneLine } from "../safe.js";
import { layoutWidth, type Style } from "../style.js";
import { formatTime, formatTokens } from "../units.js";
import { cutToWidth, displayWidth, fitPreview, preview } from "../width.js";
import { renderMessage } from "./message.js";
import { stepTextWidth } from "./branch.js";

/*
 * `tail`'s lines (docs/commands.md, "tail"): an entry a line as `path` draws a step (line, id,
 * kind, time, preview; a call as its command), a turn's usage beside it; what happens said on a
 * line of its own under it; with `--all`, each line led by its session's label. `--full` draws a
 * message as `context` does. Session text is made safe here, as everywhere it is printed.
 */

/** How wide the kind column is: a message's role and the common kinds (`toolResult`, `compaction`) fit; a longer kind (`thinking_level_change`) takes its own width from the preview. Narrower than `path`'s: a watcher's terminal is often half a screen. */
const KIND = 12;

export interface TailLine {
  /** The session's label (`--all`), or undefined. */
  label?: string;
  line: number;
  entry: AnyEntry;
  usage?: UsageAmounts;
}

/** The kind `path` names an entry by: `message/<role>`, else its type. */
function entryKind(entry: AnyEntry): string {
  if (entry.type === "message") {
    const role = (entry.message as { role?: unknown } | undefined)?.role;
    return `message/${typeof role === "string" ? role : "?"}`;
  }
  return typeof entry.type === "string" ? entry.type : "(no type)";
}

/** A turn's usage as one short piece: `12.3k tok $0.0123` (tokens as pi totals them, cost as recorded; `-` where none is). */
function usagePiece(u: UsageAmounts): string {
  const tokens = u.input + u.output + u.cacheRead + u.cacheWrite;
  return `${formatTokens(tokens)} tok ${u.cost > 0 ? `$${u.cost.toFixed(4)}` : "$-"}`;
}

/** An entry as one line (or, `full`, a message as `context` draws it, under its line). */
export function renderTailLine(t: TailLine, style: Style, labelWidth: number, full: boolean): string {
  const { c } = style;
  const fit = layoutWidth(style);
  const lead = t.label !== undefined ? `${c.yellow(cutToWidth(sanitizeOneLine(t.label), labelWidth).padEnd(labelWidth))}  ` : "";
  const leadWidth = t.label !== undefined ? labelWidth + 2 : 0;
  const lineText = String(t.line).padStart(4);
  const id = sanitize(typeof t.entry.id === "string" ? t.entry.id : "(no id)");
  const kind = sanitize(entryKind(t.entry));
  const time = formatTime(typeof t.entry.timestamp === "string" || typeof t.entry.timestamp === "number" ? t.entry.timestamp : undefined);
  const used = t.usage ? `${usagePiece(t.usage)}  ` : "";
  const head = `${c.dim(lineText)}  ${c.bold(id)}  ${kind.startsWith("message/") ? c.cyan(kind.slice(8).padEnd(KIND)) : c.magenta(kind.padEnd(KIND))} ${c.dim(time)}  ${used ? c.green(used) : ""}`;
  const width = leadWidth + lineText.length + 2 + displayWidth(id) + 2 + Math.max(KIND, displayWidth(kind.startsWith("message/") ? kind.slice(8) : kind)) + 1 + displayWidth(time) + 2 + displayWidth(used);
  const textWidth = stepTextWidth(style);
  // (on a terminal, the room the line leaves; piped, path's width of preview)
  const room = fit === undefined ? textWidth : fit - width;
  const p = room >= 4 ? fitPreview(preview(entrySummary(t.entry), room), room, fit) : "";
  const line = `${lead}${head}${p}`.trimEnd() + "\n";
  if (!full || t.entry.type !== "message" || !t.entry.message || typeof t.entry.message !== "object") return line;
  return line + renderMessage(t.entry.message as AgentMessage, style, true);
}

/** A notice: what happened, on a line of its own, coloured by how much it matters. */
export function renderNotice(message: string, kind: string, severity: string | undefined, style: Style, label: string | undefined, labelWidth: number): string {
  const { c } = style;
  const lead = label !== undefined ? `${c.yellow(cutToWidth(sanitizeOneLine(label), labelWidth).padEnd(labelWidth))}  ` : "";
  const paint = severity === "error" ? c.red : severity === "warning" || kind === "gone" || kind === "rewritten" || kind === "replaced" ? c.yellow : kind === "moved" ? c.green : c.dim;
  return `${lead}${paint(`  ↳ ${sanitizeOneLine(message)}`)}\n`;
}

/** The status line: what is followed, and the running totals, cut to the terminal's width. */
export function statusLine(what: string, entries: number, totals: UsageAmounts, columns: number): string {
  const tokens = totals.input + totals.output + totals.cacheRead + totals.cacheWrite;
  const cost = totals.cost > 0 ? `$${totals.cost.toFixed(4)}` : tokens > 0 ? "no cost recorded" : "$0";
  return cutToWidth(`${sanitizeOneLine(what)} · ${entries} new · ${formatTokens(tokens)} tokens · ${cost} · Ctrl-C stops`, Math.max(10, columns - 1));
}
