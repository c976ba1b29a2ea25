import { formatPatch, type StructuredPatch, type StructuredPatchHunk } from "diff";
import { forEachLine, type ByteSource } from "./source.js";

/**
 * The one way writers turn a file into its new version: line by line, each input line either kept
 * byte-for-byte or replaced by zero or more new lines. The same pass writes the new content and,
 * when asked, collects the unified diff (hunks with three lines of context, formatted by the `diff`
 * package), without holding either file in memory.
 */

/** `null`: keep the line as it is; otherwise the lines (without `\n`) that replace it. */
export type LineDecision = string[] | null;

export interface RewriteOptions {
  /** Lines to write before line `index` (e.g. a header moved to the top). */
  before?: (index: number) => string[];
  /** Collect a diff (for `--dry-run`). */
  diff?: boolean;
}

export interface RewriteResult {
  linesIn: number;
  linesOut: number;
  /** Input lines that were replaced or dropped. */
  changedLines: number;
  hunks: StructuredPatchHunk[];
}

const CONTEXT = 3;

export function rewriteLines(source: ByteSource, decide: (index: number, bytes: Buffer, terminated: boolean) => LineDecision, write: ((chunk: string | Uint8Array) => void) | undefined, options: RewriteOptions = {}): RewriteResult {
  const result: RewriteResult = { linesIn: 0, linesOut: 0, changedLines: 0, hunks: [] };
  const newline = Buffer.from("\n");
  // Diff state: the last CONTEXT unchanged lines, and the hunk being built.
  const recent: string[] = [];
  let hunk: StructuredPatchHunk | undefined;
  let trailing = 0; // unchanged lines appended to the current hunk since its last change
  let oldDone = 0; // old lines consumed so far
  let newDone = 0; // new lines written so far

  const emitNew = (lines: string[]) => {
    for (const l of lines) {
      write?.(l + "\n");
      result.linesOut++;
    }
  };

  const closeHunk = () => {
    if (!hunk) return;
    // Keep at most CONTEXT unchanged lines after the last change.
    const extra = Math.max(0, trailing - CONTEXT);
    if (extra > 0) {
      hunk.lines.splice(hunk.lines.length - extra, extra);
      hunk.oldLines -= extra;
      hunk.newLines -= extra;
    }
    // Unified diff numbers an empty side by the line before it.
    if (hunk.oldLines === 0) hunk.oldStart--;
    if (hunk.newLines === 0) hunk.newStart--;
    result.hunks.push(hunk);
    hunk = undefined;
  };

  const change = (oldText: string[], newText: string[]) => {
    if (options.diff) {
      if (hunk && trailing > 2 * CONTEXT) closeHunk();
      if (!hunk) {
        hunk = { oldStart: oldDone - recent.length + 1, oldLines: recent.length, newStart: newDone - recent.length + 1, newLines: recent.length, lines: recent.map((l) => ` ${l}`) };
      }
      trailing = 0;
      for (const l of oldText) hunk.lines.push(`-${l}`);
      for (const l of newText) hunk.lines.push(`+${l}`);
      hunk.oldLines += oldText.length;
      hunk.newLines += newText.length;
      recent.length = 0;
    }
    oldDone += oldText.length;
    newDone += newText.length;
  };

  const unchanged = (text: string) => {
    oldDone++;
    newDone++;
    if (!options.diff) return;
    if (hunk) {
      hunk.lines.push(` ${text}`);
      hunk.oldLines++;
      hunk.newLines++;
      trailing++;
      if (trailing > 2 * CONTEXT) closeHunk();
    }
    recent.push(text);
    if (recent.length > CONTEXT) recent.shift();
  };

  forEachLine(source, (buffer, start, end, line, _offset, terminated) => {
    const bytes = buffer.subarray(start, end);
    const index = line - 1;
    result.linesIn++;
    const inserted = options.before?.(index) ?? [];
    if (inserted.length > 0) {
      emitNew(inserted);
      change([], inserted);
    }
    const decision = decide(index, bytes, terminated);
    if (decision === null) {
      write?.(bytes);
      if (terminated) write?.(newline);
      result.linesOut++;
      unchanged(options.diff ? bytes.toString("utf8") : "");
      return;
    }
    result.changedLines++;
    emitNew(decision);
    change([options.diff ? bytes.toString("utf8") : ""], decision);
  });
  closeHunk();
  return result;
}

/** The unified diff of a rewrite, as `diff -u` would print it. */
export function formatDiff(oldName: string, newName: string, hunks: StructuredPatchHunk[]): string {
  if (hunks.length === 0) return "";
  const patch: StructuredPatch = { oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks };
  return formatPatch(patch);
}
