/**
 * `archive`, `restore` and lineage, on a store of pi sessions written by pi's own SessionManager
 * (one forked with `forkFrom`, one cloned with `createBranchedSession`) and on copies of a real
 * OpenClaw store: `archive --older-than` moves exactly what `ls --older-than` lists, each archive
 * decompresses to its original's bytes, `usage --archived` is `usage` before, `restore` puts each
 * back byte for byte, a run killed at any point loses nothing and a second run completes it, and
 * `ls --tree` draws the links pi and OpenClaw record.
 */
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { constants as zlibConstants, zstdCompressSync, zstdDecompressSync } from "node:zlib";
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
    expect(r.json.summary.moved).toBe([a, b, c].reduce((n, f) => n + sizes.get(f)!, 0));
    // (what the disk gains: what moved less what the archives weigh, as they are on the disk)
    const weigh = moved.reduce((n: number, f: { archive: string }) => n + statSync(f.archive).size, 0);
    expect(r.json.summary.compressed).toBe(weigh);
    expect(r.json.summary.freed).toBe(r.json.summary.moved - weigh);
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

  it("a parent whose file is not named as pi names one (a copy) is found once archived: show of the fork and of the archive, ls --tree --archived", async () => {
    const home = mkdtempSync(join(tmpdir(), "pi-session-lineage-copy-"));
    const sessions = join(home, ".pi/agent/sessions");
    const project = join(sessions, "--work-project--");
    mkdirSync(project, { recursive: true });
    const copy = join(project, "mycopy-earth.jsonl");
    renameSync(generateSession({ seed: 21, dir: project, steps: 5 }), copy);
    const fork = pi.SessionManager.forkFrom(copy, "/work/project", project);
    fork.appendMessage({ role: "user", content: "and on the fork", timestamp: Date.now() });
    fork.appendMessage({ role: "assistant", content: [{ type: "text", text: "yes" }], api: "x", provider: "anthropic", model: "m", usage: { input: 5, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 } }, stopReason: "stop", timestamp: Date.now() });
    const child = fork.getSessionFile() as string;
    const e = env(home, sessions);
    const parentId = (JSON.parse(readFileSync(copy, "utf8").split("\n")[0]!) as { id: string }).id;
    const childId = /_([0-9a-f-]{36})\.jsonl$/.exec(child)![1]!;
    expect((await cli(["archive", copy], { env: e })).exitCode).toBe(0);
    const zst = zstdPathOf(join(home, ".pi/agent/archive"), sessions, copy);
    expect(existsSync(zst)).toBe(true);
    const shown = await cliJson(["show", child], { env: e });
    expect(shown.json.parent).toMatchObject({ relation: "fork", state: "found", path: zst, id: parentId });
    expect((await cli(["show", child], { env: e })).stdout).not.toContain("no longer there");
    const parent = await cliJson(["show", zst], { env: e });
    expect(parent.json.children.map((k: { id: string }) => k.id)).toEqual([childId]);
    const tree = await cliJson(["ls", "--tree", "--archived"], { env: e });
    const row = tree.json.sessions.find((s: { id: string }) => s.id === childId);
    expect(row.parent).toMatchObject({ relation: "fork", state: "found", id: parentId });
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

  it("OpenClaw's SQLite era is the gateway's: in an agent with a database nothing moves, not a byte changes, and one line says which OpenClaw command retires what", async () => {
    const home = mkdtempSync(join(tmpdir(), "pi-session-archive-sqlite-"));
    const root = join(home, ".openclaw");
    cpSync(join(ROOT, "../shared/openclaw-stores-sqlite/ccccx"), root, { recursive: true });
    const agent = join(root, "agents/main");
    // (a live JSONL beside the database, as a gateway that wrote on after the import leaves it: what
    // \`openclaw doctor --session-sqlite recover\` appends the missing entries from)
    const imported = readdirSync(join(agent, "session-sqlite-import-archive")).find((f) => f.startsWith("agent_main_main."))!;
    cpSync(join(agent, "session-sqlite-import-archive", imported), join(agent, "sessions/b5b4ed18-f040-49f7-aa6d-42132e00c908.jsonl"));
    // (and beside it an agent still in the JSONL era: its old sessions move, as ever)
    cpSync(join(ROOT, "../shared/openclaw-stores/ccccx/agents/main"), join(root, "agents/older"), { recursive: true });
    for (const f of readdirSync(root, { recursive: true, withFileTypes: true })) {
      chmodSync(join(f.parentPath, f.name), f.isDirectory() ? 0o755 : 0o644);
      if (f.isFile()) utimesSync(join(f.parentPath, f.name), OLD, OLD);
    }
    const before = files(agent);
    const dry = await cli(["archive", root, "--older-than", "30d", "--dry-run"], { env: { HOME: home } });
    expect(dry.exitCode).toBe(0);
    const r = await cliJson(["archive", root, "--older-than", "30d"], { env: { HOME: home } });
    expect(r.exitCode).toBe(0);
    // (every file under the agent's folder as it was, byte for byte, and no other)
    expect(files(agent)).toEqual(before);
    const mine = r.json.files.filter((f: { file: string }) => f.file.startsWith(`${agent}/`) || f.file.startsWith(`${join(agent, "agent")}`));
    expect(mine.length).toBeGreaterThan(3);
    for (const f of mine) expect(f.status, f.file).toBe("gateway");
    const importer = mine.filter((f: { file: string }) => f.file.includes("/session-sqlite-import-archive/"));
    expect(importer.length).toBeGreaterThan(0);
    for (const f of importer) expect(f.keeper).toEqual({ owner: "OpenClaw", what: "files the import left", command: "openclaw update cleanup" });
    for (const f of mine.filter((x: { file: string }) => !x.file.includes("/session-sqlite-import-archive/"))) expect(f.keeper.command).toBe("openclaw sessions cleanup");
    expect(r.json.summary.left.map((l: { command: string; count: number }) => [l.command, l.count]).sort()).toEqual([["openclaw sessions cleanup", mine.length - importer.length], ["openclaw update cleanup", importer.length]].sort());
    // (the JSONL-era agent's old archives moved; none of the SQLite agent's)
    const moved = r.json.files.filter((f: { status: string }) => f.status === "archived");
    expect(moved.length).toBeGreaterThan(0);
    for (const f of moved) expect(f.file.startsWith(join(root, "agents/older/"))).toBe(true);
    // (said in one line, not a line a transcript: no transcript of the agent is named)
    for (const out of [dry.stdout]) {
      expect(out).not.toContain(agent);
      const said = out.split("\n").filter((l) => /left to OpenClaw/.test(l));
      expect(said).toHaveLength(1);
      expect(out.replace(/\n\s+/g, " ")).toMatch(/left to OpenClaw, which alone moves them: \d+ transcripts and \d+ files the import left \([\d.]+ [KM]B\); `openclaw sessions cleanup` retires transcripts, `openclaw update cleanup` retires files the import left/);
    }
  });

  it("an agent with a database, given alone or by its files, moves nothing either", async () => {
    const home = mkdtempSync(join(tmpdir(), "pi-session-archive-sqlite-named-"));
    const root = join(home, ".openclaw");
    cpSync(join(ROOT, "../shared/openclaw-stores-sqlite/archeoneocode"), root, { recursive: true });
    for (const f of readdirSync(root, { recursive: true, withFileTypes: true })) chmodSync(join(f.parentPath, f.name), f.isDirectory() ? 0o755 : 0o644);
    const before = files(root);
    const deleted = readdirSync(join(root, "agents/main/sessions")).filter((f) => f.includes(".jsonl.deleted.")).map((f) => join(root, "agents/main/sessions", f));
    expect(deleted.length).toBeGreaterThan(0);
    const named = await cliJson(["archive", ...deleted], { env: { HOME: home } });
    expect(named.exitCode).toBe(0);
    expect(named.json.files.map((f: { status: string }) => f.status)).toEqual(deleted.map(() => "gateway"));
    // (one of a kind is said as one)
    const one = await cli(["archive", deleted[0]!], { env: { HOME: home } });
    expect(one.stdout.replace(/\n\s+/g, " ")).toMatch(/left to OpenClaw, which alone moves them: 1 transcript \(/);
    expect(one.stdout).not.toMatch(/\b1 transcripts/);
    const whole = await cli(["archive", join(root, "agents/main")], { env: { HOME: home } });
    expect(whole.exitCode).toBe(0);
    expect(whole.stdout).toMatch(/^nothing to archive\nleft to OpenClaw/);
    expect(files(root)).toEqual(before);
  });
});

describe("archive's folder, and what is no session", () => {
  it("a file named alone is archived in archive/ in its own folder, never above it; ls passes over that folder, ls --archived reads it", async () => {
    const base = mkdtempSync(join(tmpdir(), "pi-session-archive-lone-"));
    const folder = join(base, "tmp");
    mkdirSync(folder);
    const session = join(folder, "bin.jsonl");
    cpSync(join(ROOT, "fixtures/tools.jsonl"), session);
    const r = await cliJson(["archive", session]);
    expect(r.exitCode).toBe(0);
    expect(r.json.files[0]).toMatchObject({ status: "archived", archive: join(folder, "archive/bin.jsonl.zst") });
    // (nothing above the folder)
    expect(readdirSync(base)).toEqual(["tmp"]);
    expect(zstdDecompressSync(readFileSync(join(folder, "archive/bin.jsonl.zst")))).toEqual(readFileSync(join(ROOT, "fixtures/tools.jsonl")));
    expect((await cliJson(["ls", folder])).json.sessions).toEqual([]);
    const listed = (await cliJson(["ls", folder, "--archived"])).json.sessions;
    expect(listed.map((s: { path: string }) => s.path)).toEqual([join(folder, "archive/bin.jsonl.zst")]);
    // (and back, by the archive's path)
    expect((await cli(["restore", join(folder, "archive/bin.jsonl.zst")])).exitCode).toBe(0);
    expect(readFileSync(session)).toEqual(readFileSync(join(ROOT, "fixtures/tools.jsonl")));
  });

  it("a session in a pi-style project folder outside pi's session directory is archived beside that folder, never above the folder holding it; ls, restore and --to find it there", async () => {
    const outer = mkdtempSync(join(tmpdir(), "pi-session-archive-project-"));
    const base = join(outer, "store");
    const project = join(base, "--x--");
    mkdirSync(project, { recursive: true });
    const session = join(project, "s.jsonl");
    cpSync(join(ROOT, "fixtures/linear.jsonl"), session);
    const dry = await cliJson(["archive", "--dry-run", session]);
    expect(dry.json.files[0]).toMatchObject({ status: "would-archive", archive: join(base, "archive/--x--/s.jsonl.zst") });
    const r = await cliJson(["archive", session]);
    expect(r.exitCode).toBe(0);
    expect(r.json.files[0]).toMatchObject({ status: "archived", archive: join(base, "archive/--x--/s.jsonl.zst") });
    // (nothing written above the folder that holds the project folder)
    expect(readdirSync(outer)).toEqual(["store"]);
    expect(readdirSync(base).sort()).toEqual(["--x--", "archive"]);
    const listed = (await cliJson(["ls", project, "--archived"])).json.sessions;
    expect(listed.map((s: { path: string }) => s.path)).toEqual([join(base, "archive/--x--/s.jsonl.zst")]);
    expect((await cli(["restore", join(base, "archive/--x--/s.jsonl.zst")])).exitCode).toBe(0);
    expect(readFileSync(session)).toEqual(readFileSync(join(ROOT, "fixtures/linear.jsonl")));
    // (--to: the line saying where they went is written where they would have gone, beside the folder too)
    const away = join(base, "away");
    expect((await cli(["archive", session, "--to", away])).exitCode).toBe(0);
    expect(readdirSync(outer)).toEqual(["store"]);
    expect(readFileSync(join(base, "archive/manifest.ndjson"), "utf8")).toContain(`"folder":${JSON.stringify(away)}`);
    expect((await cliJson(["ls", project, "--archived"])).json.sessions.map((s: { path: string }) => s.path)).toEqual([join(away, "--x--/s.jsonl.zst")]);
  });

  it("a file that holds no session is refused when named (exit 2, one line naming it), passed over in a folder; nothing is written, nothing said freed", async () => {
    const base = mkdtempSync(join(tmpdir(), "pi-session-archive-nonsession-"));
    const folder = join(base, "tmp");
    mkdirSync(folder);
    const bin = join(folder, "bin.jsonl");
    writeFileSync(bin, '{"hello":1}\n');
    utimesSync(bin, OLD, OLD);
    const human = await cli(["archive", bin]);
    expect(human.exitCode).toBe(2);
    expect(human.stderr).toBe(`pi-session: ${bin}: holds no session (no session header, no entries); nothing was moved: \`pi-session check ${bin}\` says what it holds\n`);
    // (said once, as every error is: stdout holds no report of a run that did nothing but refuse)
    expect(human.stdout).toBe("");
    const json = await cliJson(["archive", bin]);
    expect(json.exitCode).toBe(2);
    expect(json.json.files[0]).toMatchObject({ file: bin, status: "refused" });
    expect(json.json.summary).toMatchObject({ archived: 0, refused: 1, moved: 0, freed: 0 });
    const swept = await cliJson(["archive", folder, "--older-than", "1d"]);
    expect(swept.exitCode).toBe(0);
    expect(swept.json.files[0]).toMatchObject({ file: bin, status: "skipped" });
    expect(swept.json.files[0].reason).toMatch(/holds no session/);
    expect(readdirSync(base)).toEqual(["tmp"]);
    expect(readdirSync(folder)).toEqual(["bin.jsonl"]);
    // (an empty file is said so named or found: one reason)
    const empty = join(folder, "empty.jsonl");
    writeFileSync(empty, "");
    utimesSync(empty, OLD, OLD);
    const named = await cli(["archive", empty]);
    expect(named.exitCode).toBe(2);
    expect(named.stderr).toContain("holds no session (the file is empty)");
    const found = (await cliJson(["archive", folder, "--older-than", "1d"])).json.files.find((f: { file: string }) => f.file === empty);
    expect(found).toMatchObject({ status: "skipped" });
    expect(found.reason).toMatch(/^holds no session \(the file is empty\)/);
  });

  it("freed is what the disk gains: an archive no smaller than its session frees nothing, and says so", async () => {
    const folder = mkdtempSync(join(tmpdir(), "pi-session-archive-tiny-"));
    const tiny = join(folder, "tiny.jsonl");
    // (a session of a header alone, of bytes zstd cannot shrink: its archive is larger)
    writeFileSync(tiny, `${JSON.stringify({ type: "session", version: 3, id: "q", timestamp: "2026-01-15T00:00:00.000Z", cwd: "/w" })}\n`);
    const size = statSync(tiny).size;
    const dry = await cliJson(["archive", tiny, "--dry-run"]);
    const r = await cli(["archive", tiny]);
    expect(r.exitCode).toBe(0);
    const weighs = statSync(join(folder, "archive/tiny.jsonl.zst")).size;
    expect(weighs).toBeGreaterThan(size);
    expect(dry.json.summary).toMatchObject({ moved: size, compressed: weighs, freed: size - weighs });
    expect(r.stdout).toMatch(new RegExp(`1 session archived \\(${size} B into ${weighs} B\\): nothing freed \\(the archive takes ${weighs - size} B more than the session\\)`));
  });

  it("an archive that weighs what its session did frees nothing, and says it takes as much, not '0 B more'", async () => {
    const folder = mkdtempSync(join(tmpdir(), "pi-session-archive-even-"));
    const squeeze = (b: Buffer) => zstdCompressSync(b, { params: { [zlibConstants.ZSTD_c_compressionLevel]: 3, [zlibConstants.ZSTD_c_checksumFlag]: 1 } }).length;
    // (a header whose padding zstd shrinks by exactly its frame's own bytes: found by trying lengths)
    let seed = 7;
    let tail = "";
    for (let i = 0; i < 60; i++) {
      seed = (seed * 48271) % 2147483647;
      tail += String.fromCharCode(33 + (seed % 90)).replace(/["\\]/, "a");
    }
    const candidates = Array.from({ length: 400 }, (_, n) => Buffer.from(`${JSON.stringify({ type: "session", version: 3, id: "q", timestamp: "2026-01-15T00:00:00.000Z", cwd: "/w", pad: "x".repeat(n) + tail })}\n`));
    const even = candidates.find((b) => squeeze(b) === b.length);
    expect(even, "a session whose archive weighs the same").toBeDefined();
    const file = join(folder, "even.jsonl");
    writeFileSync(file, even!);
    const r = await cli(["archive", file]);
    expect(r.exitCode).toBe(0);
    expect(statSync(join(folder, "archive/even.jsonl.zst")).size).toBe(even!.length);
    expect(r.stdout).toContain(`1 session archived (${even!.length} B into ${even!.length} B): nothing freed (the archive takes as much as the session)`);
    expect(r.stdout).not.toContain("0 B more");
  });
});

describe("archives wherever they went: --to, restore, ls, show, usage", () => {
  it("sessions archived with --to are found by restore ID, ls --archived (marked, the session's size), show and usage", async () => {
    const { home, sessions, a, b, c } = piStore();
    const e = env(home, sessions);
    const away = join(home, "backup/archive");
    const before = files(sessions);
    const sizes = new Map([a, b, c].map((f) => [f, statSync(f).size]));
    const usageBefore = (await cliJson(["usage"], { env: e })).json.total;
    const r = await cliJson(["archive", "--older-than", "30d", "--to", away], { env: e });
    expect(r.exitCode).toBe(0);
    for (const f of r.json.files.filter((x: { status: string }) => x.status === "archived")) expect(f.archive.startsWith(`${away}/`)).toBe(true);
    // (where they went is recorded where they would have gone)
    const home_ = join(home, ".pi/agent/archive");
    expect(readFileSync(join(home_, "manifest.ndjson"), "utf8").trim().split("\n").map((l) => JSON.parse(l))).toMatchObject([{ action: "elsewhere", folder: away }]);

    const listed = await cliJson(["ls", "--archived"], { env: e });
    const ids = [a, b, c].map((f) => /_([0-9a-f-]{36})\.jsonl$/.exec(f)![1]!);
    for (const [i, f] of [a, b, c].entries()) {
      const row = listed.json.sessions.find((s: { id: string }) => s.id === ids[i]);
      expect(row, f).toBeDefined();
      expect(row.archived).toBe("archive");
      expect(row.size).toBe(sizes.get(f));
      expect(row.archive).toMatchObject({ folder: away, from: f, compressed: statSync(zstdPathOf(away, sessions, f)).size });
    }
    const human = await cli(["ls", "--archived"], { env: e });
    for (const id of ids) expect(human.stdout.split("\n").find((l) => l.startsWith(id))).toMatch(/\(archived\)/);

    // (usage: left out and said, or counted with --archived)
    expect((await cliJson(["usage", "--archived"], { env: e })).json.total).toEqual(usageBefore);
    // (show ID: archived, where, and how it comes back)
    const shown = await cli(["show", ids[0]!], { env: e });
    expect(shown.exitCode).toBe(2);
    expect(shown.stderr).toContain(`archived on ${new Date().toISOString().slice(0, 10)} to ${zstdPathOf(away, sessions, a)}`);
    expect(shown.stderr).toContain(`\`pi-session restore ${ids[0]}\``);

    // (the folder gone, as a disk not mounted: said, by ls, usage and restore, never a silent nothing)
    const unmounted = `${away}.unmounted`;
    renameSync(away, unmounted);
    const gone = new RegExp(`${away}: recorded in ${home_} as where sessions were archived to \\(--to\\), and not there now`);
    expect((await cli(["ls", "--archived"], { env: e })).stderr).toMatch(gone);
    expect((await cli(["usage"], { env: e })).stderr).toMatch(gone);
    const lost = await cli(["restore", ids[0]!], { env: e });
    expect(lost.exitCode).toBe(2);
    expect(lost.stderr).toContain(`not looked in: ${away}`);
    renameSync(unmounted, away);

    const back = await cliJson(["restore", ...ids], { env: e });
    expect(back.exitCode).toBe(0);
    expect(back.json.summary.restored).toBe(3);
    expect(files(sessions)).toEqual(before);
    // (restored already: said as the live session it is, its file named, not as an id nowhere)
    const again = await cli(["restore", ids[0]!], { env: e });
    expect(again).toMatchObject({ exitCode: 2, stdout: "" });
    expect(again.stderr).toBe(`pi-session: ${ids[0]}: not archived: the session is where it lives, ${a} (restored already, or never archived); nothing was restored\n`);
  });

  it("sessions archived from pi's session directory are found when their project folder is given: ls --archived, usage (said, and with --archived counted), grep --archived", async () => {
    const { home, sessions, a, b, c } = piStore();
    const e = env(home, sessions);
    const project = join(sessions, "--work-project--");
    const before = (await cliJson(["usage", project, "--no-cache"], { env: e })).json.total;
    expect((await cliJson(["archive", "--older-than", "30d"], { env: e })).json.summary.archived).toBe(3);
    const listed = (await cliJson(["ls", project, "--archived"], { env: e })).json.sessions as Array<{ path: string; archived: string | null; archive?: { from: string } }>;
    expect(listed.filter((s) => s.archived === "archive").map((s) => s.archive!.from).sort()).toEqual([a, b, c].sort());
    const usage = await cliJson(["usage", project, "--no-cache"], { env: e });
    expect(usage.json.archived).toMatchObject({ counted: false, sessions: 2 });
    expect(usage.stderr).toMatch(/^pi-session: 2 archived sessions not counted .*: add --archived\n$/);
    expect((await cliJson(["usage", project, "--archived", "--no-cache"], { env: e })).json.total).toEqual(before);
    const found = await cliJson(["grep", "and on the fork", project, "--archived"], { env: e });
    expect(found.exitCode).toBe(0);
    expect(found.json.matches.map((m: { file: string }) => m.file)).toEqual([zstdPathOf(join(home, ".pi/agent/archive"), sessions, b)]);
  });

  it("show ID of an archived session says it is archived, where, and the restore command, in human and --json alike; show of the archive lists its children, and a child its archived parent", async () => {
    const { home, sessions, a, b, c } = piStore();
    const e = env(home, sessions);
    const id = (f: string) => /_([0-9a-f-]{36})\.jsonl$/.exec(f)![1]!;
    const archive = join(home, ".pi/agent/archive");
    expect((await cli(["archive", a], { env: e })).exitCode).toBe(0);
    const zst = zstdPathOf(archive, sessions, a);
    for (const json of [false, true]) {
      const r = await cli(["show", id(a), ...(json ? ["--json"] : [])], { env: e });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`pi-session: ${id(a)}: archived on ${new Date().toISOString().slice(0, 10)} to ${zst}; read-only commands read that path as it is, and \`pi-session restore ${id(a)}\` puts it back where it was\n`);
    }
    const parent = await cliJson(["show", zst], { env: e });
    expect(parent.exitCode).toBe(0);
    expect(parent.json.children.map((k: { id: string }) => k.id).sort()).toEqual([id(b), id(c)].sort());
    const human = await cli(["show", zst], { env: e });
    expect(human.stdout).toMatch(new RegExp(`Children\\s+.*(${id(b)}|${id(c)})`));
    const child = await cliJson(["show", b], { env: e });
    expect(child.json.parent).toMatchObject({ relation: "fork", state: "found", path: zst });
    // (a child archived too: its parent's show still names it)
    expect((await cli(["archive", c], { env: e })).exitCode).toBe(0);
    const again = await cliJson(["show", zst], { env: e });
    expect(again.json.children.map((k: { id: string }) => k.id).sort()).toEqual([id(b), id(c)].sort());
  });

  it("usage says what the archive holds that it did not count, in one line on stderr (human, --json, piped alike); --archived counts it", async () => {
    const { home, sessions } = piStore();
    const e = env(home, sessions);
    const before = (await cliJson(["usage"], { env: e })).json;
    expect(before.archived).toBeUndefined();
    const r = await cliJson(["archive", "--older-than", "30d"], { env: e });
    expect(r.json.summary.archived).toBe(3);
    const after = await cliJson(["usage"], { env: e });
    const left = before.total.cost - after.json.total.cost;
    expect(left).toBeGreaterThan(0);
    // (the sessions --archived adds to the report's count: those with requests of their own, each entry counted once; C, a clone of A, adds none)
    const counted = await cliJson(["usage", "--archived"], { env: e });
    const added = counted.json.total.sessions - after.json.total.sessions;
    expect(added).toBe(2);
    expect(after.json.archived).toMatchObject({ counted: false, sessions: added });
    expect(after.json.archived.cost).toBeCloseTo(left, 9);
    const line = new RegExp(`^pi-session: ${added} archived sessions not counted \\([\\d.,]+k? tokens, \\$${left.toFixed(2)} recorded\\): add --archived\\n$`);
    expect(after.stderr).toMatch(line);
    const human = await cli(["usage"], { env: e });
    expect(human.stderr).toMatch(line);
    expect(counted.stderr).toBe("");
    expect(counted.json.total).toEqual(before.total);
    expect(counted.json.archived).toMatchObject({ counted: true, sessions: added });
    // (a range the archive holds nothing in: nothing to say)
    const none = await cli(["usage", "--since", "2026-06-01"], { env: e });
    expect(none.stderr).not.toMatch(/archived/);
  });
});

/** Where `archive` put `file` of the store `root` in the archive folder `folder`. */
const zstdPathOf = (folder: string, root: string, file: string) => join(folder, `${relative(root, file)}.zst`);

describe("a session named by a relative path", () => {
  it("is recorded by its whole path: from any other folder ls --archived, usage --archived, show and restore ID find it, and restore puts it back where it was", async () => {
    const { home, sessions, a } = piStore();
    const e = env(home, sessions);
    const id = /_([0-9a-f-]{36})\.jsonl$/.exec(a)![1]!;
    const bytes = readFileSync(a);
    const usageBefore = (await cliJson(["usage"], { env: e })).json.total;
    const r = await cliJson(["archive", relative(join(a, ".."), a)], { env: e, cwd: join(a, "..") });
    expect(r.exitCode).toBe(0);
    expect(r.json.summary.archived).toBe(1);
    const manifest = join(home, ".pi/agent/archive/manifest.ndjson");
    expect(JSON.parse(readFileSync(manifest, "utf8").trim())).toMatchObject({ action: "archive", path: a, id });
    const elsewhere = mkdtempSync(join(tmpdir(), "pi-session-elsewhere-"));
    const listed = (await cliJson(["ls", "--archived"], { env: e, cwd: elsewhere })).json.sessions;
    expect(listed.find((s: { id: string }) => s.id === id)).toMatchObject({ archived: "archive", archive: { from: a } });
    const counted = (await cliJson(["usage", "--archived"], { env: e, cwd: elsewhere })).json.total;
    // (the same sums, added in another order)
    expect({ ...counted, cost: 0 }).toEqual({ ...usageBefore, cost: 0 });
    expect(counted.cost).toBeCloseTo(usageBefore.cost, 9);
    const shown = await cli(["show", id], { env: e, cwd: elsewhere });
    expect(shown.stderr).toContain(`\`pi-session restore ${id}\``);
    const back = await cliJson(["restore", id], { env: e, cwd: elsewhere });
    expect(back.exitCode).toBe(0);
    expect(back.json.files).toMatchObject([{ file: a, status: "restored" }]);
    expect(readFileSync(a)).toEqual(bytes);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("a file in a folder of its own, archived as a3/tiny.jsonl, is restored into a3/ from any folder, by the archive's path", async () => {
    const base = mkdtempSync(join(tmpdir(), "pi-session-archive-rel-"));
    mkdirSync(join(base, "a3"));
    mkdirSync(join(base, "elsewhere"));
    const session = join(base, "a3/tiny.jsonl");
    cpSync(join(ROOT, "fixtures/tools.jsonl"), session);
    expect((await cli(["archive", "a3/tiny.jsonl"], { cwd: base })).exitCode).toBe(0);
    expect(existsSync(session)).toBe(false);
    const back = await cli(["restore", join(base, "a3/archive/tiny.jsonl.zst")], { cwd: join(base, "elsewhere") });
    expect(back.exitCode).toBe(0);
    expect(readFileSync(session)).toEqual(readFileSync(join(ROOT, "fixtures/tools.jsonl")));
    expect(readdirSync(join(base, "elsewhere"))).toEqual([]);
  });

  it("an archive an older version recorded by a relative path is read at the archive's place: ls --archived lists it, restore ID puts it back where it was", async () => {
    const { home, sessions, a, b } = piStore();
    const e = env(home, sessions);
    const ids = [a, b].map((f) => /_([0-9a-f-]{36})\.jsonl$/.exec(f)![1]!);
    const bytes = [a, b].map((f) => readFileSync(f));
    expect((await cli(["archive", a, b], { env: e })).exitCode).toBe(0);
    // (as the version before recorded them: relative to the folder archive ran in, the project's and its parent's)
    const manifest = join(home, ".pi/agent/archive/manifest.ndjson");
    const lines = readFileSync(manifest, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    lines[0].path = relative(join(a, ".."), a);
    lines[1].path = `./${relative(sessions, b)}`;
    writeFileSync(manifest, lines.map((l) => JSON.stringify(l) + "\n").join(""));
    const elsewhere = mkdtempSync(join(tmpdir(), "pi-session-elsewhere-"));
    const listed = (await cliJson(["ls", "--archived"], { env: e, cwd: elsewhere })).json.sessions;
    for (const [i, f] of [a, b].entries()) expect(listed.find((s: { id: string }) => s.id === ids[i]), f).toMatchObject({ archived: "archive", archive: { from: f } });
    const back = await cliJson(["restore", ...ids], { env: e, cwd: elsewhere });
    expect(back.exitCode).toBe(0);
    expect(back.json.summary.restored).toBe(2);
    expect([a, b].map((f) => readFileSync(f))).toEqual(bytes);
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
