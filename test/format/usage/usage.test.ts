/**
 * Each entry once (`sharedRecords`) and the report's buckets (`usageReport`), on records made by
 * hand: who owns a shared entry, what never is shared, and records bucketed one by one where a
 * zone's offset splits a quarter hour.
 */
import { describe, expect, it } from "vitest";
import { idHash } from "../../../src/format/common/hash.js";
import { Calendar, dayKey } from "../../../src/format/usage/calendar.js";
import { UsageCollector } from "../../../src/format/usage/records.js";
import { sharedRecords, type SessionUsage } from "../../../src/format/usage/shared.js";
import { usageReport } from "../../../src/format/usage/report.js";
import { rng } from "../../helpers/generate.js";

const amounts = (cost: number) => ({ input: 10, output: 1, cacheRead: 100, cacheWrite: 0, cost });

/** A session of records: [id (undefined: none), ISO time (or NaN), cost]. */
function session(file: string, created: string | null, records: Array<[string | undefined, string | number, number]>, model = "p/m"): SessionUsage {
  const c = new UsageCollector();
  for (const [id, time, cost] of records) c.add(model, amounts(cost), id === undefined ? -1 : idHash(id), typeof time === "number" ? time : Date.parse(time));
  return { file, id: file, created: created === null ? NaN : Date.parse(created), cwd: "/w", usage: c.result() };
}

const flags = (s: SessionUsage[]) => sharedRecords(s).map((f) => (f ? Array.from(f) : null));

describe("sharedRecords", () => {
  it("an entry (id and time) counts in the earliest-created session that holds it; within a file every record counts", () => {
    const T = "2026-01-01T10:00:00.000Z";
    const parent = session("b.jsonl", "2026-01-01T09:00:00.000Z", [["aaaa0001", T, 1], ["aaaa0001", T, 1], ["aaaa0002", "2026-01-01T10:01:00.000Z", 2]]);
    const fork = session("a.jsonl", "2026-01-02T09:00:00.000Z", [["aaaa0001", T, 1], ["aaaa0003", T, 3]]);
    // the fork is listed first, created later: the parent owns the shared entry, both its copies
    expect(flags([fork, parent])).toEqual([[1, 0], null]);
  });

  it("same id at another time, or no id at all, is another entry", () => {
    const T = "2026-01-01T10:00:00.000Z";
    const a = session("a.jsonl", "2026-01-01T00:00:00.000Z", [["aaaa0001", T, 1], [undefined, T, 1]]);
    const b = session("b.jsonl", "2026-01-02T00:00:00.000Z", [["aaaa0001", "2026-01-01T10:00:00.001Z", 1], [undefined, T, 1]]);
    expect(flags([a, b])).toEqual([null, null]);
  });

  it("ties on creation go by path; a session without a time comes last; entries without a time match by id", () => {
    const T = "2026-01-01T10:00:00.000Z";
    const x = session("x.jsonl", "2026-01-01T00:00:00.000Z", [["aaaa0001", T, 1], ["aaaa0009", NaN, 1]]);
    const w = session("w.jsonl", "2026-01-01T00:00:00.000Z", [["aaaa0001", T, 1], ["aaaa0009", NaN, 1]]);
    const undated = session("a.jsonl", null, [["aaaa0001", T, 1]]);
    expect(flags([x, w, undated])).toEqual([[1, 1], null, [1]]);
  });

  it("matches a set of every entry on random stores with forks and copies (copies read once among them, or apart, or alike only at their ends)", () => {
    const r = rng(9);
    for (let round = 0; round < 30; round++) {
      const sessions: SessionUsage[] = [];
      const pool: Array<[string, number]> = [];
      for (let s = 0; s < 8; s++) {
        const records: Array<[string | undefined, number, number]> = [];
        for (let k = 0; k < 40; k++) {
          if (pool.length > 0 && r() < 0.3) {
            const [id, t] = pool[Math.floor(r() * pool.length)]!;
            records.push([id, t, 1]);
          } else {
            const id = Math.floor(r() * 0xffffffff).toString(16).padStart(8, "0");
            const t = Date.UTC(2026, 0, 1) + Math.floor(r() * 86_400_000 * 3);
            pool.push([id, t]);
            records.push([r() < 0.05 ? undefined : id, t, 1]);
          }
        }
        sessions.push(session(`s${s}.jsonl`, new Date(Date.UTC(2026, 0, 1) + Math.floor(r() * 5) * 3600_000).toISOString(), records));
      }
      // files of the same bytes read once: one records object, listed before or after the first, named to rank before or after it;
      // read apart (from a warm cache): records of their own, the same entries; and records alike at their ends, another key between
      for (let t = 0; t < 6; t++) {
        const of = sessions[Math.floor(r() * 8)]!;
        const u = of.usage;
        const entries = t % 3 === 0 ? u.entries : u.entries.slice();
        if (t % 3 === 2) entries[2 * Math.floor(entries.length / 4) + 1] = idHash(`between${t}`);
        const twin = { ...of, file: `${r() < 0.5 ? "a" : "z"}-copy${t}.jsonl`, usage: t % 3 === 0 ? u : { ...u, entries, blocks: u.blocks.slice() } };
        if (r() < 0.5) sessions.push(twin);
        else sessions.unshift(twin);
      }
      // the rule, plainly: in order of creation then path, a record is shared if an earlier session holds its entry
      const order = sessions.map((_, i) => i).sort((a, b) => sessions[a]!.created - sessions[b]!.created || (sessions[a]!.file < sessions[b]!.file ? -1 : 1));
      const held = new Set<string>();
      const expected: number[][] = new Array(sessions.length);
      for (const i of order) {
        const e = sessions[i]!.usage.entries;
        const mine: string[] = [];
        expected[i] = [];
        for (let k = 0; k < e.length; k += 2) {
          const key = `${e[k + 1]}:${e[k]}`;
          expected[i]!.push(e[k + 1]! >= 0 && held.has(key) ? 1 : 0);
          if (e[k + 1]! >= 0) mine.push(key);
        }
        for (const m of mine) held.add(m);
      }
      expect(sharedRecords(sessions).map((f, i) => (f ? Array.from(f) : new Array(expected[i]!.length).fill(0)))).toEqual(expected);
    }
  });
});

describe("usageReport", () => {
  it("a zone whose offset splits a quarter hour: records are bucketed one by one, as Intl dates them", () => {
    // Kiritimati was UTC-10:40 until 1979: 10:39 and 10:41 UTC fall on two days there
    const s = session("k.jsonl", "1975-06-01T00:00:00.000Z", [["aaaa0001", "1975-06-01T10:39:00.000Z", 1], ["aaaa0002", "1975-06-01T10:41:00.000Z", 2]]);
    const report = usageReport([{ session: s, shared: null }], { by: "day", calendar: new Calendar("Pacific/Kiritimati") });
    expect(report.rows.map((r) => [r.key, r.cost])).toEqual([
      ["1975-05-31", 1],
      ["1975-06-01", 2],
    ]);
  });

  it("by blocks, by records, or both (a session that inherits some of its records), the sums of its own records", () => {
    const r = rng(10);
    const records: Array<[string, number, number]> = [];
    for (let k = 0; k < 300; k++) records.push([`b${String(k).padStart(7, "0")}`, Date.UTC(2026, 2, 7) + Math.floor(r() * 4 * 86_400_000), Math.floor(r() * 100) / 100]);
    // (a record without a time, inherited in some of the flags below: the session's own day holds it)
    records.push(["b9999999", NaN, 0.5]);
    const s = session("s.jsonl", "2026-03-07T00:00:00.000Z", records);
    const n = records.length;
    const some = Uint8Array.from(records, () => (r() < 0.3 ? 1 : 0));
    const flagSets = { none: null, zeros: new Uint8Array(n), some, all: new Uint8Array(n).fill(1), timeless: Uint8Array.from(records, (_, k) => (k === n - 1 ? 1 : 0)) };
    for (const zone of ["America/New_York", "Asia/Kathmandu", "UTC"]) {
      const calendar = new Calendar(zone);
      for (const [name, shared] of Object.entries(flagSets)) {
        // what it owns, day by day, counted here record by record
        const own = new Map<string, { requests: number; cost: number }>();
        let inherited = 0;
        records.forEach(([, t, cost], k) => {
          if (shared?.[k] === 1) return void inherited++;
          const key = dayKey(calendar.day(Number.isNaN(t) ? s.created : t)!);
          const day = own.get(key) ?? { requests: 0, cost: 0 };
          own.set(key, { requests: day.requests + 1, cost: day.cost + cost });
        });
        const report = usageReport([{ session: s, shared }], { by: "day", calendar });
        expect(report.rows.map((x) => x.key), `${zone}, ${name}`).toEqual([...own.keys()].sort());
        for (const row of report.rows) {
          expect(row.requests, `${zone}, ${name}, ${row.key}`).toBe(own.get(row.key)!.requests);
          expect(row.cost, `${zone}, ${name}, ${row.key}`).toBeCloseTo(own.get(row.key)!.cost, 9);
        }
        const bySession = usageReport([{ session: s, shared }], { by: "session", calendar });
        expect(bySession.rows, `${zone}, ${name}`).toHaveLength(1);
        expect(bySession.rows[0]!.inherited!.requests, `${zone}, ${name}`).toBe(inherited);
        expect(report.total.requests + inherited).toBe(n);
      }
    }
  });
});
