import { renderTable } from "../render/table.js";
import { preview, type Style } from "../render/text.js";

/** The per-file table of a directory run (migrate, repair). */
export function renderSummaryTable(head: string[], rows: string[][], style: Style): string {
  return renderTable(head, rows.map((r) => r.map((cell, i) => (i === 0 ? preview(cell, 60) : preview(cell, 70)))), style);
}
