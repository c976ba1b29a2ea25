/**
 * One verdict per session (docs/commands.md, "One verdict"): every command that states a session's health
 * states the one `check` finds. On damaged files of every kind (the fixtures, the corpus, real
 * sessions with a line lost, sessions pi's own SessionManager writes with context edits, a session
 * repeated in its own file), `ls`, `show` and `check` give each the same error count, and a session
 * some leaf of which pi sends with a broken pairing is never `ok`. A finding another explains is
 * said under it (`causedBy`), so one damage is one error with one command to run; `--json` keeps
 * every finding.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { cli, cliJson } from "../helpers/cli.js";
import { generateSession } from "../helpers/generate.js";
import { corpusFiles, fixture, fixtureFiles } from "../helpers/paths.js";
import { sentBreaks } from "../helpers/pi.js";

const EARTH = corpusFiles().find((f) => f.includes("earth-0"))!;

/** What a command prints on a terminal of `columns` (stdout a TTY of that width, in this process). */
async function onTerminal(args: string[], columns: number): Promise<string> {
  const chunks: Buffer[] = [];
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns });
  stdout.on("data", (c: Buffer) => chunks.push(c));
  const stderr = new PassThrough();
  stderr.resume();
  await main(args, { stdout, stderr, env: { NO_COLOR: "1", XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), "pi-session-verdict-cache-")) } });
  return Buffer.concat(chunks).toString("utf8");
}

/** A real session with one line taken out (its 0-based index). */
function withLineLost(dir: string, source: string, index: number): string {
  const lines = readFileSync(source, "utf8").split("\n");
  lines.splice(index, 1);
  const file = join(dir, `${basename(source, ".jsonl")}-lost-${index}.jsonl`);
  writeFileSync(file, lines.join("\n"));
  return file;
}

/** A store of damaged sessions, one a project folder so that `ls` lists each as pi would. */
function damagedStore(): { dir: string; files: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-verdict-"));
  const scratch = mkdtempSync(join(tmpdir(), "pi-session-verdict-src-"));
  const sources = [
    ...fixtureFiles().filter((f) => f.endsWith(".jsonl")),
    ...corpusFiles(),
    // the assistant line holding two calls lost (its results stay: every request is refused)
    withLineLost(scratch, EARTH, 7),
    withLineLost(scratch, EARTH, 12),
    ...[2, 5, 8, 13, 21].map((seed) => generateSession({ seed, dir: mkdtempSync(join(scratch, "g-")), steps: 80 })),
  ];
  const files = sources.map((source, i) => {
    const project = join(dir, `--p${i}--`);
    mkdirSync(project);
    const file = join(project, basename(source));
    copyFileSync(source, file);
    return file;
  });
  return { dir, files };
}

describe("one verdict", () => {
  it("ls, show and check give every damaged session the same error count; one pi sends broken is never ok", async () => {
    const { dir, files } = damagedStore();
    const cache = mkdtempSync(join(tmpdir(), "pi-session-verdict-cache-"));
    const listed = await cliJson(["ls", dir], { env: { XDG_CACHE_HOME: cache } });
    const warm = await cliJson(["ls", dir], { env: { XDG_CACHE_HOME: cache } });
    expect(warm.json.sessions).toEqual(listed.json.sessions);
    const row = (file: string) => listed.json.sessions.find((s: { path: string }) => s.path === file);
    let invalid = 0;
    let brokenPairing = 0;
    // (check of the store once, each file's report by its path: a spawn a file was most of the test's time on a loaded machine)
    const reports = new Map((await cliJson(["check", dir])).json.files.map((f: { file: string }) => [f.file, f]));
    for (const file of files) {
      const report = reports.get(file) as any;
      if (!report) continue; // (not readable as a session: ls says so, check says why on stderr)
      const r = row(file);
      expect(r, file).toBeDefined();
      if (r.status.startsWith("not a session")) continue;
      expect(r.errors, `${basename(file)}: ls`).toBe(report.errors);
      expect(r.status, basename(file)).toEqual(report.errors === 0 ? expect.stringMatching(/^(ok|needs-migrate)$/) : report.errors === 1 ? "invalid: 1 error" : `invalid: ${report.errors} errors`);
      const shown = await cliJson(["show", file]);
      expect(shown.json.problems.errors, `${basename(file)}: show`).toBe(report.errors);
      if (report.errors > 0) invalid++;
      // (a v1 file is judged once migrated, as pi reads it)
      // (pi's own walk loops forever on a parent cycle, and crashes on a message without a role: those are judged by check alone)
      const piCannot = report.findings.some((f: { code: string }) => ["parent-cycle", "parent-self", "message-invalid"].includes(f.code));
      if (report.version !== null && report.version >= 2 && !piCannot && sentBreaks(file).size > 0) {
        brokenPairing++;
        expect(r.status, `${basename(file)}: pi sends a broken pairing`).toMatch(/^invalid: /);
        expect((await cliJson(["check", file])).exitCode).toBe(1);
      }
    }
    // (the store holds both kinds: not an empty test)
    expect(invalid).toBeGreaterThan(10);
    expect(brokenPairing).toBeGreaterThan(3);
  }, 120_000);

  it("one lost line is one error: the missing parent, escalated, with the results it leaves without a call under it", async () => {
    const file = withLineLost(mkdtempSync(join(tmpdir(), "pi-session-verdict-")), EARTH, 7);
    const { json, exitCode } = await cliJson(["check", file]);
    expect(exitCode).toBe(1);
    const findings = json.files[0].findings as Array<{ code: string; severity: string; line: number; causedBy?: { code: string; line: number }; callId?: string }>;
    const root = findings.find((f) => f.code === "parent-missing")!;
    expect(root).toMatchObject({ severity: "error", line: 8 });
    expect(root.causedBy).toBeUndefined();
    const orphans = findings.filter((f) => f.code === "tool-result-orphan");
    expect(orphans.map((f) => [f.line, f.causedBy, typeof f.callId])).toEqual([
      [8, { code: "parent-missing", line: 8 }, "string"],
      [9, { code: "parent-missing", line: 8 }, "string"],
    ]);
    expect(json.files[0].errors).toBe(1);
    const human = await cli(["check", file]);
    expect(human.stdout).toBe(
      `${file}:8: error parent-missing: parent \`bffc359c\` does not exist; the entry is shown as a root\n` +
        `    ↳ 2 × error tool-result-orphan (lines 8-9): the result for \`${orphans[0]!.callId}\` has no call before it on its branch\n` +
        `  next: pi-session repair ${file}\n` +
        `${file}: invalid (1 error, 0 warnings)\n` +
        "checked 1 file: 1 invalid, 1 error, 0 warnings\n",
    );
  });

  it("a torn line is said once: the parent and the calls it held are said under it, with its advice", async () => {
    const { json } = await cliJson(["check", fixture("pairing-torn-call.jsonl")]);
    const findings = json.files[0].findings as Array<{ code: string; line: number; causedBy?: { code: string; line: number } }>;
    expect(findings.filter((f) => !f.causedBy).map((f) => `${f.line}:${f.code}`)).toEqual(["13:line-invalid-json", "18:tool-call-unanswered"]);
    expect(findings.filter((f) => f.causedBy).map((f) => `${f.line}:${f.code}<-${f.causedBy!.line}:${f.causedBy!.code}`)).toEqual([
      "14:parent-missing<-13:line-invalid-json",
      "14:tool-result-orphan<-13:line-invalid-json",
      "15:tool-result-orphan<-13:line-invalid-json",
    ]);
    expect(json.files[0].errors).toBe(1);
    // on an 80-column terminal each line fits, a finding is at most two lines, and the command to run is whole on a line of its own
    // (named as a user in the clone names it: a path whose length does not depend on where the clone lies)
    const narrow = await onTerminal(["check", relative(process.cwd(), fixture("pairing-torn-call.jsonl"))], 80);
    for (const line of narrow.split("\n")) expect([...line].length, line).toBeLessThanOrEqual(80);
    // (a path longer than the room is never broken: the only lines past the width are the place and the command, whole)
    const long = await onTerminal(["check", fixture("pairing-torn-call.jsonl")], 80);
    for (const line of long.split("\n")) if ([...line].length > 80) expect(line).toMatch(/^( {2}next: pi-session repair \S+|\S+:\d+:)$/);
    expect(long).toContain(`\n  next: pi-session repair ${fixture("pairing-torn-call.jsonl")}\n`);
    expect(narrow).toMatch(/\n {2}next: pi-session repair \S*pairing-torn-call\.jsonl\n/);
    // (a finding starts a line, or is one under its cause; what follows it indented is its wrapped rest)
    let longest = 0;
    let run = 0;
    for (const line of narrow.trimEnd().split("\n")) {
      const starts = !line.startsWith(" ") || line.startsWith("    ↳") || line.startsWith("  next:");
      run = starts ? 1 : run + 1;
      longest = Math.max(longest, run);
    }
    expect(longest, narrow).toBeLessThanOrEqual(2);
  });

  it("the next steps are said in the order they can be run: a v1 file with a fused line is repaired, then migrated (migrate refuses it before), in check and show alike", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-verdict-"));
    const file = join(dir, "v1fused.jsonl");
    const lines = readFileSync(fixture("v1.jsonl"), "utf8").split("\n").filter(Boolean);
    writeFileSync(file, [...lines.slice(0, 2), lines[2]! + lines[3]!, ...lines.slice(4)].map((l) => `${l}\n`).join(""));
    const steps = (out: string) => [...out.matchAll(/next: (pi-session \S+)/g)].map((m) => m[1]);
    const checked = await cli(["check", file]);
    expect(checked.exitCode).toBe(1);
    expect(steps(checked.stdout)).toEqual(["pi-session repair", "pi-session migrate"]);
    expect(steps((await cli(["show", file])).stdout)).toEqual(["pi-session repair", "pi-session migrate"]);
    // (and so they run: migrate first is refused; repair, then migrate, leaves a valid v3 session)
    expect((await cli(["migrate", file])).exitCode).toBe(1);
    expect((await cli(["repair", file])).exitCode).toBe(0);
    expect((await cli(["migrate", file])).exitCode).toBe(0);
    expect((await cli(["check", file])).exitCode).toBe(0);
  });

  it("a session repeated 160 times in its file: check says it in one line and prints a screenful; --json keeps every finding", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-verdict-"));
    // (a small real session, 13 lines: 160 copies are 1.7 MB, each run a fraction of a second; the
    // 330 KB one this took made 52 MB, five runs of 2 s of CPU each, past a minute on a loaded machine)
    const one = readFileSync(corpusFiles().find((f) => f.includes("idaho-vault"))!);
    const file = join(dir, "repeated.jsonl");
    writeFileSync(file, Buffer.concat(Array.from({ length: 160 }, () => one)));
    const lines = one.toString("utf8").trimEnd().split("\n").length;
    const n = (k: number) => k.toLocaleString("en-US");
    const human = await cli(["check", file]);
    expect(human.exitCode).toBe(1);
    expect(human.stdout.trimEnd().split("\n").length).toBeLessThanOrEqual(24);
    expect(human.stdout).toContain(`${file}:${lines + 1}: error lines-repeated: lines ${lines + 1}-${n(160 * lines)} repeat lines 1-${lines}: the session is in this file 160 times\n`);
    expect(human.stdout).toContain(`${file}: invalid (1 error, 0 warnings)\n`);
    expect((await cli(["check", "-q", file])).stdout.trimEnd().split("\n").length).toBeLessThanOrEqual(6);
    const { json } = await cliJson(["check", file]);
    const findings = json.files[0].findings as Array<{ code: string; causedBy?: { code: string } }>;
    expect(findings.filter((f) => f.code === "id-duplicate")).toHaveLength(159 * (lines - 1));
    expect(findings.filter((f) => !f.causedBy).map((f) => f.code)).toEqual(["lines-repeated"]);
    const ls = await cliJson(["ls", dir, "--no-cache"]);
    expect(ls.json.sessions[0]).toMatchObject({ status: "invalid: 1 error", errors: 1 });
    // repair says what it does the same way: a line a kind of action, and the session once
    const repaired = await cli(["repair", file]);
    expect(repaired.exitCode).toBe(0);
    expect(repaired.stdout.trimEnd().split("\n").length).toBeLessThanOrEqual(4);
    expect(repaired.stdout).toContain(`:${lines + 2}: duplicate-dropped (${n(159 * (lines - 1))}, lines ${lines + 2}-${n(160 * lines)}): `);
    expect(readFileSync(file).equals(one)).toBe(true);
  });
});
