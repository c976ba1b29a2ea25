import { formatPatch, structuredPatch, type StructuredPatchHunk } from "diff";

/**
 * The most lines changed that the `diff` package is let look for the fewest changes over: its
 * time grows with the square of them (two unrelated conversations of 14,000 lines each, whole,
 * took 95 s; 4,096 changes are looked for in about 2 s). Past it, what differs is one hunk.
 */
const MAX_EDITS = 4096;

/**
 * A unified diff of two texts given as lines (each without its newline), as `diff -u` writes it;
 * "" when they are the same. The lines both share at the start and at the end are passed over
 * before the `diff` package's own comparison (a session's two contexts share most of their
 * text, and its cost grows with what it is given), and the hunks it finds are put back at their
 * lines. Where the two differ in more than `MAX_EDITS` lines, what lies between their shared start
 * and end is one hunk, removed then added: still a diff that turns the one into the other.
 */
export function lineDiff(oldName: string, newName: string, a: readonly string[], b: readonly string[], context = 3): string {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  if (start === a.length && start === b.length) return "";
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  // (the context lines around the change stay in what is compared)
  const from = Math.max(0, start - context);
  const tail = Math.max(0, end - context);
  const text = (lines: readonly string[]) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`);
  const patch = structuredPatch(oldName, newName, text(a.slice(from, a.length - tail)), text(b.slice(from, b.length - tail)), undefined, undefined, { context, maxEditLength: MAX_EDITS });
  const found = patch ? patch.hunks : [wholeHunk(a.slice(from, a.length - tail), b.slice(from, b.length - tail), start - from, end - tail)];
  const hunks: StructuredPatchHunk[] = found.map((h) => ({ ...h, oldStart: h.oldStart + from, newStart: h.newStart + from }));
  return formatDiff(oldName, newName, hunks).replace(/^=+\n/, "");
}

/** `a` turned into `b` in one hunk: their first `lead` and last `trail` lines (the same in both) as context, the rest removed, then added. */
function wholeHunk(a: readonly string[], b: readonly string[], lead: number, trail: number): StructuredPatchHunk {
  const lines = [...a.slice(0, lead).map((l) => ` ${l}`), ...a.slice(lead, a.length - trail).map((l) => `-${l}`), ...b.slice(lead, b.length - trail).map((l) => `+${l}`), ...a.slice(a.length - trail).map((l) => ` ${l}`)];
  // (from the first line, an empty side too: the package writes that as the line before it, as diff -u does)
  return { oldStart: 1, oldLines: a.length, newStart: 1, newLines: b.length, lines };
}

/** Hunks as `diff -u` prints them ("" for none). */
export function formatDiff(oldName: string, newName: string, hunks: StructuredPatchHunk[]): string {
  if (hunks.length === 0) return "";
  return formatPatch({ oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks });
}
