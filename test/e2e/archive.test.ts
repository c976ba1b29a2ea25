/**
 * `archive`, `restore` and lineage, on a store of pi sessions written by pi's own SessionManager
 * (one forked with `forkFrom`, one cloned with `createBranchedSession`) and on copies of a real
 * OpenClaw store: `archive --older-than` moves exactly what `ls --older-than` lists, each archive
 * decompresses to its original's bytes, `usage --archived` is `usage` before, `restore` puts each
 * back byte for byte, a run killed at any point loses nothing and a second run completes it, and
 * `ls --tree` draws the links pi and OpenClaw record.
 */
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { zstdCompressSync, zstdDecompressSync } from "node:zlib";
import { execa } from "execa";
import { describe, expect, it, vi } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { generateSession } from "../helpers/generate.js";
import { BIN, ROOT } from "../helpers/paths.js";
import { pi } from "../helpers/pi.js";

const OLD = new Date("2026-01-15T00:00:00Z");

/** Every file under `dir` (relative) with its bytes' SHA-256 (megabytes compared as Buffers inside maps are slow to compare). */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true })) if (f.isFile()) out.set(relative(dir, join(f.parentPath, f.name)), sha(readFileSync(join(f.parentPath, f.name))));
  return out;
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** A pi session directory: A (generated), B forked from A, C cloned from A, all old; D new (written now). */
function piStore(): { home: string; sessions: string; a: string; b: string; c: string; d: string } {
  const home = mkdtempSync(join(tmpdir(), "pi-session-archive-"));
  const sessions = join(home, ".pi/agent/sessions");
  const project = join(sessions, "--work-project--");
  mkdirSync(project, { recursive: true });
  // (A, B and C written in January, as pi writes its entries' times: by the clock)
  vi.useFakeTimers({ toFake: ["Date"], now: OLD });
  const a = generateSession({ seed: 11, dir: project, steps: 20 });
  const fork = pi.SessionManager.forkFrom(a, "/work/project", project);
  fork.appendMessage({ role: "user", content: "and on the fork", timestamp: OLD.getTime() });
  fork.appendMessage({ role: "assistant", content: [{ type: "text", text: "yes" }], api: "x", provider: "anthropic", model: "m", usage: { input: 5, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 } }, stopReason: "stop", timestamp: OLD.getTime() + 1000 });
  const b = fork.getSessionFile() as string;
  const opened = pi.SessionManager.open(a, project);
  const c = opened.createBranchedSession(opened.getLeafId()) as string;
  vi.useRealTimers();
  const d = generateSession({ seed: 12, dir: project, steps: 5 });
  // (D was active just now: its last message is today's)
  const now = pi.SessionManager.open(d, project);
  now.appendMessage({ role: "user", content: "today", timestamp: Date.now() });
  for (const f of [a, b, c]) utimesSync(f, OLD, OLD);
  return { home, sessions, a, b, c, d };
}

const env = (home: string, sessions: string) => ({ HOME: home, PI_CODING_AGENT_SESSION_DIR: sessions });

describe("archive and restore, on pi's sessions", () => {
  it("moves exactly what ls lists, each archive its original's bytes; usage --archived is usage before; restore puts each back byte for byte", async () => {
    const { home, sessions, a, b, c, d } = piStore();
    const e = env(home, sessions);
    const before = files(sessions);
    const sizes = new Map([a, b, c].map((f) => [f, statSync(f).size]));
    const listed = (await cliJson(["ls", "--older-than", "30d"], { env: e })).json.sessions.map((r: { path: string }) => r.path).sort();
    expect(listed).toEqual([a, b, c].sort());
    const usageBefore = (await cliJson(["usage"], { env: e })).json.total;

    const dry = await cliJson(["archive", "--older-than", "30d", "--dry-run"], { env: e });
    expect(dry.exitCode).toBe(0);
    expect(dry.json.summary.wouldArchive).toBe(3);
    expect(files(sessions)).toEqual(before);

    const r = await cliJson(["archive", "--older-than", "30d"], { env: e });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    const moved = r.json.files.filter((f: { status: string }) => f.status === "archived");
    expect(moved.map((f: { file: string }) => f.file).sort()).toEqual(listed);
    expect(r.json.summary.freed).toBe([a, b, c].reduce((n, f) => n + sizes.get(f)!, 0));
    const archive = join(home, ".pi/agent/archive");
    for (const f of moved) {
      expect(f.archive.startsWith(archive)).toBe(true);
      expect(sha(zstdDecompressSync(readFileSync(f.archive)))).toBe(before.get(relative(sessions, f.file)));
      expect(existsSync(f.file)).toBe(false);
    }
    // (D, active today, stays; nothing else under the session directory changed)
    expect(sha(readFileSync(d))).toBe(before.get(relative(sessions, d)));
    const manifest = readFileSync(join(archive, "manifest.ndjson"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(manifest.map((l) => l.path).sort()).toEqual(listed);

    const usageAfter = (await cliJson(["usage", "--archived"], { env: e })).json.total;
    expect(usageAfter).toEqual(usageBefore);
    expect((await cliJson(["usage"], { env: e })).json.total.cost).toBeLessThan(usageBefore.cost);
    // (every command reads an archived session as it is)
    const shown = await cliJson(["show", moved[0].archive], { env: e });
    expect(shown.exitCode).toBe(0);

    // (their whole ids: sessions pi made in the same minute share their first characters, uuid v7's time)
    const ids = moved.map((f: { file: string }) => /_([0-9a-f-]{36})\.jsonl$/.exec(f.file)![1]!);
    const back = await cliJson(["restore", ...ids], { env: e });
    expect(back.exitCode).toBe(0);
    expect(back.json.summary.restored).toBe(3);
    expect(files(sessions)).toEqual(before);
    expect([...files(archive).keys()]).toEqual(["manifest.ndjson"]);
    // (and as they were: their modification times too, so that an old session is old again)
    for (const f of [a, b, c]) expect(statSync(f).mtimeMs).toBe(OLD.getTime());
  });

  it("archive alone is a usage error naming what to give: it never moves every session of every store", async () => {
    const { home, sessions } = piStore();
    const before = files(sessions);
    const r = await cli(["archive"], { env: env(home, sessions) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--older-than/);
    expect(files(sessions)).toEqual(before);
  });

  it("restore with nothing named says what it needs", async () => {
    const r = await cli(["restore"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/`restore` needs the archived sessions to put back: their ids .* ls --archived/);
  });

  it("restore never writes over a session written there since", async () => {
    const { home, sessions, a } = piStore();
    const e = env(home, sessions);
    expect((await cli(["archive", a], { env: e })).exitCode).toBe(0);
    writeFileSync(a, "someone else's\n");
    const r = await cli(["restore", a.replace(sessions, join(home, ".pi/agent/archive")) + ".zst"], { env: e });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/exists and holds other bytes/);
    expect(readFileSync(a, "utf8")).toBe("someone else's\n");
  });

  it("a session written in the last minutes is left unless named", async () => {
    const { home, sessions, d } = piStore();
    const e = env(home, sessions);
    const r = await cliJson(["archive", sessions], { env: e });
    expect(r.json.files.find((f: { file: string }) => f.file === d).status).toBe("skipped");
    expect(existsSync(d)).toBe(true);
    const named = await cliJson(["archive", d], { env: e });
    expect(named.json.files[0].status).toBe("archived");
  });

  it("a run killed at any point loses nothing, and a second run completes it", async () => {
    for (const delay of [5, 40, 80, 120, 200]) {
      const { home, sessions, a, b, c } = piStore();
      const e = env(home, sessions);
      const before = new Map([a, b, c].map((f) => [f, readFileSync(f)]));
      const archive = join(home, ".pi/agent/archive");
      const run = execa("node", [BIN, "archive", "--older-than", "30d"], { reject: false, env: { ...process.env, ...e, XDG_CACHE_HOME: join(home, ".cache") } });
      await new Promise((r) => setTimeout(r, delay));
      run.kill("SIGKILL");
      await run;
      for (const [f, bytes] of before) {
        const target = join(archive, `${relative(sessions, f)}.zst`);
        const here = existsSync(f) && readFileSync(f).equals(bytes);
        const there = existsSync(target) && (() => {
          try {
            return zstdDecompressSync(readFileSync(target)).equals(bytes);
          } catch {
            return false;
          }
        })();
        expect(here || there, `${f} after a kill at ${delay} ms`).toBe(true);
        if (existsSync(f)) expect(readFileSync(f)).toEqual(bytes);
      }
      const again = await cliJson(["archive", "--older-than", "30d"], { env: e });
      expect(again.exitCode).toBe(0);
      for (const [f, bytes] of before) {
        expect(existsSync(f)).toBe(false);
        expect(zstdDecompressSync(readFileSync(join(archive, `${relative(sessions, f)}.zst`)))).toEqual(bytes);
      }
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("an archive left written, its original not yet removed, is finished; a stray temporary file is cleared", async () => {
    const { home, sessions, a } = piStore();
    const e = env(home, sessions);
    const target = join(home, ".pi/agent/archive", `${relative(sessions, a)}.zst`);
    mkdirSync(join(target, ".."), { recursive: true });
    writeFileSync(target, zstdCompressSync(readFileSync(a)));
    writeFileSync(join(target, "..", `.${target.split("/").pop()}.pi-session-999999-abcd.tmp`), "half");
    const r = await cliJson(["archive", a], { env: e });
    expect(r.json.files[0].status).toBe("archived");
    expect(existsSync(a)).toBe(false);
    expect(readdirSync(join(target, "..")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});

describe("lineage", () => {
  it("ls --tree draws a fork and a clone under their parent, archived or not; --json gives parent and children", async () => {
    const { home, sessions, a, b, c, d } = piStore();
    const e = env(home, sessions);
    const id = (f: string) => /_([0-9a-f-]{36})\.jsonl$/.exec(f)![1]!;
    const check = async (archived: boolean) => {
      const r = await cliJson(["ls", "--tree", ...(archived ? ["--archived"] : [])], { env: e });
      expect(r.exitCode).toBe(0);
      const row = (f: string) => r.json.sessions.find((s: { id: string }) => s.id === id(f));
      expect(row(b).parent).toMatchObject({ relation: "fork", state: "found", id: id(a) });
      expect(row(c).parent).toMatchObject({ relation: "fork", state: "found", id: id(a) });
      expect(row(a).children.sort()).toEqual([id(b), id(c)].sort());
      expect(row(a).parent).toBeNull();
      expect(row(d).parent).toBeNull();
    };
    await check(false);
    const human = await cli(["ls", "--tree"], { env: e });
    const lines = human.stdout.split("\n");
    const at = (f: string) => lines.findIndex((l) => l.startsWith(id(f)));
    expect(lines[at(b)]).toMatch(/[├└]─ .*\(fork\)/);
    expect(at(b)).toBeGreaterThan(at(a));
    // (archived, each is found where it went)
    expect((await cli(["archive", a, b], { env: e })).exitCode).toBe(0);
    await check(true);
    // (a parent gone is said, not guessed)
    rmSync(join(home, ".pi/agent/archive"), { recursive: true });
    const orphan = (await cliJson(["ls", "--tree"], { env: e })).json.sessions.find((s: { id: string }) => s.id === id(c));
    expect(orphan.parent).toMatchObject({ relation: "fork", state: "missing" });
  });

  it("show names a session's parent and children with their ids", async () => {
    const { home, sessions, a, b, c } = piStore();
    const e = env(home, sessions);
    const parent = await cliJson(["show", a], { env: e });
    expect(parent.json.parent).toBeNull();
    expect(parent.json.children.map((k: { id: string }) => k.id).sort()).toEqual([b, c].map((f) => /_([0-9a-f-]{36})\.jsonl$/.exec(f)![1]).sort());
    const child = await cliJson(["show", b], { env: e });
    expect(child.json.parent).toMatchObject({ relation: "fork", state: "found", path: a });
    const human = await cli(["show", b], { env: e });
    expect(human.stdout).toMatch(/Parent\s+.*fork of/);
  });

  it("an OpenClaw sub-agent is drawn under its spawner", async () => {
    const home = mkdtempSync(join(tmpdir(), "pi-session-lineage-claw-"));
    const root = join(home, ".openclaw");
    cpSync(join(ROOT, "../shared/openclaw-stores/ccccx"), root, { recursive: true });
    for (const f of readdirSync(root, { recursive: true, withFileTypes: true })) chmodSync(join(f.parentPath, f.name), f.isDirectory() ? 0o755 : 0o644);
    const folder = join(root, "agents/main/sessions");
    const index = JSON.parse(readFileSync(join(folder, "sessions.json"), "utf8"));
    const sub = "5ub5ub5u-1111-4222-8333-444444444444";
    writeFileSync(join(folder, `${sub}.jsonl`), `${JSON.stringify({ type: "session", version: 3, id: sub, timestamp: "2026-04-01T00:00:00.000Z", cwd: "/w" })}\n${JSON.stringify({ type: "message", id: "s1", parentId: null, timestamp: "2026-04-01T00:00:01.000Z", message: { role: "user", content: "do the sub-task", timestamp: 1 } })}\n`);
    index["agent:main:subagent:5ub"] = { sessionId: sub, updatedAt: 1, spawnedBy: "agent:main:main" };
    writeFileSync(join(folder, "sessions.json"), JSON.stringify(index));
    const r = await cliJson(["ls", root, "--tree"], { env: { HOME: home } });
    const row = r.json.sessions.find((s: { id: string }) => s.id === sub);
    expect(row.parent).toMatchObject({ relation: "spawned", state: "found", id: index["agent:main:main"].sessionId });
  });
});

describe("archive on OpenClaw's stores", () => {
  it("a JSONL store: its old transcripts moved into archive/ inside the root, usage --archived unchanged, restored byte for byte", async () => {
    const home = mkdtempSync(join(tmpdir(), "pi-session-archive-claw-"));
    const root = join(home, ".openclaw");
    cpSync(join(ROOT, "../shared/openclaw-stores/ccccx"), root, { recursive: true });
    for (const f of readdirSync(root, { recursive: true, withFileTypes: true })) {
      chmodSync(join(f.parentPath, f.name), f.isDirectory() ? 0o755 : 0o644);
      // (as a store has them: written long ago; a copy's are now, and archive leaves what was written in the last minutes)
      if (f.isFile()) utimesSync(join(f.parentPath, f.name), OLD, OLD);
    }
    const before = files(join(root, "agents"));
    const usageBefore = (await cliJson(["usage", root])).json.total;
    const listed = (await cliJson(["ls", root, "--older-than", "30d"])).json.sessions.map((s: { path: string }) => s.path);
    const r = await cliJson(["archive", root, "--older-than", "30d"]);
    expect(r.exitCode).toBe(0);
    const moved = r.json.files.filter((f: { status: string }) => f.status === "archived").map((f: { file: string }) => f.file);
    expect(moved.length).toBeGreaterThan(0);
    // (what ls listed moved, but archives already compressed and the sessions a key names now: the gateway's live conversations)
    const live = r.json.files.filter((f: { reason?: string }) => /the current session of agent:/.test(f.reason ?? "")).map((f: { file: string }) => f.file);
    expect(live.length).toBeGreaterThan(0);
    for (const f of live) expect(existsSync(f)).toBe(true);
    expect(moved.sort()).toEqual(listed.filter((p: string) => !p.endsWith(".zst") && !live.includes(p)).sort());
    for (const f of r.json.files.filter((x: { status: string }) => x.status === "archived")) expect(f.archive.startsWith(join(root, "archive"))).toBe(true);
    expect((await cliJson(["usage", root, "--archived"])).json.total).toEqual(usageBefore);
    const back = await cliJson(["restore", ...r.json.files.filter((x: { status: string }) => x.status === "archived").map((x: { archive: string }) => x.archive)]);
    expect(back.exitCode).toBe(0);
    expect(files(join(root, "agents"))).toEqual(before);
  });

  it("OpenClaw's SQLite era is the gateway's: what would be freed is said, with the command that frees it; nothing moves", async () => {
    const home = mkdtempSync(join(tmpdir(), "pi-session-archive-sqlite-"));
    const root = join(home, ".openclaw");
    cpSync(join(ROOT, "../shared/openclaw-stores-sqlite/ccccx"), root, { recursive: true });
    for (const f of readdirSync(root, { recursive: true, withFileTypes: true })) chmodSync(join(f.parentPath, f.name), f.isDirectory() ? 0o755 : 0o644);
    const before = files(root);
    const r = await cliJson(["archive", root, "--older-than", "30d"]);
    expect(r.exitCode).toBe(0);
    const left = r.json.files.filter((f: { status: string }) => f.status === "gateway");
    expect(left.length).toBeGreaterThan(0);
    expect(left[0].reason).toMatch(/openclaw sessions cleanup/);
    expect(r.json.summary.gatewayBytes).toBeGreaterThan(0);
    const after = files(root);
    for (const [f, bytes] of before) if (f.includes("openclaw-agent.sqlite")) expect(after.get(f), f).toEqual(bytes);
  });
});
