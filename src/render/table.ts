import Table from "cli-table3";
import { preview, type Style } from "./text.js";

/** A borderless table (cli-table3): columns two spaces apart, cells made safe and one line. */
export function renderTable(head: string[], rows: string[][], style: Style, widths: number[] = []): string {
  const table = new Table({
    head,
    chars: { top: "", "top-mid": "", "top-left": "", "top-right": "", bottom: "", "bottom-mid": "", "bottom-left": "", "bottom-right": "", left: "", "left-mid": "", mid: "", "mid-mid": "", right: "", "right-mid": "", middle: "  " },
    style: { head: style.c.isColorSupported ? ["bold"] : [], border: [], "padding-left": 0, "padding-right": 0 },
  });
  for (const row of rows) table.push(row.map((cell, i) => (widths[i] ? preview(cell, widths[i]!) : cell)));
  return table.toString() + "\n";
}
