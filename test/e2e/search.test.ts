/**
 * `search` end to end. Its oracle is `grep`, the scan an index must answer as: `search -F Q
 * --all` gives exactly the entries `grep -F -i Q` gives, words the entries
 * `grep -w -i` gives for every one of them, filters narrow as grep's do; on fixtures, the corpus
 * and OpenClaw's stores in both eras, for Latin, code, Chinese and Arabic. Then what an index
 * adds: ranking and --limit, the index brought up to date by the next search after an append, a
 * rewrite, a removal, a new session and a row another process writes to a database, the stores
 * left byte for byte, queries that are the index's syntax searched as text, two searches at once,
 * a damaged index made again.
 */
import { execFile } from "node:child_process";
import { execa } from "execa";
import { appendFileSync, chmodSync, closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { PassThrough } from "node:stream";
import { DatabaseSync } from "node:sqlite";
import stringWidth from "string-width";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { assistant, entry, header, jsonl, user } from "../helpers/builders.js";
import { cli } from "../helpers/cli.js";
import { snapshot } from "../helpers/snapshot.js";
import { BIN, CORPUS, fixture, FIXTURES, ROOT } from "../helpers/paths.js";

const work = mkdtempSync(join(tmpdir(), "pi-session-search-e2e-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SQLITE_STORES = join(ROOT, "../shared/openclaw-stores-sqlite");
const JSONL_STORES = join(ROOT, "../shared/openclaw-stores");

/** A cache folder of its own: an index made afresh. */
const freshCache = () => mkdtempSync(join(work, "cache-"));

/** The index a cache folder holds (one: this build's). */
function indexFile(cache: string): string {
  const found = readdirSync(join(cache, "pi-session")).filter((f) => /^search-index-[0-9a-f]+\.sqlite$/.test(f));
  expect(found).toHaveLength(1);
  return join(cache, "pi-session", found[0]!);
}

/** A store copied, writable, as a user has it. */
function copyOf(from: string, name: string): string {
  const to = join(work, name);
  cpSync(from, to, { recursive: true });
  for (const f of readdirSync(to, { recursive: true, withFileTypes: true })) chmodSync(join(f.parentPath, f.name), f.isDirectory() ? 0o755 : 0o644);
  return to;
}

type Match = { file: string; line: number; id: string | null; role: string; score?: number };
const keyOf = (m: Match) => `${m.file}\t${m.line}\t${m.id}`;
const keys = (ms: Match[]) => ms.map(keyOf).sort();

async function searchJson(args: string[], env: Record<string, string> = {}) {
  const r = await cli(["search", "--json", ...args], { env: { TZ: "UTC", ...env } });
  expect(r.exitCode, r.stderr).toBeLessThan(2);
  return { ...r, json: JSON.parse(r.stdout) };
}

async function grepMatches(args: string[]): Promise<Match[]> {
  const r = await cli(["grep", "--json", ...args], { env: { TZ: "UTC" } });
  expect(r.exitCode, r.stderr).toBeLessThan(2);
  return JSON.parse(r.stdout).matches;
}

/** The entries `grep -w -i` finds for each word, those in all of them. */
async function everyWord(words: string[], inputs: string[], filters: string[] = []): Promise<string[]> {
  let common: Set<string> | undefined;
  for (const w of words) {
    const found = new Set(keys(await grepMatches(["-w", "-i", "-F", ...filters, "-e", w, ...inputs])));
    common = common ? new Set([...common].filter((k) => found.has(k))) : found;
  }
  return [...(common ?? [])].sort();
}

describe("search answers as grep does", () => {
  const sqliteStore = copyOf(join(SQLITE_STORES, "ccccx"), "sqlite-ccccx");
  const stores: Array<[string, string[]]> = [
    ["the fixtures", [FIXTURES]],
    ["the corpus", [CORPUS]],
    ["an OpenClaw store of the JSONL era", [join(JSONL_STORES, "ccccx"), join(JSONL_STORES, "archeoneocode")]],
    ["an OpenClaw store of the SQLite era", [sqliteStore]],
    ["OpenClaw's cold storage", [fixture("openclaw-cold")]],
    ["agent-core's format 4", [fixture("agent-core")]],
  ];
  // (a test a few literals, one spawn of grep and one of search each: the twenty in one test took
  // 42 s alone, too near the 60 s timeout on a loaded machine; the index is built by the first)
  const literals: Array<[string, string[]]> = [
    ["Latin", ["the", "you", "a", "total", "cart"]],
    ["code", ["npm test", "=>", "src/", "rm -rf", "()"]],
    ["code, escapes and base64", ['{"', "\\n", "QUJDREVGR0hJ"]],
    ["Chinese", ["深度调研", "项目", "项", "标记"]],
    ["Arabic", ["موقع", "لي", "على"]],
  ];
  const parity = { cache: "" };

  it.each(literals)("-F: exactly grep -F -i's entries, literal by literal (%s), in pi's, OpenClaw's JSONL and SQLite stores and cold storage", async (script, qs) => {
    parity.cache ||= freshCache();
    const inputs = stores.flatMap(([, i]) => i);
    const where = new Set<string>();
    // (a store inside another's folder is its own: the deepest folder a match is in names it)
    const byDepth = stores.flatMap(([name, dirs]) => dirs.map((dir) => [name, dir] as const)).sort((a, b) => b[1].length - a[1].length);
    for (const q of qs) {
      const want = keys(await grepMatches(["-F", "-i", "-e", q, ...inputs]));
      const got = await searchJson(["-F", "--all", "--", q, ...inputs], { XDG_CACHE_HOME: parity.cache });
      expect(keys(got.json.matches), `-F ${q}`).toEqual(want);
      expect(got.json.complete).toBe(true);
      for (const m of got.json.matches as Match[]) where.add(byDepth.find(([, dir]) => m.file.startsWith(dir))![0]);
    }
    // (Latin's literals give matches in each store)
    if (script === "Latin") expect([...where].sort()).toEqual(stores.map(([name]) => name).sort());
    else expect(where.size).toBeGreaterThan(0);
  });

  it("words: every word, each whole as grep -w -i finds it, anywhere in the entry", async () => {
    const cache = freshCache();
    const inputs = [FIXTURES, CORPUS];
    for (const words of [["total"], ["cart", "total"], ["the", "test"], ["项目"], ["موقع"], ["error", "file"], ["decimal", "cents"]]) {
      const want = await everyWord(words, inputs);
      const got = await searchJson(["--all", "--", words.join(" "), ...inputs], { XDG_CACHE_HOME: cache });
      expect(keys(got.json.matches), words.join(" ")).toEqual(want);
    }
    // a part of a word is no word
    const part = await searchJson(["--all", "tot", fixture("usage-store")], { XDG_CACHE_HOME: cache });
    expect(part.exitCode).toBe(1);
    expect(part.json.matches).toEqual([]);
  });

  it('"a phrase" keeps its words together, any white space between them', async () => {
    const dir = join(work, "phrases");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "p.jsonl"), jsonl(header({ id: "phrase" }), user("p0000001", null, "deploy the staging\n  server today"), user("p0000002", "p0000001", "the server is staging"), user("p0000003", "p0000002", "stagingserver")));
    const got = await searchJson(["--all", '"staging server"', dir], { XDG_CACHE_HOME: freshCache() });
    expect(got.json.matches.map((m: Match) => m.id)).toEqual(["p0000001"]);
    const both = await searchJson(["--all", "staging server", dir], { XDG_CACHE_HOME: freshCache() });
    expect(both.json.matches.map((m: Match) => m.id).sort()).toEqual(["p0000001", "p0000002"]);
  });

  it("Greek as grep -i reads it: ΐ typed with a tonos (U+0390) finds the polytonic ΐ (U+1FD3), and ΰ (U+03B0) ΰ (U+1FE3), words and -F", async () => {
    const dir = join(work, "greek");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "g.jsonl"), jsonl(header({ id: "greek" }), user("g0000001", null, "οἱ προ\u1fd3στανται τῆς πόλεως"), user("g0000002", "g0000001", "\u1fe3 ὕστερον")));
    const cache = freshCache();
    for (const [q, id] of [["προ\u0390στανται", "g0000001"], ["\u03b0", "g0000002"]] as const) {
      for (const mode of [["-F"], []]) {
        const want = keys(await grepMatches(["-i", ...(mode.length ? ["-F"] : ["-w", "-F"]), "-e", q, dir]));
        expect(want.length, `grep ${mode} ${q}`).toBe(1);
        const got = await searchJson([...mode, "--all", "--", q, dir], { XDG_CACHE_HOME: cache });
        expect(keys(got.json.matches), `search ${mode} ${q}`).toEqual(want);
        expect(got.json.matches[0].id).toBe(id);
      }
    }
  });

  it("filters narrow as grep's: --role, --tool, --since/--until, --cwd, --branch current", async () => {
    const cache = freshCache();
    const store = fixture("usage-store");
    const cases: string[][] = [["--role", "assistant"], ["--role", "user,compaction"], ["--tool", "read"], ["--since", "2026-03-08"], ["--until", "2026-03-07", "--timezone", "Asia/Tokyo"], ["--cwd", "/work/lib"], ["--branch", "current"]];
    for (const filters of cases) {
      const want = keys(await grepMatches(["-F", "-i", ...filters, "-e", "total", store]));
      const got = await searchJson(["-F", "--all", ...filters, "--", "total", store], { XDG_CACHE_HOME: cache });
      expect(keys(got.json.matches), filters.join(" ")).toEqual(want);
    }
    const dir = join(work, "branches");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "b.jsonl"), jsonl(header({ id: "br" }), user("b0000001", null, "the question"), assistant("b0000002", "b0000001", "first answer, abandoned"), assistant("b0000003", "b0000001", "second answer, kept")));
    expect((await searchJson(["answer", "--all", "--branch", "current", dir], { XDG_CACHE_HOME: cache })).json.matches.map((m: Match) => m.id)).toEqual(["b0000003"]);
  });
});

describe("the stores", () => {
  it("with no folder: pi's session directory and the OpenClaw roots found; --archived the archive; a session gone is dropped from the index", async () => {
    const home = join(work, "home");
    const sessions = join(home, ".pi/agent/sessions");
    cpSync(fixture("usage-store"), sessions, { recursive: true });
    // (written long ago, as sessions archive moves are: it leaves what was written lately)
    for (const f of readdirSync(sessions, { recursive: true, withFileTypes: true })) if (f.isFile()) utimesSync(join(f.parentPath, f.name), new Date("2026-03-10"), new Date("2026-03-10"));
    cpSync(join(SQLITE_STORES, "ccccx"), join(home, ".openclaw"), { recursive: true });
    const cache = freshCache();
    const env = { HOME: home, XDG_CACHE_HOME: cache };
    const word = async (args: string[]) => keys((await searchJson(["--all", ...args], env)).json.matches);
    const grepped = async (args: string[]) => keys(JSON.parse((await cli(["grep", "--json", "-w", "-i", ...args], { env: { ...env, TZ: "UTC" } })).stdout).matches);
    for (const w of ["total", "深度调研", "the"]) expect(await word([w]), w).toEqual(await grepped([w]));
    expect((await word(["total"])).length).toBeGreaterThan(0);
    expect(await word(["--store", "openclaw", "total"])).toEqual(await grepped(["--store", "openclaw", "total"]));
    // (archived: out of a plain search, in --archived's, as grep's)
    const archived = await cli(["archive", "--older-than", "30d"], { env });
    expect(archived.exitCode, archived.stderr).toBe(0);
    expect(await word(["--store", "pi", "total"])).toEqual([]);
    expect(await word(["--store", "pi", "--archived", "total"])).toEqual(await grepped(["--store", "pi", "--archived", "total"]));
    expect((await word(["--store", "pi", "--archived", "total"])).length).toBeGreaterThan(0);
    // (a session gone from a store searched whole is dropped from the index, not only left unshown)
    const held = () => {
      const db = new DatabaseSync(`file:${indexFile(cache)}?immutable=1`, { readOnly: true });
      try {
        return (db.prepare("SELECT path FROM sessions").all() as Array<{ path: string }>).map((r) => r.path);
      } finally {
        db.close();
      }
    };
    const archives = held().filter((p) => p.endsWith(".zst"));
    expect(archives.length).toBeGreaterThan(0);
    rmSync(archives[0]!);
    await word(["--archived", "total"]);
    expect(held()).not.toContain(archives[0]);
  });
});

describe("ranking", () => {
  it("--limit N: the best N by score, the first N of --all; best first", async () => {
    const cache = freshCache();
    const inputs = [CORPUS];
    const all = await searchJson(["--all", "-F", "the", ...inputs], { XDG_CACHE_HOME: cache });
    const scores = all.json.matches.map((m: Match) => m.score);
    expect(scores.length).toBeGreaterThan(40);
    for (let k = 1; k < scores.length; k++) expect(scores[k]).toBeLessThanOrEqual(scores[k - 1]);
    for (const n of [1, 7, 20]) {
      const top = await searchJson(["--limit", String(n), "-F", "the", ...inputs], { XDG_CACHE_HOME: cache });
      expect(top.json.matches).toEqual(all.json.matches.slice(0, n));
      expect(top.json.complete).toBe(false);
    }
    // piped: the best 20, and stderr says how to have all
    const piped = await cli(["search", "-F", "the", ...inputs], { env: { XDG_CACHE_HOME: cache } });
    expect(piped.stdout.trimEnd().split("\n")).toHaveLength(20);
    expect(piped.stderr).toMatch(/the best 20 matches \(--limit 20\); --all for every one/);
  });

  it("what people said ranks above what tools said; a word only in a tool's arguments below one in the text", async () => {
    const dir = join(work, "ranked");
    mkdirSync(dir, { recursive: true });
    const call = { ...assistant("r0000003", "r0000002", "let me look"), message: { role: "assistant", content: [{ type: "text", text: "let me look" }, { type: "toolCall", id: "c1", name: "read", arguments: { path: "kettle.md" } }], provider: "p", model: "m", stopReason: "toolUse" } };
    writeFileSync(join(dir, "r.jsonl"), jsonl(header({ id: "ranked" }), user("r0000001", null, "the kettle boils over"), entry("message", "r0000002", "r0000001", { message: { role: "toolResult", toolCallId: "c0", toolName: "bash", content: [{ type: "text", text: "kettle: 100C" }] } }), call, assistant("r0000004", "r0000003", "the kettle is fine")));
    const got = await searchJson(["--all", "kettle", dir], { XDG_CACHE_HOME: freshCache() });
    expect(got.json.matches.map((m: Match) => m.id)).toEqual(["r0000001", "r0000004", "r0000003", "r0000002"]);
  });
});

describe("never stale", () => {
  it("the next search sees an append, a rewrite, a removal and a new session; the store is left byte for byte", async () => {
    const cache = freshCache();
    const dir = join(work, "fresh");
    mkdirSync(dir, { recursive: true });
    const a = join(dir, "a.jsonl");
    writeFileSync(a, jsonl(header({ id: "fresh-a" }), user("f0000001", null, "first words"), assistant("f0000002", "f0000001", "an answer")));
    const ids = async (q: string) => (await searchJson(["--all", q, dir], { XDG_CACHE_HOME: cache })).json.matches.map((m: Match) => m.id);
    expect(await ids("answer")).toEqual(["f0000002"]);
    const before = snapshot(dir);
    expect(await ids("zebra")).toEqual([]);
    expect(snapshot(dir)).toEqual(before);
    // an append: read from where the index stopped
    appendFileSync(a, jsonl(user("f0000003", "f0000002", "a zebra appears")));
    expect(await ids("zebra")).toEqual(["f0000003"]);
    // a torn last line, then its end: found once, whole
    appendFileSync(a, `${JSON.stringify(user("f0000004", "f0000003", "a giraffe"))}`.slice(0, 30));
    expect(await ids("giraffe")).toEqual([]);
    appendFileSync(a, `${JSON.stringify(user("f0000004", "f0000003", "a giraffe"))}`.slice(30) + "\n");
    expect(await ids("giraffe")).toEqual(["f0000004"]);
    // a rewrite (as repair or slim leave a file: another inode), and one in place, the same size
    writeFileSync(`${a}.new`, jsonl(header({ id: "fresh-a" }), user("f0000001", null, "first words"), assistant("f0000002", "f0000001", "an okapi")));
    rmSync(a);
    cpSync(`${a}.new`, a);
    rmSync(`${a}.new`);
    expect(await ids("zebra")).toEqual([]);
    expect(await ids("okapi")).toEqual(["f0000002"]);
    writeFileSync(a, readFileSync(a, "utf8").replace("okapi", "tapir"));
    expect(await ids("okapi")).toEqual([]);
    expect(await ids("tapir")).toEqual(["f0000002"]);
    // a new session, then it removed
    const b = join(dir, "b.jsonl");
    writeFileSync(b, jsonl(header({ id: "fresh-b" }), user("f0000010", null, "a tapir too")));
    expect((await ids("tapir")).sort()).toEqual(["f0000002", "f0000010"]);
    rmSync(b);
    expect(await ids("tapir")).toEqual(["f0000002"]);
  });

  it("an edit in place anywhere before the end, then an append (the same file, larger): the edit is seen, not taken for an append", async () => {
    const cache = freshCache();
    const dir = join(work, "grow-edit");
    mkdirSync(dir, { recursive: true });
    const a = join(dir, "a.jsonl");
    const turns = Array.from({ length: 400 }, (_, k) => (k % 2 === 0 ? user(`e${String(k).padStart(7, "0")}`, k === 0 ? null : `e${String(k - 1).padStart(7, "0")}`, `message ${k} alpha`) : assistant(`e${String(k).padStart(7, "0")}`, `e${String(k - 1).padStart(7, "0")}`, `reply ${k} alpha`)));
    writeFileSync(a, jsonl(header({ id: "grow-edit" }), ...turns));
    const ids = async (q: string) => (await searchJson(["--all", q, dir], { XDG_CACHE_HOME: cache })).json.matches.map((m: Match) => m.id).sort();
    expect(await ids("alpha")).toHaveLength(400);
    // (each of these bytes alone, edited in place, the next line appended: a same-length word changed, as an editor or a script writes it)
    for (const k of [1, 137, 251, 398]) {
      const text = readFileSync(a, "utf8");
      const at = text.indexOf(`${k % 2 === 0 ? "message" : "reply"} ${k} alpha`);
      const fd = openSync(a, "r+");
      writeSync(fd, `${k % 2 === 0 ? "message" : "reply"} ${k} gamma`, Buffer.byteLength(text.slice(0, at)));
      closeSync(fd);
      appendFileSync(a, jsonl(user(`n${String(k).padStart(7, "0")}`, "e0000399", `appended after ${k}`)));
      expect(await ids("gamma")).toEqual((await grepMatches(["-w", "-i", "gamma", dir])).map((m) => m.id).sort());
      expect(await ids("gamma")).toContain(`e${String(k).padStart(7, "0")}`);
    }
    expect(await ids("alpha")).toHaveLength(396);
    expect(await ids("appended")).toHaveLength(4);
  });

  it("a rewrite in place of the same size whose mtime is put back (touch -r, touch -d) is seen: the stamp holds the ctime", async () => {
    const cache = freshCache();
    const dir = join(work, "same-stamp");
    mkdirSync(dir, { recursive: true });
    const a = join(dir, "a.jsonl");
    writeFileSync(a, jsonl(header({ id: "same-stamp" }), user("s0000001", null, "first words"), assistant("s0000002", "s0000001", "an okapi here")));
    const past = new Date("2026-01-02T03:04:05.678Z");
    utimesSync(a, past, past);
    const ids = async (q: string) => (await searchJson(["--all", q, dir], { XDG_CACHE_HOME: cache })).json.matches.map((m: Match) => m.id);
    expect(await ids("okapi")).toEqual(["s0000002"]);
    const before = statSync(a);
    writeFileSync(a, readFileSync(a, "utf8").replace("okapi", "tapir"));
    utimesSync(a, past, past);
    const after = statSync(a);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    expect(await ids("okapi")).toEqual([]);
    expect(await ids("tapir")).toEqual(["s0000002"]);
    // (and a file only touched, its bytes as they were: found as before)
    utimesSync(a, new Date(), new Date());
    expect(await ids("tapir")).toEqual(["s0000002"]);
  });

  it("sessions only touched (their bytes as they were) are not read again: hashed, nothing more indexed", async () => {
    const cache = freshCache();
    const dir = copyOf(fixture("usage-store"), "touched");
    const run = () => cli(["search", "--all", "cart", dir], { env: { XDG_CACHE_HOME: cache } });
    const first = await run();
    expect(first.exitCode, first.stderr).toBe(0);
    /** How many entries the index has read over its life. */
    const seq = () => {
      const db = new DatabaseSync(indexFile(cache), { readOnly: true });
      try {
        return Number((db.prepare("SELECT value FROM meta WHERE key = 'seq'").get() as { value: string }).value);
      } finally {
        db.close();
      }
    };
    const read = seq();
    expect(read).toBeGreaterThan(10);
    const later = new Date(Date.now() + 60_000);
    for (const f of readdirSync(dir, { recursive: true, withFileTypes: true })) if (f.isFile()) utimesSync(join(f.parentPath, f.name), later, later);
    const again = await run();
    expect(again.stdout).toBe(first.stdout);
    expect(seq()).toBe(read);
  });

  it("a session whose path holds a newline is searched, and so is the store after it, every time", async () => {
    const cache = freshCache();
    const dir = join(work, "newline");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "x\ny.jsonl"), jsonl(header({ id: "newline-x" }), user("w0000001", null, "a walrus"), assistant("w0000002", "w0000001", "the walrus again")));
    writeFileSync(join(dir, "b.jsonl"), jsonl(header({ id: "newline-b" }), user("w0000011", null, "one walrus more")));
    const want = keys(await grepMatches(["-w", "-i", "walrus", dir]));
    expect(want).toHaveLength(3);
    for (let run = 0; run < 3; run++) {
      const r = await searchJson(["--all", "walrus", dir], { XDG_CACHE_HOME: cache });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(keys(r.json.matches)).toEqual(want);
    }
  });

  it("a session removed from a folder named is dropped from the index; a folder removed, whenever the index is next written", async () => {
    const cache = freshCache();
    const dir = join(work, "named");
    const other = join(work, "named-other");
    mkdirSync(dir, { recursive: true });
    mkdirSync(other, { recursive: true });
    writeFileSync(join(dir, "a.jsonl"), jsonl(header({ id: "named-a" }), user("q0000001", null, "an ibex")));
    writeFileSync(join(dir, "b.jsonl"), jsonl(header({ id: "named-b" }), user("q0000011", null, "an ibex too")));
    writeFileSync(join(other, "c.jsonl"), jsonl(header({ id: "named-c" }), user("q0000021", null, "an ibex elsewhere")));
    const run = async (folder: string) => (await searchJson(["--all", "ibex", folder], { XDG_CACHE_HOME: cache })).json.matches.length;
    const held = () => {
      const db = new DatabaseSync(indexFile(cache), { readOnly: true });
      try {
        return (db.prepare("SELECT path FROM sessions ORDER BY path").all() as Array<{ path: string }>).map((r) => relative(work, r.path));
      } finally {
        db.close();
      }
    };
    expect(await run(dir)).toBe(2);
    expect(await run(other)).toBe(1);
    expect(held()).toEqual(["named-other/c.jsonl", "named/a.jsonl", "named/b.jsonl"]);
    rmSync(join(dir, "b.jsonl"));
    expect(await run(dir)).toBe(1);
    expect(held()).toEqual(["named-other/c.jsonl", "named/a.jsonl"]);
    // (a folder removed: its sessions dropped the next time the index is written, here for an append elsewhere)
    rmSync(other, { recursive: true });
    appendFileSync(join(dir, "a.jsonl"), jsonl(user("q0000002", "q0000001", "a second ibex")));
    expect(await run(dir)).toBe(2);
    expect(held()).toEqual(["named/a.jsonl"]);
  });

  it("a row another process writes to an OpenClaw database is found by the next search; the store is left byte for byte", async () => {
    const cache = freshCache();
    const root = copyOf(join(SQLITE_STORES, "ccccx"), "sqlite-append");
    const db = join(root, "agents/main/agent/openclaw-agent.sqlite");
    const q = async (word: string) => (await searchJson(["--all", word, root], { XDG_CACHE_HOME: cache })).json.matches;
    expect(await q("quokka")).toEqual([]);
    const kept = snapshot(root);
    expect(await q("quokka")).toEqual([]);
    expect(snapshot(root)).toEqual(kept);
    const id = "b5b4ed18-f040-49f7-aa6d-42132e00c908";
    const line = JSON.stringify({ type: "message", id: "feedf00d", parentId: "8b4ef49f", timestamp: "2026-03-15T16:09:00.000Z", message: { role: "user", content: [{ type: "text", text: "a quokka in the database" }] } });
    // (another process: the gateway, as it writes)
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ["-e", `const {DatabaseSync}=require("node:sqlite");const d=new DatabaseSync(${JSON.stringify(db)});d.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 100000, ?, 1)").run(${JSON.stringify(id)}, ${JSON.stringify(line)});d.close();`], (error) => (error ? reject(error) : resolve())),
    );
    const found = await q("quokka");
    expect(found.map((m: Match) => [m.id, m.role])).toEqual([["feedf00d", "user"]]);
    expect(found[0].file).toBe(`${db}#${id}`);
    // (and grep agrees)
    expect(keys(await grepMatches(["-w", "-i", "quokka", root]))).toEqual(keys(found));
  });
});

describe("bad input", () => {
  it("a query is text, never the index's syntax: -, :, *, an unpaired quote, AND, NEAR( are searched as written", async () => {
    const cache = freshCache();
    const dir = join(work, "syntax");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "s.jsonl"), jsonl(header({ id: "syntax" }), user("s0000001", null, "a - b : c * d AND e NEAR( f"), user("s0000002", "s0000001", 'say "hello and goodbye'), user("s0000003", "s0000002", "OR NOT ^ col:umn")));
    for (const q of ["-", ":", "*", '"hello', "AND", "NEAR(", "NEAR", "OR", "NOT", "col:umn", "^", '"', "*:-"]) {
      const want = await everyWord(q.split(/\s+/), [dir]);
      const got = await cli(["search", "--all", "--json", "--", q, dir], { env: { XDG_CACHE_HOME: cache } });
      expect(got.stderr, q).not.toMatch(/sqlite|fts5|syntax error/i);
      expect(got.exitCode, q).toBe(want.length > 0 ? 0 : 1);
      expect(keys(JSON.parse(got.stdout).matches), q).toEqual(want);
      const fixed = await cli(["search", "-F", "--all", "--json", "--", q, dir], { env: { XDG_CACHE_HOME: cache } });
      expect(keys(JSON.parse(fixed.stdout).matches), `-F ${q}`).toEqual(keys(await grepMatches(["-F", "-i", "-e", q, dir])));
    }
  });

  it("a word of a script without spaces that is no whole word: nothing, and -F suggested", async () => {
    const dir = join(work, "unspaced");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "u.jsonl"), jsonl(header({ id: "unspaced" }), user("z0000001", null, "我们决定使用数据库迁移")));
    const r = await cli(["search", "数据库", dir], { env: { XDG_CACHE_HOME: freshCache() } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/-F finds it as a substring: pi-session search -F '?数据库'?\n$/);
    expect((await cli(["search", "-F", "数据库", dir], { env: { XDG_CACHE_HOME: freshCache() } })).stdout).toContain("z0000001");
  });

  it("a word of a script without spaces found only where it stands whole: the matches, and -F suggested for the rest", async () => {
    const dir = join(work, "unspaced-some");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "u.jsonl"), jsonl(header({ id: "unspaced-some" }), user("y0000001", null, "如月 维"), user("y0000002", "y0000001", "千叶市·如月家"), user("y0000003", "y0000002", "Kisaragi Yui")));
    const cache = freshCache();
    const r = await cli(["search", "如月", dir], { env: { XDG_CACHE_HOME: cache } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(":y0000001:");
    expect(r.stdout).not.toContain(":y0000002:");
    expect(r.stderr).toBe("pi-session: \"如月\" is found where it stands as a whole word; in Chinese, Japanese or Thai a word mostly sits inside a longer run of letters, where -F finds it: pi-session search -F '如月'\n");
    expect((await cli(["search", "-F", "如月", dir], { env: { XDG_CACHE_HOME: cache } })).stdout).toContain(":y0000002:");
    // (a word of a spaced script says nothing)
    expect((await cli(["search", "yui", dir], { env: { XDG_CACHE_HOME: cache } })).stderr).toBe("");
  });

  it("a line pi skips is said only when it could hold the match: a Chinese query names no line without Chinese", async () => {
    const file = join(CORPUS, "pi-mono-history__session.v1.concat-corrupt.jsonl");
    const cache = freshCache();
    for (const args of [["-F", "数据"], ["-F", "موقع"], ["-F", "模型"]]) {
      const r = await cli(["search", ...args, file], { env: { XDG_CACHE_HOME: cache } });
      expect([r.exitCode, r.stderr], args.join(" ")).toEqual([1, ""]);
    }
  });

  it("an empty query is a usage error; so are --all with --limit, and standard input", async () => {
    for (const args of [["--", ""], ["--", "   "], ["--", '""'], ["-F", "--", ""], ["x", "--all", "--limit", "3"], ["x", "--limit", "0"], ["x", "-"]]) {
      const r = await cli(["search", ...args]);
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(/^pi-session: .+\n$/);
    }
    const none = await cli(["search"]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/needs QUERY/);
    // (--limit's least is 1, said alike whatever was wrong)
    for (const bad of ["0", "-1", "abc", "2.5"]) {
      const r = await cli(["search", "x", "--limit", bad]);
      expect([r.exitCode, r.stderr], bad).toEqual([2, `pi-session: --limit takes a whole number >= 1 (e.g. --limit 10), got ${JSON.stringify(bad)}; see pi-session --help\n`]);
    }
    expect((await cli(["search", "--help"])).stdout).toMatch(/--session-dir DIR\s+the store to read for ids, keys, ls, usage, grep and search:/);
  });

  it("a session that cannot be read is said once, the rest searched (exit 2, as grep)", async () => {
    const dir = join(work, "unreadable");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "ok.jsonl"), jsonl(header({ id: "ok" }), user("u0000001", null, "a marmot")));
    // (an archive that is no zstd: unreadable whoever reads it)
    writeFileSync(join(dir, "cut.jsonl.zst"), "not zstd at all");
    const args = ["marmot", join(dir, "ok.jsonl"), join(dir, "cut.jsonl.zst")];
    const r = await cli(["search", ...args], { env: { XDG_CACHE_HOME: freshCache() } });
    const g = await cli(["grep", "-w", "-i", ...args]);
    expect(r.exitCode).toBe(2);
    expect(g.exitCode).toBe(2);
    expect(r.stdout).toBe(g.stdout);
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^pi-session: .*cut\.jsonl\.zst: not a readable zstd archive .*\(not searched\)$/)]);
    expect(r.stderr).toBe(g.stderr);
    // (a path given relative is named as given, as grep names it)
    const relative = ["marmot", "ok.jsonl", "cut.jsonl.zst"];
    const rr = await cli(["search", ...relative], { cwd: dir, env: { XDG_CACHE_HOME: freshCache() } });
    const gr = await cli(["grep", "-w", "-i", ...relative], { cwd: dir });
    expect(rr.stderr).toMatch(/^pi-session: cut\.jsonl\.zst: /);
    expect(rr.stderr).toBe(gr.stderr);
    expect(rr.stdout).toBe(gr.stdout);
  });
});

describe("the index", () => {
  it("two searches at once are safe: both answer, alike", async () => {
    const cache = freshCache();
    const run = () => cli(["search", "--all", "-F", "the", CORPUS], { env: { XDG_CACHE_HOME: cache } });
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(b.exitCode, b.stderr).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout.split("\n").length).toBeGreaterThan(10);
  });

  it("a damaged index, or one of another build, is made again, never an error", async () => {
    const cache = freshCache();
    const first = await cli(["search", "--all", "cart", fixture("usage-store")], { env: { XDG_CACHE_HOME: cache } });
    expect(first.exitCode).toBe(0);
    const file = indexFile(cache);
    for (const damage of [() => writeFileSync(file, "not a database at all".repeat(100)), () => writeFileSync(file, Buffer.concat([readFileSync(file).subarray(0, 4096), Buffer.alloc(8192, 0x41)]))]) {
      rmSync(`${file}-wal`, { force: true });
      rmSync(`${file}-shm`, { force: true });
      damage();
      const again = await cli(["search", "--all", "cart", fixture("usage-store")], { env: { XDG_CACHE_HOME: cache } });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stdout).toBe(first.stdout);
      expect(again.stderr).toBe("");
    }
    const other = new DatabaseSync(file);
    other.prepare("UPDATE meta SET value = 'another build' WHERE key = 'made by'").run();
    other.close();
    const rebuilt = await cli(["search", "--all", "cart", fixture("usage-store")], { env: { XDG_CACHE_HOME: cache } });
    expect(rebuilt.stdout).toBe(first.stdout);
  });

  it("a session's row missing from the index (the directory names it): the index made again, never an error", async () => {
    const cache = freshCache();
    const first = await cli(["search", "--all", "cart", fixture("usage-store")], { env: { XDG_CACHE_HOME: cache } });
    expect(first.exitCode, first.stderr).toBe(0);
    const db = new DatabaseSync(indexFile(cache));
    expect(db.prepare("DELETE FROM sessions WHERE id IN (SELECT session FROM entries LIMIT 1)").run().changes).toBe(1);
    db.close();
    const again = await cli(["search", "--all", "cart", fixture("usage-store")], { env: { XDG_CACHE_HOME: cache } });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(again.stderr).toBe("");
  });

  it("a cache folder that cannot be written: the index is made in memory, and said", async () => {
    const cache = freshCache();
    writeFileSync(join(cache, "pi-session"), "a file where the folder would be");
    const r = await cli(["search", "--all", "cart", fixture("usage-store")], { env: { XDG_CACHE_HOME: cache } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("cart");
    expect(r.stderr).toMatch(/the search index cannot be kept in .*; this search makes it in memory/);
  });

  it("an index whose rebuild must wait for another's long write waits for it, however long, never 'database is locked'", async () => {
    const cache = freshCache();
    const first = await cli(["search", "--all", "cart", fixture("usage-store")], { env: { XDG_CACHE_HOME: cache } });
    expect(first.exitCode, first.stderr).toBe(0);
    const file = indexFile(cache);
    // (another process: the index marked as another's, then its write lock held for 7 s, as a long first build holds it)
    const holder = execa(process.execPath, ["-e", `const {DatabaseSync}=require("node:sqlite");const d=new DatabaseSync(${JSON.stringify(file)});d.prepare("UPDATE meta SET value = 'another build' WHERE key = 'made by'").run();d.exec("BEGIN IMMEDIATE");console.log("held");setTimeout(()=>{d.exec("COMMIT");d.close()},7000);`]);
    await new Promise<void>((resolve) => holder.stdout!.once("data", () => resolve()));
    const r = await cli(["search", "--all", "cart", fixture("usage-store")], { env: { XDG_CACHE_HOME: cache } });
    await holder;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(first.stdout);
    expect(r.stderr).toBe("");
  });

  it("each build keeps an index of its own; another's unused for 14 days is removed, a recent one kept", async () => {
    const cache = freshCache();
    const folder = join(cache, "pi-session");
    mkdirSync(folder, { recursive: true });
    const old = Date.now() / 1000 - 15 * 86_400;
    for (const name of ["search-index.sqlite", "search-index-0123456789ab.sqlite", "search-index-0123456789ab.sqlite-wal", "search-index-ba9876543210.sqlite", "search-index-ba9876543210.sqlite-wal"]) {
      writeFileSync(join(folder, name), "another build's index");
      if (!name.startsWith("search-index-ba")) utimesSync(join(folder, name), old, old);
    }
    const r = await cli(["search", "--all", "cart", fixture("usage-store")], { env: { XDG_CACHE_HOME: cache } });
    expect(r.exitCode, r.stderr).toBe(0);
    const left = readdirSync(folder).filter((f) => f.startsWith("search-index"));
    expect(left.filter((f) => f.startsWith("search-index-ba"))).toEqual(["search-index-ba9876543210.sqlite", "search-index-ba9876543210.sqlite-wal"]);
    expect(left.filter((f) => f === "search-index.sqlite" || f.startsWith("search-index-01"))).toEqual([]);
    expect(left.filter((f) => /^search-index-[0-9a-f]{12}\.sqlite$/.test(f) && !f.startsWith("search-index-ba"))).toHaveLength(1);
  });

  it("the index is its owner's alone (0600, its folder 0700), keeps hashes not bytes, and a word redacted leaves it", async () => {
    const cache = freshCache();
    const dir = join(work, "private");
    mkdirSync(dir, { recursive: true });
    const a = join(dir, "a.jsonl");
    const b = join(dir, "b.jsonl");
    writeFileSync(a, jsonl(header({ id: "private-a" }), user("p0000001", null, "the token is hunter2xyzzy, keep it"), assistant("p0000002", "p0000001", "noted")));
    writeFileSync(b, jsonl(header({ id: "private-b" }), user("p0000011", null, "and plugh42quux in another")));
    const run = (q: string) => searchJson(["--all", q, dir], { XDG_CACHE_HOME: cache });
    expect((await run("hunter2xyzzy")).json.matches).toHaveLength(1);
    const file = indexFile(cache);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(cache, "pi-session")).mode & 0o777).toBe(0o700);
    const terms = () => {
      const db = new DatabaseSync(file, { readOnly: true });
      try {
        const vocabulary = (db.prepare("SELECT term FROM vocabulary").all() as Array<{ term: string }>).map((r) => r.term);
        const guards = (db.prepare("SELECT guard FROM sessions").all() as Array<{ guard: Uint8Array }>).map((r) => r.guard.length);
        return { vocabulary, guards };
      } finally {
        db.close();
      }
    };
    expect(terms().vocabulary).toEqual(expect.arrayContaining(["hunter2xyzzy", "plugh42quux"]));
    // (a guard is a SHA-256, not the session's bytes)
    expect(terms().guards).toEqual([32, 32]);
    // the secret redacted in place (as redact --in-place leaves it): the next search drops the word
    writeFileSync(a, readFileSync(a, "utf8").replace("hunter2xyzzy", "[REDACTED:1]"));
    const r = await cli(["search", "--all", "-F", "xyzzy", dir], { env: { XDG_CACHE_HOME: cache } });
    expect(r.exitCode).toBe(1);
    expect(terms().vocabulary.filter((t) => /hunter|xyzzy/.test(t))).toEqual([]);
    expect(terms().vocabulary).toContain("plugh42quux");
    expect(readFileSync(file).includes("hunter2xyzzy")).toBe(false);
  });

  it("a cache folder that cannot be written holding this build's index, up to date: read as it is, not made again in memory", async () => {
    const cache = freshCache();
    const dir = copyOf(fixture("usage-store"), "read-only-cache");
    // (written more than two seconds before the index reads them: their stamps are sure, nothing to look at again)
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const first = await cli(["search", "--all", "cart", dir], { env: { XDG_CACHE_HOME: cache } });
    expect(first.exitCode, first.stderr).toBe(0);
    // (read-only: a bind mount where the tests run as root, whom modes do not stop; else the modes)
    const ro = join(work, "read-only-cache-mount");
    mkdirSync(ro, { recursive: true });
    const root = process.getuid?.() === 0;
    if (root) await execa("mount", ["--bind", "-o", "ro", cache, ro]);
    else {
      chmodSync(indexFile(cache), 0o400);
      chmodSync(join(cache, "pi-session"), 0o500);
    }
    try {
      const at = root ? ro : cache;
      const again = await cli(["search", "--all", "cart", dir], { env: { XDG_CACHE_HOME: at } });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stdout).toBe(first.stdout);
      expect(again.stderr).toBe("");
      // (and one that must change: made in memory, and said)
      const session = readdirSync(dir, { recursive: true, withFileTypes: true }).find((f) => f.isFile() && f.name.endsWith(".jsonl"))!;
      appendFileSync(join(session.parentPath, session.name), jsonl(user("r0000001", null, "one more cart")));
      const changed = await cli(["search", "--all", "cart", dir], { env: { XDG_CACHE_HOME: at } });
      expect(changed.exitCode, changed.stderr).toBe(0);
      expect(changed.stdout).toContain("r0000001");
      expect(changed.stderr).toMatch(/^pi-session: the search index cannot be (written|kept) in .*; this search makes it in memory\n$/);
    } finally {
      if (root) await execa("umount", [ro]);
      else chmodSync(join(cache, "pi-session"), 0o700);
    }
  });

  it("a disk that fills up, or fails a write, while the index is written: the search made in memory, said once, exit 0", async () => {
    const cache = freshCache();
    const want = await cli(["search", "--all", "-F", "the", CORPUS], { env: { XDG_CACHE_HOME: freshCache() } });
    expect(want.exitCode, want.stderr).toBe(0);
    // (a file may grow to 200 KB at most: the first write past it fails, as a full disk's)
    const full = await execa("bash", ["-c", 'ulimit -f 200; exec node "$@"', "bash", BIN, "search", "--all", "-F", "the", CORPUS], { reject: false, stripFinalNewline: false, env: { NO_COLOR: "1", XDG_CACHE_HOME: cache, HOME: work } });
    expect(full.exitCode, full.stderr).toBe(0);
    // (the same matches; among equal scores, in the order that index read them)
    const lines = (out: string) => out.trimEnd().split("\n").sort();
    expect(lines(full.stdout)).toEqual(lines(want.stdout));
    // (one line said, then what any search of the corpus says)
    const [note, ...rest] = full.stderr.split("\n");
    expect(note).toMatch(/^pi-session: the search index cannot be written in .*search-index.*\.sqlite \(.*\); this search makes it in memory$/);
    expect(rest.join("\n")).toBe(want.stderr);
    // (and again, with the space back: the index is kept)
    const again = await cli(["search", "--all", "-F", "the", CORPUS], { env: { XDG_CACHE_HOME: cache } });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(lines(again.stdout)).toEqual(lines(want.stdout));
    expect(again.stderr).toBe(want.stderr);
  });
});

describe("output", () => {
  /** Runs `main` with a stdout that says it is a terminal `columns` wide and `rows` high. */
  /** What the last `onTerminal` run said on stderr. */
  let terminalStderr = "";
  async function onTerminal(args: string[], columns: number, rows = 40, cwd?: string): Promise<string> {
    const chunks: Buffer[] = [];
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns, rows });
    stdout.on("data", (c: Buffer) => chunks.push(c));
    const stderr = new PassThrough();
    terminalStderr = "";
    stderr.on("data", (c: Buffer) => (terminalStderr += c.toString("utf8")));
    // (in `cwd` when given: a relative path is read from there, as a user's shell would run it)
    const was = process.cwd();
    if (cwd !== undefined) process.chdir(cwd);
    try {
      await main(args, { stdout, stderr, env: { NO_COLOR: "1", TZ: "UTC", PI_SESSION_THREADS: "1", XDG_CACHE_HOME: join(work, "terminal-cache"), HOME: work } });
    } finally {
      process.chdir(was);
    }
    return Buffer.concat(chunks).toString("utf8");
  }

  /** A command as printed, given to bash (in `cwd`, the home and cache the search had), the real bin run for `pi-session`. */
  const asPrinted = (command: string, cwd: string, cache = join(work, "terminal-cache")) =>
    execa("bash", ["-c", command.replace(/^pi-session /, `"${process.execPath}" "${join(ROOT, "bin/pi-session.js")}" `)], { reject: false, cwd, env: { NO_COLOR: "1", TZ: "UTC", HOME: work, XDG_CACHE_HOME: cache, PI_CODING_AGENT_SESSION_DIR: undefined, PI_CODING_AGENT_DIR: undefined, OPENCLAW_STATE_DIR: undefined } });

  it("the command under a match opens it as printed when the store came from --session-dir (a relative one too)", async () => {
    const dir = join(work, "elsewhere/sessions");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "s.jsonl"), jsonl(header({ id: "0199cccc-bbbb-7ccc-8ddd-000000000001" }), user("f0000001", null, "where the 场景 was decided")));
    for (const given of [dir, "elsewhere/sessions"]) {
      const out = await onTerminal(["search", "-F", "场景", "--session-dir", given], 80, 40, work);
      const command = /^ +(pi-session show .*)$/m.exec(out)?.[1];
      expect(command, out).toBeDefined();
      const shown = await asPrinted(command!, work);
      expect(shown.exitCode, `${command}: ${shown.stderr}`).toBe(0);
      expect(shown.stdout).toContain("where the 场景 was decided");
    }
  });

  it("on a terminal: each session by its title, each match with its line, id, role, time, snippet and the command that opens it; within 80 columns, Chinese and Arabic too", async () => {
    const dir = join(work, "scripts");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "zh.jsonl"), jsonl(header({ id: "zh", timestamp: "2026-03-09T10:00:00.000Z" }), user("c0000001", null, "用中文总结这个库的公共接口。".repeat(8)), assistant("c0000002", "c0000001", "公共接口有三个函数。")));
    writeFileSync(join(dir, "ar.jsonl"), jsonl(header({ id: "ar", timestamp: "2026-03-09T11:00:00.000Z" }), user("d0000001", null, "ما هو موقع الملف؟ ".repeat(10)), assistant("d0000002", "d0000001", "موقع الملف في المجلد")));
    for (const q of [["-F", "公共接口"], ["-F", "موقع"]]) {
      const out = await onTerminal(["search", ...q, dir], 80);
      const lines = out.trimEnd().split("\n");
      expect(lines.length).toBeGreaterThan(3);
      // (an isolated right-to-left run's marks take no column)
      for (const line of lines) if (!line.includes("pi-session show")) expect(stringWidth(line.replace(/[\u2068\u2069]/g, "")), line).toBeLessThanOrEqual(80);
      expect(out).toMatch(/pi-session show \S+ [cd]000000[12]/);
    }
    // the command under a match opens its entry
    const command = /pi-session show (\S+) (c0000002)/.exec(await onTerminal(["search", "-F", "三个函数", dir], 80))!;
    const shown = await cli(["show", command[1]!.replace(/^'|'$/g, ""), command[2]!], { env: { TZ: "UTC" } });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("公共接口有三个函数。");
    const zh = await onTerminal(["search", "-F", "公共接口", dir], 80);
    expect(zh.split("\n")[1]).toMatch(/^用中文总结这个库的公共接口。.*… · 2026-03-09 10:00$/);
    expect(zh).toMatch(/^ +2 +c0000001 +user +\d\d-\d\d \d\d:\d\d +.*公共接口/m);
    expect(zh).toMatch(/^ +pi-session show \S+zh\.jsonl c0000001$/m);
  });

  it("an entry's id is shown, never obeyed: its control characters escaped on a terminal and piped, and the command under a match quoted as $'…' opens it", async () => {
    const dir = join(work, "escapes");
    mkdirSync(dir, { recursive: true });
    const id = "\u001b[2J\u001b]0;owned\u0007";
    writeFileSync(join(dir, "e.jsonl"), jsonl(header({ id: "0199aaaa-bbbb-7ccc-8ddd-000000000009" }), user(id, null, "escape probe one")));
    const cache = freshCache();
    const piped = await cli(["search", "probe", dir], { env: { XDG_CACHE_HOME: cache } });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(piped.stdout).toContain(":\\x1b[2J\\x1b]0;owned\\x07:user: ");
    const out = await onTerminal(["search", "probe", dir], 100);
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(out).toMatch(/^ +2 +\\x1b\[2J\\x1b\]0; +user +/m);
    // (the command as printed, given to a shell, opens the entry)
    const command = /^ +(pi-session show .*\$'\\x1b.*)$/m.exec(out)![1]!;
    const shown = await asPrinted(command, dir, cache);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("escape probe one");
  });

  it("a screenful on a terminal, a row left for the prompt, and a line saying how to see more; nothing found said on stderr", async () => {
    const out = await onTerminal(["search", "-F", "the", CORPUS], 100, 20);
    const lines = out.trimEnd().split("\n");
    // (the rows the lines take, a long one wrapped: the shell's prompt takes the 20th)
    expect(lines.reduce((n, line) => n + Math.max(1, Math.ceil(stringWidth(line) / 100)), 0)).toBeLessThanOrEqual(19);
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.at(-1)).toMatch(/^the best \d+ match(es)?; --limit N for more, --all for every one$/);
    // (--limit N and --all are what they ask for, past a screen)
    const asked = (await onTerminal(["search", "-F", "the", CORPUS, "--limit", "30"], 100, 20)).split("\n").filter((l) => /^\s*\d+\s/.test(l));
    expect(asked).toHaveLength(30);
    const every = (await onTerminal(["search", "-F", "the", CORPUS, "--all"], 100, 20)).split("\n").filter((l) => /^\s*\d+\s/.test(l));
    expect(every.length).toBeGreaterThan(30);
    const none = await onTerminal(["search", "zzqqxxjj", CORPUS], 100, 20);
    expect(none).toBe("");
    expect(terminalStderr).toMatch(/^pi-session: nothing matched "zzqqxxjj" in \d+ sessions\n$/);
  });

  it("a session's path cut to the width keeps both its ends: two alike at their end differ at their start", async () => {
    const long = "-a-folder-with-a-long-name".repeat(3);
    for (const top of ["one", "two"]) {
      mkdirSync(join(work, "paths", top + long), { recursive: true });
      writeFileSync(join(work, "paths", top + long, "2026-03-09T10-00-00-000Z_same-session-file-name.jsonl"), jsonl(header({ id: `path-${top}` }), user("h0000001", null, `zzpathneedle ${top}`)));
    }
    const out = await onTerminal(["search", "zzpathneedle", `one${long}`, `two${long}`], 80, 40, join(work, "paths"));
    const heads = out.split("\n").filter((l) => l.endsWith(".jsonl"));
    expect(heads).toHaveLength(2);
    for (const h of heads) expect(stringWidth(h)).toBeLessThanOrEqual(80);
    expect(heads.map((h) => h.slice(0, 3)).sort()).toEqual(["one", "two"]);
    expect(heads[0]).toMatch(/….*same-session-file-name\.jsonl$/);
  });

  it("--json and --jsonl: grep's rows and a score; exit 0 found, 1 none", async () => {
    const cache = freshCache();
    const store = fixture("usage-store");
    const j = await searchJson(["decimal", store], { XDG_CACHE_HOME: cache });
    expect(j.exitCode).toBe(0);
    const g = await grepMatches(["-w", "-i", "decimal", store]);
    expect(j.json.matches.map(({ score, ...m }: Match & { score: number }) => (expect(score).toBeGreaterThan(0), m))).toEqual(expect.arrayContaining(g));
    expect(j.json.matches).toHaveLength(g.length);
    expect(j.json).toMatchObject({ query: "decimal", fixed: false, complete: true, total: { sessions: new Set(g.map((m) => m.file)).size, matches: g.length } });
    expect(j.json.withMatches.map((s: { matches: number }) => s.matches).reduce((a: number, b: number) => a + b)).toBe(g.length);
    const l = await cli(["search", "decimal", store, "--jsonl"], { env: { XDG_CACHE_HOME: cache } });
    expect(l.stdout.trimEnd().split("\n").map((x) => JSON.parse(x))).toEqual(j.json.matches);
    const none = await cli(["search", "zzqqxxjj", store], { env: { XDG_CACHE_HOME: cache } });
    expect(none.exitCode).toBe(1);
    expect(none.stdout).toBe("");
  });
});
