import { cutToWidth, displayWidth, hardWrap, isolate } from "./width.js";
import { layoutWidth, type Style } from "./style.js";

/**
 * Tables: columns two spaces apart, each cell padded to its column's display width (the head bold
 * in colour), drawn by hand because cli-table3 re-measures and restyles every cell several times
 * and is slow to load (BENCHMARKS.md, "the table by hand"). Widths are string-width's (East Asian
 * wide characters and emoji count two columns); a printable ASCII cell is its length.
 *
 * On a terminal (`Style.terminalWidth`), a table fits its width: the flexible columns shrink first
 * (an ellipsis marks a cut), least important first, down to their minimum; when that is not enough
 * the least important column is dropped, and so on. Elsewhere (`terminalWidth` undefined) every
 * column is drawn whole, so that scripts see one layout. Cells are one line and safe already
 * (callers make them so with `preview` or `sanitize`); colour is added after fitting (`paint`).
 */

export interface Column {
  head: string;
  /** 1 is the most important; the highest number is dropped first when the table does not fit. */
  priority: number;
  /** Shrinks, with an ellipsis, before any column is dropped. */
  flex?: boolean;
  /** Where a flexible column comes in the order of shrinking, if not by its priority (a higher number shrinks first). */
  shrink?: number;
  /** The least a flexible column shrinks to (default: its head, and at least 10). */
  min?: number;
  /** The widest a cell is drawn unless `Style.wide` (cells are cut to it, on a terminal or not). */
  max?: number;
  align?: "left" | "right";
  /** Which end of a cut cell stays: "end" for a folder; "middle": both ends, for names that differ at either (a provider and a model); "file" for a file's path, whose name then reads from its start; "mark" for a text ending in a mark in parentheses, which stays (default "start"). */
  keep?: "start" | "end" | "middle" | "file" | "mark";
  /** Colour for a cell's text, applied after it is cut and before it is padded. */
  paint?: (text: string, row: number) => string;
  /**
   * On a terminal, a cell wider than its column goes on over the lines below, at its word breaks,
   * rather than being cut: what it says is never lost (a status, a reason).
   */
  wrap?: boolean;
}

const GAP = 2;

/** A cell cut to `width`: an indented one (a row under another) keeps its indent, whichever end stays. */
function cutCell(text: string, width: number, keep: Column["keep"]): string {
  if (displayWidth(text) <= width) return text;
  const indent = text.length - text.trimStart().length;
  if (indent === 0 || indent >= width) return cutToWidth(text, width, keep);
  return text.slice(0, indent) + cutToWidth(text.slice(indent), width - indent, keep);
}

export function renderTable(columns: readonly Column[], rows: readonly string[][], style: Style): string {
  const cells = rows.map((row) => columns.map((col, i) => (col.max !== undefined && !col.wrap && layoutWidth(style) !== undefined ? cutCell(row[i] ?? "", col.max, col.keep) : (row[i] ?? ""))));
  const natural = columns.map((col, i) => Math.max(displayWidth(col.head), ...cells.map((r) => displayWidth(r[i]!))));
  const limit = layoutWidth(style);
  // (a cell that wraps breaks at its spaces: its column is no narrower than its longest word, a name
  // or a command, while another column can give, up to half the width, past which a word breaks)
  const words = columns.map((col, i) => (col.wrap && limit !== undefined ? Math.min(Math.floor(limit / 2), Math.max(0, ...cells.map((r) => longestWord(r[i]!)))) : 0));
  const { shown, width } = fit(columns, natural, limit, words);
  const bold = style.c.isColorSupported ? style.c.bold : (s: string) => s;
  const wrapping = layoutWidth(style) === undefined ? [] : shown.filter((i) => columns[i]!.wrap);
  // (on a terminal, right-to-left text is isolated so that it cannot reorder the columns; piped, the
  // text is as it is, with no invisible characters of ours in a field a script reads)
  const rtl = style.terminalWidth !== undefined ? isolate : (text: string) => text;
  const line = (texts: readonly string[], paint: (text: string, i: number) => string) =>
    shown
      .map((i, k) => {
        const text = columns[i]!.wrap && wrapping.includes(i) ? texts[i]! : cutCell(texts[i]!, width[i]!, columns[i]!.keep);
        const pad = " ".repeat(Math.max(0, width[i]! - displayWidth(text)));
        const last = k === shown.length - 1;
        // (an empty cell is not painted: colour codes around nothing would keep the line's trailing spaces)
        const body = text === "" ? "" : paint(rtl(text), i);
        return columns[i]!.align === "right" ? pad + body : last ? body : body + pad;
      })
      .join(" ".repeat(GAP));
  // (empty cells at the end: padding is never inside a paint; trimmed from the end by hand, as the
  // pattern / +$/ tries each run of spaces in a padded row: 50 ms of a 3,000-row `ls`)
  const trimmed = (text: string) => {
    let end = text.length;
    while (end > 0 && text.charCodeAt(end - 1) === 32) end--;
    return text.slice(0, end);
  };
  const out = [trimmed(line(columns.map((c) => c.head), (t) => bold(t)))];
  cells.forEach((r, k) => {
    const paint = (t: string, i: number) => (columns[i]!.paint ? columns[i]!.paint!(t, k) : t);
    // (cells that wrap: their first line in the row, the rest on lines of their own below it, the other cells blank)
    const more = new Map<number, string[]>();
    for (const i of wrapping) {
      if (displayWidth(r[i]!) <= width[i]!) continue;
      const [first, ...rest] = hardWrap(r[i]!, width[i]!, true);
      more.set(i, rest);
      r = r.map((t, j) => (j === i ? first! : t));
    }
    out.push(trimmed(line(r, paint)));
    const depth = Math.max(0, ...[...more.values()].map((m) => m.length));
    for (let d = 0; d < depth; d++) {
      const texts = columns.map((_, i) => more.get(i)?.[d] ?? "");
      out.push(trimmed(line(texts, paint)).replace(/^ +$/, ""));
    }
  });
  return out.join("\n") + "\n";
}

/**
 * Which columns are drawn, and how wide: all at their natural width when there is room (or no
 * limit); else the flexible ones shrunk, least important first, a wrapping one never below its
 * longest word (`words`); else the least important dropped.
 */
export function fit(columns: readonly Column[], natural: readonly number[], limit: number | undefined, words: readonly number[] = []): { shown: number[]; width: number[] } {
  const width = [...natural];
  let shown = columns.map((_, i) => i);
  if (limit === undefined) return { shown, width };
  const byImportance = (a: number, b: number) => columns[b]!.priority - columns[a]!.priority || b - a;
  for (;;) {
    const need = shown.reduce((n, i) => n + natural[i]!, 0) + GAP * (shown.length - 1);
    let over = need - limit;
    shown.forEach((i) => (width[i] = natural[i]!));
    if (over <= 0) return { shown, width };
    const shrinkOrder = (i: number) => columns[i]!.shrink ?? columns[i]!.priority;
    const flexible = shown.filter((i) => columns[i]!.flex).sort((a, b) => shrinkOrder(b) - shrinkOrder(a) || b - a);
    const floor = (i: number) => Math.min(natural[i]!, Math.max(words[i] ?? 0, columns[i]!.min ?? Math.max(10, displayWidth(columns[i]!.head))));
    const room = flexible.reduce((n, i) => n + natural[i]! - floor(i), 0);
    if (room >= over) {
      for (const i of flexible) {
        const take = Math.min(over, natural[i]! - floor(i));
        width[i] = natural[i]! - take;
        over -= take;
      }
      return { shown, width };
    }
    if (shown.length === 1) {
      width[shown[0]!] = Math.max(1, limit);
      return { shown, width };
    }
    const drop = [...shown].sort(byImportance)[0]!;
    shown = shown.filter((i) => i !== drop);
  }
}

/** The display width of the widest run of a text between spaces. */
function longestWord(text: string): number {
  let widest = 0;
  for (const word of text.split(" ")) widest = Math.max(widest, displayWidth(word));
  return widest;
}
