/**
 * A session's times are stated by one function (`sessionTimes`), by every command that states or
 * uses them: `ls` (its columns, its sort, `--older-than`), `archive --older-than` (what `ls` lists
 * is what moves) and `tail`'s "latest" session. Last activity is never before creation: a fork
 * made today of entries months old is today's, and a file rewritten today (as `repair` writes
 * one) is no more recent for it.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { fixture } from "../helpers/paths.js";

const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), `pi-session-times-${prefix}-`));
const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);

/** A session folder holding linear.jsonl (entries of 2026-03-01, its file as old) and a fork of it made now, its file written 15 minutes ago. */
async function forkedStore(): Promise<{ dir: string; original: string; fork: string }> {
  const dir = scratch("fork");
  const project = join(dir, "--home-ada-project--");
  mkdirSync(project);
  const original = join(project, "2026-03-01T10-00-00-000Z_0f1e2d3c-0000-4000-8000-000000000001.jsonl");
  cpSync(fixture("linear.jsonl"), original);
  utimesSync(original, new Date("2026-03-01T12:00:00Z"), new Date("2026-03-01T12:00:00Z"));
  const forked = await cli(["fork", original, "--session-dir", dir]);
  expect(forked.exitCode, forked.stderr).toBe(0);
  const fork = forked.stdout.trim();
  expect(fork.startsWith(project)).toBe(true);
  utimesSync(fork, minutesAgo(15), minutesAgo(15));
  return { dir, original, fork };
}

describe("a session's last activity is never before its creation", () => {
  it("ls: a fork made today of months-old entries was last active when it was made, in the table and in --json; it sorts first", async () => {
    const { dir, original, fork } = await forkedStore();
    const r = await cliJson(["ls", dir]);
    expect(r.exitCode).toBe(0);
    const rows = r.json.sessions as Array<{ path: string; created: string; modified: string }>;
    const row = rows.find((s) => s.path === fork)!;
    expect(Date.parse(row.created)).toBeGreaterThan(Date.now() - 5 * 60_000);
    expect(row.modified).toBe(row.created);
    expect(rows.map((s) => s.path)).toEqual([fork, original]);
    // (the table: its created and last activity columns say the same time)
    const table = (await cli(["ls", dir])).stdout.split("\n");
    const line = table.find((l) => l.includes(JSON.parse(readFileSync(fork, "utf8").split("\n")[0]!).id.slice(0, 8)))!;
    const times = line.match(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/g)!;
    expect(times).toHaveLength(2);
    expect(times[0]).toBe(times[1]);
  });

  it("ls --older-than and archive --older-than leave the fork made today, and take the old session", async () => {
    const { dir, original, fork } = await forkedStore();
    const listed = await cliJson(["ls", dir, "--older-than", "3m"]);
    expect(listed.json.sessions.map((s: { path: string }) => s.path)).toEqual([original]);
    const archived = await cliJson(["archive", dir, "--older-than", "3m", "--dry-run"]);
    expect(archived.exitCode).toBe(0);
    const files = archived.json.files as Array<{ file: string; status: string }>;
    expect(files.map((f) => f.file)).toEqual([original]);
    expect(files[0]!.status).toBe("would-archive");
    expect(files.some((f) => f.file === fork)).toBe(false);
  });
});

describe("tail's latest session is ls's first (last activity, not the file's mtime)", () => {
  /** A project folder of pi's session directory for `cwd`, with two sessions: one active an hour ago (its file untouched since), one of March whose file was just rewritten. */
  function project(): { sessions: string; cwd: string; recent: string; rewritten: string } {
    const sessions = scratch("dir");
    const cwd = scratch("project");
    const folder = join(sessions, `--${cwd.replace(/^\//, "").replace(/[/\\:]/g, "-")}--`);
    mkdirSync(folder, { recursive: true });
    const hourAgo = minutesAgo(60).toISOString();
    const recent = join(folder, `${hourAgo.replace(/[:.]/g, "-")}_aaaaaaaa-2222-4333-8444-555555555555.jsonl`);
    const lines = [
      { type: "session", version: 3, id: "aaaaaaaa-2222-4333-8444-555555555555", timestamp: hourAgo, cwd },
      { type: "message", id: "r0000001", parentId: null, timestamp: hourAgo, message: { role: "user", content: [{ type: "text", text: "the recent one" }], timestamp: Date.parse(hourAgo) } },
    ];
    writeFileSync(recent, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    utimesSync(recent, minutesAgo(60), minutesAgo(60));
    const rewritten = join(folder, "2026-03-01T10-00-00-000Z_0f1e2d3c-0000-4000-8000-000000000001.jsonl");
    cpSync(fixture("linear.jsonl"), rewritten);
    return { sessions, cwd, recent, rewritten };
  }

  it("a bare tail follows the session last active, not the old one a rewrite (repair) just touched; ls lists it first", async () => {
    const { sessions, cwd, recent } = project();
    const env = { PI_CODING_AGENT_SESSION_DIR: sessions };
    const listed = await cliJson(["ls", "--store", "pi"], { env });
    expect(listed.json.sessions[0].path).toBe(recent);
    const r = await cli(["tail", "-n", "1"], { cwd, env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(basename(recent));
    expect(r.stdout).toContain("r0000001");
    // (and from elsewhere, the latest of every store: the same one)
    const anywhere = await cli(["tail", "-n", "1"], { cwd: scratch("elsewhere"), env });
    expect(anywhere.stderr).toContain(basename(recent));
  });

  it("tail --all shows the entries of the sessions last active", async () => {
    const { sessions, recent } = project();
    const r = await cli(["tail", "--all", sessions, "-n", "1", "--jsonl"]);
    expect(r.exitCode).toBe(0);
    const values = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(values.map((v) => v.file)).toEqual([recent]);
  });
});
