import { sanitizeOneLine } from "./safe.js";
import type { Style } from "./style.js";
import { formatTime } from "./units.js";
import { cutToWidth, displayWidth, isolate, preview } from "./width.js";

/**
 * A session's head over its matches on a terminal (`grep`'s, `search`'s): its file, then its title
 * and when it began. The title is cut to the room the time leaves and isolated (right-to-left text
 * cannot carry the time to its other side); the file is cut in its middle, both its ends kept.
 */
export function sessionHead(file: string, title: string | null | undefined, created: string | null, style: Style, width: number | undefined): string[] {
  const { c } = style;
  // (cut in the middle: two paths alike at their end still differ at their start, and the reverse)
  const head = [c.magenta(cutToWidth(sanitizeOneLine(file), width ?? Infinity, "middle"))];
  const time = created ? formatTime(created) : undefined;
  const room = (width ?? Infinity) - (time === undefined ? 0 : displayWidth(time) + 3);
  const shown = title ? isolate(cutToWidth(preview(title, 200), Math.max(10, room))) : undefined;
  const about = [shown, time].filter(Boolean).join(" · ");
  if (about) head.push(c.dim(about));
  return head;
}
