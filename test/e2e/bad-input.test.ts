/**
 * Bad input, each with a clear one-line message, a documented exit code, and the file left as it
 * was: read-only commands never write (pi itself appends a newline to a file that lacks one).
 */
import { execa } from "execa";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { BIN, FIXTURES, fixture } from "../helpers/paths.js";

const READ_COMMANDS = [["show"], ["tree"], ["path"], ["path", "--leaves"], ["context"]] as const;
const run = (cmd: readonly string[], file: string, extra: string[] = []) => cli([cmd[0], file, ...cmd.slice(1), ...extra]);

/** One line on stderr that names the file (and the line, when there is one) and says what to do. */
function expectOneLineError(stderr: string, file: string) {
  const lines = stderr.trimEnd().split("\n");
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^pi-session: /);
  expect(lines[0]).toContain(file);
  expect(lines[0]).toMatch(/run `pi-session|check the|give a|restore|delete/);
}

describe("input that cannot be read", () => {
  it.each(READ_COMMANDS)("%s: a missing file is exit 2", async (...cmd) => {
    const r = await run(cmd, "/nonexistent/dir/s.jsonl");
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expectOneLineError(r.stderr, "/nonexistent/dir/s.jsonl");
  });

  it.each(READ_COMMANDS)("%s: a directory is exit 2 with a pointer to ls", async (...cmd) => {
    const r = await run(cmd, FIXTURES);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("is a directory; give a session file (run `pi-session ls");
  });

  it.each(READ_COMMANDS)("%s: an empty file is exit 2", async (...cmd) => {
    const r = await run(cmd, fixture("empty.jsonl"));
    expect(r.exitCode).toBe(2);
    expectOneLineError(r.stderr, "empty.jsonl");
    expect(r.stderr).toContain("the file is empty");
  });

  it.each(READ_COMMANDS)("%s: a binary file is exit 2, naming the line", async (...cmd) => {
    const r = await run(cmd, fixture("binary.bin"));
    expect(r.exitCode).toBe(2);
    expectOneLineError(r.stderr, "binary.bin:1: not a pi session file");
  });

  it.each(READ_COMMANDS)("%s: a pi --mode json event stream is not a session", async (...cmd) => {
    const r = await run(cmd, fixture("events.jsonl"));
    expect(r.exitCode).toBe(2);
    expectOneLineError(r.stderr, "events.jsonl:1: not a pi session file: pi's --mode json event stream");
  });

  it("check reports the same inputs as findings (exit 1) or unreadable (exit 2)", async () => {
    const empty = await cliJson(["check", fixture("empty.jsonl"), fixture("binary.bin"), fixture("events.jsonl")]);
    expect(empty.exitCode).toBe(1);
    // each file that holds no session gets one finding, and only that one
    expect(empty.json.files.map((f: { findings: Array<{ code: string }> }) => f.findings.map((x) => x.code))).toEqual([["file-empty"], ["file-not-session"], ["file-event-stream"]]);
    const human = await cli(["check", fixture("events.jsonl")]);
    expect(human.stdout).toMatch(/events\.jsonl:1: error file-event-stream: pi's --mode json event stream \(a session header and 9 events\), not a session/);
    expect(human.stdout).toContain("events.jsonl: not a session (1 error, 0 warnings)");
    const missing = await cli(["check", fixture("linear.jsonl"), "/nonexistent.jsonl"]);
    expect(missing.exitCode).toBe(2);
    expectOneLineError(missing.stderr, "/nonexistent.jsonl");
  });

  describe("without permission", () => {
    let file: string;
    // Root reads anything: as root, the command runs without the two capabilities that let it
    // (setpriv, from util-linux), so the file's mode applies to it as to anyone. It keeps root's
    // uid, so it still reaches the checkout and the scratch directory whatever their modes (a
    // clone in a 0700 directory made by mktemp, say); running it as another user would not.
    const asRoot = process.getuid?.() === 0;
    const DROP = "-dac_override,-dac_read_search";
    const setpriv = asRoot ? ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p)) : undefined;
    const denied = (args: string[]) => (asRoot ? execa(setpriv!, [`--bounding-set=${DROP}`, "--inh-caps", DROP, "node", BIN, ...args], { reject: false, env: { NO_COLOR: "1" } }) : cli(args));
    beforeAll(() => {
      if (asRoot && !setpriv) throw new Error("running as root, the permission test needs setpriv (Debian's util-linux) to drop root's read-anything capabilities");
      const dir = mkdtempSync(join(tmpdir(), "pi-session-perm-"));
      file = join(dir, "secret.jsonl");
      copyFileSync(fixture("linear.jsonl"), file);
      chmodSync(file, 0o000);
    });
    afterAll(() => chmodSync(file, 0o600));

    it.each(READ_COMMANDS)("%s: exit 2, permission denied", async (...cmd) => {
      const r = await denied([cmd[0], file, ...cmd.slice(1)]);
      expect(r.exitCode).toBe(2);
      expectOneLineError(String(r.stderr), file);
      expect(String(r.stderr)).toContain("permission denied");
    });

    it.each(["repair", "migrate", "slim", "repair --check"])("%s: the writers say it on stderr, one line, exit 2, nothing on stdout", async (command) => {
      const [cmd, ...rest] = command.split(" ");
      const r = await denied([cmd!, file, ...rest]);
      expect(r.exitCode).toBe(2);
      expect(String(r.stdout)).toBe("");
      expectOneLineError(String(r.stderr), file);
      expect(String(r.stderr)).toContain("permission denied; check the file's permissions");
    });
  });
});

describe("corrupted sessions are shown as pi reads them, with what was skipped on stderr", () => {
  it.each([
    ["torn-last-line.jsonl", 5],
    ["fused.jsonl", 3],
    ["nul-bytes.jsonl", 3],
    ["garbage-lines.jsonl", 4],
  ])("%s: output, exit 0, a warning naming line %i", async (name, line) => {
    const r = await cli(["tree", fixture(name)]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("d0000001");
    expect(r.stderr).toMatch(new RegExp(`^pi-session: .*${name.replace(".", "\\.")}:${line}: skipped \\d+ unreadable lines? \\(lines? ${line}[,)].*run \`pi-session check`));
  });

  it("duplicate ids resolve to the last holder and are reported", async () => {
    const r = await cli(["path", fixture("duplicate-ids.jsonl"), "d0000002"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("different content, same id");
    // The repeated id also closes a parent loop (d0000003 -> the last d0000002 -> d0000003): said
    // under the id held twice, its cause; the first error is named, and check gives the count.
    expect(r.stderr).toMatch(/duplicate-ids\.jsonl:5: id-duplicate: line 5 repeats line 3 exactly .*run `pi-session check/);
    const check = await cliJson(["check", fixture("duplicate-ids.jsonl")]);
    expect(check.json.files[0].findings.map((f: { code: string }) => f.code)).toEqual(expect.arrayContaining(["id-duplicate", "parent-cycle"]));
    expect(check.json.files[0].findings.find((f: { code: string }) => f.code === "parent-cycle").causedBy).toEqual({ code: "id-duplicate", line: 6 });
    expect(check.json.files[0].errors).toBe(2);
    const show = await cli(["show", fixture("duplicate-ids.jsonl")]);
    expect(show.stderr).toMatch(/duplicate-ids\.jsonl:5: invalid: 2 errors \(id-duplicate\)/);
  });

  it("orphans are roots", async () => {
    const { json } = await cliJson(["tree", fixture("orphans.jsonl")]);
    expect(json.roots).toEqual(["d0000001", "d0000004"]);
    const human = await cli(["tree", fixture("orphans.jsonl")]);
    expect(human.stdout).toMatch(/^── root 1 of 2 ──\nd0000001 user one\n[\s\S]*\n\n── root 2 of 2 ──\nd0000004 user orphan/);
    // (in colour, each root's line is dimmed on its own line: the blank line before it is not)
    const coloured = await cli(["tree", fixture("orphans.jsonl")], { env: { NO_COLOR: undefined, FORCE_COLOR: "1" } });
    expect(coloured.stdout).toContain("\n\n\u001b[2m── root 2 of 2 ──\u001b[22m\n");
  });

  it("a parent cycle finishes promptly (pi loops forever) and is reported", async () => {
    const started = Date.now();
    for (const cmd of READ_COMMANDS) {
      const r = await run(cmd, fixture("cycle.jsonl"), ["--json"]);
      expect(r.exitCode, cmd.join(" ")).toBe(0);
      // (show judges the whole verdict and gives check's count; the tree's shape alone names the first error)
      expect(r.stderr).toMatch(cmd[0] === "show" ? /cycle\.jsonl:3: invalid: 2 errors \(parent-cycle\)/ : /cycle\.jsonl:3: parent-cycle: parent links from here form a cycle/);
    }
    const ctx = await cliJson(["context", fixture("cycle.jsonl"), "--leaf", "d0000003"]);
    expect(ctx.json.messages.map((m: { content: Array<{ text: string }> }) => m.content[0]!.text)).toEqual(["cycle a", "cycle b"]);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("a header-only file has no entries", async () => {
    const tree = await cli(["tree", fixture("header-only.jsonl")]);
    expect(tree).toMatchObject({ exitCode: 0, stdout: "(no entries)\n", stderr: "" });
    const ctx = await cliJson(["context", fixture("header-only.jsonl")]);
    expect(ctx.json).toEqual({ messages: [], thinkingLevel: "off", model: null, activeToolNames: null });
  });

  it("a file without a header is read, and said to be refused by pi", async () => {
    const r = await cli(["context", fixture("no-header.jsonl")]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("three");
    expect(r.stderr).toMatch(/no-header\.jsonl:1: header-missing: no session header; run `pi-session check/);
  });

  it("a newer version is read and flagged", async () => {
    const r = await cli(["check", fixture("newer-version.jsonl")]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("newer-version.jsonl:1: error version-unsupported: version 4 is newer than the supported 3\n  next: npm install -g pi-session@latest\n");
  });
});

describe("scale", () => {
  let big: string;
  beforeAll(() => {
    big = join(mkdtempSync(join(tmpdir(), "pi-session-big-")), "linear-100k.jsonl");
    const lines = [JSON.stringify({ type: "session", version: 3, id: "big", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" })];
    for (let i = 0; i < 100_000; i++) {
      lines.push(JSON.stringify({ type: "message", id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, timestamp: "2026-01-01T00:00:00.000Z", message: { role: i % 2 ? "assistant" : "user", content: `m${i}` } }));
    }
    writeFileSync(big, lines.join("\n") + "\n");
  });

  it("a 100k-entry linear session: tree, path, context, check and show all finish", async () => {
    const tree = await cliJson(["tree", big]);
    expect(tree.exitCode).toBe(0);
    expect(tree.json.nodes).toHaveLength(100_000);
    expect(tree.json.nodes[99_999].depth).toBe(99_999);
    const path = await cliJson(["path", big]);
    expect(path.json.entries).toHaveLength(100_000);
    const ctx = await cliJson(["context", big]);
    expect(ctx.json.messages).toHaveLength(100_000);
    const check = await cli(["check", big]);
    expect(check.exitCode).toBe(0);
    const show = await cliJson(["show", big]);
    expect(show.json.leaves).toHaveLength(1);
    expect(show.json.leaves[0].depth).toBe(99_999);
  });
});

describe("read-only commands never write", () => {
  it("every command leaves every fixture byte-for-byte, mtime included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-ro-"));
    const names = ["no-final-newline.jsonl", "v1.jsonl", "v2-hook.jsonl", "torn-last-line.jsonl", "crlf-bom.jsonl"];
    for (const name of names) {
      const file = join(dir, name);
      copyFileSync(fixture(name), file);
      const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
      for (const cmd of [...READ_COMMANDS, ["check"]]) await run(cmd, file);
      await cli(["ls", dir]);
      expect(readFileSync(file).equals(before.bytes), name).toBe(true);
      expect(statSync(file).mtimeMs).toBe(before.mtime);
    }
  });
});

describe("stdin", () => {
  it("- reads the session from standard input", async () => {
    const r = await cliJson(["path", "-"], { inputFile: fixture("branched.jsonl") });
    expect(r.exitCode).toBe(0);
    expect(r.json.leaf).toBe("b000000b");
    const check = await cli(["check", "-"], { inputFile: fixture("cycle.jsonl") });
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toContain("<stdin>:3: error parent-cycle");
  });
});

describe("a command line that reads badly gets a message that says what was wrong", () => {
  it("an option of one value given twice says so by the values, however the option checks its value (tail -n 2 -n 3)", async () => {
    const r = await cli(["tail", fixture("linear.jsonl"), "-n", "2", "-n", "3"]);
    expect(r).toMatchObject({ exitCode: 2, stdout: "" });
    expect(r.stderr).toBe("pi-session: -n given 2 times (2, 3): it takes one value; give it once\n");
    const limit = await cli(["ls", FIXTURES, "--limit", "2", "--limit=3"]);
    expect(limit.stderr).toBe("pi-session: --limit given 2 times (2, 3): it takes one value; give it once\n");
  });

  it("a value that starts with - and a digit is its option's, and the option says what is wrong with it (archive --older-than -1d)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-badargs-"));
    copyFileSync(fixture("linear.jsonl"), join(dir, "linear.jsonl"));
    for (const command of ["archive", "ls"]) {
      const r = await cli([command, dir, "--older-than", "-1d", ...(command === "archive" ? ["--dry-run"] : [])]);
      expect(r, command).toMatchObject({ exitCode: 2, stdout: "" });
      expect(r.stderr, command).toBe('pi-session: --older-than "-1d": give an age (12h, 7d, 4w, 3m, 1y) or a date (2026-03-01)\n');
    }
    const lines = await cli(["tail", fixture("linear.jsonl"), "-n", "-1d"]);
    expect(lines.stderr).toBe('pi-session: --lines takes a whole number >= 0 (e.g. --lines 10), got "-1d"; see pi-session --help\n');
    // (a pattern that starts with - and a digit is still grep's, with -e)
    expect((await cli(["grep", "-c", "-e", "-1d", fixture("linear.jsonl")])).stderr).toBe("");
  });

  it("an option that takes a value given none is a usage error naming it and what it takes, never an empty value used (archive --dry-run --to)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-badargs-"));
    copyFileSync(fixture("linear.jsonl"), join(dir, "linear.jsonl"));
    const cases: Array<[string[], string]> = [
      [["archive", dir, "--older-than", "1d", "--dry-run", "--to"], "--to needs a value (DIR): e.g. --to DIR; see pi-session archive --help"],
      [["archive", dir, "--to", "--dry-run", "--older-than", "1d"], "--to needs a value (DIR), and --dry-run is an option: e.g. --to DIR; see pi-session archive --help"],
      [["archive", dir, "--to=", "--older-than", "1d"], "--to needs a value (DIR): e.g. --to DIR; see pi-session archive --help"],
      [["ls", dir, "--limit"], "--limit needs a value (N): e.g. --limit N; see pi-session ls --help"],
      [["tail", fixture("linear.jsonl"), "-n"], "-n needs a value (N): e.g. -n N; see pi-session tail --help"],
      [["usage", dir, "--by"], "--by needs a value (one of day, week, month, session, project, model, agent, key, job, channel, kind): e.g. --by day; see pi-session usage --help"],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args, { cwd: dir });
      expect(r, args.join(" ")).toMatchObject({ exitCode: 2, stdout: "" });
      expect(r.stderr, args.join(" ")).toBe(`pi-session: ${message}\n`);
    }
    // (nothing was archived, into the current folder or anywhere)
    expect(readdirSync(dir)).toEqual(["linear.jsonl"]);
  });

  it("ls FILE lists that one session (as ls(1) lists a file), by its path or its id; ls of neither says so", async () => {
    const r = await cliJson(["ls", fixture("tools.jsonl")]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json.sessions.map((s: { path: string }) => s.path)).toEqual([fixture("tools.jsonl")]);
    expect(r.json.sessions[0].status).toBe((await cliJson(["ls", FIXTURES])).json.sessions.find((s: { path: string }) => s.path === fixture("tools.jsonl")).status);
    const human = await cli(["ls", fixture("tools.jsonl")]);
    expect(human.stdout.trim().split("\n")).toHaveLength(2);
    expect(human.stdout.split("\n")[1]).toMatch(/^7001a2b3-c4d5-4e6f-8a9b-0c1d2e3f4a5b\s/);
    const dir = mkdtempSync(join(tmpdir(), "pi-session-lsid-"));
    copyFileSync(fixture("linear.jsonl"), join(dir, "2026-03-01T10-00-00-000Z_0f1e2d3c-0000-4000-8000-000000000001.jsonl"));
    const byId = await cliJson(["ls", "0f1e2d3c", "--session-dir", dir]);
    expect(byId.json.sessions.map((s: { id: string }) => s.id)).toEqual(["0f1e2d3c-0000-4000-8000-000000000001"]);
    const neither = await cli(["ls", join(dir, "nothing-here")]);
    expect(neither).toMatchObject({ exitCode: 2, stdout: "" });
    expect(neither.stderr).toBe(`pi-session: ${join(dir, "nothing-here")}: no such directory, nor a session of that id; pass a directory to list, or --session-dir\n`);
  });
});
