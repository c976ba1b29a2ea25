import { readlinkSync } from "node:fs";
import { CliError } from "../../errors.js";
import { addMonths, Calendar, dayKey, isTimeZone, localTimeZone, parseDay } from "../../format/usage/calendar.js";

/** What `--since`/`--until` take, for messages. */
const DATE_FORMS = "YYYY-MM-DD, YYYYMMDD, or a time before today: 7d, 4w, 3m";

/**
 * The calendar days are counted in: `--timezone`, else the machine's own zone. The machine's zone
 * is named from `TZ` or /etc/localtime when they name one, so that a report need not start ICU's
 * formatter (`Calendar`); an unknown `--timezone` is a usage error.
 */
export function calendarFor(timezone: string | undefined, env: NodeJS.ProcessEnv): Calendar {
  if (timezone !== undefined) {
    if (!isTimeZone(timezone)) throw new CliError(`--timezone ${JSON.stringify(timezone)} is not a time zone; give an IANA name such as Europe/Paris, America/New_York or UTC`);
    return new Calendar(timezone);
  }
  return new Calendar(localZoneName(env), true);
}

function localZoneName(env: NodeJS.ProcessEnv): string {
  const tz = env.TZ?.replace(/^:/, "");
  if (tz !== undefined && /^(UTC|[A-Za-z_]+(\/[A-Za-z0-9_+-]+)+)$/.test(tz)) return tz;
  if (tz === undefined) {
    try {
      const m = /zoneinfo\/(.+)$/.exec(readlinkSync("/etc/localtime"));
      if (m) return m[1]!;
    } catch {
      // not a link: ask Intl
    }
  }
  return localTimeZone();
}

/** A `--since`/`--until` value as a local day; `7d`, `4w`, `3m`: that long before today. */
function dayOption(name: string, text: string, calendar: Calendar, now: number): number {
  const relative = /^(\d+)([dwm])$/.exec(text);
  if (relative) {
    const today = calendar.day(now)!;
    const n = Number(relative[1]);
    return relative[2] === "d" ? today - n : relative[2] === "w" ? today - 7 * n : addMonths(today, -n);
  }
  const day = parseDay(text);
  if (day === undefined) throw new CliError(`--${name} ${JSON.stringify(text)} is not a date; give ${DATE_FORMS} (e.g. --${name} 2026-03-01)`);
  return day;
}

/** Both bounds, checked to be in order. */
export function dayRange(since: string | undefined, until: string | undefined, calendar: Calendar, now: number): { since?: number; until?: number } {
  const from = since === undefined ? undefined : dayOption("since", since, calendar, now);
  const to = until === undefined ? undefined : dayOption("until", until, calendar, now);
  if (from !== undefined && to !== undefined && from > to) throw new CliError(`--since ${dayKey(from)} is after --until ${dayKey(to)}; give the earlier date to --since`);
  return { ...(from !== undefined ? { since: from } : {}), ...(to !== undefined ? { until: to } : {}) };
}
