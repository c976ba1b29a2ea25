export { formatBytes, formatCount, plural } from "../format/units.js";

const DAY = 86_400_000;
/** The largest time a Date holds (8.64e15 ms either side of the epoch). */
const MAX_TIME = 8.64e15;
/** "00" to "99" and "000" to "999", made once: commands print a time for each of a million entries. */
const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0"));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
let cachedDay = NaN;
let cachedDayText = "";

/**
 * The day (`2026-03-25`, UTC) of a time in ms, then the ms into that day; undefined when a Date
 * cannot hold it. Only the first time of each day makes a Date.
 */
function splitTime(ms: number): number | undefined {
  const t = Math.trunc(ms);
  if (!(Math.abs(t) <= MAX_TIME)) return undefined;
  const day = Math.floor(t / DAY);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDayText = new Date(day * DAY).toISOString().slice(0, -14);
  }
  return t - day * DAY;
}

/** `14:55:07` of ms into a day. */
function clock(inDay: number): string {
  const s = Math.floor(inDay / 1000);
  return `${TWO[Math.floor(s / 3600)]}:${TWO[Math.floor(s / 60) % 60]}:${TWO[s % 60]}`;
}

/** `toISOString()` of a time in ms (null when a Date cannot hold it), mostly without a Date. */
export function isoTime(ms: number): string | null {
  const inDay = splitTime(ms);
  return inDay === undefined ? null : `${cachedDayText}T${clock(inDay)}.${THREE[inDay % 1000]}Z`;
}

/** `2026-03-25 14:55:07` (UTC) of a time in ms or a date string; undefined when there is none. */
export function formatDateTime(t: number | string | undefined): string | undefined {
  const inDay = t === undefined ? undefined : splitTime(typeof t === "number" ? t : Date.parse(t));
  return inDay === undefined ? undefined : `${cachedDayText} ${clock(inDay)}`;
}

/** `2026-03-25 14:55` in UTC, or `-` when the time is unknown. */
export function formatTime(t: number | string | undefined): string {
  return formatDateTime(t)?.slice(0, -3) ?? "-";
}
