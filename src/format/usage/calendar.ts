/**
 * Dates in a time zone, for bucketing times by day, ISO week and month (`usage`). A local day is a
 * whole number (days since 1970-01-01 in that zone's calendar); its keys are `2026-03-25`,
 * `2026-W13` and `2026-03`.
 *
 * `Intl.DateTimeFormat` knows every zone's offsets but costs microseconds a call, and a report
 * buckets hundreds of thousands of times: the offset is asked once per UTC day (at its two ends;
 * equal, it holds the whole day), and per quarter hour only on a day the zone changes offset
 * (every change since 1980 falls on a quarter hour).
 */

const DAY = 86_400_000;
const BLOCK = 15 * 60_000;
/** The largest time a Date holds (8.64e15 ms either side of the epoch). */
const MAX_TIME = 8.64e15;

/** Whether `timeZone` is one `Intl` knows (an IANA name such as `Europe/Paris`, or `UTC`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The machine's zone (`TZ`, else the system's), by name. */
export function localTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC";
}

/** `2026-03-25` of a day number (a UTC calendar date: local days are numbered as their dates). */
export function dayKey(day: number): string {
  return new Date(day * DAY).toISOString().slice(0, 10);
}

/** `2026-W13`: the ISO week (weeks start on Monday; week 1 holds the year's first Thursday). */
export function weekKey(day: number): string {
  // 1970-01-01 was a Thursday: ISO weekday (Monday 0) is (day + 3) mod 7
  const thursday = day - (((day + 3) % 7) + 7) % 7 + 3;
  const year = new Date(thursday * DAY).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1) / DAY) / 7) + 1;
  return `${year}-W${String(week).padStart(2, "0")}`;
}

/** `2026-03`. */
export function monthKey(day: number): string {
  return dayKey(day).slice(0, 7);
}

/** The day number of a `YYYY-MM-DD` date; undefined when it is no date. */
export function parseDay(text: string): number | undefined {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const date = new Date(t);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  return t / DAY;
}

/** `day` moved by whole months, its day of the month kept where the month has it (else the month's last). */
export function addMonths(day: number, months: number): number {
  const date = new Date(day * DAY);
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(date.getUTCDate(), last)) / DAY;
}

export class Calendar {
  /** undefined: the machine's own zone, whose offsets `Date` gives without starting ICU's formatter. */
  private readonly parts: Intl.DateTimeFormat | undefined;
  /** UTC day -> the zone's offset all that day (ms), or NaN when it changes during the day. */
  private readonly offsets = new Map<number, number>();
  /** Quarter hour -> offset, on days the offset changes. */
  private readonly blockOffsets = new Map<number, number>();
  private lastDay = NaN;
  private lastOffset = 0;

  /**
   * `timeZone`: an IANA name (`isTimeZone`); `local`: it is the machine's own zone (the one `Date`
   * uses), named `timeZone` (the first `Intl.DateTimeFormat` of a process costs some 20 ms, a tenth
   * of a warm report).
   */
  constructor(
    readonly timeZone: string,
    readonly local = false,
  ) {
    this.parts = local ? undefined : new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", era: "short" });
  }

  /** The local day of a time in ms; undefined when it is no time a Date holds. */
  day(ms: number): number | undefined {
    if (!(Math.abs(ms) <= MAX_TIME - 2 * DAY)) return undefined;
    return Math.floor((ms + this.offset(ms)) / DAY);
  }

  /**
   * The local day of a quarter hour of UTC (`block`: ms / 15 min), when every instant of it falls
   * on that day: the zone's offset then is a whole number of quarter hours (every zone's since
   * 1980 is). Undefined otherwise: its records are bucketed one by one.
   */
  blockDay(block: number): number | undefined {
    const ms = block * BLOCK;
    if (!(Math.abs(ms) <= MAX_TIME - 2 * DAY)) return undefined;
    const o = this.offset(ms);
    return o % BLOCK === 0 ? Math.floor((ms + o) / DAY) : undefined;
  }

  /** The zone's offset from UTC at `ms` (local time - UTC, in ms). */
  offset(ms: number): number {
    const utcDay = Math.floor(ms / DAY);
    // (times come in runs: a session's requests)
    if (utcDay === this.lastDay) return this.lastOffset;
    let o = this.offsets.get(utcDay);
    if (o === undefined) {
      const first = this.offsetAt(utcDay * DAY);
      const last = this.offsetAt((utcDay + 1) * DAY - BLOCK);
      o = first === last ? first : NaN;
      this.offsets.set(utcDay, o);
    }
    if (!Number.isNaN(o)) {
      this.lastDay = utcDay;
      this.lastOffset = o;
      return o;
    }
    const block = Math.floor(ms / BLOCK);
    let b = this.blockOffsets.get(block);
    if (b === undefined) this.blockOffsets.set(block, (b = this.offsetAt(block * BLOCK)));
    return b;
  }

  /** The offset at one instant, from the zone's wall clock then. */
  private offsetAt(ms: number): number {
    if (!this.parts) return -new Date(ms).getTimezoneOffset() * 60_000;
    const p: Record<string, string> = {};
    for (const { type, value } of this.parts.formatToParts(ms)) p[type] = value;
    const year = p.era === "BC" || p.era === "B" ? 1 - Number(p.year) : Number(p.year);
    const wall = Date.UTC(2000, Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
    // (Date.UTC maps years 0-99 to 1900-1999: the year is set apart)
    const date = new Date(wall);
    date.setUTCFullYear(year);
    const whole = Math.floor(ms / 1000) * 1000;
    return date.getTime() - whole;
  }
}
