import { sanitizeOneLine } from "./safe.js";
import { renderSnippet, snippetOf } from "./snippet.js";
import { formatTime } from "./units.js";
import { displayWidth } from "./width.js";

/**
 * A matching entry as `grep` and `search` print it, a line each. Its id and role come from the
 * session as its text does, and are as untrusted: each is shown with its control characters
 * escaped (`\x1b`), never obeyed, on a terminal and piped.
 */
export interface MatchLine {
  line: number;
  id?: string;
  role: string;
  timestamp?: string;
  before: string;
  match: string;
  after: string;
}

/** An entry's id as shown: its first 8 characters (a UUID's are enough to tell), control characters escaped. */
const shownId = (id: string | undefined) => (id === undefined ? "-" : sanitizeOneLine(id.slice(0, 8)));

/** Piped: `file:line:id:role: snippet`, whole. `file` is shown as given, escaped. */
export function pipedMatch(file: string, h: MatchLine, paint: (match: string) => string): string {
  return `${sanitizeOneLine(file)}:${h.line}:${h.id === undefined ? "-" : sanitizeOneLine(h.id)}:${sanitizeOneLine(h.role)}: ${renderSnippet(snippetOf(h), undefined, paint)}`;
}

/** The columns of a session's matches on a terminal, as wide as its entries need. */
export function matchColumns(hits: readonly MatchLine[]): { line: number; role: number } {
  return { line: Math.max(...hits.map((h) => String(h.line).length)), role: Math.max(...hits.map((h) => displayWidth(sanitizeOneLine(h.role)))) };
}

/** On a terminal, what comes before the snippet: line, id, role and time, in `columns`. */
export function matchLead(h: MatchLine, columns: { line: number; role: number }): string {
  const time = h.timestamp ? formatTime(h.timestamp).slice(5) : "-";
  const role = sanitizeOneLine(h.role);
  const id = shownId(h.id);
  return `  ${String(h.line).padStart(columns.line)}  ${id}${" ".repeat(Math.max(0, 8 - displayWidth(id)))}  ${role}${" ".repeat(Math.max(0, columns.role - displayWidth(role)))}  ${time}  `;
}
