import { sanitize } from "./safe.js";
import { cutToWidth, displayWidth } from "./width.js";

/**
 * One frame of a progress bar (`[####      ] 12/40 label`), exactly `columns` wide: a frame that
 * wrapped would scroll the terminal instead of being redrawn in place.
 */
export function progressFrame(done: number, total: number, label: string, columns: number): string {
  const bar = Math.min(30, columns - 12);
  const filled = total > 0 ? Math.round((done / total) * bar) : bar;
  const frame = cutToWidth(`[${"#".repeat(filled)}${" ".repeat(bar - filled)}] ${done}/${total} ${sanitize(label)}`, columns);
  return frame + " ".repeat(columns - displayWidth(frame));
}
