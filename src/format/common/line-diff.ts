import { formatPatch, structuredPatch, type StructuredPatchHunk } from "diff";

/**
 * A unified diff of two texts given as lines (each without its newline), as `diff -u` writes it;
 * "" when they are the same. The lines both share at the start and at the end are passed over
 * before the `diff` package's own comparison (a session's two contexts share most of their
 * text, and its cost grows with what it is given), and the hunks it finds are put back at their
 * lines.
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
  const patch = structuredPatch(oldName, newName, text(a.slice(from, a.length - tail)), text(b.slice(from, b.length - tail)), undefined, undefined, { context });
  const hunks: StructuredPatchHunk[] = patch.hunks.map((h) => ({ ...h, oldStart: h.oldStart + from, newStart: h.newStart + from }));
  return formatDiff(oldName, newName, hunks).replace(/^=+\n/, "");
}

/** Hunks as `diff -u` prints them ("" for none). */
export function formatDiff(oldName: string, newName: string, hunks: StructuredPatchHunk[]): string {
  if (hunks.length === 0) return "";
  return formatPatch({ oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks });
}
