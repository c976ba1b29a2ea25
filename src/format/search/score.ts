/**
 * How `search` ranks what matches (docs/commands.md, "search"): by what kind of entry holds it
 * and how much else the entry says, then by where in it the match is, then the newest first.
 *
 * - An entry's worth (`entryWorth`, 1 to `STEPS`): what people said weighs most (a user's message,
 *   a session's name, a label: 1; an assistant's turn and a summary: 0.9; other messages: 0.7,
 *   0.6; a command's output 0.5, a tool's result 0.4), times how short its text is, BM25's length
 *   rule with every word once: 1 / (1 + log2(1 + characters / 4,000)) (a message of a few lines
 *   keeps nearly all of it, a 100 KB file read a fifth), in `STEPS` steps.
 * - The match (`MATCH_ASIDE`): where every word matches in what the entry says (a message's text,
 *   a summary, a name, a command and its output) it keeps its worth; where some word is only in
 *   its thinking, a tool call's arguments or an error, 0.7 of it.
 *
 * The score is the two multiplied, three decimals (`score`); among equal scores, the newest first:
 * the index keeps entries by worth, then in the order it read them (`rowOf`: sessions oldest
 * first, each in its order, what is appended after), so that the best are read first and a
 * search for a word in every entry stops when no entry left can rank among those it shows.
 */

/** What people said weighs most; what tools said least. */
const ROLE_WEIGHT: Readonly<Record<string, number>> = {
  user: 1,
  session_info: 1,
  label: 1,
  assistant: 0.9,
  compaction: 0.9,
  branch_summary: 0.9,
  custom_message: 0.7,
  custom: 0.7,
  system: 0.6,
  bashExecution: 0.5,
  toolResult: 0.4,
};

/** A text this long (characters) halves an entry's worth. */
const HALF_AT = 4000;

/** The worth a match outside what the entry says keeps. */
export const MATCH_ASIDE = 0.7;

/** Steps of worth the index orders entries by. */
const STEPS = 32;

/** An entry's worth, in steps (1 to `STEPS`): its role's weight, times how short its text is. */
export function entryWorth(role: string, textLength: number): number {
  const weight = ROLE_WEIGHT[role] ?? 0.5;
  return Math.max(1, Math.round((STEPS * weight) / (1 + Math.log2(1 + textLength / HALF_AT))));
}

/** A match's score: its entry's worth, times where it matched (1 or `MATCH_ASIDE`), to three decimals (0 to 1). */
export function score(worth: number, quality: number): number {
  return Math.round((1000 * worth * quality) / STEPS) / 1000;
}

/**
 * An entry's row: its worth above, the order the index read it in below (`seq`, counted over the
 * index's life), so that rows of one worth are close together (the full-text index keeps each
 * term's rows as differences: small ones are a byte).
 */
const SEQ = 2 ** 40;

/** The index row of an entry of `worth`, the `seq`th the index read. */
export function rowOf(worth: number, seq: number): number {
  return worth * SEQ + (seq % SEQ);
}

/** The worth a row was kept at (`rowOf`). */
export function worthOf(row: number): number {
  return Math.floor(row / SEQ);
}
