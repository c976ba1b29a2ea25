import stringWidth from "string-width";
import { sanitize, sanitizeOneLine } from "./safe.js";

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

/** `text` cut short of `max` characters (UTF-16 code units), between whole graphemes, an ellipsis marking the cut. */
function withEllipsis(text: string, max: number): string {
  let end = Math.min(text.length, Math.max(1, max - 1));
  // Only where the text is not plain ASCII on both sides of the cut can it fall inside a
  // character (a surrogate pair, an emoji sequence, a flag, a letter and its marks).
  if (end < text.length && (text.charCodeAt(end - 1) > 0x7e || text.charCodeAt(end) > 0x7e)) end = graphemeBoundary(text, end);
  return text.slice(0, end).trimEnd() + "…";
}

/** The last grapheme boundary of `text` at or before `at` (a grapheme is never longer than the window looked at). */
function graphemeBoundary(text: string, at: number): number {
  const from = Math.max(0, at - 64);
  let boundary = from;
  for (const g of graphemes(text.slice(from, at + 64))) {
    if (boundary + g.length > at) break;
    boundary += g.length;
  }
  return boundary;
}

/**
 * A preview (`preview` made it: flat and safe) fitted to the room a line leaves. On a terminal
 * (`fit`: its width) `room` is display columns: wide characters and emoji take two, the cut falls
 * between whole characters (graphemes: an emoji sequence, a letter and its marks), and a
 * right-to-left run is isolated so that the terminal's bidi algorithm cannot move the rest of the
 * line. Piped (`fit` undefined), `room` is characters, as it has always been: one layout for
 * scripts, whatever the script of the text.
 */
export function fitPreview(p: string, room: number, fit: number | undefined): string {
  if (fit === undefined) return p.length <= room ? p : withEllipsis(p, room);
  return isolate(cutToWidth(p, room));
}

/** `preview(text, room)`, fitted to the room as `fitPreview` does (for labels and names of any length). */
export function previewIn(text: string, room: number, fit: number | undefined): string {
  return fitPreview(preview(text, room), room, fit);
}

/** Right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms). */
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]|\ud802[\udc00-\udfff]|\ud803[\udc00-\udfff]/;

/**
 * Text holding right-to-left letters inside a first-strong isolate (U+2068 ... U+2069), so that the
 * terminal's bidi algorithm orders it within itself and cannot move its neighbours. (Session text
 * has its own bidi controls escaped by `sanitize`; these are ours.)
 */
export function isolate(text: string): string {
  return RTL.test(text) ? `\u2068${text}\u2069` : text;
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
  return { label: isolate(fitted), room: Math.min(max, fit - used - displayWidth(fitted) - gap) };
}

/**
 * A piece of a line and how it is painted. "whole": one word (a label and its value stay on one
 * line); "unbroken": one word never broken, however wide (a path, a command: what a reader pastes),
 * on a line of its own where it does not fit beside the rest.
 */
export type Segment = readonly [text: string, paint?: (s: string) => string, whole?: "whole" | "unbroken"];

/**
 * One line of `segments`, or, with `width`, the same words wrapped to lines that fit it (later
 * lines indented by `indent`; a word longer than a line is broken). Words keep their segment's
 * paint; a segment marked "whole" is one word (a label and its value stay on one line). Segments
 * hold safe one-line text (`sanitize`d).
 */
export function wrapSegments(segments: readonly Segment[], width: number | undefined, indent = "    "): string[] {
  if (width === undefined) return [segments.map(([text, paint]) => (paint ? paint(text) : text)).join("")];
  const words: Array<{ text: string; paint?: (s: string) => string; space: boolean; unbroken?: boolean }> = [];
  for (const [text, paint, whole] of segments) {
    if (whole) {
      if (text) words.push({ text, paint, space: false, ...(whole === "unbroken" ? { unbroken: true } : {}) });
      continue;
    }
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
      // the word goes whole on the next line when it fits there (or nothing fits here, or it is never broken)
      if (used > indentWidth && (displayWidth(text) <= width - indentWidth || room < 1 || w.unbroken)) {
        flush();
        continue;
      }
      // (a word never broken, wider than a line: whole on its own, past the width)
      if (w.unbroken) {
        line += (pendingSpace ? " " : "") + (w.paint ? w.paint(text) : text);
        used += space + displayWidth(text);
        break;
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

/**
 * A line of text (safe, one line) as lines at most `width` columns wide: broken after the last
 * space that leaves at least a third of a line, else between graphemes (text without spaces,
 * as Chinese is written). Indentation stays; a tab counts as the spaces to the next stop of 8.
 * `words`: broken after the last space of any line that has one (a table's note: a name after a
 * short word goes whole onto the next line).
 */
export function hardWrap(line: string, width: number, words = false): string[] {
  let rest = line.includes("\t") ? expandTabs(line) : line;
  if (displayWidth(rest) <= width) return [rest];
  const out: string[] = [];
  while (displayWidth(rest) > width) {
    let head = takeWidth(rest, width);
    const space = head.lastIndexOf(" ");
    if ((words ? space > 0 : space >= width / 3) && space < head.length - 1) head = head.slice(0, space + 1);
    out.push(head.trimEnd());
    rest = rest.slice(head.length).replace(/^ +/, "");
  }
  if (rest) out.push(rest);
  return out;
}

function expandTabs(line: string): string {
  let out = "";
  for (const ch of line) out += ch === "\t" ? " ".repeat(8 - (displayWidth(out) % 8)) : ch;
  return out;
}

/** The longest start of `text` (whole graphemes) at most `columns` wide, and at least one grapheme. */
function takeWidth(text: string, columns: number): string {
  const head = within(text, columns, "start");
  return head || (graphemes(text).next().value ?? "");
}

/**
 * Printable ASCII, the ellipsis previews end with, and the box-drawing and block characters trees
 * and bars are drawn with: one column a character (string-width says so too, but its first call
 * compiles an emoji pattern: BENCHMARKS.md, "the table by hand").
 */
const PLAIN = /^[\x20-\x7e\u2026\u2500-\u259f]*$/;

/** Columns `text` takes on a terminal (East Asian wide characters and emoji two, escape codes none). */
export function displayWidth(text: string): number {
  return PLAIN.test(text) ? text.length : stringWidth(text);
}

/**
 * `text` cut to at most `columns` display columns between whole graphemes, an ellipsis marking the
 * cut: its start kept, or its end, or ("middle") a third of it from the start and the rest from
 * the end, for names that differ at their end as much as at their start (a provider and a model,
 * `openrouter/an…claude-sonnet-4.5`).
 */
export function cutToWidth(text: string, columns: number, keep: "start" | "end" | "middle" | "file" | "mark" = "start"): string {
  if (displayWidth(text) <= columns) return text;
  if (columns <= 0) return "";
  if (keep === "file") return cutPath(text, columns);
  if (keep === "mark") return cutBeforeMark(text, columns);
  if (keep === "middle") {
    const head = within(text, Math.ceil((columns - 1) / 3), "start");
    return head + "…" + within(text, columns - 1 - displayWidth(head), "end");
  }
  const part = within(text, columns - 1, keep);
  return keep === "start" ? part.trimEnd() + "…" : "…" + part.trimStart();
}

/**
 * A text that ends in a mark in parentheses (`main · direct feishu (copy)`) cut before the mark,
 * which stays whole where there is room for it and a character of the rest: it is what tells two
 * rows that are otherwise alike apart.
 */
function cutBeforeMark(text: string, columns: number): string {
  const mark = / \([^()]*\)$/.exec(text)?.[0];
  const room = mark === undefined ? -1 : columns - displayWidth(mark);
  if (room < 2) return cutToWidth(text, columns, "start");
  return cutToWidth(text.slice(0, text.length - mark!.length), room, "start") + mark!;
}

/**
 * A path cut to `columns` so that its file name reads from its start (the part `ls` shows of a
 * session id): the folders go first, from the left ("…/project/2026-…_0f1e2d3c-….jsonl"); a
 * name too long even alone keeps its start.
 */
function cutPath(text: string, columns: number): string {
  for (let at = text.indexOf("/"); at >= 0; at = text.indexOf("/", at + 1)) {
    const tail = text.slice(at);
    if (displayWidth(tail) + 1 <= columns) return "…" + tail;
  }
  const name = text.slice(text.lastIndexOf("/") + 1);
  return cutToWidth(name, columns, "start");
}

let segmenter: Intl.Segmenter | undefined;

/** The graphemes of `text`: what a reader takes for one character (an emoji sequence, a flag, a letter and its marks). */
export function* graphemes(text: string): Generator<string> {
  // (made on first use: the first segmenter of a process starts ICU, which ASCII never needs)
  segmenter ??= new Intl.Segmenter("en", { granularity: "grapheme" });
  for (const { segment } of segmenter.segment(text)) yield segment;
}

const widths = new Map<string, number>();

/** A grapheme's columns (string-width's rules; remembered: text repeats its characters). */
function graphemeWidth(g: string): number {
  let w = widths.get(g);
  if (w === undefined) {
    w = displayWidth(g);
    if (widths.size < 65_536) widths.set(g, w);
  }
  return w;
}

/** The longest start (or end) of `text` of whole graphemes at most `columns` wide. */
function within(text: string, columns: number, keep: "start" | "end"): string {
  if (PLAIN.test(text)) return keep === "start" ? text.slice(0, Math.max(0, columns)) : text.slice(Math.max(0, text.length - columns));
  if (keep === "start") {
    let used = 0;
    let end = 0;
    for (const g of graphemes(text)) {
      used += graphemeWidth(g);
      if (used > columns) break;
      end += g.length;
    }
    return text.slice(0, end);
  }
  const all = [...graphemes(text)];
  let used = 0;
  let start = text.length;
  for (let k = all.length - 1; k >= 0; k--) {
    used += graphemeWidth(all[k]!);
    if (used > columns) break;
    start -= all[k]!.length;
  }
  return text.slice(start);
}

/**
 * An entry id as a line shows it: whole, or on a terminal (`room`: the columns its line leaves it)
 * its start, 8 characters and the mark at least: a UUID is 36 columns, and `show FILE ID` takes a
 * start of one. Piped (`room` undefined), whole.
 */
export function entryIdIn(id: string | null | undefined, room: number | undefined): string {
  const whole = sanitize(id ?? "(no id)");
  return room === undefined ? whole : cutToWidth(whole, Math.max(9, room));
}
