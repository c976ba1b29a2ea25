/**
 * Usage as pi 1.6 counts it, per file: for every fixture, every corpus file, sessions written by
 * pi's SessionManager (with every kind of usage-bearing entry) and seeded corruptions of them,
 * what `usage` reads of a file must equal pi's `/session` totals (`AgentSession.getSessionStats`)
 * and its cost breakdown by model (`getUsageCostBreakdown`) over the entries pi loads
 * (`loadEntriesFromFile`, then `migrateSessionEntries`); and the fast read must equal the
 * reference read (the session reader) number for number. `show`'s totals must equal pi's too.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BufferSource, FileSource } from "../../src/format/read/source.js";
import { openSessionSync } from "../../src/format/session/session.js";
import { readFileUsage, referenceUsage } from "../../src/format/usage/read.js";
import { AMOUNT_STRIDE, type FileUsage } from "../../src/format/usage/records.js";
import { StatsCollector } from "../../src/format/usage/stats.js";
import { CORRUPTIONS, corrupt } from "../helpers/corrupt.js";
import { generateSession, rng } from "../helpers/generate.js";
import { corpusFiles, fixtureFiles } from "../helpers/paths.js";
import { pi, piSessionStats, piUsageBreakdown, type PiSessionStats } from "../helpers/pi.js";

const work = mkdtempSync(join(tmpdir(), "pi-session-usage-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const tally = { files: 0, requests: 0, piThrows: 0, unreadableToPi: 0, fastEqualsReference: 0 };
afterAll(() => console.log(`usage conformance: ${tally.files} files, ${tally.requests} requests equal to pi's /session; ${tally.unreadableToPi} files pi reads nothing of; ${tally.piThrows} where pi's /session throws; fast read = reference on ${tally.fastEqualsReference}`));

/** The entries pi's /session counts, from a copy (pi's loader may append a newline to the file it reads). */
function piEntries(path: string): Array<Record<string, any>> {
  const copy = join(work, `pi-${tally.files}-${basename(path)}`);
  copyFileSync(path, copy);
  const all = pi.loadEntriesFromFile(copy) as Array<Record<string, any>>;
  if (all.length > 0) pi.migrateSessionEntries(all);
  return all.filter((e) => e.type !== "session");
}

/** Ours, summed as pi sums: by model key, and in all. */
function ourSums(usage: FileUsage): { byKey: Map<string, { cost: number; tokens: number }>; stats: PiSessionStats } {
  const byKey = new Map<string, { cost: number; tokens: number }>();
  const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  let cost = 0;
  for (let m = 0; m < usage.amounts.length; m += AMOUNT_STRIDE) {
    const a = usage.amounts;
    const key = usage.models[a[m]!]!;
    const tokens = a[m + 1]! + a[m + 2]! + a[m + 3]! + a[m + 4]!;
    const row = byKey.get(key) ?? { cost: 0, tokens: 0 };
    row.cost += a[m + 5]!;
    row.tokens += tokens;
    byKey.set(key, row);
    t.input += a[m + 1]!;
    t.output += a[m + 2]!;
    t.cacheRead += a[m + 3]!;
    t.cacheWrite += a[m + 4]!;
    t.total += tokens;
    cost += a[m + 5]!;
  }
  return { byKey, stats: { tokens: t, cost } };
}

/** pi's totals, or undefined where pi's /session throws (an assistant message without usage) or sums to NaN (usage without numbers). */
function piStats(entries: Array<Record<string, any>>): PiSessionStats | undefined {
  try {
    const s = piSessionStats(entries);
    if ([s.cost, ...Object.values(s.tokens)].some((v) => Number.isNaN(v))) return undefined;
    return s;
  } catch {
    tally.piThrows++;
    return undefined;
  }
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

function expectMatchesPi(path: string, bytes?: Buffer): void {
  tally.files++;
  const label = basename(path);
  const source = () => (bytes ? new BufferSource(label, bytes) : new FileSource(path));
  const fast = readFileUsage(source());
  const reference = referenceUsage(source());
  // the fast read is the reference's, number for number
  expect(fast.usage, `${label}: fast read = reference`).toEqual(reference.usage);
  expect({ kind: fast.kind, header: fast.header }, `${label}: what the file is`).toEqual({ kind: reference.kind, header: reference.header });
  tally.fastEqualsReference++;
  if (bytes) writeFileSync(path, bytes);
  const entries = piEntries(path);
  const ours = ourSums(fast.usage);
  if (entries.length === 0 && readFileSync(path).length > 0) {
    // pi reads nothing of the file: nothing is counted, what it holds is reported
    tally.unreadableToPi++;
    expect(fast.usage.amounts.length, label).toBe(0);
    return;
  }
  const theirs = piStats(entries);
  if (theirs) {
    for (const k of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) expect(close(ours.stats.tokens[k], theirs.tokens[k]), `${label}: tokens.${k} ${ours.stats.tokens[k]} vs pi ${theirs.tokens[k]}`).toBe(true);
    expect(close(ours.stats.cost, theirs.cost), `${label}: cost ${ours.stats.cost} vs pi ${theirs.cost}`).toBe(true);
    // show's totals are pi's too
    const stats = new StatsCollector();
    openSessionSync(path, { onRecord: stats.onRecord, skim: true }).close();
    expect(stats.stats.tokens, `${label}: show's tokens`).toEqual(expect.objectContaining({ input: theirs.tokens.input, output: theirs.tokens.output, cacheRead: theirs.tokens.cacheRead, cacheWrite: theirs.tokens.cacheWrite }));
    expect(close(stats.stats.tokens.total, theirs.tokens.total) && close(stats.stats.cost, theirs.cost), `${label}: show's total and cost`).toBe(true);
  }
  // by model, as pi's breakdown keys them (rows with neither cost nor tokens left out, as pi does)
  let breakdown: Array<{ key: string; cost: number; tokens: number }> | undefined;
  try {
    breakdown = piUsageBreakdown(entries);
  } catch {
    breakdown = undefined;
  }
  if (breakdown && breakdown.every((b) => !Number.isNaN(b.cost) && !Number.isNaN(b.tokens))) {
    const mine = [...ours.byKey].filter(([, v]) => v.cost > 0 || v.tokens > 0);
    expect(mine.map(([k]) => k).sort(), `${label}: models`).toEqual(breakdown.map((b) => b.key).sort());
    for (const b of breakdown) {
      const m = ours.byKey.get(b.key)!;
      expect(close(m.cost, b.cost) && close(m.tokens, b.tokens), `${label}: ${b.key} ${m.cost}/${m.tokens} vs pi ${b.cost}/${b.tokens}`).toBe(true);
    }
  }
  tally.requests += fast.usage.amounts.length / AMOUNT_STRIDE;
}

describe("usage per file, as pi counts it", () => {
  it.each(fixtureFiles().map((f) => [basename(f), f]))("fixture %s", (_, path) => expectMatchesPi(path));
  it.each(corpusFiles().map((f) => [basename(f), f]))("corpus %s", (_, path) => expectMatchesPi(path));

  it("sessions written by pi's SessionManager, every kind of usage-bearing entry", () => {
    for (let seed = 1; seed <= 12; seed++) expectMatchesPi(generateSession({ seed, dir: work, steps: 80 }));
  });

  it("what pi 1.6 writes besides: a model that answered other than the one asked, tool results with usage", () => {
    const sm = pi.SessionManager.create("/work/app", work);
    const usage = (n: number) => ({ input: n, output: 2 * n, cacheRead: 3 * n, cacheWrite: 4 * n, totalTokens: 10 * n, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: n / 1000 } });
    sm.appendMessage({ role: "user", content: "hi", timestamp: 1 });
    sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "a" }], api: "x", provider: "openrouter", model: "auto", responseModel: "anthropic/claude-sonnet-4.5", usage: usage(100), stopReason: "stop", timestamp: 2 });
    sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "b" }], api: "x", provider: "openrouter", model: "auto", responseModel: null, usage: usage(7), stopReason: "stop", timestamp: 3 });
    sm.appendMessage({ role: "toolResult", toolCallId: "c1", toolName: "subagent", content: [{ type: "text", text: "r" }], isError: false, usage: usage(50), timestamp: 4 });
    sm.appendUsage("cache_warm", "anthropic", "claude-haiku", usage(3));
    sm.appendCompaction("summary", undefined, 1000, undefined, undefined, usage(20));
    sm.branchWithSummary(null, "branch summary", undefined, undefined, usage(9));
    const path = sm.getSessionFile() as string;
    expectMatchesPi(path);
    const keys = new Set(readFileUsage(new FileSource(path)).usage.models);
    expect(keys).toEqual(new Set(["openrouter/anthropic/claude-sonnet-4.5", "openrouter/auto", "Tools/summaries", "anthropic/claude-haiku"]));
  });

  it("v1 files: the fast read gives each entry the session reader's id, and stands aside where two lines may draw one id", () => {
    // seeded corruptions of a real v1 session, read both ways (pi's own migration throws on some:
    // a line of JSON that is no object), and held to pi where it reads them
    const r = rng(9);
    const v1 = readFileSync(corpusFiles().find((f) => f.includes("large-session.v1"))!);
    for (const kind of CORRUPTIONS) {
      const c = corrupt(v1, kind, Math.floor(r() * 1e6));
      if (!c) continue;
      const fast = readFileUsage(new BufferSource(kind, c.bytes));
      const reference = referenceUsage(new BufferSource(kind, c.bytes));
      expect({ usage: fast.usage, kind: fast.kind, header: fast.header }, `v1, ${kind}: fast read = reference`).toEqual({ usage: reference.usage, kind: reference.kind, header: reference.header });
      const path = join(work, `v1-corrupt-${kind}.jsonl`);
      writeFileSync(path, c.bytes);
      let readable = true;
      try {
        piEntries(path);
      } catch {
        readable = false;
      }
      if (readable) expectMatchesPi(path, c.bytes);
    }
    // a v1 session whose lines 2183 and 2448 draw the same first id (its session id found by a
    // search of ids for one whose first 3,000 lines collide): the second takes another, as pi's
    // migration gives; one with usage on both lines is read as the reference reads it
    const sid = "v1-collide-84";
    const first = (line: number) => createHash("sha256").update(`${sid}:${line}`).digest("hex").slice(0, 8);
    expect(first(2183)).toBe(first(2448));
    const usage = (n: number) => ({ input: n, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: n + 1, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: n / 1e4 } });
    const lines = [JSON.stringify({ type: "session", id: sid, timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" })];
    for (let line = 2; line <= 2500; line++) lines.push(JSON.stringify({ type: "message", timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, line)).toISOString(), message: { role: "assistant", content: [{ type: "text", text: `a${line}` }], provider: "p", model: "m", usage: usage(line), stopReason: "stop", timestamp: line } }));
    const bytes = Buffer.from(lines.join("\n") + "\n");
    const path = join(work, "v1-collide.jsonl");
    expectMatchesPi(path, bytes);
    // (both entries counted: their ids differ)
    expect(readFileUsage(new BufferSource("v1-collide", bytes)).usage.amounts.length / AMOUNT_STRIDE).toBe(2499);
  });

  it("seeded corruptions of pi's sessions: the fast read stands aside where it must, and both equal pi", () => {
    const r = rng(5);
    for (let seed = 1; seed <= 4; seed++) {
      const original = readFileSync(generateSession({ seed: 100 + seed, dir: work, steps: 40 }));
      for (const kind of CORRUPTIONS) {
        const c = corrupt(original, kind, Math.floor(r() * 1e6));
        if (c) expectMatchesPi(join(work, `corrupt-${seed}-${kind}.jsonl`), c.bytes);
      }
    }
  });
});
