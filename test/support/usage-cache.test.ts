/**
 * `usage`'s cache reads its JSON line, blocks and entries at once and each file's amounts when
 * first asked for, from the cache file as it was opened: what comes back is what was kept, past a
 * JSON line longer than the first read, after another run has written the cache again, and a
 * cache cut short under a reader says so rather than making numbers up (test/e2e/usage.test.ts:
 * warm against cold through the CLI).
 */
import { mkdtempSync, readFileSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageCollector, type FileUsage } from "../../src/format/usage/records.js";
import { UsageCache } from "../../src/support/usage/cache.js";
import type { UsageFile } from "../../src/support/usage/read.js";

const dir = mkdtempSync(join(tmpdir(), "pi-session-usage-cache-"));

/** A file's usage: `n` records in a quarter hour, each amount its own (`seed` apart from another file's). */
function usageOf(n: number, seed: number): FileUsage {
  const c = new UsageCollector(n);
  for (let k = 0; k < n; k++) c.add(k % 2 ? "p/a" : "p/b", { input: seed * 1000 + k, output: k, cacheRead: seed, cacheWrite: 1, cost: seed + k / 1000 }, seed * 100 + k, Date.UTC(2026, 0, 1) + seed * 900_000 + k * 1000);
  return c.result();
}

// (names of 250 characters: 600 files make a JSON line of some 170 KB, 1,200 one longer than the
// first read's 256; 40 records a file in two blocks: amounts of 1.5 MB, more than the rest, so
// read on demand)
const name = (k: number) => `${String(k).padStart(6, "0")}-${"x".repeat(243)}.jsonl`;
const filesOf = (count: number, records: number) => Array.from({ length: count }, (_, k) => ({ path: join(dir, "sessions", name(k)), stamp: { size: 100 + k, mtimeMs: 1_700_000_000_000 + k, ino: k + 1 }, usage: usageOf(records, k) }));
const files = filesOf(600, 40);
const fileOf = (f: (typeof files)[number]): UsageFile => ({ path: f.path, kind: "session", id: `id-${f.stamp.ino}`, created: "2026-01-01T00:00:00.000Z", cwd: "/w", usage: f.usage });
const numbers = (u: FileUsage) => ({ blocks: Array.from(u.blocks), entries: Array.from(u.entries), amounts: Array.from(u.amounts), models: u.models });

describe("the usage cache", () => {
  const path = join(dir, "usage-index.bin");

  it("gives back every file's numbers, its amounts read when asked for from the cache as it was opened, though the cache was written again since", () => {
    const first = new UsageCache(path);
    for (const f of files) first.set(f.stamp, fileOf(f));
    first.save();
    const bytes = readFileSync(path);
    const nl = bytes.indexOf(10);
    expect(nl).toBeLessThan(256 * 1024);
    const { regions } = JSON.parse(bytes.toString("utf8", 0, nl));
    expect(regions.amounts * 8).toBeGreaterThan(nl + 1 + (regions.blocks + regions.entries) * 8);
    const reader = new UsageCache(path);
    const held = files.map((f) => reader.get(f.path, f.stamp)!);
    expect(held.every(Boolean)).toBe(true);
    // another run writes the cache again before any amounts are read: a new file first, so every file's amounts move
    const other = new UsageCache(path);
    const added = { path: join(dir, "sessions", "new.jsonl"), stamp: { size: 1, mtimeMs: 1, ino: 99_999 }, usage: usageOf(50, 5000) };
    other.set(added.stamp, fileOf(added));
    other.save();
    expect(readFileSync(path).equals(bytes)).toBe(false);
    held.forEach((file, k) => expect(numbers(file.usage), name(k)).toEqual(numbers(files[k]!.usage)));
    reader.close();
    // the new cache holds both
    const again = new UsageCache(path);
    expect(numbers(again.get(added.path, added.stamp)!.usage)).toEqual(numbers(added.usage));
    expect(numbers(again.get(files[7]!.path, files[7]!.stamp)!.usage)).toEqual(numbers(files[7]!.usage));
    // (a stamp that differs is not held)
    expect(again.get(files[7]!.path, { ...files[7]!.stamp, size: 1 })).toBeUndefined();
    again.close();
  });

  it("cut short after it was opened: a file's amounts are an error that says what to do, never numbers made up", () => {
    const reader = new UsageCache(path);
    const held = files.map((f) => reader.get(f.path, f.stamp)!);
    const bytes = readFileSync(path);
    const nl = bytes.indexOf(10);
    const { blocks, entries } = JSON.parse(bytes.toString("utf8", 0, nl)).regions;
    truncateSync(path, nl + 1 + (blocks + entries) * 8);
    expect(statSync(path).size).toBeLessThan(bytes.length);
    // (the blocks and entries were read whole when it was opened)
    expect(Array.from(held[3]!.usage.entries)).toEqual(Array.from(files[3]!.usage.entries));
    expect(() => held[3]!.usage.amounts).toThrow(/usage-index\.bin: the usage cache was cut short while it was read; run the command again \(or with --no-cache\)/);
    reader.close();
    // and read again, it is not trusted: it holds nothing
    expect(new UsageCache(path).get(files[3]!.path, files[3]!.stamp)).toBeUndefined();
  });

  it("is read at once where its amounts are no more bytes than the rest, or its JSON line is longer than the first read", () => {
    const few = join(dir, "few.bin");
    const long = join(dir, "long.bin");
    for (const [path, held] of [
      [few, filesOf(20, 2)],
      [long, filesOf(1200, 40)],
    ] as const) {
      const writer = new UsageCache(path);
      for (const f of held) writer.set(f.stamp, fileOf(f));
      writer.save();
      if (path === long) expect(readFileSync(path).indexOf(10)).toBeGreaterThan(256 * 1024);
      const reader = new UsageCache(path);
      // (emptied under it: what it gives was read when it was opened)
      truncateSync(path, 0);
      held.forEach((f, k) => expect(numbers(reader.get(f.path, f.stamp)!.usage), `file ${k}`).toEqual(numbers(f.usage)));
    }
  });
});
