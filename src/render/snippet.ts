import { sanitizeOneLine } from "./safe.js";
import { cutToWidth, displayWidth } from "./width.js";

/**
 * A match shown in one line: some text before it, the match, some after, whitespace flattened and
 * control characters shown, never obeyed. On a terminal the line is cut to the room it has, by
 * display columns, keeping the match in view: the text before it loses its start, the text after
 * it its end.
 */
export interface Snippet {
  before: string;
  match: string;
  after: string;
}

const flat = (s: string) => sanitizeOneLine(s.replace(/\s+/g, " "));

export function snippetOf(parts: { before: string; match: string; after: string }, context = 40): Snippet {
  const before = flat(parts.before);
  return { before: before.length > context ? `…${before.slice(before.length - context).trimStart()}` : before.trimStart(), match: flat(parts.match), after: flat(parts.after).trimEnd() };
}

/** The snippet as one string, fitted to `room` display columns when given; `paint` marks the match. */
export function renderSnippet(s: Snippet, room: number | undefined, paint: (match: string) => string = (m) => m): string {
  if (room === undefined) return `${s.before}${paint(s.match)}${cutAfter(s.after, 160)}`;
  const match = cutToWidth(s.match, Math.max(1, room - 2));
  let left = room - displayWidth(match);
  // the text before gets up to half of what is left, or more when the text after needs less
  const beforeRoom = Math.max(Math.floor(left / 2), left - displayWidth(s.after));
  const before = displayWidth(s.before) <= beforeRoom ? s.before : cutToWidth(s.before, beforeRoom, "end");
  left -= displayWidth(before);
  return `${before}${paint(match)}${cutToWidth(s.after, Math.max(0, left))}`;
}

function cutAfter(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max).trimEnd()}…` : text;
}
