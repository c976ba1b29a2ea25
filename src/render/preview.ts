import { summaryFromBytes } from "../format/session/summary.js";
import { summaryWindow } from "../format/session/line-summary.js";
import { preview } from "./width.js";

/**
 * An entry's one-line preview from its line's bytes: what `entrySummary` says of it, read without
 * parsing the line (`summaryFromBytes`), made safe and cut to `max` (`preview`).
 */
export function previewFromBytes(bytes: Buffer, type: string | undefined, role: string | undefined, max = 200): string {
  return preview(summaryFromBytes(bytes, type, role, summaryWindow(max)), max);
}

/** What makes an entry's summary a preview of at most `max` (a `SummaryReader`'s `finish`). */
export const previewOf = (max: number) => (summary: string) => preview(summary, max);
