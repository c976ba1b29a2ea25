/**
 * The package as users get it and wire it into scripts and CI: the packed tarball installed into a
 * temporary prefix (no install scripts, no devDependencies) and run from outside the repository;
 * `--jsonl` for list-shaped output; `--format github` annotations, escaped; and the usage errors
 * for options that do not go together.
 */
import { execa } from "execa";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { header, jsonl, user } from "../helpers/builders.js";
import { cli, cliJson } from "../helpers/cli.js";
import { BIN, fixture, ROOT } from "../helpers/paths.js";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

describe("the installed package", () => {
  it("installs from its tarball without install scripts or devDependencies, and works from any directory", async () => {
    const work = mkdtempSync(join(tmpdir(), "pi-session-pack-"));
    // the build is there already (npm test builds first): pack it as it is
    const packed = await execa("npm", ["pack", "--ignore-scripts", "--pack-destination", work], { cwd: ROOT });
    const tarball = join(work, packed.stdout.trim().split("\n").pop()!);
    const prefix = join(work, "prefix");
    await execa("npm", ["install", "--global", "--prefix", prefix, "--ignore-scripts", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline", tarball], { cwd: work });
    const installed = readdirSync(join(prefix, "lib/node_modules/pi-session/node_modules"));
    expect(installed).not.toContain("vitest");
    expect(installed).not.toContain("@earendil-works");
    const bin = join(prefix, "bin/pi-session");
    const elsewhere = mkdtempSync(join(tmpdir(), "pi-session-elsewhere-"));
    const run = (args: string[]) => execa(bin, args, { cwd: elsewhere, reject: false, env: { NO_COLOR: "1", XDG_CACHE_HOME: join(work, "cache") } });

    expect((await run(["--version"])).stdout.trim()).toBe(VERSION);
    const help = await run(["--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain("pi-session <command> [options]");
    copyFileSync(fixture("fused.jsonl"), join(elsewhere, "fused.jsonl"));
    copyFileSync(fixture("linear.jsonl"), join(elsewhere, "linear.jsonl"));
    expect((await run(["check", "linear.jsonl"])).exitCode).toBe(0);
    const broken = await run(["check", "fused.jsonl"]);
    expect(broken.exitCode).toBe(1);
    expect(broken.stdout).toContain("fused.jsonl:3: error line-fused");
    const exported = await run(["export", "linear.jsonl", "-o", "branch.md"]);
    expect(exported.exitCode).toBe(0);
    expect(readFileSync(join(elsewhere, "branch.md"), "utf8")).toMatch(/^# /);
  }, 180_000);

  it("says its version from any directory, as the source checkout does", async () => {
    const r = await execa("node", [BIN, "--version"], { cwd: tmpdir() });
    expect(r.stdout.trim()).toBe(VERSION);
  });
});

describe("--jsonl", () => {
  const lines = (stdout: string) => stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);

  it("ls: a session a line, the same rows as --json", async () => {
    const dir = fixture(".");
    const asJson = (await cliJson(["ls", dir])).json;
    const r = await cli(["ls", dir, "--jsonl"]);
    expect(r.exitCode).toBe(0);
    expect(lines(r.stdout)).toEqual(asJson.sessions);
  });

  it("check: a finding a line with its file; the exit code as documented", async () => {
    const files = [fixture("fused.jsonl"), fixture("linear.jsonl"), fixture("orphans.jsonl")];
    const asJson = (await cliJson(["check", ...files])).json;
    const r = await cli(["check", ...files, "--jsonl"]);
    expect(r.exitCode).toBe(1);
    expect(lines(r.stdout)).toEqual(asJson.files.flatMap((f: { file: string; findings: object[] }) => f.findings.map((x) => ({ file: f.file, ...x }))));
  });

  it("path, path --leaves and tree: an entry, a leaf, a node a line", async () => {
    const file = fixture("branched.jsonl");
    expect(lines((await cli(["path", file, "--jsonl"])).stdout)).toEqual((await cliJson(["path", file])).json.entries);
    expect(lines((await cli(["path", file, "--leaves", "--jsonl"])).stdout)).toEqual((await cliJson(["path", file, "--leaves"])).json.leaves);
    expect(lines((await cli(["tree", file, "--jsonl"])).stdout)).toEqual((await cliJson(["tree", file])).json.nodes);
  });

  it("context: the settings first, then a message a line", async () => {
    const file = fixture("compacted.jsonl");
    const { messages, ...settings } = (await cliJson(["context", file])).json;
    expect(lines((await cli(["context", file, "--jsonl"])).stdout)).toEqual([settings, ...messages]);
  });
});

describe("--format github", () => {
  it("check: one annotation a finding on its file and line, the text escaped so that it cannot issue a command", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-gh-"));
    const file = join(dir, "s,1:x.jsonl");
    const hostile = "evil::error file=/etc/passwd::pwned 100%\r\n::warning::again";
    writeFileSync(file, jsonl(header(), user("u0000001", null, "hi"), { type: hostile, id: "x0000001", parentId: "u0000001", timestamp: "2026-01-01T00:00:00.000Z" }, "not json"));
    // (a note, info, is annotated with --verbose alone: CI wants what fails or may)
    const plain = await cli(["check", file, "--format", "github"]);
    expect(plain.exitCode).toBe(1);
    expect(plain.stdout.split("\n").filter((l) => l.startsWith("::")).map((l) => l.slice(0, l.indexOf(" ")))).toEqual(["::error"]);
    const r = await cli(["check", file, "--format", "github", "--verbose"]);
    expect(r.exitCode).toBe(1);
    const out = r.stdout.trimEnd().split("\n");
    const annotations = out.filter((l) => l.startsWith("::"));
    expect(annotations).toHaveLength(2);
    const escapedFile = file.replace(/:/g, "%3A").replace(/,/g, "%2C");
    expect(annotations[0]).toBe(`::notice file=${escapedFile},line=3,title=entry-unknown-type::unknown entry type \`evil::error file=/etc/passwd::pwned 100%25%0D%0A::warning::again\` (kept and shown; pi ignores it in the context)`);
    expect(annotations[1]).toMatch(new RegExp(`^::error file=${escapedFile.replace(/[.%]/g, "\\$&")},line=4,title=line-invalid-json::the line is not valid JSON and holds no record`));
    // every other line is the summary: nothing in the session's text started a line
    expect(out.filter((l) => !l.startsWith("::"))).toEqual(["checked 1 file: 1 invalid, 1 error, 0 warnings"]);
  });

  it("a refusal is annotated on the line its reason names (else the file's first): GitHub shows it there", async () => {
    const r = await cli(["migrate", fixture("fused.jsonl"), fixture("newer-version.jsonl"), "--check", "--format", "github"]);
    const lines = r.stdout.split("\n").filter((l) => l.startsWith("::error"));
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^::error file=${fixture("fused.jsonl").replace(/[.]/g, "\\.")},line=3,title=refused::damaged \\(line 3`)),
      expect.stringMatching(new RegExp(`^::error file=${fixture("newer-version.jsonl").replace(/[.]/g, "\\.")},line=1,title=refused::version 4 is newer`)),
    ]);
  });

  it("migrate --check and repair --check annotate the files and lines left to change", async () => {
    const m = await cli(["migrate", fixture("v1.jsonl"), "--check", "--format", "github"]);
    expect(m.exitCode).toBe(1);
    expect(m.stdout).toBe(`::error file=${fixture("v1.jsonl")},line=1,title=needs-migrate::needs migrating v1 -> v3; run \`pi-session migrate ${fixture("v1.jsonl")}\`\n1 needs migrating\n`);
    const r = await cli(["repair", fixture("fused.jsonl"), "--check", "--format", "github"]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout.split("\n").filter((l) => l.startsWith("::"))).toEqual([
      `::warning file=${fixture("fused.jsonl")},line=3,title=fused-split::kept the record that follows a torn write, on a line of its own`,
      `::error file=${fixture("fused.jsonl")},line=3,title=fragment-dropped::dropped a torn fragment (50 characters) from the line`,
      `::warning file=${fixture("fused.jsonl")},line=3,title=parent-reattached::parent d0000002 does not exist: re-attached to d0000001`,
    ]);
  });
});

describe("options that do not go together: exit 2, naming them", () => {
  const cases: Array<[string[], RegExp]> = [
    [["ls", fixture("."), "--json", "--jsonl"], /--json and --jsonl conflict/],
    [["show", fixture("linear.jsonl"), "--jsonl"], /--jsonl is for the commands whose output is a list \(ls, tree, path, context, check, redact, tail, archive, restore, usage, grep, search\); `show` prints one document: use --json/],
    [["ls", fixture("."), "--format", "github"], /--format github is for the commands that report findings \(check, migrate --check, repair --check, slim --check, redact --check\); `ls` has none to annotate/],
    [["export", fixture("linear.jsonl"), "--format=github"], /`export` has none to annotate/],
    [["migrate", fixture("v1.jsonl"), "--format", "github"], /--format github goes with --check for `migrate`/],
    [["check", fixture("linear.jsonl"), "--format", "github", "--json"], /--format github and --json conflict/],
  ];
  for (const [args, message] of cases) {
    it(args.filter((a) => a.startsWith("-")).join(" ") + ` (${args[0]})`, async () => {
      const r = await cli(args);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    });
  }
});
