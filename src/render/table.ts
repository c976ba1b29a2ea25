import stringWidth from "string-width";
import { preview, type Style } from "./text.js";

/**
 * Columns two spaces apart, every cell padded to its column's width (the head bold in colour),
 * as cli-table3 drew them borderless, written by hand because cli-table3 re-measures and restyles
 * every cell several times and is slow to load (BENCHMARKS.md, "the table by hand"). Widths are string-width's, as cli-table3's were
 * (East Asian wide characters and emoji count two columns, escape codes none); a printable ASCII
 * cell is its length. Cells are one line: callers make them safe with `preview` or `sanitize`.
 */
export function renderTable(head: string[], rows: string[][], style: Style, widths: number[] = []): string {
  const body = rows.map((row) => row.map((cell, i) => (widths[i] ? preview(cell, widths[i]!) : cell)));
  const columns = Math.max(head.length, ...body.map((r) => r.length));
  const width = new Array<number>(columns).fill(0);
  const measured = [head, ...body].map((row) =>
    row.map((cell, i) => {
      const w = displayWidth(cell);
      if (w > width[i]!) width[i] = w;
      return w;
    }),
  );
  const bold = style.c.isColorSupported ? style.c.bold : (s: string) => s;
  const line = (row: string[], k: number, decorate: (s: string) => string) =>
    Array.from({ length: columns }, (_, i) => decorate((row[i] ?? "") + " ".repeat(width[i]! - (measured[k]![i] ?? 0)))).join("  ");
  return [line(head, 0, bold), ...body.map((row, k) => line(row, k + 1, (s) => s))].join("\n") + "\n";
}

/**
 * Printable ASCII and the ellipsis previews end with: one column a character (string-width says
 * so too, but its first call compiles an emoji pattern: BENCHMARKS.md, "the table by hand").
 */
const PLAIN = /^[\x20-\x7e\u2026]*$/;

function displayWidth(cell: string): number {
  return PLAIN.test(cell) ? cell.length : stringWidth(cell);
}
