/**
 * `usage` end to end: a store written by pi's SessionManager (a session, a fork of it made by
 * `/fork`, a fork of that fork, a `forkFrom` into another project, a backup copy of a file),
 * counted each entry once against an oracle built from pi's own loader and `/session` totals;
 * days in zones east and west of UTC and across a DST change; every output form; bad input.
 */
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { jsonl, header, user, assistant, entry } from "../helpers/builders.js";
import { cli, cliJson } from "../helpers/cli.js";
import { BIN, fixture, ROOT } from "../helpers/paths.js";
import { pi, piSessionStats } from "../helpers/pi.js";

const work = mkdtempSync(join(tmpdir(), "pi-session-usage-e2e-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
/** Each run gets its own cache, so that no test sees another's. */
let caches = 0;
const run = (args: string[], env: Record<string, string> = {}) => cli(["usage", ...args], { env: { XDG_CACHE_HOME: join(work, `cache-${caches++}`), TZ: "UTC", ...env } });
const runJson = (args: string[], env: Record<string, string> = {}) => cliJson(["usage", ...args], { env: { XDG_CACHE_HOME: join(work, `cache-${caches++}`), TZ: "UTC", ...env } });

type Entry = Record<string, any>;
const usage = (n: number) => ({ input: 100 * n, output: 10 * n, cacheRead: 1000 * n, cacheWrite: 5 * n, totalTokens: 1115 * n, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: n / 100 } });

/** Loads a file as pi does (a copy: pi's loader may append to what it reads). */
function piEntries(path: string): Entry[] {
  const copy = join(work, `oracle-${basename(path)}`);
  copyFileSync(path, copy);
  const all = pi.loadEntriesFromFile(copy) as Entry[];
  if (all.length > 0) pi.migrateSessionEntries(all);
  return all.filter((e) => e.type !== "session");
}

describe("a store with forks, forks of forks, forkFrom and a copy: each entry once", () => {
  const store = join(work, "store");
  let files: { parent: string; fork: string; forkOfFork: string; moved: string; copy: string };

  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    let now = Date.parse("2026-02-10T08:00:00.000Z");
    const at = () => vi.setSystemTime((now += 60_000));
    const turn = (sm: any, n: number, text: string) => {
      at();
      sm.appendMessage({ role: "user", content: text, timestamp: now });
      at();
      sm.appendMessage({ role: "assistant", content: [{ type: "text", text: `re: ${text}` }], api: "x", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(n), stopReason: "stop", timestamp: now });
    };
    const appDir = join(store, "--work-app--");
    at();
    const sm = pi.SessionManager.create("/work/app", appDir);
    turn(sm, 1, "one");
    turn(sm, 2, "two");
    at();
    sm.appendUsage("cache_warm", "anthropic", "claude-haiku", usage(3));
    const middle = sm.getLeafId();
    turn(sm, 4, "four");
    at();
    sm.appendCompaction("summary", middle, 5000, undefined, undefined, usage(5));
    const parent = sm.getSessionFile();
    // /fork at the middle: the path copied (ids, timestamps, usage), then new turns
    at();
    sm.createBranchedSession(middle);
    turn(sm, 6, "six");
    const fork = sm.getSessionFile();
    const forkLeaf = sm.getLeafId();
    turn(sm, 7, "seven");
    // a fork of the fork
    at();
    sm.createBranchedSession(forkLeaf);
    turn(sm, 8, "eight");
    const forkOfFork = sm.getSessionFile();
    // forkFrom into another project: every entry copied
    at();
    const other = pi.SessionManager.forkFrom(parent, "/work/lib", join(store, "--work-lib--"));
    turn(other, 9, "nine");
    const moved = other.getSessionFile();
    // a backup copy left beside the original
    const copy = join(appDir, `zz-backup-${basename(parent)}`);
    copyFileSync(parent, copy);
    vi.useRealTimers();
    files = { parent, fork, forkOfFork, moved, copy };
  });

  it("total: every entry the store holds, once (pi's /session over the distinct entries)", async () => {
    const seen = new Map<string, Entry>();
    for (const f of Object.values(files)) for (const e of piEntries(f)) seen.set(`${e.id}\0${e.timestamp}`, e);
    const oracle = piSessionStats([...seen.values()]);
    const r = await runJson([store]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    const t = r.json.total;
    expect({ input: t.input, output: t.output, cacheRead: t.cacheRead, cacheWrite: t.cacheWrite, total: t.total }).toEqual(oracle.tokens);
    expect(t.cost).toBeCloseTo(oracle.cost, 10);
    // and what the files hold in all counts every copy again: the figure the peers report
    const summed = Object.values(files).reduce((n, f) => n + piSessionStats(piEntries(f)).cost, 0);
    expect(summed).toBeGreaterThan(oracle.cost * 2);
  });

  it("--by session: a row a session (its copies' files listed in it), own + inherited = pi's /session for its file; the earliest holder owns", async () => {
    const r = await runJson([store, "--by", "session"]);
    expect(r.exitCode).toBe(0);
    const rows = r.json.rows as Array<Entry>;
    // the copy (same session, another file) is no row of its own: its file is listed under the session's
    expect(rows.map((x) => basename(x.file)).sort()).toEqual(Object.values(files).filter((f) => f !== files.copy).map((f) => basename(f)).sort());
    expect(new Set(rows.map((x) => x.key)).size).toBe(rows.length);
    for (const row of rows) {
      const stats = piSessionStats(piEntries(row.file));
      expect(row.cost + row.inherited.cost, basename(row.file)).toBeCloseTo(stats.cost, 10);
      expect(row.total + row.inherited.total, basename(row.file)).toBe(stats.tokens.total);
      expect(row.key).toBe(JSON.parse(readFileSync(row.file, "utf8").split("\n")[0]!).id);
    }
    const byFile = new Map(rows.map((x) => [x.file, x]));
    const parent = byFile.get(files.parent)!;
    // the parent came first: it owns all it holds; its copy (same header, later path) owns nothing
    expect(parent.inherited.requests).toBe(0);
    expect(byFile.get(files.copy)).toBeUndefined();
    expect(parent.files).toEqual([files.parent, files.copy]);
    // a fork owns what it added: one turn after the copied path (and its fork holds that turn too)
    expect(byFile.get(files.fork)!.requests).toBe(2);
    expect(byFile.get(files.forkOfFork)!.requests).toBe(1);
    expect(byFile.get(files.forkOfFork)!.inherited.requests).toBe(4);
    expect(byFile.get(files.moved)!.requests).toBe(1);
    expect(byFile.get(files.moved)!.cwd).toBe("/work/lib");
  });

  it("--by project and --cwd: a fork into another project costs that project only what it added", async () => {
    const r = await runJson([store, "--by", "project"]);
    const lib = r.json.rows.find((x: Entry) => x.key === "/work/lib");
    expect(lib.requests).toBe(1);
    expect(lib.cost).toBeCloseTo(0.09, 10);
    const only = await runJson([store, "--cwd", "/work/lib"]);
    expect(only.json.total.requests).toBe(1);
    expect(only.json.cwd).toBe("/work/lib");
  });

  it("--by model and --breakdown: pi's keys (provider/model; usage entries by their model)", async () => {
    const r = await runJson([store, "--by", "model"]);
    expect(r.json.rows.map((x: Entry) => x.key).sort()).toEqual(["Tools/summaries", "anthropic/claude-haiku", "anthropic/claude-sonnet-4-5"]);
    const b = await runJson([store, "--breakdown"]);
    for (const row of b.json.rows) {
      expect(row.breakdown.reduce((n: number, m: Entry) => n + m.requests, 0)).toBe(row.requests);
      expect(row.breakdown.map((m: Entry) => m.model)).toEqual(row.models);
    }
  });

  it("a warm run (the cache) gives what a cold one gives, and sees a file that grew", async () => {
    const cache = join(work, "cache-warm");
    const env = { XDG_CACHE_HOME: cache, TZ: "UTC" };
    const cold = await cliJson(["usage", store], { env });
    expect(existsSync(join(cache, "pi-session", "usage-index.bin"))).toBe(true);
    const warm = await cliJson(["usage", store], { env });
    expect(warm.json).toEqual(cold.json);
    // a cache that does not read back is rebuilt, never trusted
    writeFileSync(join(cache, "pi-session", "usage-index.bin"), "garbage\n");
    expect((await cliJson(["usage", store], { env })).json).toEqual(cold.json);
    // the newest session grows: the warm run reads it again
    const grown = join(work, "grown");
    rmSync(grown, { recursive: true, force: true });
    mkdirSync(grown);
    copyFileSync(files.moved, join(grown, basename(files.moved)));
    const before = await cliJson(["usage", grown], { env });
    const last = readFileSync(files.moved, "utf8").trim().split("\n").pop()!;
    appendFileSync(join(grown, basename(files.moved)), JSON.stringify({ type: "usage", id: "feedbeef", parentId: JSON.parse(last).id, timestamp: "2026-02-10T10:00:00.000Z", kind: "cache_warm", provider: "anthropic", model: "claude-haiku", usage: usage(1) }) + "\n");
    const after = await cliJson(["usage", grown], { env });
    expect(after.json.total.requests).toBe(before.json.total.requests + 1);
    // what the cache held of the first store came through those writes whole
    expect((await cliJson(["usage", store], { env })).json).toEqual(cold.json);
    // a cache whose columns do not add up (a file's numbers said to run past its region) is rebuilt, never trusted
    const path = join(cache, "pi-session", "usage-index.bin");
    const bytes = readFileSync(path);
    const nl = bytes.indexOf(10);
    const meta = JSON.parse(bytes.toString("utf8", 0, nl));
    expect(meta.name.length).toBeGreaterThan(1);
    meta.length.amounts[0] += 1;
    const head = Buffer.from(JSON.stringify(meta));
    const padded = Buffer.alloc(Math.ceil((head.length + 1) / 8) * 8, 0x20);
    head.copy(padded);
    padded[padded.length - 1] = 10;
    writeFileSync(path, Buffer.concat([padded, bytes.subarray(nl + 1)]));
    expect((await cliJson(["usage", store], { env })).json).toEqual(cold.json);
    // --no-cache neither reads nor writes it
    const none = join(work, "cache-none");
    await cliJson(["usage", store, "--no-cache"], { env: { XDG_CACHE_HOME: none } });
    expect(existsSync(none)).toBe(false);
  });
});

describe("days, weeks and months in a time zone", () => {
  const dir = join(work, "zones");
  beforeAll(() => {
    mkdirSync(dir, { recursive: true });
    const times = [
      "2026-01-15T23:30:00.000Z", // Paris 01-16 00:30; New York 01-15 18:30
      "2026-01-16T03:30:00.000Z", // Paris 01-16; New York 01-15 22:30
      "2026-01-15T18:45:00.000Z", // Kolkata (+05:30) 01-16 00:15; UTC 01-15
      "2026-03-08T04:30:00.000Z", // New York 03-07 23:30 (EST, before the change at 07:00Z)
      "2026-03-09T04:30:00.000Z", // New York 03-09 00:30 (EDT): 03-08 23:30 if the change were missed
      "2025-12-28T12:00:00.000Z", // a Sunday: ISO week 2025-W52
      "2025-12-29T12:00:00.000Z", // a Monday: ISO week 2026-W01
      "2027-01-01T12:00:00.000Z", // a Friday: ISO week 2026-W53
    ];
    const records: Entry[] = [header({ id: "zones", timestamp: "2025-12-01T00:00:00.000Z" })];
    let parent: string | null = null;
    times.forEach((timestamp, i) => {
      const id = `e000000${i}`;
      records.push({ ...assistant(id, parent, `turn ${i}`), timestamp, message: { role: "assistant", content: [{ type: "text", text: "x" }], provider: "p", model: "m", usage: usage(i + 1), stopReason: "stop", timestamp: Date.parse(timestamp) } });
      parent = id;
    });
    writeFileSync(join(dir, "zones.jsonl"), jsonl(...records));
  });
  const keysOf = async (args: string[]) => Object.fromEntries((await runJson([dir, ...args])).json.rows.map((r: Entry) => [r.key, r.requests]));

  it("east and west of UTC, and a half-hour zone", async () => {
    expect(await keysOf(["--timezone", "UTC", "--since", "2026-01-01", "--until", "2026-01-31"])).toEqual({ "2026-01-15": 2, "2026-01-16": 1 });
    expect(await keysOf(["--timezone", "Europe/Paris", "--since", "2026-01-01", "--until", "2026-01-31"])).toEqual({ "2026-01-15": 1, "2026-01-16": 2 });
    expect(await keysOf(["--timezone", "America/New_York", "--since", "2026-01-01", "--until", "2026-01-31"])).toEqual({ "2026-01-15": 3 });
    expect(await keysOf(["--timezone", "Asia/Kolkata", "--since", "20260101", "--until", "20260131"])).toEqual({ "2026-01-16": 3 });
  });

  it("across a DST change", async () => {
    expect(await keysOf(["--timezone", "America/New_York", "--since", "2026-03-01", "--until", "2026-03-31"])).toEqual({ "2026-03-07": 1, "2026-03-09": 1 });
    // the machine's own zone (TZ) counts the same as naming it
    expect(await keysOf(["--since", "2026-03-01", "--until", "2026-03-31"].concat([]))).toEqual({ "2026-03-08": 1, "2026-03-09": 1 });
    const local = await runJson([dir, "--since", "2026-03-01", "--until", "2026-03-31"], { TZ: "America/New_York" });
    expect(local.json.timezone).toBe("America/New_York");
    expect(Object.fromEntries(local.json.rows.map((r: Entry) => [r.key, r.requests]))).toEqual({ "2026-03-07": 1, "2026-03-09": 1 });
  });

  it("ISO weeks (Monday first) and months", async () => {
    const weeks = await keysOf(["--by", "week", "--timezone", "UTC"]);
    expect(weeks["2025-W52"]).toBe(1);
    expect(weeks["2026-W01"]).toBe(1);
    expect(weeks["2026-W53"]).toBe(1);
    const months = await keysOf(["--by", "month", "--timezone", "UTC"]);
    expect(months).toEqual({ "2025-12": 2, "2026-01": 3, "2026-03": 2, "2027-01": 1 });
  });

  it("relative dates count back from today", async () => {
    const rel = join(work, "relative");
    mkdirSync(rel, { recursive: true });
    const day = 86_400_000;
    const at = (ago: number) => new Date(Date.now() - ago * day).toISOString();
    writeFileSync(
      join(rel, "r.jsonl"),
      jsonl(header({ id: "rel" }), { ...entry("usage", "f0000001", null, { kind: "x", provider: "p", model: "m", usage: usage(1) }), timestamp: at(2) }, { ...entry("usage", "f0000002", "f0000001", { kind: "x", provider: "p", model: "m", usage: usage(1) }), timestamp: at(20) }),
    );
    expect((await runJson([rel, "--since", "7d"])).json.total.requests).toBe(1);
    expect((await runJson([rel, "--since", "4w"])).json.total.requests).toBe(2);
    expect((await runJson([rel, "--until", "1w"])).json.total.requests).toBe(1);
  });
});

describe("output forms", () => {
  const store = fixture("usage-store");

  it("a facet's - row says why its sessions have none: pi has no agent; OpenClaw's reset and deleted archives carry no key", async () => {
    const pi = JSON.parse((await run([store, "--by", "agent", "--json"])).stdout).rows as Array<{ key: string; sessions: number; why?: string }>;
    expect(pi).toEqual([expect.objectContaining({ key: "-", sessions: 3, why: "3 pi sessions (pi has no agent)" })]);
    const claw = join(ROOT, "../shared/openclaw-stores/ccccx");
    const rows = JSON.parse((await run([claw, "--by", "key", "--json"])).stdout).rows as Array<{ key: string; sessions: number; why?: string }>;
    const none = rows.find((r) => r.key === "-")!;
    expect(none.why).toBe(`${none.sessions} reset or deleted archives its store records no key for`);
    expect(rows.filter((r) => r.key !== "-").every((r) => r.why === undefined)).toBe(true);
    expect((await run([claw, "--by", "key"])).stdout).toContain(`key -: ${none.sessions} reset or deleted archives its store records no key for`);
  });

  it("--by session names each row as ls names its session (its name or first message), the id after it", async () => {
    const byId = new Map(((await cliJson(["ls", store])).json.sessions as Array<{ id: string; title: string | null }>).map((s) => [s.id, s.title]));
    const r = await run([store, "--by", "session", "--json"]);
    const rows = JSON.parse(r.stdout).rows as Array<{ key: string; label?: string }>;
    expect(rows.length).toBe(3);
    for (const row of rows) expect(row.label, row.key).toBe(byId.get(row.key));
    const human = await run([store, "--by", "session"]);
    expect(human.stdout).toContain("用中文总结这个库的公共接口。 (019cd2f0…)");
  });

  it("human: a row a day, a totals line, what was counted; piped output keeps every column", async () => {
    const r = await run([store]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^date +sessions +requests +input +output +cache read +cache write +total +cost +models$/);
    expect(lines.slice(1, 4).map((l) => l.slice(0, 10))).toEqual(["2026-03-07", "2026-03-08", "2026-03-09"]);
    expect(lines[4]).toMatch(/^total +3 +7 /);
    expect(lines[5]).toBe("3 sessions; days in UTC; each shared entry counted once");
  });

  it("--json, --jsonl and --format csv hold the same rows", async () => {
    const j = await runJson([store, "--by", "session"]);
    expect(j.json.by).toBe("session");
    expect(j.json.timezone).toBe("UTC");
    expect(j.json.rows).toHaveLength(3);
    const l = await run([store, "--by", "session", "--jsonl"]);
    // (each --jsonl row says its shape's version and its grouping: rows of several runs go in one table)
    expect(l.stdout.trimEnd().split("\n").map((x) => JSON.parse(x))).toEqual(j.json.rows.map((r: object) => ({ version: 1, by: "session", ...r })));
    const c = await run([store, "--by", "session", "--format", "csv"]);
    const rows = c.stdout.split("\r\n").filter(Boolean);
    expect(rows[0]).toBe("session,sessions,requests,input,output,cacheRead,cacheWrite,total,cost,estimatedCost,unpricedTokens,models,file,inheritedRequests,inheritedCost");
    expect(rows).toHaveLength(4);
    for (const [k, row] of j.json.rows.entries()) expect(rows[k + 1]!.startsWith(`${row.key},${row.sessions},${row.requests},${row.input},`)).toBe(true);
  });

  it("csv quotes what needs it and cannot carry a formula", async () => {
    const dir = join(work, "csv");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "s.jsonl"), jsonl(header({ id: "q", cwd: '=HYPERLINK("x"), "quoted"' }), entry("usage", "f1000001", null, { kind: "x", provider: "p", model: "m", usage: usage(1) })));
    const c = await run([dir, "--by", "project", "--format", "csv"]);
    expect(c.stdout.split("\r\n")[1]).toMatch(/^"'=HYPERLINK\(""x""\), ""quoted""",/);
  });

  it("csv: the group with no key (no agent, key or cwd) has an empty cell, not its placeholder; a real key that starts like a formula keeps its '", async () => {
    // (pi's sessions have no agent: one group, `-` in the table and JSON, marked noKey)
    const agents = await run([store, "--by", "agent", "--format", "csv"]);
    expect(agents.exitCode).toBe(0);
    const row = agents.stdout.split("\r\n")[1]!;
    expect(row).toMatch(/^,3,/);
    expect(agents.stdout).not.toContain("'-");
    const j = await runJson([store, "--by", "agent"]);
    expect(j.json.rows).toEqual([expect.objectContaining({ key: "-", noKey: true, sessions: 3 })]);
    expect((await run([store, "--by", "agent"])).stdout).toMatch(/\n-  +3 /);
    // OpenClaw's archives a key no longer names, beside keys: the one keyless row's cell empty, the keys as they are
    const claw = join(ROOT, "../shared/openclaw-stores/ccccx");
    const keys = (await run([claw, "--by", "key", "--format", "csv"])).stdout.split("\r\n").filter(Boolean).slice(1);
    const keyed = ((await runJson([claw, "--by", "key"])).json.rows as Array<{ key: string; noKey?: true }>);
    expect(keys.map((l) => l.split(",")[0])).toEqual(keyed.map((r) => (r.noKey ? "" : r.key)));
    expect(keyed.filter((r) => r.noKey)).toHaveLength(1);
    // a session whose cwd really is `-` or `unknown` is a key, not the keyless group: apart from a session with no cwd, and made text in CSV
    const dir = join(work, "csv-keys");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "dash.jsonl"), jsonl(header({ id: "d", cwd: "-" }), entry("usage", "f3000001", null, { kind: "x", provider: "p", model: "m", usage: usage(1) })));
    writeFileSync(join(dir, "unknown.jsonl"), jsonl(header({ id: "u", cwd: "unknown" }), entry("usage", "f3000002", null, { kind: "x", provider: "p", model: "m", usage: usage(2) })));
    writeFileSync(join(dir, "none.jsonl"), jsonl({ ...header({ id: "n" }), cwd: undefined }, entry("usage", "f3000003", null, { kind: "x", provider: "p", model: "m", usage: usage(3) })));
    const projects = (await runJson([dir, "--by", "project"])).json.rows as Array<{ key: string; noKey?: true; requests: number }>;
    expect(projects.map((r) => [r.key, r.noKey ?? false]).sort()).toEqual([["-", false], ["unknown", false], ["unknown", true]]);
    const cells = (await run([dir, "--by", "project", "--format", "csv"])).stdout.split("\r\n").filter(Boolean).slice(1).map((l) => l.split(",")[0]);
    expect(cells.sort()).toEqual(["", "'-", "unknown"]);
  });

  it("session text in a key cannot drive the terminal", async () => {
    const dir = join(work, "hostile");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "s.jsonl"), jsonl(header({ id: "h", cwd: "/work/\u001b[31mred\u001b]0;title\u0007" }), entry("usage", "f2000001", null, { kind: "x", provider: "p\u001b[2J", model: "m", usage: usage(1) }), entry("usage", "f2000002", "f2000001", { kind: "x", provider: "q", model: "m\u001b[0m\u009b2J", usage: usage(1) })));
    // (the key column and the models column alike: a model id's escapes shown as what they are, never sent)
    for (const by of ["project", "model", "day", "session"]) {
      for (const extra of [[], ["--breakdown"]]) {
        const r = await run([dir, "--by", by, ...extra]);
        expect(r.stdout, `${by} ${extra}`).not.toMatch(/[\u001b\u009b]/);
        expect(r.stdout, `${by} ${extra}`).toContain("m\\x1b[0m\\x9b2J");
      }
    }
  });
});

describe("bad input", () => {
  it("an unknown zone, a bad date, dates out of order: exit 2, one line naming the accepted forms", async () => {
    for (const [args, pattern] of [
      [["--timezone", "Mars/Olympus"], /--timezone "Mars\/Olympus" is not a time zone; give an IANA name such as Europe\/Paris/],
      [["--since", "yesterday"], /--since "yesterday" is not a date; give YYYY-MM-DD, YYYYMMDD, or a time before today: 7d, 4w, 3m/],
      [["--until", "2026-02-30"], /--until "2026-02-30" is not a date/],
      [["--since", "2026-03-02", "--until", "2026-03-01"], /--since 2026-03-02 is after --until 2026-03-01/],
    ] as const) {
      const r = await run([fixture("usage-store"), ...args]);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(pattern);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
    const csv = await run([fixture("usage-store"), "--format", "csv", "--json"]);
    expect(csv.exitCode).toBe(2);
    expect(csv.stderr).toMatch(/--format csv and --json conflict/);
  });

  it("usage on lines pi skips is reported, not counted; a file pi reads nothing of, too", async () => {
    const dir = join(work, "broken");
    mkdirSync(dir, { recursive: true });
    const torn = JSON.stringify(entry("usage", "f3000002", "f3000001", { kind: "x", provider: "p", model: "m", usage: usage(2) }));
    writeFileSync(join(dir, "fused.jsonl"), Buffer.concat([jsonl(header({ id: "fused" }), entry("usage", "f3000001", null, { kind: "x", provider: "p", model: "m", usage: usage(1) })), Buffer.from(`${torn.slice(0, 40)}${JSON.stringify(entry("usage", "f3000003", "f3000001", { kind: "x", provider: "p", model: "m", usage: usage(3) }))}\n`)]));
    writeFileSync(join(dir, "headerless.jsonl"), jsonl(entry("usage", "f4000001", null, { kind: "x", provider: "p", model: "m", usage: usage(4) })));
    const r = await runJson([dir]);
    expect(r.exitCode).toBe(0);
    expect(r.json.total.requests).toBe(1);
    expect(r.json.skipped.requests).toBe(2);
    expect(r.json.skipped.cost).toBeCloseTo(0.07, 10);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/fused\.jsonl:3: 1 request \(\$0\.03\) on a line pi cannot read \(line 3\), not counted; run `pi-session repair .*fused\.jsonl`$/);
    expect(lines[1]).toMatch(/headerless\.jsonl: 1 request \(\$0\.04\) in a file pi reads nothing of \(its first record is no session header\), not counted; run `pi-session repair .*headerless\.jsonl`$/);
  });

  it("an unreadable file is left out with a warning; nothing readable at all: exit 2", async () => {
    const dir = join(work, "perm");
    mkdirSync(dir, { recursive: true });
    const secret = join(dir, "secret.jsonl");
    copyFileSync(readdirSync(join(fixture("usage-store"), "--work-lib--")).map((f) => join(fixture("usage-store"), "--work-lib--", f))[0]!, secret);
    chmodSync(secret, 0o000);
    try {
      const asRoot = process.getuid?.() === 0;
      const DROP = "-dac_override,-dac_read_search";
      const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));
      if (asRoot && !setpriv) throw new Error("running as root, this test needs setpriv (Debian's util-linux) to drop root's read-anything capabilities");
      const denied = (args: string[]) => (asRoot ? execa(setpriv!, [`--bounding-set=${DROP}`, "--inh-caps", DROP, "node", BIN, "usage", "--no-cache", ...args], { reject: false, env: { NO_COLOR: "1", TZ: "UTC" } }) : cli(["usage", "--no-cache", ...args]));
      const one = await denied([secret]);
      expect(one.exitCode).toBe(2);
      expect(String(one.stderr)).toMatch(/^pi-session: no session could be read \(1 file; the first: .*secret\.jsonl: permission denied/);
      const some = await denied([secret, fixture("usage-store")]);
      expect(some.exitCode).toBe(0);
      expect(String(some.stderr)).toMatch(/secret\.jsonl: permission denied.*\(left out of the report\)/);
      expect(String(some.stdout)).toMatch(/^total +3 +7 /m);
    } finally {
      chmodSync(secret, 0o600);
    }
  });

  it("no session directory: exit 2 naming it and what to give instead", async () => {
    const r = await run([], { PI_CODING_AGENT_DIR: join(work, "nowhere") });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^pi-session: no session store found: neither pi's session directory \(.*nowhere\/sessions; --session-dir, .*\) nor an OpenClaw root \(.*\) is there; give session files or directories\n$/);
  });
});

describe("what is not a session", () => {
  it("a file named that holds no session is left out with a warning; in a directory, quietly", async () => {
    const r = await run([fixture("empty.jsonl"), fixture("events.jsonl"), fixture("usage-store")]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      `pi-session: ${fixture("empty.jsonl")}: not a session, left out of the report; run \`pi-session check ${fixture("empty.jsonl")}\``,
      `pi-session: ${fixture("events.jsonl")}: not a session (pi's --mode json event stream), left out of the report; run \`pi-session check ${fixture("events.jsonl")}\``,
    ]);
    expect(r.stdout).toMatch(/^3 sessions; /m);
    const missing = await run(["/nonexistent/s.jsonl"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe("pi-session: /nonexistent/s.jsonl: no such file or directory; check the path, or run `pi-session ls` to find sessions\n");
  });

  it("a directory given that holds no session file is said, with pi's sessions/ inside it when there is one", async () => {
    const agent = join(work, "agent");
    mkdirSync(join(agent, "sessions", "--w--"), { recursive: true });
    copyFileSync(fixture("usage-store/--work-lib--/2026-03-09T10-00-00-000Z_019cd2f0-44a9-7d03-b6e8-2a7c1e9f0d23.jsonl"), join(agent, "sessions", "--w--", "s.jsonl"));
    const r = await run([agent]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`pi-session: ${agent}: no session files in it or in its project folders; pi keeps them in ${join(agent, "sessions")}: give that\n`);
    // (nothing to report: stderr has said why, stdout stays empty)
    expect(r.stdout).toBe("");
    const given = await run([join(agent, "sessions")]);
    expect([given.stderr, given.stdout]).toEqual(["", expect.stringMatching(/^1 session; /m)]);
  });

  it("no usage in the range asked for says the range as it was given (a date still to come included), the line's style ended before its newline", async () => {
    const store = fixture("usage-store");
    const since = await run([store, "--since", "20990101"], { FORCE_COLOR: "1" });
    expect(since.exitCode).toBe(0);
    expect(since.stdout).toMatch(/^\u001b\[2mno usage since 2099-01-01 in \d+ sessions\u001b\[22m\n$/);
    const until = await run([store, "--until", "1999-12-31"]);
    expect(until.stdout).toMatch(/^no usage until 1999-12-31 in \d+ sessions\n$/);
    const both = await run([store, "--since", "1999-01-01", "--until", "1999-12-31"]);
    expect(both.stdout).toMatch(/^no usage between 1999-01-01 and 1999-12-31 in \d+ sessions\n$/);
  });
});

describe("what the report says it counted", () => {
  it("a model whose provider recorded no cost shows '-', not $0.00; the footer counts the sessions in the report, of those read; CSV costs carry no float noise", async () => {
    const dir = join(work, "no-cost");
    mkdirSync(join(dir, "--w--"), { recursive: true });
    const answer = (id: string, parent: string | null, provider: string, cost: number, timestamp: string) => ({
      ...assistant(id, parent, "x"),
      timestamp,
      message: { role: "assistant", content: [{ type: "text", text: "x" }], provider, model: "m", usage: { ...usage(1), cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } }, stopReason: "stop", timestamp: Date.parse(timestamp) },
    });
    writeFileSync(join(dir, "--w--", "paid.jsonl"), jsonl(header({ id: "paid-0000" }), answer("p0000001", null, "anthropic", 0.1, "2026-03-01T10:00:00.000Z"), answer("p0000002", "p0000001", "anthropic", 0.2, "2026-03-01T11:00:00.000Z")));
    writeFileSync(join(dir, "--w--", "local.jsonl"), jsonl(header({ id: "local-000" }), answer("l0000001", null, "ollama", 0, "2026-03-05T10:00:00.000Z")));
    const byModel = await run([dir, "--by", "model"]);
    const local = byModel.stdout.split("\n").find((l) => l.startsWith("ollama/m"))!;
    // (and beside it, that no price is known for it: not estimated at zero either)
    expect(local).toMatch(/ - +unpriced +m$/);
    expect(local).not.toContain("$0.00");
    expect(byModel.stdout).toMatch(/^2 sessions; each shared entry counted once; -: no cost recorded; estimated: /m);
    const since = await run([dir, "--since", "2026-03-04"]);
    expect(since.stdout).toMatch(/^1 session \(of 2 read\); days in UTC; each shared entry counted once; -: no cost recorded; estimated: /m);
    const csv = await run([dir, "--format", "csv"]);
    // 0.1 + 0.2 is 0.30000000000000004 in floating point
    expect(csv.stdout).toContain(",0.3,0,0,anthropic/m");
    expect(csv.stdout).not.toMatch(/\d\.\d{11,}/);
  });
});
