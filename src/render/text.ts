import pc from "picocolors";
import stringWidth from "string-width";
import type { AgentMessage, AnyEntry } from "../format/index.js";
import { messageText } from "../format/stats.js";
export { formatBytes } from "../format/units.js";

export type Colors = ReturnType<typeof pc.createColors>;

/** How human output is styled: colour on or off, and the widths text is laid out for. */
export interface Style {
  c: Colors;
  /** The width previews and rules are made for (the terminal's, else 100). */
  width: number;
  /** On a terminal: the width tables and wrapped lines must fit; undefined when output is piped (one full layout). */
  tableWidth?: number;
  /** `--wide`: every table column whole, nothing cut or dropped. */
  wide?: boolean;
}

export function makeStyle(color: boolean, width = 100, layout: { tableWidth?: number; wide?: boolean } = {}): Style {
  return { c: pc.createColors(color), width, ...layout };
}

/**
 * Session text is untrusted: it can hold ANSI/OSC escapes, carriage returns, other C0/C1 controls
 * and bidi overrides that would rewrite the screen, set the window title or reorder what is read.
 * Each such character is shown as a visible escape (`\x1b`, `\r`, `\u202e`); newlines and tabs
 * are kept unless `oneLine`.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_TEST = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const UNSAFE_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_ONE_LINE_TEST = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function escapeChar(ch: string): string {
  const code = ch.charCodeAt(0);
  if (ch === "\r") return "\\r";
  if (ch === "\n") return "\\n";
  if (ch === "\t") return "\\t";
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

export function sanitize(text: string): string {
  // (tested first: most text is safe, and a test costs less than a replace that finds nothing)
  return UNSAFE_TEST.test(text) ? text.replace(UNSAFE, escapeChar) : text;
}

/** One line, safe, at most `max` characters (an ellipsis marks a cut). */
export function preview(text: string, max: number): string {
  // Only the start matters: cut before flattening, so a megabyte of text costs nothing. Runs of
  // whitespace shrink when flattened, so widen the window until it holds enough (rarely needed).
  let size = max + 16;
  let flat: string;
  for (;;) {
    // Only whitespace other than single spaces needs replacing: tested first, as most previews
    // have none and a test costs less than a replace that finds nothing.
    flat = text.slice(0, size);
    if (NOT_FLAT.test(flat)) flat = flat.replace(SPACES, " ");
    flat = flat.trimStart();
    if (flat.length > max || size >= text.length) break;
    size *= 4;
  }
  flat = flat.trimEnd();
  const more = text.length > size && nonSpaceFrom(text, size);
  const cut = flat.length > max || more ? withEllipsis(flat, max) : flat;
  return UNSAFE_ONE_LINE_TEST.test(cut) ? cut.replace(UNSAFE_ONE_LINE, escapeChar) : cut;
}

const NOT_FLAT = /[^\S ]| {2}/;
const SPACES = /\s{2,}|[^\S ]/g;

const NON_SPACE = /\S/g;

/** Whether `text` holds anything but whitespace from `i` on (searched in place, not copied). */
function nonSpaceFrom(text: string, i: number): boolean {
  NON_SPACE.lastIndex = i;
  return NON_SPACE.test(text);
}

/** `text` cut short of `max` characters, an ellipsis marking the cut. */
function withEllipsis(text: string, max: number): string {
  let end = Math.min(text.length, Math.max(1, max - 1));
  // never split a surrogate pair
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end).trimEnd() + "…";
}

/**
 * `preview(p, max)` of a string `p` that `preview` made: it is flat and safe already, so only the
 * cut is left to make (a tree draws a hundred thousand of them, each narrower under deep branches).
 */
export function fitPreview(p: string, max: number): string {
  return p.length <= max ? p : withEllipsis(p, max);
}

/** How many characters of preview a JSON document carries for each entry. */
export const JSON_PREVIEW = 200;


const DAY = 86_400_000;
/** The largest time a Date holds (8.64e15 ms either side of the epoch). */
const MAX_TIME = 8.64e15;
/** "00" to "99" and "000" to "999", made once: commands print a time for each of a million entries. */
const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0"));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
let cachedDay = NaN;
let cachedDayText = "";

/**
 * The day (`2026-03-25`, UTC) of a time in ms, then the ms into that day; undefined when a Date
 * cannot hold it. Only the first time of each day makes a Date.
 */
function splitTime(ms: number): number | undefined {
  const t = Math.trunc(ms);
  if (!(Math.abs(t) <= MAX_TIME)) return undefined;
  const day = Math.floor(t / DAY);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDayText = new Date(day * DAY).toISOString().slice(0, -14);
  }
  return t - day * DAY;
}

/** `14:55:07` of ms into a day. */
function clock(inDay: number): string {
  const s = Math.floor(inDay / 1000);
  return `${TWO[Math.floor(s / 3600)]}:${TWO[Math.floor(s / 60) % 60]}:${TWO[s % 60]}`;
}

/** `toISOString()` of a time in ms (null when a Date cannot hold it), mostly without a Date. */
export function isoTime(ms: number): string | null {
  const inDay = splitTime(ms);
  return inDay === undefined ? null : `${cachedDayText}T${clock(inDay)}.${THREE[inDay % 1000]}Z`;
}

/** `2026-03-25 14:55:07` (UTC) of a time in ms or a date string; undefined when there is none. */
export function formatSeconds(t: number | string | undefined): string | undefined {
  const inDay = t === undefined ? undefined : splitTime(typeof t === "number" ? t : Date.parse(t));
  return inDay === undefined ? undefined : `${cachedDayText} ${clock(inDay)}`;
}

/** `2026-03-25 14:55` in UTC, or `-` when the time is unknown. */
export function formatTime(t: number | string | undefined): string {
  return formatSeconds(t)?.slice(0, -3) ?? "-";
}

/** "1 error", "3 errors", "1,204 entries" (`many`: the plural when it is not `word` + "s"). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${formatCount(n)} ${n === 1 ? word : many}`;
}

/** `12,345`: whole numbers grouped by hand (the first `toLocaleString` starts ICU: BENCHMARKS.md, "counts by hand"). */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString("en-US");
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** The text that best says what an entry holds, unsanitised (callers pass it through `preview`). */
export function entrySummary(entry: AnyEntry): string {
  switch (entry.type) {
    case "message": {
      const m = entry.message as AgentMessage | undefined;
      if (!m || typeof m !== "object") return "";
      if (m.role === "bashExecution") return `$ ${String(m.command ?? "")}`;
      const text = messageText(m);
      if (text) return text;
      if (Array.isArray(m.content)) {
        const calls = m.content.filter((b) => b?.type === "toolCall").map((b) => `${String((b as { name?: unknown }).name)}(…)`);
        if (calls.length > 0) return `→ ${calls.join(", ")}`;
        const thinking = m.content.find((b) => b?.type === "thinking") as { thinking?: unknown } | undefined;
        if (thinking) return `(thinking) ${typeof thinking.thinking === "string" ? thinking.thinking : ""}`.trimEnd();
        if (m.content.some((b) => b?.type === "image")) return "(image)";
      }
      if (m.role === "assistant" && m.stopReason === "error") return `(error: ${String(m.errorMessage ?? "")})`;
      return "";
    }
    case "model_change":
      return `${String(entry.provider)}/${String(entry.modelId)}`;
    case "thinking_level_change":
      return String(entry.thinkingLevel);
    case "compaction":
      return `${typeof entry.tokensBefore === "number" ? `${plural(entry.tokensBefore, "token")} → ` : ""}${String(entry.summary ?? "")}`;
    case "branch_summary":
      return String(entry.summary ?? "");
    case "custom_message":
      return typeof entry.content === "string" ? entry.content : messageText({ role: "custom", content: entry.content as AgentMessage["content"] });
    case "custom":
      return String(entry.customType ?? "");
    case "label":
      return entry.label ? `${String(entry.label)} → ${String(entry.targetId)}` : `(cleared) → ${String(entry.targetId)}`;
    case "session_info":
      return String(entry.name ?? "");
    case "context_edit":
      return entry.replacement === null ? `drop ${String(entry.targetId)}` : `edit ${String(entry.targetId)}`;
    case "usage":
      return `${String(entry.kind)} ${String(entry.provider)}/${String(entry.model)}`;
    case "active_tools_change":
      return Array.isArray(entry.activeToolNames) ? entry.activeToolNames.join(", ") : "";
    default:
      return "";
  }
}

/** The width lines are wrapped to: the terminal's, unless `--wide` or piped (then none). */
export function layoutWidth(style: Style): number | undefined {
  return style.wide ? undefined : style.tableWidth;
}

/**
 * The tail of a listing's line (`tree`, `path --leaves`, `show`'s leaves and labels): a label
 * (may be "") and then, `gap` columns on, a preview of at most `max` columns. Within `fit` (a
 * terminal's width; undefined: piped, nothing cut), after `used` columns of the line, the label is
 * cut or dropped when it does not fit, and `room` is what the preview may take (under 4, none).
 */
export function lineTail(fit: number | undefined, used: number, label: string, gap: number, max: number): { label: string; room: number } {
  if (fit === undefined) return { label, room: max };
  let fitted = label;
  if (fitted && used + displayWidth(fitted) > fit) fitted = fit - used >= 6 ? cutToWidth(fitted, fit - used) : "";
  return { label: fitted, room: Math.min(max, fit - used - displayWidth(fitted) - gap) };
}

/** A piece of a line and how it is painted. */
export type Segment = readonly [text: string, paint?: (s: string) => string];

/**
 * One line of `segments`, or, with `width`, the same words wrapped to lines that fit it (later
 * lines indented by `indent`; a word longer than a line is broken). Words keep their segment's
 * paint. Segments hold safe one-line text (`sanitize`d).
 */
export function wrapSegments(segments: readonly Segment[], width: number | undefined, indent = "    "): string[] {
  if (width === undefined) return [segments.map(([text, paint]) => (paint ? paint(text) : text)).join("")];
  const words: Array<{ text: string; paint?: (s: string) => string; space: boolean }> = [];
  for (const [text, paint] of segments) {
    text.split(/( )/).forEach((part) => {
      if (part === " ") {
        const last = words[words.length - 1];
        if (last) last.space = true;
      } else if (part) words.push({ text: part, paint, space: false });
    });
  }
  const lines: string[] = [];
  let line = "";
  let used = 0;
  let pendingSpace = false;
  const flush = () => {
    lines.push(line);
    line = indent;
    used = displayWidth(indent);
    pendingSpace = false;
  };
  const indentWidth = displayWidth(indent);
  for (const w of words) {
    let text = w.text;
    for (;;) {
      const space = pendingSpace ? 1 : 0;
      const room = width - used - space;
      if (displayWidth(text) <= room) {
        line += (pendingSpace ? " " : "") + (w.paint ? w.paint(text) : text);
        used += space + displayWidth(text);
        break;
      }
      // the word goes whole on the next line when it fits there (or nothing fits here)
      if (used > indentWidth && (displayWidth(text) <= width - indentWidth || room < 1)) {
        flush();
        continue;
      }
      // a word longer than a line: as much as fits here, the rest on the next
      const head = takeWidth(text, Math.max(1, room));
      line += (pendingSpace ? " " : "") + (w.paint ? w.paint(head) : head);
      text = text.slice(head.length);
      flush();
      if (!text) break;
    }
    pendingSpace = w.space;
  }
  if (line.trim()) lines.push(line);
  return lines;
}

/** The longest start of `text` (whole code points) at most `columns` wide (at least one code point). */
function takeWidth(text: string, columns: number): string {
  const points = Array.from(text);
  let n = 1;
  while (n < points.length && displayWidth(points.slice(0, n + 1).join("")) <= columns) n++;
  return points.slice(0, n).join("");
}

/**
 * Printable ASCII and the ellipsis previews end with: one column a character (string-width says
 * so too, but its first call compiles an emoji pattern: BENCHMARKS.md, "the table by hand").
 */
const PLAIN = /^[\x20-\x7e\u2026]*$/;

/** Columns `text` takes on a terminal (East Asian wide characters and emoji two, escape codes none). */
export function displayWidth(text: string): number {
  return PLAIN.test(text) ? text.length : stringWidth(text);
}

/** `text` cut to at most `columns` display columns, an ellipsis marking the cut (never inside a surrogate pair). */
export function cutToWidth(text: string, columns: number, keep: "start" | "end" = "start"): string {
  if (displayWidth(text) <= columns) return text;
  if (columns <= 0) return "";
  const points = Array.from(text);
  const part = (n: number) => (keep === "start" ? points.slice(0, n) : points.slice(points.length - n)).join("");
  // the most code points that leave a column for the ellipsis (widths only grow with the count)
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (displayWidth(part(mid)) <= columns - 1) lo = mid;
    else hi = mid - 1;
  }
  return keep === "start" ? part(lo).trimEnd() + "…" : "…" + part(lo).trimStart();
}
