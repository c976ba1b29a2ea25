/**
 * The calendar `usage` buckets by, against Intl's own wall clock: for random times from 1900 to
 * 2100 in zones east and west, with DST, half- and three-quarter-hour offsets, and the machine's
 * own zone read through `Date`.
 */
import { describe, expect, it } from "vitest";
import { addMonths, Calendar, dayKey, isTimeZone, monthKey, parseDay, weekKey } from "../../../src/format/usage/calendar.js";
import { BLOCK_MS } from "../../../src/format/usage/records.js";
import { rng } from "../../helpers/generate.js";

/** The local date of `ms` in `zone`, as Intl prints it. */
function intlDate(ms: number, zone: string): string {
  const p: Record<string, string> = {};
  for (const { type, value } of new Intl.DateTimeFormat("en-US", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(ms)) p[type] = value;
  return `${p.year}-${p.month}-${p.day}`;
}

const ZONES = ["UTC", "Europe/Paris", "America/New_York", "America/Santiago", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Chatham", "Pacific/Kiritimati", "America/St_Johns", "Africa/Monrovia"];

describe("Calendar", () => {
  it("puts a time on the day Intl's wall clock shows, in every zone", () => {
    const r = rng(3);
    for (const zone of ZONES) {
      const calendar = new Calendar(zone);
      for (let i = 0; i < 1500; i++) {
        const ms = Date.UTC(1900, 0, 1) + Math.floor(r() * (Date.UTC(2100, 0, 1) - Date.UTC(1900, 0, 1)));
        expect(dayKey(calendar.day(ms)!), `${zone} ${new Date(ms).toISOString()}`).toBe(intlDate(ms, zone));
      }
    }
  });

  it("each instant of a quarter hour falls on its block's day, where the zone's offset allows it", () => {
    const r = rng(4);
    for (const zone of ZONES) {
      const calendar = new Calendar(zone);
      for (let i = 0; i < 800; i++) {
        const ms = Date.UTC(1965, 0, 1) + Math.floor(r() * (Date.UTC(2060, 0, 1) - Date.UTC(1965, 0, 1)));
        const block = Math.floor(ms / BLOCK_MS);
        const day = calendar.blockDay(block);
        // since 1980 every zone's offset is whole quarter hours (Kiritimati's was -10:40 until 1979): a block has its day
        if (ms >= Date.UTC(1980, 0, 1)) expect(day, `${zone} ${new Date(ms).toISOString()}`).toBeDefined();
        if (day !== undefined) for (const t of [block * BLOCK_MS, ms, (block + 1) * BLOCK_MS - 1]) expect(dayKey(day), `${zone} ${new Date(t).toISOString()}`).toBe(intlDate(t, zone));
      }
    }
    // Kiritimati's -10:40 of the 1970s: no block has a day; records are bucketed one by one
    expect(new Calendar("Pacific/Kiritimati").blockDay(Math.floor(Date.UTC(1975, 5, 1) / BLOCK_MS))).toBeUndefined();
  });

  it("the machine's zone, read through Date, agrees with naming it", () => {
    const saved = process.env.TZ;
    try {
      const r = rng(5);
      for (const zone of ["America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe"]) {
        process.env.TZ = zone;
        const local = new Calendar(zone, true);
        for (let i = 0; i < 800; i++) {
          const ms = Date.UTC(1980, 0, 1) + Math.floor(r() * (Date.UTC(2060, 0, 1) - Date.UTC(1980, 0, 1)));
          expect(dayKey(local.day(ms)!), `${zone} ${new Date(ms).toISOString()}`).toBe(intlDate(ms, zone));
        }
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it("refuses what is no zone, and times a Date cannot hold", () => {
    expect(isTimeZone("Europe/Paris")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(new Calendar("UTC").day(NaN)).toBeUndefined();
    expect(new Calendar("UTC").day(9e15)).toBeUndefined();
  });
});

describe("keys", () => {
  it("ISO weeks: Monday first, week 1 holds the year's first Thursday", () => {
    const week = (d: string) => weekKey(parseDay(d)!);
    expect(week("2026-01-01")).toBe("2026-W01"); // a Thursday
    expect(week("2025-12-29")).toBe("2026-W01"); // its Monday
    expect(week("2025-12-28")).toBe("2025-W52"); // the Sunday before
    expect(week("2027-01-01")).toBe("2026-W53"); // a Friday: the last week of 2026
    expect(week("2027-01-04")).toBe("2027-W01");
    expect(week("2020-12-31")).toBe("2020-W53");
    expect(week("1970-01-01")).toBe("1970-W01");
    // seven days a week, each Monday a new one
    const r = rng(6);
    for (let i = 0; i < 500; i++) {
      const d = Math.floor(r() * 60000) - 10000;
      const monday = new Date(d * 86_400_000).getUTCDay() === 1;
      expect(weekKey(d) !== weekKey(d - 1)).toBe(monday);
    }
  });

  it("dates and months", () => {
    expect(dayKey(parseDay("2026-03-08")!)).toBe("2026-03-08");
    expect(parseDay("20260308")).toBe(parseDay("2026-03-08"));
    for (const bad of ["2026-02-30", "2026-13-01", "26-03-08", "yesterday", "2026-3-8"]) expect(parseDay(bad), bad).toBeUndefined();
    expect(monthKey(parseDay("2026-03-31")!)).toBe("2026-03");
    expect(dayKey(addMonths(parseDay("2026-03-31")!, -1))).toBe("2026-02-28");
    expect(dayKey(addMonths(parseDay("2026-01-15")!, -3))).toBe("2025-10-15");
  });
});
