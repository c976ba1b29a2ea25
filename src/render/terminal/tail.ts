import type { AgentMessage, AnyEntry } from "../../format/schema/types.js";
import { entrySummary } from "../../format/session/summary.js";
import type { UsageAmounts } from "../../format/usage/records.js";
import { sanitize, sanitizeOneLine } from "../safe.js";
import { layoutWidth, type Style } from "../style.js";
import { formatDateTime, formatTokens } from "../units.js";
import { cutToWidth, displayWidth, entryIdIn, fitPreview, preview } from "../width.js";
import { renderMessage } from "./message.js";
import { stepTextWidth } from "./branch.js";

/*
 * `tail`'s lines (docs/commands.md, "tail"): an entry a line as `path` draws a step (line, id,
 * kind, time, preview; a call as its command), a turn's usage beside it; what happens said on a
 * line of its own under it; with `--all`, each line led by its session's label. `--full` draws a
 * message as `context` does. Session text is made safe here, as everywhere it is printed.
 */

/** How wide the kind column is: a message's role and the common kinds (`toolResult`, `compaction`) fit; a longer kind (`thinking_level_change`) takes its own width from the preview. Narrower than `path`'s: a watcher's terminal is often half a screen. */
const KIND = 10;

/** The widest an entry's id is drawn on a terminal (a UUID shows its start, which `show FILE START` takes). */
const ID = 13;

/**
 * An entry's time as a watcher's terminal shows it, in UTC as every time is: the time of day for
 * an entry of today (`17:21:05`), the day and minute for one of this year (`06-12 09:20`), else
 * the date and minute. Piped, `path`'s time (`2026-06-12 09:20`), one layout for scripts.
 */
function tailTime(t: string | number | undefined, fit: number | undefined, now: number): string {
  const full = formatDateTime(t);
  if (full === undefined) return "-";
  if (fit === undefined) return full.slice(0, -3);
  const today = formatDateTime(now)!;
  if (full.slice(0, 10) === today.slice(0, 10)) return full.slice(11);
  return full.slice(0, 4) === today.slice(0, 4) ? full.slice(5, -3) : full.slice(0, -3);
}

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

/** A turn's usage as one short piece: `12.3k tok $0.0123` (tokens as pi totals them, cost as recorded; no cost said where none is, which is not $0). */
function usagePiece(u: UsageAmounts): string {
  const tokens = u.input + u.output + u.cacheRead + u.cacheWrite;
  return `${formatTokens(tokens)} tok${u.cost > 0 ? ` $${u.cost.toFixed(4)}` : ""}`;
}

/** A label padded to `width` display columns (cut where wider). */
function padLabel(label: string, width: number): string {
  const cut = cutToWidth(sanitizeOneLine(label), width);
  return cut + " ".repeat(Math.max(0, width - displayWidth(cut)));
}

/**
 * An entry as one line (or, `full`, a message as `context` draws it, under its line); with `--all`,
 * led by its session's label, padded to `labelWidth` (the widest label of those followed, at most
 * 12 columns: the preview keeps the rest). `now`: what "today" is for its time.
 */
export function renderTailLine(t: TailLine, style: Style, labelWidth: number, full: boolean, now = Date.now()): string {
  const { c } = style;
  const fit = layoutWidth(style);
  const lead = t.label !== undefined ? `${c.yellow(padLabel(t.label, labelWidth))}  ` : "";
  const leadWidth = t.label !== undefined ? labelWidth + 2 : 0;
  // (led by a label on a terminal under 100 columns, the line number gives way to the preview: the id is what `show` takes)
  const lineText = t.label !== undefined && fit !== undefined && fit < 100 ? "" : String(t.line).padStart(4);
  const id = entryIdIn(typeof t.entry.id === "string" ? t.entry.id : null, fit === undefined ? undefined : ID);
  const kind = sanitize(entryKind(t.entry));
  const time = tailTime(typeof t.entry.timestamp === "string" || typeof t.entry.timestamp === "number" ? t.entry.timestamp : undefined, fit, now);
  const used = t.usage ? `${usagePiece(t.usage)}  ` : "";
  const head = `${lineText ? `${c.dim(lineText)}  ` : ""}${c.bold(id)}  ${kind.startsWith("message/") ? c.cyan(kind.slice(8).padEnd(KIND)) : c.magenta(kind.padEnd(KIND))} ${c.dim(time)}  ${used ? c.green(used) : ""}`;
  const width = leadWidth + (lineText ? lineText.length + 2 : 0) + displayWidth(id) + 2 + Math.max(KIND, displayWidth(kind.startsWith("message/") ? kind.slice(8) : kind)) + 1 + displayWidth(time) + 2 + displayWidth(used);
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
  const lead = label !== undefined ? `${c.yellow(padLabel(label, labelWidth))}  ` : "";
  const paint = severity === "error" ? c.red : severity === "warning" || kind === "gone" || kind === "rewritten" || kind === "replaced" ? c.yellow : kind === "moved" ? c.green : c.dim;
  return `${lead}${paint(`  ↳ ${sanitizeOneLine(message)}`)}\n`;
}

/**
 * The status line: what is followed (`what`: a path, or how many sessions) and the running totals,
 * within the terminal's width. The totals keep their room: a long path gives up its start (its
 * file's name stays), then the reminder of Ctrl-C goes.
 */
export function statusLine(what: string, entries: number, totals: UsageAmounts, columns: number): string {
  const tokens = totals.input + totals.output + totals.cacheRead + totals.cacheWrite;
  const cost = totals.cost > 0 ? `$${totals.cost.toFixed(4)}` : tokens > 0 ? "no cost recorded" : "$0";
  const counts = ` · ${entries} new · ${formatTokens(tokens)} tokens · ${cost}`;
  const width = Math.max(10, columns - 1);
  const followed = `following ${sanitizeOneLine(what)}`;
  for (const stop of [" · Ctrl-C stops", ""]) {
    const room = width - displayWidth(counts) - displayWidth(stop);
    if (displayWidth(followed) <= room) return `${followed}${counts}${stop}`;
    if (room >= 24) return `following ${cutToWidth(sanitizeOneLine(what), room - 10, "end")}${counts}${stop}`;
  }
  return cutToWidth(`${followed}${counts}`, width);
}
