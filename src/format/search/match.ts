import { excerpt, searchableTexts, type TextMatch } from "../grep/pattern.js";
import { MATCH_ASIDE } from "./score.js";
import type { SearchQuery } from "./query.js";

/**
 * An entry matched against a query as `grep` matches it: each item with grep's own pattern in the
 * entry's decoded texts (grep/pattern.ts, `searchableTexts`), every item somewhere in them. The
 * one place `search` says whether an entry matches: the index only says which entries may.
 */

/** The texts that are what an entry says (a message's text, a summary, a name, a command and its output), as against what it did or thought. */
const SAID = new Set(["text", "content", "summary", "name", "label", "command", "output"]);

export interface EntryMatch {
  /** The match a snippet shows: the first item's, in what the entry says where it matches there. */
  match: TextMatch;
  /** 1 where every item matches in what the entry says; `MATCH_ASIDE` where one matches only elsewhere. */
  quality: number;
}

/** How `entry` (upgraded to v3) matches `query`, or undefined where some item does not. `tool`: only texts of that tool's calls and results. */
export function matchEntry(entry: Record<string, unknown>, query: SearchQuery, tool?: string): EntryMatch | undefined {
  let shown: TextMatch | undefined;
  let quality = 1;
  for (const item of query.items) {
    const regex = item.pattern.regex;
    let first: TextMatch | undefined;
    let said: TextMatch | undefined;
    searchableTexts(entry, (field, text, owner) => {
      if (tool !== undefined && owner !== tool) return false;
      regex.lastIndex = 0;
      const m = regex.exec(text);
      if (!m) return false;
      const found = excerpt(field, text, m.index, m.index + m[0].length);
      first ??= found;
      if (!SAID.has(field)) return false;
      said = found;
      return true;
    });
    if (!first) return undefined;
    if (!said) quality = MATCH_ASIDE;
    shown ??= said ?? first;
  }
  return shown && { match: shown, quality };
}
