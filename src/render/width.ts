import stringWidth from "string-width";
import { sanitizeOneLine } from "./safe.js";

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
  return sanitizeOneLine(cut);
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
export const JSON_PREVIEW_CHARS = 200;


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
