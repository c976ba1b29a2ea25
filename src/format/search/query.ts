import { compilePattern, type GrepPattern } from "../grep/pattern.js";
import { lookupsOf, type Lookup } from "./terms.js";

/**
 * What a `search` query means, each part defined by what `grep` does, so that the two agree entry
 * for entry (docs/commands.md, "search"):
 *
 * - words (`deploy staging`): every word somewhere in the entry's decoded text, each a whole word
 *   as `grep -w -i -F` finds it (letters, digits and `_` around it are no match);
 * - a phrase (`"staging server"`): its words together, as `grep -w -i` finds them with any run of
 *   white space between them;
 * - `-F` (`fixed`): the whole query, a substring anywhere, as `grep -F -i` finds it.
 *
 * The query is text, never the index's syntax: a `"` without its pair is a character of the word
 * it is in, and `-`, `:`, `*`, `AND` or `NEAR(` are words like any other.
 */

interface QueryItem {
  /** What was asked, as written (a word, a phrase's words, or the `-F` literal). */
  text: string;
  kind: "word" | "phrase" | "fixed";
  /** How it is matched: grep's own pattern. */
  pattern: GrepPattern;
  /** What the index must hold of an entry that matches it (none: any entry may). */
  lookups: Lookup[];
}

export interface SearchQuery {
  /** The query as given. */
  text: string;
  fixed: boolean;
  /** Every one must match in an entry. */
  items: QueryItem[];
}

export class QueryError extends Error {}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** A query read (see above); throws `QueryError` when it asks for nothing. */
export function parseQuery(text: string, fixed = false): SearchQuery {
  if (fixed) {
    if (text === "") throw new QueryError("-F needs a string to find");
    return { text, fixed, items: [{ text, kind: "fixed", pattern: compilePattern(text, { fixed: true, ignoreCase: true }), lookups: lookupsOf(text, "fixed") }] };
  }
  const items: QueryItem[] = [];
  for (const { text: part, phrase } of splitQuery(text)) {
    if (phrase) {
      const words = part.split(/\s+/).filter(Boolean);
      if (words.length === 0) continue;
      // (each run of white space between the words is any run of white space in the text)
      const source = words.map(escapeRegex).join("\\s+");
      items.push({ text: words.join(" "), kind: "phrase", pattern: compilePattern(source, { word: true, ignoreCase: true }), lookups: words.flatMap((w) => lookupsOf(w, "word")) });
    } else items.push({ text: part, kind: "word", pattern: compilePattern(part, { fixed: true, word: true, ignoreCase: true }), lookups: lookupsOf(part, "word") });
  }
  if (items.length === 0) throw new QueryError("the query holds no word to find");
  return { text, fixed, items };
}

/** The query's parts: words apart by white space, and phrases in double quotes (a `"` without its pair is kept as a character). */
function splitQuery(text: string): Array<{ text: string; phrase: boolean }> {
  const parts: Array<{ text: string; phrase: boolean }> = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    if (text[i] === '"') {
      const close = text.indexOf('"', i + 1);
      if (close > i) {
        parts.push({ text: text.slice(i + 1, close), phrase: true });
        i = close + 1;
        continue;
      }
    }
    // a word: up to white space or an opening quote that has its pair
    let end = i + 1;
    while (end < text.length && !/\s/.test(text[end]!) && !(text[end] === '"' && text.indexOf('"', end + 1) > end)) end++;
    parts.push({ text: text.slice(i, end), phrase: false });
    i = end;
  }
  return parts;
}
