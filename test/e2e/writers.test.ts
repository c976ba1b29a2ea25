/** migrate and repair, spawned for real: every flag in human and --json mode, backups, refusals, crashes and races (slim's too). */
import { execa } from "execa";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { largeBloated, largeCorrupted, largeV1 } from "../helpers/large.js";
import { BIN, CORPUS, fixture } from "../helpers/paths.js";

function sandbox(...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-writers-"));
  for (const n of names) copyFileSync(n.includes("/") ? n : fixture(n), join(dir, n.split("/").pop()!));
  return dir;
}

describe("migrate", () => {
  it("upgrades in place, keeps the original as .bak, and says so", async () => {
    const dir = sandbox("v1.jsonl");
    const file = join(dir, "v1.jsonl");
    const before = readFileSync(file);
    const r = await cli(["migrate", file]);
    expect(r).toMatchObject({ exitCode: 0, stderr: "" });
    expect(r.stdout).toBe(`${file}: migrated v1 -> v3 (9 lines changed); the original is kept as ${file}.bak\n`);
    expect(readFileSync(`${file}.bak`).equals(before)).toBe(true);
    expect((await cli(["check", file])).exitCode).toBe(0);
    // idempotent: a second run leaves it alone
    const again = await cliJson(["migrate", file]);
    expect(again.json.files[0].status).toBe("current");
    expect(readdirSync(dir).sort()).toEqual(["v1.jsonl", "v1.jsonl.bak"]);
  });

  it("gives byte-identical output for the same input (deterministic ids)", async () => {
    const a = sandbox(`${CORPUS}/pi-mono__large-session.v1.jsonl`);
    const b = sandbox(`${CORPUS}/pi-mono__large-session.v1.jsonl`);
    await cli(["migrate", join(a, "pi-mono__large-session.v1.jsonl")]);
    await cli(["migrate", join(b, "pi-mono__large-session.v1.jsonl")]);
    expect(readFileSync(join(a, "pi-mono__large-session.v1.jsonl")).equals(readFileSync(join(b, "pi-mono__large-session.v1.jsonl")))).toBe(true);
  });

  it("--dry-run prints a unified diff, writes nothing, exits 1", async () => {
    const dir = sandbox("v2-hook.jsonl");
    const file = join(dir, "v2-hook.jsonl");
    const before = readFileSync(file);
    const r = await cli(["migrate", file, "--dry-run"]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(`--- ${file}\n+++ ${file}\n@@ -1,4 +1,4 @@\n-{"type":"session","version":2,`);
    expect(r.stdout).toContain('+{"type":"message","id":"e0000002","parentId":"e0000001","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"custom",');
    expect(r.stdout).toMatch(/would migrate v2 -> v3 \(2 lines to change\); nothing written/);
    expect(readFileSync(file).equals(before)).toBe(true);
    const json = await cliJson(["migrate", file, "--dry-run"]);
    expect(json.json.files[0]).toMatchObject({ status: "would-migrate", changedLines: 2, diff: expect.stringContaining("@@") });
  });

  it("--check exits 1 while work is left and 0 when none, writing nothing", async () => {
    const dir = sandbox("v1.jsonl", "linear.jsonl");
    const r = await cliJson(["migrate", dir, "--check"]);
    expect(r.exitCode).toBe(1);
    expect(r.json.summary).toMatchObject({ "needs-migrate": 1, current: 1 });
    expect(readdirSync(dir)).not.toContain("v1.jsonl.bak");
    await cli(["migrate", dir]);
    expect((await cli(["migrate", dir, "--check"])).exitCode).toBe(0);
  });

  it("a directory run prints a summary table; refused files exit 1 with a pointer to repair", async () => {
    const dir = sandbox("v1.jsonl", "linear.jsonl", "fused.jsonl", "newer-version.jsonl");
    const r = await cli(["migrate", dir]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^file +from +result +note/);
    expect(r.stdout).toMatch(/fused\.jsonl +v3 +refused +damaged \(line 3: a record and a torn fragment on one line\); run `pi/);
    expect(r.stdout).toMatch(/newer-version\.jsonl +v4 +refused +version 4 is newer than this tool's 3; upgrade pi-session/);
    expect(r.stdout).toMatch(/v1\.jsonl +v1 +migrated +9 lines; backup v1\.jsonl\.bak/);
    expect(r.stdout).toMatch(/1 migrated, 1 already current, 2 refused\n$/);
    expect(readFileSync(join(dir, "fused.jsonl")).equals(readFileSync(fixture("fused.jsonl")))).toBe(true);
  });

  it("a refused repair says it was refused, not the actions it would have taken (--json keeps them)", async () => {
    const dir = sandbox("fused.jsonl");
    const out = join(dir, "taken.jsonl");
    writeFileSync(out, "already here\n");
    const r = await cli(["repair", join(dir, "fused.jsonl"), "--out", out]);
    expect(r.exitCode).toBe(2);
    // (an error, on stderr in one line as every error is; stdout empty)
    expect(r.stderr).toBe(`pi-session: ${join(dir, "fused.jsonl")}: refused to overwrite ${out}; pass --force to replace it\n`);
    expect(r.stdout).toBe("");
    const json = await cliJson(["repair", join(dir, "fused.jsonl"), "--out", out]);
    expect(json.json.files[0].actions.map((a: { code: string }) => a.code)).toContain("fused-split");
    expect(readFileSync(out, "utf8")).toBe("already here\n");
  });

  it("--out writes elsewhere and never overwrites without --force; --backup-dir; .bak.1 when .bak is taken", async () => {
    const dir = sandbox("v1.jsonl");
    const file = join(dir, "v1.jsonl");
    const out = join(dir, "out.jsonl");
    expect((await cli(["migrate", file, "--out", out])).exitCode).toBe(0);
    expect(readFileSync(file).equals(readFileSync(fixture("v1.jsonl")))).toBe(true);
    const again = await cli(["migrate", file, "--out", out]);
    expect(again.exitCode).toBe(2);
    expect(again).toMatchObject({ stdout: "", stderr: `pi-session: ${file}: refused to overwrite ${out}; pass --force to replace it\n` });
    expect((await cli(["migrate", file, "--out", out, "--force"])).exitCode).toBe(0);
    writeFileSync(`${file}.bak`, "an older backup");
    const backups = join(dir, "backups");
    expect((await cli(["migrate", file, "--backup-dir", backups])).exitCode).toBe(0);
    expect(readFileSync(join(backups, "v1.jsonl.bak")).equals(readFileSync(fixture("v1.jsonl")))).toBe(true);
    copyFileSync(fixture("v1.jsonl"), file);
    await cli(["migrate", file]);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe("an older backup");
    expect(readFileSync(`${file}.bak.1`).equals(readFileSync(fixture("v1.jsonl")))).toBe(true);
  });

  it("a backup folder that cannot be made or written (under /proc, a file, nested in a file) is one line and exit 2, at once; the file unchanged, no backup made", async () => {
    const dir = sandbox("fused.jsonl");
    const file = join(dir, "fused.jsonl");
    // (as root the kernel refuses with ENOENT, as another user with EACCES)
    const cases: Array<[string, RegExp]> = [
      ["/proc/x", /^pi-session: cannot make the backup folder \/proc\/x: (the file system there makes no folders|permission denied); give another place\n$/],
      ["/proc/x/y", /^pi-session: cannot make the backup folder \/proc\/x\/y: (the file system there makes no folders|permission denied); give another place\n$/],
      [fixture("linear.jsonl"), new RegExp(`^pi-session: cannot make the backup folder ${fixture("linear.jsonl")}: ${fixture("linear.jsonl")} is a file, not a folder; give another place\n$`)],
      ["/proc", /^pi-session: cannot write \/proc\/fused\.jsonl\.bak: (no such directory|permission denied); check that the directory exists and that you can write to it, or give another place \(--out, -o, --backup-dir\)\n$/],
    ];
    for (const [backups, stderr] of cases) {
      const r = await cli(["repair", file, "--backup-dir", backups], { timeout: 20_000 });
      expect(r.exitCode, backups).toBe(2);
      expect(r.stderr, backups).toMatch(stderr);
      expect(readFileSync(file).equals(readFileSync(fixture("fused.jsonl"))), backups).toBe(true);
      expect(readdirSync(dir), backups).toEqual(["fused.jsonl"]);
    }
  });

  it("refuses stdin", async () => {
    const r = await cli(["migrate", "-"], { inputFile: fixture("v1.jsonl") });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe("pi-session: migrate writes files: give paths, not - (stdin)\n");
  });
});

describe("repair", () => {
  it("fixes the fused-record v1 file from the corpus, keeping both records", async () => {
    const dir = sandbox(`${CORPUS}/pi-mono-history__session.v1.concat-corrupt.jsonl`);
    const file = join(dir, "pi-mono-history__session.v1.concat-corrupt.jsonl");
    expect((await cli(["check", file])).exitCode).toBe(1);
    const r = await cliJson(["repair", file]);
    expect(r.exitCode).toBe(0);
    expect(r.json.files[0]).toMatchObject({ status: "repaired", kept: 464, dropped: 0, remainingErrors: 0 });
    expect(r.json.files[0].actions).toEqual([{ code: "fused-split", line: 440, message: "2 records on one line, each put on a line of its own", dropped: false }]);
    expect((await cli(["check", file])).exitCode).toBe(0);
    expect(readFileSync(`${file}.bak`).equals(readFileSync(`${CORPUS}/pi-mono-history__session.v1.concat-corrupt.jsonl`))).toBe(true);
    // line 440's two records are now lines 440 and 441, and the rest follows
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines).toHaveLength(465);
    expect(() => JSON.parse(lines[439]!)).not.toThrow();
    expect(() => JSON.parse(lines[440]!)).not.toThrow();
  });

  it("reports every action with its line, in human and JSON mode", async () => {
    const dir = sandbox("garbage-lines.jsonl");
    const file = join(dir, "garbage-lines.jsonl");
    const dry = await cli(["repair", file, "--dry-run"]);
    expect(dry.exitCode).toBe(1);
    expect(dry.stdout).toContain(`${file}:4: invalid-dropped: not JSON, and no record could be recovered from it\n`);
    expect(dry.stdout).toContain(`${file}:7: no-type-dropped: an object without \`type\`\n`);
    expect(dry.stdout).toContain("-this is not json\n");
    const json = await cliJson(["repair", file, "--check"]);
    expect(json.exitCode).toBe(1);
    expect(json.json.files[0].actions.map((a: { line: number; code: string }) => `${a.line}:${a.code}`)).toEqual(["3:blank-dropped", "4:invalid-dropped", "5:not-object-dropped", "6:not-object-dropped", "7:no-type-dropped", "8:blank-dropped"]);
    expect(readFileSync(file).equals(readFileSync(fixture("garbage-lines.jsonl")))).toBe(true);
    const done = await cli(["repair", file]);
    expect(done.exitCode).toBe(0);
    expect(done.stdout).toMatch(/repaired \(6 actions, 6 lines dropped, 4 records kept\); the original is kept as .*\.bak; it now passes check\n$/);
    const second = await cli(["repair", file]);
    expect(second.stdout).toBe(`${file}: nothing to repair; left untouched\n`);
  });

  it("refuses what is not a session, and exits 1", async () => {
    const dir = sandbox("events.jsonl", "empty.jsonl");
    const r = await cli(["repair", join(dir, "events.jsonl")]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`pi-session: ${join(dir, "events.jsonl")}: refused: pi's --mode json event stream (what \`pi --mode json\` prints), not a session file; there is nothing to repair\n`);
    const migrate = await cli(["migrate", join(dir, "events.jsonl")]);
    expect(migrate.exitCode).toBe(1);
    expect(migrate.stdout).toBe("");
    expect(migrate.stderr).toBe(`pi-session: ${join(dir, "events.jsonl")}: refused: pi's --mode json event stream (a session header and 9 events), not a session; nothing to migrate\n`);
    expect(readdirSync(dir).sort()).toEqual(["empty.jsonl", "events.jsonl"]);
  });

  it("a directory given is several files, however many it holds: --out is a directory and the report a table", async () => {
    // (decided once: the writer once took --out as a directory here but reported as for one file)
    const dir = sandbox("fused.jsonl");
    const out = join(mkdtempSync(join(tmpdir(), "pi-session-out-")), "repaired");
    const r = await cli(["repair", dir, "--out", out]);
    expect(r.exitCode).toBe(0);
    expect(readdirSync(out)).toEqual(["fused.jsonl"]);
    expect(r.stdout).toMatch(/^file +actions +dropped +result +note$/m);
    expect(r.stdout).toMatch(/fused\.jsonl +\d+ +\d+ +repaired +-> \S*repaired\/fused\./);
    expect(r.stdout.trimEnd().split("\n").pop()).toBe("1 repaired");
    // one file named: one line, and --out is that file
    const single = await cli(["repair", join(dir, "fused.jsonl"), "--out", join(out, "one.jsonl")]);
    expect(single.stdout).toMatch(/^\S*fused\.jsonl: repaired \(/m);
    expect(existsSync(join(out, "one.jsonl"))).toBe(true);
  });

  it("synthesizes a header from pi's file naming", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "pi-session-naming-")), "--home-ada-project--");
    mkdirSync(dir);
    const file = join(dir, "2026-03-25T14-55-30-705Z_a4164bfd-05d9-449a-b20b-ff8955e916de.jsonl");
    copyFileSync(fixture("no-header.jsonl"), file);
    const r = await cliJson(["repair", file]);
    expect(r.json.files[0].actions[0]).toMatchObject({ code: "header-synthesized", line: 1 });
    const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0]!);
    expect(header).toEqual({ type: "session", version: 3, id: "a4164bfd-05d9-449a-b20b-ff8955e916de", timestamp: "2026-03-25T14:55:30.705Z", cwd: "/home/ada/project" });
  });

  it("aborts and changes nothing when the file is appended to while it runs", async () => {
    const dir = sandbox("torn-last-line.jsonl");
    const file = join(dir, "torn-last-line.jsonl");
    const run = execa("node", [BIN, "repair", file, "--json"], { reject: false, env: { PI_SESSION_TEST_PAUSE_MS: "1500", NO_COLOR: "1" } });
    await new Promise((r) => setTimeout(r, 700));
    const appended = '{"type":"message","id":"late0001","parentId":"d0000001","timestamp":"2026-03-01T10:05:00.000Z","message":{"role":"user","content":"appended by pi"}}\n';
    appendFileSync(file, appended);
    const r = await run;
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(String(r.stdout)).files[0]).toMatchObject({ status: "aborted", reason: expect.stringContaining("changed while it was being rewritten") });
    expect(readFileSync(file).equals(Buffer.concat([readFileSync(fixture("torn-last-line.jsonl")), Buffer.from(appended)]))).toBe(true);
    expect(readdirSync(dir)).toEqual(["torn-last-line.jsonl"]);
  });
});

describe("crash safety", () => {
  it("SIGKILL at random moments leaves the original or the full result, and the next run cleans up", { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-crash-"));
    const originals: Record<string, string> = { migrate: join(dir, "v1.jsonl"), repair: join(dir, "corrupted.jsonl"), slim: join(dir, "bloated.jsonl") };
    largeV1(originals.migrate!, 24);
    largeCorrupted(originals.repair!, 24);
    largeBloated(originals.slim!, 24);
    const commands = ["migrate", "repair", "slim"];
    // the full results, made once without interruption
    const expected: Record<string, Buffer> = {};
    const took: Record<string, number> = {};
    for (const cmd of commands) {
      const f = join(dir, `expected-${cmd}.jsonl`);
      copyFileSync(originals[cmd]!, f);
      const started = performance.now();
      const r = await cli([cmd, f]);
      took[cmd] = performance.now() - started;
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
      // Larger than a read chunk: lines written from a reused read buffer must arrive intact.
      const checked = await cli(["check", f, "--quiet"]);
      expect(checked.exitCode, checked.stdout).toBe(0);
      expected[cmd] = readFileSync(f);
    }
    let trials = 0;
    let interrupted = 0;
    for (let t = 0; t < 24; t++) {
      const cmd = commands[t % 3]!;
      const trial = join(dir, `trial-${t}`);
      mkdirSync(trial);
      const file = join(trial, "s.jsonl");
      copyFileSync(originals[cmd]!, file);
      const before = readFileSync(file);
      const child = execa("node", [BIN, cmd, file], { reject: false });
      // somewhere in the run: from its start-up to its last writes (this machine's speed varies)
      await new Promise((r) => setTimeout(r, took[cmd]! * (0.1 + ((t * 37) % 85) / 100)));
      child.kill("SIGKILL");
      const res = await child;
      if (res.signal === "SIGKILL") interrupted++;
      trials++;
      const now = readFileSync(file);
      expect(now.equals(before) || now.equals(expected[cmd]!), `trial ${t}: the file is neither the original nor the result`).toBe(true);
      // a later run removes any temporary file the killed one left
      await cli([cmd, file]);
      expect(readdirSync(trial).filter((f) => f.endsWith(".tmp")), `trial ${t}: leftovers`).toEqual([]);
      expect(readFileSync(file).equals(expected[cmd]!)).toBe(true);
    }
    expect(trials).toBe(24);
    expect(interrupted).toBeGreaterThan(5);
    expect(existsSync(originals.migrate!)).toBe(true);
  });
});
