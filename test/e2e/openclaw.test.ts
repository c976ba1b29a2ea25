/**
 * OpenClaw's stores as their owners lay them out (docs/stores.md, "OpenClaw's stores"): a home with pi's
 * session directory and an OpenClaw root holding a real store (`../shared/openclaw-stores/ccccx`:
 * archives by reset and delete, a lock, `sessions.json`) and a second agent built from the corpus
 * (a main session, a sub-agent, a group chat, a cron run, a checkpoint and a backup copy, a
 * trajectory). What is expected is read from the files and `sessions.json` here, and the costs are
 * pi's own (`getSessionStats`) over each agent's entries, each once.
 */
import { cpSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { CORPUS, fixture, ROOT } from "../helpers/paths.js";
import { piEntries, piSessionStats } from "../helpers/pi.js";
import type { StoreFacts } from "../../src/stores/index.js";

const STORES = join(CORPUS, "..", "openclaw-stores");
const home = mkdtempSync(join(tmpdir(), "pi-session-openclaw-"));
const root = join(home, ".openclaw");
const main = join(root, "agents", "main", "sessions");
const ops = join(root, "agents", "ops", "sessions");
const piDir = join(home, ".pi", "agent", "sessions");
const env = { HOME: home };

const OPS = {
  main: "1d9efd24-3d45-430b-a703-e713c1679ce1",
  sub: "019ebb22-69c0-77df-8480-5618f0660c02",
  group: "019da8e7-53e5-77d8-ad66-8096de722bcd",
  cron: "019f300b-0864-715c-9025-dd00e574139c",
};
const OPS_INDEX = {
  "agent:ops:main": { sessionId: OPS.main, updatedAt: 1, chatType: "direct", lastChannel: "webchat" },
  "agent:ops:subagent:7f3a": { sessionId: OPS.sub, updatedAt: 2, spawnedBy: "agent:ops:main", spawnDepth: 1, label: "research the API" },
  "agent:ops:telegram:group:-1001": { sessionId: OPS.group, updatedAt: 3, chatType: "group", lastChannel: "telegram" },
  "agent:ops:cron:9c1d": { sessionId: OPS.cron, updatedAt: 4, label: "Cron: nightly report" },
  "agent:ops:cron:9c1d:run:77aa": { sessionId: OPS.cron, updatedAt: 4, label: "Cron: nightly report" },
};

beforeAll(() => {
  mkdirSync(root, { recursive: true });
  cpSync(join(STORES, "ccccx", "agents"), join(root, "agents"), { recursive: true });
  mkdirSync(ops, { recursive: true });
  copyFileSync(join(CORPUS, "nucbox__1d9efd24.v3.orphan-roots.compactions.jsonl"), join(ops, `${OPS.main}.jsonl`));
  copyFileSync(join(CORPUS, "earth-0__019ebb22.snapA.v3.jsonl"), join(ops, `${OPS.sub}.jsonl`));
  copyFileSync(join(CORPUS, "idaho-vault__019da8e7.v3.windows-cwd.jsonl"), join(ops, `${OPS.group}.jsonl`));
  copyFileSync(join(CORPUS, "coffee-shop__019f300b.v3.multimodel.jsonl"), join(ops, `${OPS.cron}.jsonl`));
  // copies: the same entries again; a trajectory and its pointer: no session
  copyFileSync(join(ops, `${OPS.main}.jsonl`), join(ops, `${OPS.main}.checkpoint.5b1e0c2a-1111-4222-8333-944455556666.jsonl`));
  copyFileSync(join(ops, `${OPS.main}.jsonl`), join(ops, `${OPS.main}.jsonl.bak-2026-04-01T00-00-00.000Z`));
  writeFileSync(join(ops, `${OPS.main}.trajectory.jsonl`), `${JSON.stringify({ traceSchema: "openclaw-trajectory", runId: "r1", events: [] })}\n${JSON.stringify({ type: "tool", name: "x" })}\n`);
  writeFileSync(join(ops, `${OPS.main}.trajectory-path.json`), JSON.stringify({ path: "x" }));
  writeFileSync(join(ops, "sessions.json"), JSON.stringify(OPS_INDEX, null, 2));
  mkdirSync(join(piDir, "--home-ada-project--"), { recursive: true });
  copyFileSync(fixture("linear.jsonl"), join(piDir, "--home-ada-project--", "2026-03-01T10-00-00-000Z_0f1e2d3c-0000-4000-8000-000000000001.jsonl"));
});

/** The transcripts a folder holds, as its owner would count them: every file but indexes, locks and traces. */
function transcripts(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => !n.endsWith(".json") && !n.endsWith(".lock") && !n.endsWith(".trajectory.jsonl"))
    .map((n) => join(dir, n));
}

/** An `ls --json` row, as the tests read it: the session's facts and what its store says of it. */
type Row = StoreFacts & { path: string; id: string; size: number; modified: string };

describe("discovery", () => {
  it("ls with no directory reads pi's store and every OpenClaw root: every transcript, archives and copies, no trajectory", async () => {
    const r = await cliJson<{ sessions: Row[] }>(["ls", "--no-cache"], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const want = [...transcripts(main), ...transcripts(ops), join(piDir, "--home-ada-project--", "2026-03-01T10-00-00-000Z_0f1e2d3c-0000-4000-8000-000000000001.jsonl")];
    expect(r.json.sessions.map((s) => s.path).sort()).toEqual(want.sort());
    expect(r.json.sessions.some((s) => s.path.includes("trajectory"))).toBe(false);
    // --store narrows; a root, or a folder inside it, is listed the same way
    const pi = await cliJson<{ sessions: Row[] }>(["ls", "--no-cache", "--store", "pi"], { env });
    expect(pi.json.sessions.map((s) => s.store)).toEqual(["pi"]);
    const claw = await cliJson<{ sessions: Row[] }>(["ls", "--no-cache", "--store", "openclaw"], { env });
    expect(claw.json.sessions).toHaveLength(want.length - 1);
    for (const dir of [root, join(root, "agents"), join(root, "agents", "ops"), ops]) {
      const listed = await cliJson<{ sessions: Row[] }>(["ls", dir, "--no-cache"], { env });
      expect(listed.json.sessions.filter((s) => s.agent === "ops").map((s) => s.path).sort(), dir).toEqual(transcripts(ops).sort());
    }
  });

  it("each row says what it is to its owner: agent, key, label, kind, channel, spawner, archive or copy", async () => {
    const { json } = await cliJson<{ sessions: Row[] }>(["ls", root, "--no-cache"], { env });
    const byPath = new Map(json.sessions.map((s) => [s.path, s]));
    for (const [key, v] of Object.entries(OPS_INDEX)) {
      const row = byPath.get(join(ops, `${v.sessionId}.jsonl`))!;
      expect(row.agent).toBe("ops");
      expect(row.store).toBe("openclaw");
      // (a session two keys name, a cron job's and its run's: the run's, the longer)
      const keys = Object.entries(OPS_INDEX).filter(([, w]) => w.sessionId === v.sessionId).map(([k]) => k);
      expect(row.key).toBe(keys.sort((a, b) => b.length - a.length)[0]);
      if ("label" in v) expect(row.label).toBe(v.label);
      if ("spawnedBy" in v) expect(row.spawnedBy).toBe(v.spawnedBy);
      if ("lastChannel" in v) expect(row.channel).toBe(v.lastChannel);
      expect(row.kind, key).toBe(key.includes(":cron:") ? "cron" : key.includes(":subagent:") ? "subagent" : key.endsWith(":main") ? "main" : "group");
    }
    expect(byPath.get(join(ops, `${OPS.cron}.jsonl`))!.job).toBe("9c1d");
    for (const row of json.sessions) {
      const name = basename(row.path);
      expect(row.archived, name).toBe(name.includes(".jsonl.reset.") ? "reset" : name.includes(".jsonl.deleted.") ? "deleted" : null);
      expect(row.copyOf, name).toBe(name.includes(".checkpoint.") || name.includes(".bak-") ? OPS.main : null);
    }
    // the real store's index: the cron job's label, the Feishu DM's key and channel
    const index = JSON.parse(readFileSync(join(main, "sessions.json"), "utf8")) as Record<string, { sessionId: string; label?: string; lastChannel?: string }>;
    for (const [key, v] of Object.entries(index)) {
      const row = byPath.get(join(main, `${v.sessionId}.jsonl`))!;
      if (v.label) expect(row.label).toBe(v.label);
      if (!key.includes(":run:") && !key.includes(":cron:")) expect(row.key).toBe(key);
      if (v.lastChannel) expect(row.channel).toBe(v.lastChannel);
    }
    // an archived cron run its index no longer names is known by its first message
    const deleted = json.sessions.find((s) => s.path.includes("83c43e67") && s.archived === "deleted")!;
    expect(deleted).toMatchObject({ kind: "cron", job: "b563dae7-0170-4929-8ba3-bbc8f9b405ed", label: "Cron: GitHub日榜每日调研" });
  });

  it("ls filters by agent, kind, age and size; the name column shows the label", async () => {
    const all = (await cliJson<{ sessions: Row[] }>(["ls", root, "--no-cache"], { env })).json.sessions;
    const ids = (rows: Row[]) => rows.map((r) => r.path).sort();
    expect(ids((await cliJson<{ sessions: Row[] }>(["ls", root, "--no-cache", "--agent", "ops"], { env })).json.sessions)).toEqual(ids(all.filter((r) => r.agent === "ops")));
    const cron = (await cliJson<{ sessions: Row[] }>(["ls", root, "--no-cache", "--kind", "cron"], { env })).json.sessions;
    expect(cron.length).toBeGreaterThanOrEqual(3);
    expect(ids(cron)).toEqual(ids(all.filter((r) => r.kind === "cron")));
    const big = (await cliJson<{ sessions: Row[] }>(["ls", root, "--no-cache", "--larger-than", "300K"], { env })).json.sessions;
    expect(ids(big)).toEqual(ids(all.filter((r) => statSync(r.path).size > 300 * 1024)));
    const cutoff = "2026-04-01";
    const old = (await cliJson<{ sessions: Row[] }>(["ls", root, "--no-cache", "--older-than", cutoff], { env })).json.sessions;
    expect(old.length).toBeGreaterThan(0);
    expect(ids(old)).toEqual(ids(all.filter((r) => r.modified < new Date(cutoff).toISOString())));
    const table = (await cli(["ls", ops, "--no-cache"], { env })).stdout;
    expect(table).toMatch(/Cron: nightly report +ops · cron /);
    expect(table).toMatch(/research the API +ops · subagent /);
    const bad = await cli(["ls", root, "--older-than", "soon"], { env });
    expect(bad).toMatchObject({ exitCode: 2, stderr: 'pi-session: --older-than "soon": give an age (12h, 7d, 4w, 3m, 1y) or a date (2026-03-01)\n' });
  });

  it("a damaged agent database is one unreadable row naming it, and the rest of the store is still read", async () => {
    const sqlite = join(mkdtempSync(join(tmpdir(), "pi-session-openclaw-sqlite-")), ".openclaw");
    mkdirSync(join(sqlite, "agents", "main", "agent"), { recursive: true });
    mkdirSync(join(sqlite, "agents", "main", "sessions"), { recursive: true });
    const db = join(sqlite, "agents", "main", "agent", "openclaw-agent.sqlite");
    writeFileSync(db, "SQLite format 3\u0000 and then nothing a database holds");
    copyFileSync(fixture("linear.jsonl"), join(sqlite, "agents", "main", "sessions", "aaaa.jsonl.reset.2026-09-02T10-00-00.000Z"));
    const r = await cliJson(["ls", sqlite, "--no-cache"]);
    expect(r.exitCode).toBe(0);
    expect(r.json.sessions.map((s: { path: string; status: string }) => [s.path, s.status]).sort()).toEqual([
      [db, "unreadable"],
      [join(sqlite, "agents", "main", "sessions", "aaaa.jsonl.reset.2026-09-02T10-00-00.000Z"), "ok"],
    ]);
    const shown = await cli(["show", db]);
    expect(shown.exitCode).toBe(2);
    expect(shown.stderr).toBe(`pi-session: ${db}: not a readable SQLite database (file is not a database); it may be damaged: OpenClaw's \`openclaw doctor\` checks it\n`);
  });

  it("OpenClaw's own records (custom model-snapshot entries, its extra message fields) read with no finding beyond info", async () => {
    for (const store of ["ccccx", "archeoneocode"]) {
      const r = await cliJson(["check", join(STORES, store)]);
      expect(r.exitCode, store).toBe(0);
      const severities = r.json.files.flatMap((f: { findings: Array<{ severity: string }> }) => f.findings.map((x) => x.severity));
      expect(severities.filter((x: string) => x !== "info"), store).toEqual([]);
      expect(r.json.files.length, store).toBeGreaterThan(3);
    }
  });

  it("check, grep and usage over the root pass over trajectories without a word", async () => {
    const checked = await cliJson(["check", root], { env });
    expect(checked.json.files.map((f: { file: string }) => f.file).sort()).toEqual([...transcripts(main), ...transcripts(ops)].sort());
    const grep = await cli(["grep", "-F", "-l", "openclaw-trajectory", root], { env });
    expect(grep).toMatchObject({ exitCode: 1, stdout: "" });
    expect(grep.stderr).toBe("");
  });
});

/** pi's totals over the entries of `files`, each entry (id and time) once, as `usage` counts a store. */
function onceCost(files: string[]): number {
  const seen = new Set<string>();
  const kept: Array<Record<string, unknown>> = [];
  for (const f of files) {
    const own = new Set<string>();
    for (const e of piEntries(f)) {
      const k = `${String(e.id)}\u0000${String(e.timestamp)}`;
      if (seen.has(k)) continue;
      own.add(k);
      kept.push(e);
    }
    for (const k of own) seen.add(k);
  }
  return piSessionStats(kept).cost;
}

describe("usage by what a session is to its owner", () => {
  it("--by agent and --by job equal pi's totals over each agent's and each job's files, each entry once; archives count, copies add nothing", async () => {
    const byAgent = await cliJson<{ rows: Array<{ key: string; cost: number }> }>(["usage", "--by", "agent", "--no-cache", "--store", "openclaw"], { env });
    expect(byAgent.exitCode, byAgent.stderr).toBe(0);
    const cost = (rows: Array<{ key: string; cost: number }>, key: string) => rows.find((r) => r.key === key)?.cost;
    expect(cost(byAgent.json.rows, "main")).toBeCloseTo(onceCost(transcripts(main)), 9);
    expect(cost(byAgent.json.rows, "ops")).toBeCloseTo(onceCost(transcripts(ops)), 9);
    // the copies of ops' main session add nothing to it
    expect(onceCost(transcripts(ops))).toBeCloseTo(onceCost(transcripts(ops).filter((f) => !f.includes(".checkpoint.") && !f.includes(".bak-"))), 9);
    const byJob = await cliJson<{ rows: Array<{ key: string; cost: number; label?: string; sessions: number }> }>(["usage", root, "--by", "job", "--no-cache"], { env });
    const github = byJob.json.rows.find((r) => r.key === "b563dae7-0170-4929-8ba3-bbc8f9b405ed")!;
    expect(github.label).toBe("Cron: GitHub日榜每日调研");
    const runs = transcripts(main).filter((f) => readFileSync(f, "utf8").includes('"text":"[cron:b563dae7-0170-4929-8ba3-bbc8f9b405ed'));
    expect(runs.length).toBe(2);
    expect(github.sessions).toBe(2);
    expect(github.cost).toBeCloseTo(onceCost(runs), 9);
    expect(byJob.json.rows.find((r) => r.key === "9c1d")).toMatchObject({ label: "Cron: nightly report" });
    // the session its checkpoint and backup hold too is one row of --by session, its files listed
    const bySession = await cliJson<{ rows: Array<{ key: string; files?: string[]; cost: number }> }>(["usage", ops, "--by", "session", "--no-cache"], { env });
    expect(new Set(bySession.json.rows.map((r) => r.key)).size).toBe(bySession.json.rows.length);
    expect(bySession.json.rows.find((r) => r.key === OPS.main)!.files?.map((f) => basename(f)).sort()).toEqual(transcripts(ops).filter((f) => f.includes(OPS.main)).map((f) => basename(f)).sort());
    const table = (await cli(["usage", ops, "--by", "kind", "--no-cache"], { env })).stdout;
    for (const kind of ["main", "subagent", "group", "cron"]) expect(table).toMatch(new RegExp(`^${kind} +\\d`, "m"));
  });
});

describe("writers and OpenClaw's locks", () => {
  let sleeper: ReturnType<typeof execa> | undefined;
  afterAll(() => {
    sleeper?.kill();
  });

  it("a transcript whose lock names a running process is refused, nothing written; a stale lock is said and passed over", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-openclaw-lock-"));
    const sessions = join(dir, "agents", "main", "sessions");
    mkdirSync(sessions, { recursive: true });
    const file = join(sessions, "4cd0abc6-56b7-41af-ad24-4dfe17acb43c.jsonl");
    sleeper = execa("sleep", ["60"], { reject: false });
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: sleeper.pid, createdAt: new Date().toISOString() }));
    // (each writer given a file it would write: a torn one to repair, a v1 one to migrate, a v3 one to slim)
    for (const [command, from, extra] of [["repair", "fused.jsonl", []], ["migrate", "v1.jsonl", []], ["slim", "tools.jsonl", ["--min-size", "1"]]] as const) {
      copyFileSync(fixture(from), file);
      const before = readFileSync(file);
      const r = await cliJson([command, file, ...extra], { env });
      expect(r.exitCode, command).toBe(2);
      expect(r.json.files[0], command).toMatchObject({ refusal: "locked" });
      expect(r.json.files[0].reason, command).toContain(`names process ${sleeper.pid}, which is running`);
      expect(readFileSync(file), command).toEqual(before);
      expect(existsSync(`${file}.bak`), command).toBe(false);
    }
    copyFileSync(fixture("fused.jsonl"), file);
    // --check writes nothing: it reads a locked file as any other
    expect((await cli(["repair", "--check", file], { env })).exitCode).toBe(1);
    // the writer gone: a stale lock, said and passed over
    sleeper.kill();
    await sleeper;
    const r = await cli(["repair", file], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${file}.lock names process ${sleeper.pid}, which is not running here: a stale lock, passed over`);
  });

  it("a writer given a directory leaves archives and copies alone; named, it writes them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-openclaw-writers-"));
    cpSync(join(STORES, "ccccx", "agents"), join(dir, "agents"), { recursive: true });
    const sessions = join(dir, "agents", "main", "sessions");
    const r = await cliJson(["repair", "--check", dir], { env });
    const files = r.json.files.map((f: { file: string }) => basename(f.file));
    expect(files.length).toBe(transcripts(sessions).filter((f) => f.endsWith(".jsonl")).length);
    expect(files.some((f: string) => /\.jsonl\.(reset|deleted)\./.test(f))).toBe(false);
    const archive = transcripts(sessions).find((f) => f.includes(".reset."))!;
    const named = await cliJson(["repair", "--check", archive], { env });
    expect(named.json.files[0].file).toBe(archive);
  });
});

describe("show and grep name a transcript by its key and label", () => {
  it("show gives its label, key, agent and kind; grep's sessions carry key and label", async () => {
    const file = join(ops, `${OPS.cron}.jsonl`);
    const shown = await cliJson(["show", file], { env });
    expect(shown.json.openclaw).toMatchObject({ agent: "ops", key: "agent:ops:cron:9c1d:run:77aa", label: "Cron: nightly report", kind: "cron", job: "9c1d", archived: null, copyOf: null });
    const human = (await cli(["show", file], { env })).stdout;
    expect(human).toMatch(/^Label +Cron: nightly report$/m);
    expect(human).toMatch(/^OpenClaw +agent ops, cron$/m);
    expect(human).toMatch(/^Key +agent:ops:cron:9c1d:run:77aa$/m);
    // pi's own session has none
    expect((await cliJson(["show", fixture("linear.jsonl")])).json.openclaw).toBeNull();
    // export: the label as its title (it has no name), its key and agent among the facts
    const md = (await cli(["export", file], { env })).stdout;
    expect(md.split("\n")[0]).toBe("# Cron: nightly report");
    expect(md).toContain("- **OpenClaw key:** `agent:ops:cron:9c1d:run:77aa`");
    expect(md).toContain("- **OpenClaw agent:** ops");
    const grep = await cliJson(["grep", "-F", "-i", "the", ops], { env });
    const cron = grep.json.withMatches.find((s: { file: string }) => s.file === file);
    expect(cron).toMatchObject({ agent: "ops", key: "agent:ops:cron:9c1d:run:77aa", label: "Cron: nightly report" });
  });
});

describe("a channel message's envelope", () => {
  it("ls, grep and export title a session by what the person wrote, not the envelope OpenClaw wraps it in", async () => {
    const file = join(main, "4cd0abc6-56b7-41af-ad24-4dfe17acb43c.jsonl");
    const first = readFileSync(file, "utf8").split("\n").map((l) => (l ? JSON.parse(l) : undefined)).find((e) => e?.type === "message" && e.message.role === "user");
    const text: string = typeof first.message.content === "string" ? first.message.content : first.message.content.map((b: { text?: string }) => b.text ?? "").join("");
    expect(text).toMatch(/^System: \[/);
    const wrote = text.slice(text.lastIndexOf("```") + 3).trim();
    const rows = (await cliJson<{ sessions: Array<Row & { title: string | null }> }>(["ls", main, "--no-cache"], { env })).json.sessions;
    expect(rows.find((r) => r.path === file)?.title).toBe(wrote);
    // no row of the real store is titled by an envelope
    expect(rows.filter((r) => r.title?.startsWith("System: [") || r.title?.includes("(untrusted metadata)"))).toEqual([]);
    const grep = await cliJson(["grep", "-F", wrote.slice(0, 4), file], { env });
    expect(grep.json.withMatches.map((s: { title: string }) => s.title)).toEqual([wrote]);
    const md = (await cli(["export", file], { env })).stdout;
    expect(md.split("\n")[0]).toBe(`# ${wrote.split("\n")[0]}`);
  });

  it("tree and path preview a channel message by what the person wrote: no envelope, no message_id line; show and export keep the message whole", async () => {
    const file = join(ROOT, "../shared/openclaw-stores/archeoneocode/agents/main/sessions/3fb83e84-059b-4d6c-a582-91d9522c4fa3.jsonl");
    for (const args of [["tree", file], ["path", file], ["tree", file, "--json"], ["path", file, "--json"]]) {
      const out = (await cli(args, { env: { ...env, COLUMNS: "200" } })).stdout;
      expect(out, args.join(" ")).toContain("Wake up, my friend!");
      expect(out, args.join(" ")).not.toMatch(/\[Sat 2026-02-07 05:07 GMT\+1\]|message_id: 23556853/);
    }
    // (a call previews as its command, as export shows it, in tree and path alike)
    const calls = join(ROOT, "../shared/openclaw-stores/ccccx/agents/main/sessions/4cd0abc6-56b7-41af-ad24-4dfe17acb43c.jsonl");
    for (const args of [["tree", calls], ["path", calls], ["path", calls, "--jsonl"]]) expect((await cli(args, { env })).stdout, args.join(" ")).toContain("→ exec cd /home/admin/.openclaw/workspace");
    // (the envelope is taken off before the preview is cut: piped at any width, and as --jsonl, the words whole)
    const sender = join(ROOT, "../shared/openclaw-stores/ccccx/agents/main/sessions/b5b4ed18-f040-49f7-aa6d-42132e00c908.jsonl");
    for (const args of [["tree", sender], ["path", sender], ["path", sender, "--jsonl"], ["tree", sender, "--jsonl"]]) {
      const out = (await cli(args, { env })).stdout;
      expect(out, args.join(" ")).toContain("Wake up, my friend!");
      expect(out, args.join(" ")).not.toMatch(/Sender \(untrusted|\[Mon 2026/);
    }
    const md = (await cli(["export", file], { env })).stdout;
    expect(md).toContain("[message_id: 23556853-1bfb-470f-9579-cb531a9c9b45]");
  });
});

describe("a transcript named by its session id or key", () => {
  it("show, tree and check find an OpenClaw session by its id, a prefix of it, or its key; completion offers its id", async () => {
    const file = join(ops, `${OPS.cron}.jsonl`);
    const byPath = (await cliJson(["show", file], { env })).json;
    for (const name of [OPS.cron, OPS.cron.slice(0, 13), "agent:ops:cron:9c1d:run:77aa"]) {
      const r = await cliJson(["show", name], { env });
      expect(r.exitCode, `${name}: ${r.stderr}`).toBe(0);
      expect(r.json.file, name).toBe(file);
      expect(r.json.openclaw, name).toEqual(byPath.openclaw);
    }
    expect((await cli(["tree", "agent:ops:main"], { env })).stdout).toBe((await cli(["tree", join(ops, `${OPS.main}.jsonl`)], { env })).stdout);
    expect((await cli(["check", OPS.group], { env })).stdout).toContain(join(ops, `${OPS.group}.jsonl`));
    // the live transcript, not its checkpoint or backup copy, which share its id
    expect((await cliJson(["show", OPS.main], { env })).json.file).toBe(join(ops, `${OPS.main}.jsonl`));
    // a key that names no session, and an id prefix that names several, are said so
    const missing = await cli(["show", "agent:ops:nothing"], { env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe("pi-session: agent:ops:nothing: no such file, and no session key in " + piDir + " or an OpenClaw store found ($OPENCLAW_STATE_DIR, ~/.openclaw; --session-dir names another store's root); run `pi-session ls` to find sessions\n");
    const several = await cli(["show", "019"], { env });
    expect(several.exitCode).toBe(2);
    expect(several.stderr).toMatch(/^pi-session: session id prefix `019` is ambiguous \(\d+ sessions: /);
    const offered = (await cli(["--get-yargs-completions", "show", "019f3"], { env })).stdout.split("\n").filter(Boolean);
    expect(offered).toEqual([OPS.cron]);
  });
});

describe("a sub-agent's cost", () => {
  it("--by key: the sub-agent on its own row, and under its spawner's (with --breakdown on a terminal, in `spawned` always)", async () => {
    const r = await cliJson<{ rows: Array<{ key: string; cost: number; requests: number; spawned?: Array<{ key: string; cost: number; requests: number }> }> }>(["usage", ops, "--by", "key", "--no-cache"], { env });
    const sub = r.json.rows.find((x) => x.key === "agent:ops:subagent:7f3a")!;
    expect(sub.requests).toBeGreaterThan(0);
    const spawner = r.json.rows.find((x) => x.key === "agent:ops:main")!;
    expect(spawner.spawned).toEqual([{ key: sub.key, requests: sub.requests, input: expect.any(Number), output: expect.any(Number), cacheRead: expect.any(Number), cacheWrite: expect.any(Number), total: expect.any(Number), cost: sub.cost, estimatedCost: expect.any(Number), unpricedTokens: expect.any(Number) }]);
    const table = (await cli(["usage", ops, "--by", "key", "--breakdown", "--no-cache"], { env })).stdout;
    expect(table).toMatch(/^ {2}↳ agent:ops:subagent:7f3a /m);
  });
});

describe("tree on a terminal", () => {
  it("heads an OpenClaw transcript's tree with its label and key; piped, the tree is all", async () => {
    const { main } = await import("../../src/cli.js");
    const { PassThrough } = await import("node:stream");
    const file = join(ops, `${OPS.cron}.jsonl`);
    const run = async (tty: boolean) => {
      const chunks: Buffer[] = [];
      const stdout = Object.assign(new PassThrough(), tty ? { isTTY: true, columns: 100 } : {});
      stdout.on("data", (c: Buffer) => chunks.push(c));
      const stderr = new PassThrough();
      stderr.resume();
      const code = await main(["tree", file], { stdout, stderr, env: { NO_COLOR: "1", HOME: home } });
      return { code, out: Buffer.concat(chunks).toString("utf8") };
    };
    const terminal = await run(true);
    expect(terminal.code).toBe(0);
    expect(terminal.out.split("\n")[0]).toBe("Cron: nightly report · agent:ops:cron:9c1d:run:77aa · agent ops");
    const piped = await run(false);
    expect(piped.out.split("\n")[0]).not.toContain("Cron:");
    expect(terminal.out.split("\n").slice(1).join("\n")).toContain(piped.out.split("\n")[0]!);
  });
});
