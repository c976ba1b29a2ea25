import { formatCount } from "../format/common/units.js";

export { formatBytes, formatCount, plural } from "../format/common/units.js";

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

/** Token counts as a table shows them: exact below 10,000, else three figures (`12.3k`, `206M`, `3.21B`). */
export function formatTokens(n: number): string {
  if (n < 10_000) return formatCount(Math.round(n));
  const units: Array<[number, string]> = [
    [1e12, "T"],
    [1e9, "B"],
    [1e6, "M"],
    [1e3, "k"],
  ];
  for (const [size, unit] of units) {
    if (n < size) continue;
    const v = n / size;
    const text = v >= 100 ? String(Math.round(v)) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
    // (rounding may reach the next unit's 1,000: 999.6k is 1.00M)
    return text === "1000" && unit !== "T" ? formatTokens(size * 1000) : `${text}${unit}`;
  }
  return String(n);
}

/** `$2,791.95`; a cost above zero that rounds to nothing is `<$0.01`. */
export function formatCost(n: number): string {
  if (n > 0 && n < 0.005) return "<$0.01";
  const [whole, cents] = n.toFixed(2).split(".");
  return `$${formatCount(Number(whole))}.${cents}`;
}

const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/** A bar `width` cells long at `max`, in eighths of a cell: a cost at a glance. */
export function costBar(value: number, max: number, width: number): string {
  if (!(max > 0) || !(value > 0)) return "";
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return "█".repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}
