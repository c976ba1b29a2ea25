/**
 * `tail`: a session's last entries as `path` lists them, and with `-f` every entry as it is
 * written, in every store: a pi file appended to (a torn write completed later, a new branch, a
 * broken pairing said as `check` says it, a rewrite), a copy of an OpenClaw JSONL store across a
 * reset, a copy of a SQLite-era store beside a second process writing as a gateway does (a write
 * transaction held open, a reset), a `.zst` archive, and `--all`. Each appended entry is printed
 * once, in order, within a second; Ctrl-C exits 0 and leaves nothing on stderr; the database and
 * its log are never written by the reader.
 */
import { createHash } from "node:crypto";
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zstdCompressSync } from "node:zlib";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { cli, cliJson, running } from "../helpers/cli.js";
import { fixture, ROOT } from "../helpers/paths.js";

const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), `pi-session-tail-${prefix}-`));
const line = (o: unknown) => JSON.stringify(o) + "\n";
const now = () => new Date().toISOString();
const user = (id: string, parentId: string | null, text: string) => ({ type: "message", id, parentId, timestamp: now(), message: { role: "user", content: [{ type: "text", text }], timestamp: Date.now() } });
const call = (id: string, parentId: string, callId: string, command: string, cost = 0.0042) => ({
  type: "message",
  id,
  parentId,
  timestamp: now(),
  message: { role: "assistant", content: [{ type: "toolCall", id: callId, name: "bash", arguments: { command } }], provider: "anthropic", model: "claude-sonnet-4-5", usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120, cost: { total: cost } }, stopReason: "toolUse", timestamp: Date.now() },
});
const result = (id: string, parentId: string, callId: string) => ({ type: "message", id, parentId, timestamp: now(), message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: "ok" }], isError: false, timestamp: Date.now() } });

/** The ids of `--jsonl` lines that are entries, in order. */
const entryIds = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { entry?: { id?: string } })
    .filter((v) => v.entry)
    .map((v) => v.entry!.id);

/** A copy of a fixture in a folder of its own; its path, and its last entry's id. */
function copyOf(name: string): { path: string; last: string } {
  const path = join(scratch("pi"), name);
  cpSync(fixture(name), path);
  const lines = readFileSync(path, "utf8").trim().split("\n");
  return { path, last: JSON.parse(lines.at(-1)!).id as string };
}

describe("tail without -f", () => {
  it("prints the last entries of the current branch as path lists them (-n), and exits 0", async () => {
    const path = await cli(["path", fixture("branched.jsonl"), "--jsonl"]);
    const ids = path.stdout.trim().split("\n").map((l) => JSON.parse(l).id as string);
    const r = await cli(["tail", fixture("branched.jsonl"), "-n", "3"]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    const shown = r.stdout.trim().split("\n").map((l) => l.trim().split(/\s+/)[1]);
    expect(shown).toEqual(ids.slice(-3));
    // (the default is 10: the branch has fewer, so all of them)
    const all = await cli(["tail", fixture("branched.jsonl"), "--jsonl"]);
    expect(entryIds(all.stdout)).toEqual(ids.slice(-10));
  });

  it("a turn with no cost recorded shows its tokens and no cost (never \"$-\"); a turn with one shows it", async () => {
    const r = await cli(["tail", fixture("estimated-cost.jsonl"), "-n", "20"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain("$-");
    expect(r.stdout.split("\n").find((l) => /\be0000004\b/.test(l))).toMatch(/45\.5k tok {2}ok$/);
    expect(r.stdout.split("\n").find((l) => /\be0000006\b/.test(l))).toMatch(/1,100 tok \$0\.0045 {2}ok$/);
  });

  it("--jsonl gives each entry with its line, and a turn's usage with the session's totals as usage counts them", async () => {
    const r = await cli(["tail", fixture("branched.jsonl"), "--jsonl"]);
    const values = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const raw = readFileSync(fixture("branched.jsonl"), "utf8").split("\n");
    for (const v of values.filter((x) => x.entry)) expect(JSON.parse(raw[v.line - 1]!)).toEqual(v.entry);
    const usage = await cliJson(["usage", fixture("branched.jsonl")]);
    const last = values.filter((v) => v.totals).at(-1);
    expect(last.totals.cost).toBeCloseTo(usage.json.total.cost, 10);
    expect(last.totals.total).toBe(usage.json.total.total);
  });

  it("--json is one document; with -f it is a usage error naming --jsonl", async () => {
    const r = await cliJson(["tail", fixture("linear.jsonl"), "-n", "2"]);
    expect(r.exitCode).toBe(0);
    expect(r.json.file).toBe(fixture("linear.jsonl"));
    expect(r.json.entries).toHaveLength(2);
    const f = await cli(["tail", fixture("linear.jsonl"), "-f", "--json"]);
    expect(f.exitCode).toBe(2);
    expect(f.stderr).toMatch(/--jsonl/);
  });

  it("says what check says of a broken pairing, in check's codes, on the lines check names", async () => {
    let compared = 0;
    for (const name of ["pairing-displaced.jsonl", "pairing-duplicate.jsonl", "pairing-empty-id.jsonl", "pairing-errored-turn.jsonl"]) {
      const check = await cliJson(["check", fixture(name)]);
      const leaves = await cli(["path", fixture(name), "--leaves", "--jsonl"]);
      if (leaves.stdout.trim().split("\n").length !== 1) continue; // (one branch: what tail follows is all check judges)
      const codes = new Set(["tool-result-orphan", "tool-result-duplicate", "tool-result-no-id"]);
      const expected = (check.json.files[0].findings as Array<{ code: string; line: number }>).filter((f) => codes.has(f.code)).map((f) => `${f.code}@${f.line}`);
      const r = await cli(["tail", fixture(name), "-n", "100000", "--jsonl"]);
      const said = r.stdout.trim().split("\n").map((l) => JSON.parse(l)).filter((v) => v.notice === "finding" && codes.has(v.code)).map((v) => `${v.code}@${v.line}`);
      expect(said.sort(), name).toEqual(expected.sort());
      if (expected.length > 0) compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(2);
  });

  it("follows no standard input (nothing more comes: tail - without -f shows it); an empty file is refused as everywhere", async () => {
    const r = await cli(["tail", "-", "-f"], { input: readFileSync(fixture("linear.jsonl")) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/`pi-session tail -` \(without -f\) shows its last entries/);
    const all = await cli(["tail", "--all", "-"]);
    expect(all.exitCode).toBe(2);
    expect(all.stderr).toMatch(/--all follows every session of a store or a folder; - \(standard input\) is one session/);
    const empty = await cli(["tail", fixture("empty.jsonl")]);
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toMatch(/empty/);
  });
});

describe("tail -f on a pi session", () => {
  it("prints every appended entry once, in order, within a second; a torn write once it is whole; a new branch, a turn's cost and a broken pairing as they come; Ctrl-C exits 0", async () => {
    const { path, last } = copyOf("linear.jsonl");
    const run = running(["tail", path, "-f", "-n", "1"]);
    await run.waitFor((l) => l.includes(last));
    const timed: Array<{ id: string; wrote: number }> = [];
    const append = (o: { id: string }) => {
      appendFileSync(path, line(o));
      timed.push({ id: o.id, wrote: Date.now() });
    };
    append(user("f1", last, "run ls"));
    await run.waitFor((l) => /\bf1\b/.test(l));
    append(call("f2", "f1", "c1", "ls -la"));
    await run.waitFor((l) => /\bf2\b/.test(l));
    // a torn write: half a line, the rest later
    const torn = line(user("f3", "f2", "next?"));
    appendFileSync(path, torn.slice(0, 25));
    await new Promise((r) => setTimeout(r, 1300));
    expect(run.lines.some((l) => /\bf3\b/.test(l.text))).toBe(false);
    appendFileSync(path, torn.slice(25));
    timed.push({ id: "f3", wrote: Date.now() });
    await run.waitFor((l) => /\bf3\b/.test(l));
    // someone went back (/tree): a result under f1, whose turn asked for no such call
    append(result("f4", "f1", "nobody"));
    await run.waitFor((l) => /\bf4\b/.test(l));
    await run.waitFor((l) => l.includes("tool-result-orphan"));
    const r = await run.stop();
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    const out = r.stdout.split("\n");
    for (const { id, wrote } of timed) {
      const shown = run.lines.filter((l) => new RegExp(`^\\s*\\d+\\s+${id}\\b`).test(l.text));
      expect(shown, id).toHaveLength(1);
      expect(shown[0]!.at - wrote, id).toBeLessThan(1000);
    }
    const order = out.filter((l) => /^\s*\d+\s+f\d\b/.test(l)).map((l) => l.trim().split(/\s+/)[1]);
    expect(order).toEqual(["f1", "f2", "f3", "f4"]);
    // the turn's tokens and cost on its line; the call as its command
    expect(out.find((l) => /\bf2\b/.test(l))).toMatch(/120 tok \$0\.0042.*→ bash ls -la/);
    // f3 came while c1 waited: said as check says it, once
    expect(out.filter((l) => l.includes("tool-call-unanswered: call `c1`"))).toHaveLength(1);
    expect(out.join("\n")).toMatch(/new branch from f1 \(line \d+\)/);
    expect(out.filter((l) => l.includes("tool-result-orphan: the result for `nobody`"))).toHaveLength(1);
  });

  it("a file rewritten under it (as repair and slim write: a new file renamed over it) is said, and what it holds that was not shown is shown once", async () => {
    const { path, last } = copyOf("linear.jsonl");
    const run = running(["tail", path, "-f", "-n", "2", "--jsonl"]);
    await run.waitFor((l) => l.includes(`"${last}"`));
    const tmp = `${path}.tmp`;
    writeFileSync(tmp, readFileSync(path, "utf8") + line(user("r1", last, "after the rewrite")));
    renameSync(tmp, path);
    await run.waitFor((l) => l.includes('"r1"'));
    appendFileSync(path, line(user("r2", "r1", "and one more")));
    await run.waitFor((l) => l.includes('"r2"'));
    const r = await run.stop();
    expect(r.exitCode).toBe(0);
    const values = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(values.filter((v) => v.notice === "rewritten")).toHaveLength(1);
    // nothing shown before is shown again
    const ids = entryIds(r.stdout);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(-2)).toEqual(["r1", "r2"]);
  });

  it("a file repaired under it (a result it showed removed, the file renamed over) shows nothing it showed again", async () => {
    const { path, last } = copyOf("linear.jsonl");
    const run = running(["tail", path, "-f", "-n", "3", "--jsonl"]);
    await run.waitFor((l) => l.includes(`"${last}"`));
    appendFileSync(path, line(result("o1", last, "nobody")));
    await run.waitFor((l) => l.includes("tool-result-orphan"));
    const repaired = await cli(["repair", path]);
    expect(repaired.exitCode, repaired.stderr).toBe(0);
    await run.waitFor((l) => l.includes('"rewritten"'));
    appendFileSync(path, line(user("r1", last, "after the repair")));
    await run.waitFor((l) => l.includes('"r1"'));
    const r = await run.stop();
    const ids = entryIds(r.stdout);
    expect(ids.slice(-2)).toEqual(["o1", "r1"]);
    expect(new Set(ids).size, ids.join(" ")).toBe(ids.length);
  });

  it("a new branch is said under the entry that starts it, as every notice is", async () => {
    const { path, last } = copyOf("linear.jsonl");
    const run = running(["tail", path, "-f", "-n", "1", "--jsonl"]);
    await run.waitFor((l) => l.includes(`"${last}"`));
    appendFileSync(path, line(user("b1", "a0000003", "back to the question")));
    await run.waitFor((l) => l.includes('"branch"'));
    const values = (await run.stop()).stdout.trim().split("\n").map((l) => JSON.parse(l));
    const at = values.findIndex((v) => v.entry?.id === "b1");
    expect(at).toBeGreaterThan(0);
    expect(values[at + 1]).toMatchObject({ notice: "branch" });
    expect(values[at + 1].message).toMatch(/^new branch from a0000003 \(line 4\)/);
  });

  it("--jsonl lines are flushed as they come (a pipe, not a terminal)", async () => {
    const { path, last } = copyOf("linear.jsonl");
    const run = running(["tail", path, "-f", "-n", "0", "--jsonl"]);
    await new Promise((r) => setTimeout(r, 800));
    appendFileSync(path, line(user("j1", last, "hi")));
    const got = await run.waitFor((l) => l.includes('"j1"'));
    const v = JSON.parse(got.text);
    expect(v.entry.id).toBe("j1");
    expect(v.line).toBe(readFileSync(path, "utf8").trim().split("\n").length);
    expect((await run.stop()).exitCode).toBe(0);
  });

  it("a .zst archive is shown, then it says there is nothing to follow, and exits 0", async () => {
    const dir = scratch("zst");
    const path = join(dir, "a.jsonl.zst");
    writeFileSync(path, zstdCompressSync(readFileSync(fixture("linear.jsonl"))));
    const r = await cli(["tail", path, "-f", "-n", "1"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/nothing to follow/);
  });

  it("a transcript in OpenClaw's cold storage is shown, then it says there is nothing to follow, and exits 0", async () => {
    const r = await cli(["tail", "agent:main:main", "-f", "-n", "1", "--session-dir", fixture("openclaw-cold")]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/cold storage.*nothing to follow/);
  });

  it("with no session named, follows this directory's project's most recently active session, and says which", async () => {
    const sessions = scratch("dir");
    const project = scratch("project");
    const folder = join(sessions, `--${project.replace(/^\//, "").replace(/[/\\:]/g, "-")}--`);
    mkdirSync(folder, { recursive: true });
    cpSync(fixture("linear.jsonl"), join(folder, "2026-01-01T00-00-00-000Z_11111111-2222-4333-8444-555555555555.jsonl"));
    const r = await cli(["tail", "-n", "1"], { cwd: project, env: { PI_CODING_AGENT_SESSION_DIR: sessions } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/most recently active session of this directory's project/);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
  });
});

describe("tail -f on agent-core's format 4", () => {
  it("a file its writer appends to is read again whole, and the entries it gained are shown once", async () => {
    const folder = join(ROOT, "fixtures/agent-core/--home-dev-basic--");
    const name = readdirSync(folder).find((f) => f.endsWith(".jsonl"))!;
    const lines = readFileSync(join(folder, name), "utf8").split("\n").filter(Boolean);
    const dir = join(scratch("v4"), "--home-dev-basic--");
    mkdirSync(dir, { recursive: true });
    const path = join(dir, name);
    // (the session as its writer had it part of the way, then the rest of its transactions appended)
    const cut = Math.floor(lines.length * 0.6);
    writeFileSync(path, lines.slice(0, cut).join("\n") + "\n");
    const before = entryIds((await cli(["path", path, "--jsonl"])).stdout.split("\n").filter(Boolean).map((l) => JSON.stringify({ entry: JSON.parse(l) })).join("\n"));
    const run = running(["tail", path, "-f", "-n", "1", "--jsonl"]);
    await run.waitFor((l) => l.includes(`"${before.at(-1)}"`));
    appendFileSync(path, lines.slice(cut).join("\n") + "\n");
    const after = entryIds((await cli(["path", path, "--jsonl"])).stdout.split("\n").filter(Boolean).map((l) => JSON.stringify({ entry: JSON.parse(l) })).join("\n"));
    const gained = after.filter((id) => !before.includes(id));
    expect(gained.length).toBeGreaterThan(0);
    await run.waitFor((l) => l.includes(`"${gained.at(-1)}"`));
    const r = await run.stop();
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    const shown = entryIds(r.stdout);
    expect(shown).toEqual([before.at(-1), ...gained]);
  });
});

/** A store copied under a folder of its own, writable, as a user has it. */
function storeCopy(from: string): string {
  const root = join(scratch("store"), ".openclaw");
  cpSync(from, root, { recursive: true });
  for (const f of readdirSync(root, { recursive: true, withFileTypes: true })) chmodSync(join(f.parentPath, f.name), f.isDirectory() ? 0o755 : 0o644);
  chmodSync(root, 0o755);
  return root;
}

describe("tail -f on OpenClaw's JSONL era", () => {
  it("follows a key across a reset: the file renamed to .reset.<time>, the key moved to a new session, which it follows and says so", async () => {
    const root = storeCopy(join(ROOT, "../shared/openclaw-stores/ccccx"));
    const sessions = join(root, "agents/main/sessions");
    const index = JSON.parse(readFileSync(join(sessions, "sessions.json"), "utf8"));
    const old = index["agent:main:main"].sessionId as string;
    const oldPath = join(sessions, `${old}.jsonl`);
    const lastOld = JSON.parse(readFileSync(oldPath, "utf8").trim().split("\n").at(-1)!).id as string;
    const env = { OPENCLAW_STATE_DIR: root };
    const run = running(["tail", "agent:main:main", "-f", "-n", "1", "--jsonl"], { env });
    await run.waitFor((l) => l.includes(`"${lastOld}"`));
    appendFileSync(oldPath, line(user("o1", lastOld, "before the reset")));
    await run.waitFor((l) => l.includes('"o1"'));
    // the reset, as OpenClaw does it: the transcript renamed aside, a new one, the key pointed at it
    const fresh = "0e0e0e0e-1111-4222-8333-444444444444";
    renameSync(oldPath, `${oldPath}.reset.2026-12-05T00-00-00.000Z`);
    writeFileSync(join(sessions, `${fresh}.jsonl`), line({ type: "session", version: 3, id: fresh, timestamp: now(), cwd: "/home/admin/.openclaw/workspace" }) + line(user("n1", null, "after the reset")));
    index["agent:main:main"] = { ...index["agent:main:main"], sessionId: fresh, sessionFile: join(sessions, `${fresh}.jsonl`) };
    writeFileSync(join(sessions, "sessions.json"), JSON.stringify(index, null, 2));
    await run.waitFor((l) => l.includes('"n1"'));
    appendFileSync(join(sessions, `${fresh}.jsonl`), line(user("n2", "n1", "and on")));
    await run.waitFor((l) => l.includes('"n2"'));
    const r = await run.stop();
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    const values = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const moved = values.filter((v) => v.notice === "moved");
    expect(moved).toHaveLength(1);
    expect(moved[0].message).toContain(fresh);
    const ids = entryIds(r.stdout);
    expect(ids.filter((id) => ["o1", "n1", "n2"].includes(id!))).toEqual(["o1", "n1", "n2"]);
  });
});

/** Every file of a folder with its hash. */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir, { withFileTypes: true })) if (f.isFile()) out[f.name] = createHash("sha256").update(readFileSync(join(dir, f.name))).digest("hex");
  return out;
}

/** A second process writing to an agent's database as a gateway does (node:sqlite, WAL). */
const WRITER = `
import { DatabaseSync } from "node:sqlite";
const [path, mode, key, hold] = process.argv.slice(2);
const db = new DatabaseSync(path);
db.exec("PRAGMA journal_mode = WAL");
const sid = db.prepare("SELECT current_session_id AS s FROM session_nodes WHERE session_key = ?").get(key).s;
const last = db.prepare("SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?").get(sid).m;
const lastId = JSON.parse(db.prepare("SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = ?").get(sid, last).event_json).id;
const ins = db.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)");
const entry = (id, parentId, text) => JSON.stringify({ type: "message", id, parentId, timestamp: new Date().toISOString(), message: { role: "user", content: text, timestamp: Date.now() } });
db.exec("BEGIN IMMEDIATE");
if (mode === "append") {
  ins.run(sid, last + 1, entry("s1", lastId, "from the gateway"), Date.now());
  ins.run(sid, last + 2, entry("s2", "s1", "and again"), Date.now());
} else {
  const fresh = "1e1e1e1e-1111-4222-8333-444444444444";
  db.prepare("INSERT INTO session_windows (session_id, session_key, previous_session_id, reason, created_at, updated_at) VALUES (?, ?, ?, 'reset', ?, ?)").run(fresh, key, sid, Date.now(), Date.now());
  db.prepare("UPDATE session_nodes SET current_session_id = ? WHERE session_key = ?").run(fresh, key);
  ins.run(fresh, 0, JSON.stringify({ type: "session", version: 3, id: fresh, timestamp: new Date().toISOString(), cwd: "/w" }), Date.now());
  ins.run(fresh, 1, entry("s3", null, "after the reset"), Date.now());
}
process.stdout.write("begun\\n");
await new Promise((r) => setTimeout(r, Number(hold)));
db.exec("COMMIT");
process.stdout.write("committed\\n");
db.close();
`;

describe("tail -f on OpenClaw's SQLite era", () => {
  it("new rows are shown once committed (a write transaction held open meanwhile), a reset moves a followed key on, and the reader writes nothing", async () => {
    const root = storeCopy(join(ROOT, "../shared/openclaw-stores-sqlite/ccccx"));
    const agent = join(root, "agents/main/agent");
    const db = join(agent, "openclaw-agent.sqlite");
    const writer = join(scratch("writer"), "writer.mjs");
    writeFileSync(writer, WRITER);
    const env = { OPENCLAW_STATE_DIR: root };
    // (alone with the store, the reader changes nothing: the database, its log and its shared memory as they were)
    const before = hashes(agent);
    const idle = running(["tail", "agent:main:main", "-f", "-n", "1"], { env });
    await idle.waitFor(() => true);
    await new Promise((r) => setTimeout(r, 1200));
    expect((await idle.stop()).exitCode).toBe(0);
    expect(hashes(agent)).toEqual(before);

    const run = running(["tail", "agent:main:main", "-f", "-n", "1", "--jsonl"], { env });
    await run.waitFor(() => true);
    const w = execa(process.execPath, [writer, db, "append", "agent:main:main", "1500"]);
    await new Promise((r) => setTimeout(r, 1000));
    // (held open: nothing committed, nothing shown, nothing refused)
    expect(run.lines.some((l) => l.text.includes('"s1"'))).toBe(false);
    await w;
    const committed = Date.now();
    const s2 = await run.waitFor((l) => l.includes('"s2"'));
    expect(s2.at - committed).toBeLessThan(1000);
    await execa(process.execPath, [writer, db, "reset", "agent:main:main", "0"]);
    await run.waitFor((l) => l.includes('"s3"'));
    const r = await run.stop();
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    const values = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(entryIds(r.stdout).filter((id) => /^s\d$/.test(id!))).toEqual(["s1", "s2", "s3"]);
    expect(values.filter((v) => v.notice === "moved")).toHaveLength(1);
    expect(existsSync(join(agent, "openclaw-agent.sqlite"))).toBe(true);
  });
});

describe("tail --all", () => {
  it("-n counts entries: each shown with the notices said under it (a broken pairing), none without its entry", async () => {
    const dir = scratch("all-n");
    const a = join(dir, "2026-01-01T00-00-00-000Z_aaaaaaaa-2222-4333-8444-555555555555.jsonl");
    cpSync(fixture("linear.jsonl"), a);
    const last = JSON.parse(readFileSync(a, "utf8").trim().split("\n").at(-1)!).id as string;
    appendFileSync(a, line(result("o1", last, "nobody")));
    for (const n of ["1", "2"]) {
      const r = await cli(["tail", "--all", dir, "-n", n, "--jsonl"]);
      expect(r.exitCode).toBe(0);
      const values = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
      expect(values.filter((v) => v.entry).length, n).toBe(Number(n));
      expect(values.at(-2).entry.id).toBe("o1");
      expect(values.at(-1)).toMatchObject({ notice: "finding", code: "tool-result-orphan" });
    }
    const human = (await cli(["tail", "--all", dir, "-n", "1"])).stdout.trimEnd().split("\n");
    expect(human).toHaveLength(2);
    expect(human[0]).toMatch(/\bo1\b/);
    expect(human[1]).toMatch(/↳ tool-result-orphan/);
  });

  it("sessions made within a minute, unnamed, are told apart: a UUIDv7's label is its random end, not its time", async () => {
    const dir = scratch("all-v7");
    const ids = ["019ebb22-69c0-77df-8480-5618f0660c02", "019ebb22-7a10-7c31-9b02-33aa0f12de77"];
    for (const [k, id] of ids.entries()) writeFileSync(join(dir, `2026-12-06T10-00-0${k}-000Z_${id}.jsonl`), line({ type: "session", version: 3, id, timestamp: now(), cwd: "/w" }) + line(user(`v${k}`, null, `session ${k}`)));
    const lines = (await cli(["tail", "--all", dir, "-n", "2"])).stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    const labels = lines.map((l) => l.split(/\s+/)[0]);
    expect(labels.sort()).toEqual(["33aa0f12de77".slice(-8), "5618f0660c02".slice(-8)].sort());
  });

  it("follows every session of a folder, new ones as they appear, each line led by its session", async () => {
    const dir = scratch("all");
    const a = join(dir, "2026-01-01T00-00-00-000Z_aaaaaaaa-2222-4333-8444-555555555555.jsonl");
    cpSync(fixture("linear.jsonl"), a);
    const last = JSON.parse(readFileSync(a, "utf8").trim().split("\n").at(-1)!).id as string;
    const run = running(["tail", "--all", dir, "-f", "-n", "1"]);
    await run.waitFor((l) => l.includes(last));
    appendFileSync(a, line(user("a1", last, "in a")));
    await run.waitFor((l) => /\ba1\b/.test(l));
    const b = join(dir, "2026-01-02T00-00-00-000Z_bbbbbbbb-2222-4333-8444-555555555555.jsonl");
    writeFileSync(b, line({ type: "session", version: 3, id: "bbbbbbbb-2222-4333-8444-555555555555", timestamp: now(), cwd: "/w" }) + line(user("b1", null, "a new session")));
    const shown = await run.waitFor((l) => /\bb1\b/.test(l), 8000);
    const r = await run.stop();
    expect(r.exitCode).toBe(0);
    // (a session is named by its name where it has one, else by its id's first 8 characters)
    expect(run.lines.find((l) => /\ba1\b/.test(l.text))!.text).toMatch(/^List src\s/);
    expect(shown.text).toMatch(/^bbbbbbbb\s/);
  });
});
