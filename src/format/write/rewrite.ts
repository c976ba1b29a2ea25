import type { StructuredPatchHunk } from "diff";
import { forEachLine, type ByteSource } from "../read/source.js";

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

/**
 * The unified diff of a rewrite, built as it goes: hunks of changed lines with three unchanged
 * lines of context, closed when more than twice that many unchanged lines follow a change.
 */
class DiffCollector {
  readonly hunks: StructuredPatchHunk[] = [];
  /** The last CONTEXT unchanged lines (the next hunk's leading context). */
  private readonly recent: string[] = [];
  private hunk: StructuredPatchHunk | undefined;
  /** Unchanged lines appended to the current hunk since its last change. */
  private trailing = 0;
  /** Old lines consumed, new lines written, so far. */
  private oldDone = 0;
  private newDone = 0;

  change(oldText: string[], newText: string[]): void {
    if (this.hunk && this.trailing > 2 * CONTEXT) this.close();
    const recent = this.recent;
    if (!this.hunk) {
      this.hunk = { oldStart: this.oldDone - recent.length + 1, oldLines: recent.length, newStart: this.newDone - recent.length + 1, newLines: recent.length, lines: recent.map((l) => ` ${l}`) };
    }
    const hunk = this.hunk;
    this.trailing = 0;
    for (const l of oldText) hunk.lines.push(`-${l}`);
    for (const l of newText) hunk.lines.push(`+${l}`);
    hunk.oldLines += oldText.length;
    hunk.newLines += newText.length;
    recent.length = 0;
    this.oldDone += oldText.length;
    this.newDone += newText.length;
  }

  unchanged(text: string): void {
    this.oldDone++;
    this.newDone++;
    const hunk = this.hunk;
    if (hunk) {
      hunk.lines.push(` ${text}`);
      hunk.oldLines++;
      hunk.newLines++;
      this.trailing++;
      if (this.trailing > 2 * CONTEXT) this.close();
    }
    this.recent.push(text);
    if (this.recent.length > CONTEXT) this.recent.shift();
  }

  close(): void {
    const hunk = this.hunk;
    if (!hunk) return;
    // Keep at most CONTEXT unchanged lines after the last change.
    const extra = Math.max(0, this.trailing - CONTEXT);
    if (extra > 0) {
      hunk.lines.splice(hunk.lines.length - extra, extra);
      hunk.oldLines -= extra;
      hunk.newLines -= extra;
    }
    // Unified diff numbers an empty side by the line before it.
    if (hunk.oldLines === 0) hunk.oldStart--;
    if (hunk.newLines === 0) hunk.newStart--;
    this.hunks.push(hunk);
    this.hunk = undefined;
  }
}

/**
 * Rewrites `source` line by line through `write` (or, without it, only counts and, with `diff`,
 * collects the diff): `decide` keeps a line (null) or gives the lines that replace it.
 */
export function rewriteLines(source: ByteSource, decide: (index: number, bytes: Buffer, terminated: boolean) => LineDecision, write: ((chunk: string | Uint8Array) => void) | undefined, options: RewriteOptions = {}): RewriteResult {
  const result: RewriteResult = { linesIn: 0, linesOut: 0, changedLines: 0, hunks: [] };
  const newline = Buffer.from("\n");
  const diff = options.diff ? new DiffCollector() : undefined;
  const emitNew = (lines: string[]) => {
    for (const l of lines) {
      write?.(l + "\n");
      result.linesOut++;
    }
  };
  forEachLine(source, (buffer, start, end, line, _offset, terminated) => {
    const bytes = buffer.subarray(start, end);
    const index = line - 1;
    result.linesIn++;
    const inserted = options.before?.(index) ?? [];
    if (inserted.length > 0) {
      emitNew(inserted);
      diff?.change([], inserted);
    }
    const decision = decide(index, bytes, terminated);
    if (decision === null) {
      write?.(bytes);
      if (terminated) write?.(newline);
      result.linesOut++;
      diff?.unchanged(bytes.toString("utf8"));
      return;
    }
    result.changedLines++;
    emitNew(decision);
    diff?.change([diff ? bytes.toString("utf8") : ""], decision);
  });
  if (diff) {
    diff.close();
    result.hunks = diff.hunks;
  }
  return result;
}

/** The unified diff of a rewrite, as `diff -u` would print it. */
export { formatDiff } from "../common/line-diff.js";
