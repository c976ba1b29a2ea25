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

/** A run shorter than this shows no bar at all: one that ends at once would only flicker (and leave frames in a captured log). */
export const PROGRESS_AFTER_MS = 250;
/** Frames at most this often. */
const REDRAW_MS = 100;

/**
 * When to draw: what to write to the terminal for a run's progress at time `now` (ms): a frame (led
 * by a carriage return), the line cleared once the run is done, or nothing. No bar before the run
 * has gone on for `PROGRESS_AFTER_MS`; nothing to clear when no bar was drawn. A run that ends
 * starts the next one afresh (a command may have several).
 */
export class Progress {
  private started: number | undefined;
  private drawn = false;
  private lastDraw = Number.NEGATIVE_INFINITY;

  constructor(private readonly columns: number) {}

  update(done: number, total: number, label: string, now: number): string {
    if (done >= total) {
      this.started = undefined;
      return this.aside();
    }
    this.started ??= now;
    if (now - this.started < PROGRESS_AFTER_MS || now - this.lastDraw < REDRAW_MS) return "";
    this.lastDraw = now;
    this.drawn = true;
    return `\r${progressFrame(done, total, label, this.columns)}`;
  }

  /** What clears the line for another message (a warning) when a frame is up; the next update draws again. */
  aside(): string {
    if (!this.drawn) return "";
    this.drawn = false;
    this.lastDraw = Number.NEGATIVE_INFINITY;
    return `\r${" ".repeat(this.columns)}\r`;
  }
}
