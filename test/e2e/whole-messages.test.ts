/**
 * A long message read whole (README: piped output is whole): `context` and `show FILE ENTRY` piped
 * print every line of a long tool result, as the file holds it; on a terminal they fold it (its
 * first lines, then how many more and that `--full` shows them), and `--full` draws it whole there
 * too. `diff` compares contexts whole, so that one line changed past a fold is a difference. The
 * session is a real one (the corpus's earth-0, whose line 9 is a tool result of 166 lines), copied
 * and changed here on one line of that result; the oracle for what the model sees is the file's own
 * text, read here with JSON.parse.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { applyPatch } from "diff";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { cli, cliJson } from "../helpers/cli.js";
import { CORPUS } from "../helpers/paths.js";

type Entry = Record<string, any>;

const SOURCE = join(CORPUS, "earth-0__019ebb22.snapA.v3.jsonl");
/** The corpus file's long tool result: its line and entry id. */
const LINE = 9;
const RESULT_ID = "9d12b03d";

const lines = readFileSync(SOURCE, "utf8").split("\n");
const result = JSON.parse(lines[LINE - 1]!) as Entry;
const textOf = (e: Entry) => (e.message.content as Array<{ type: string; text: string }>).filter((b) => b.type === "text").map((b) => b.text).join("\n");
const resultLines = textOf(result).split("\n");

/** A copy of the session with line `k` (0-based) of the long result changed, and the copy's path. */
function changedCopy(k: number, to: string, dir = mkdtempSync(join(tmpdir(), "pi-session-whole-"))): { a: string; b: string } {
  const a = join(dir, "a.jsonl");
  const b = join(dir, "b.jsonl");
  writeFileSync(a, lines.join("\n"));
  const e = structuredClone(result);
  const block = (e.message.content as Array<{ type: string; text: string }>).find((x) => x.type === "text")!;
  const text = block.text.split("\n");
  text[k] = to;
  block.text = text.join("\n");
  const copy = [...lines];
  copy[LINE - 1] = JSON.stringify(e);
  writeFileSync(b, copy.join("\n"));
  return { a, b };
}

/** `main` in-process on a terminal of `columns` (a stdout that says it is a TTY). */
async function onTerminal(args: string[], columns = 80): Promise<{ code: number; out: string; err: string }> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns });
  stdout.on("data", (c: Buffer) => out.push(c));
  const stderr = new PassThrough();
  stderr.on("data", (c: Buffer) => err.push(c));
  const cache = mkdtempSync(join(tmpdir(), "pi-session-whole-cache-"));
  const code = await main(args, { stdout, stderr, env: { NO_COLOR: "1", XDG_CACHE_HOME: cache } });
  return { code, out: Buffer.concat(out).toString("utf8"), err: Buffer.concat(err).toString("utf8") };
}

describe("a long tool result, read whole", () => {
  it("the corpus file holds the long result this test is about", () => {
    expect(result.id).toBe(RESULT_ID);
    expect(result.message.role).toBe("toolResult");
    expect(resultLines.length).toBeGreaterThan(100);
  });

  it("context piped prints every line of it, in order, and no fold; --full is taken and changes nothing piped", async () => {
    const r = await cli(["context", SOURCE]);
    expect([r.exitCode, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).not.toMatch(/… [\d,]+ more lines?/);
    expect(r.stdout).toContain(`\n${resultLines.join("\n")}\n`);
    const full = await cli(["context", SOURCE, "--full"]);
    expect([full.exitCode, full.stderr, full.stdout]).toEqual([0, "", r.stdout]);
  });

  it("show FILE ENTRY piped prints it whole; --json is the raw entry, as before", async () => {
    const r = await cli(["show", SOURCE, RESULT_ID]);
    expect([r.exitCode, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).not.toMatch(/more lines?/);
    expect(r.stdout).toContain(`\n${resultLines.join("\n")}\n`);
    expect((await cli(["show", SOURCE, RESULT_ID, "--full"])).stdout).toBe(r.stdout);
    const j = await cliJson(["show", SOURCE, RESULT_ID]);
    expect(j.json.entry).toEqual(result);
  });

  it("on a terminal it folds (the first 20 lines, how many more, and that --full shows them); --full draws it whole, fitted to the width", async () => {
    for (const args of [["context", SOURCE], ["show", SOURCE, RESULT_ID]]) {
      const folded = await onTerminal(args);
      expect(folded.code).toBe(0);
      expect(folded.out).toContain(`… ${resultLines.length - 20} more lines (--full shows them)`);
      // (a line past the fold, short enough not to wrap, is not there; with --full it is)
      const past = resultLines.findIndex((l, k) => k > 40 && l.trim().length > 12 && stringWidth(l) < 70 && resultLines.indexOf(l) === k);
      expect(past).toBeGreaterThan(20);
      expect(folded.out.split("\n")).not.toContain(resultLines[past]);
      const full = await onTerminal([...args, "--full"]);
      expect(full.code).toBe(0);
      expect(full.out).not.toContain(`more lines (--full shows them)`);
      expect(full.out.split("\n")).toContain(resultLines[past]);
      for (const line of full.out.split("\n")) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
    }
  });
});

describe("tail --full", () => {
  it("draws the message whole on a terminal too (it said it draws messages whole, and folded them as context did)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-whole-tail-"));
    const file = join(dir, "s.jsonl");
    writeFileSync(file, `${lines.slice(0, LINE).join("\n")}\n`);
    const full = await onTerminal(["tail", file, "-n", "1", "--full"]);
    expect(full.code).toBe(0);
    expect(full.out).not.toMatch(/more lines/);
    const past = resultLines.findIndex((l, k) => k > 40 && l.trim().length > 12 && stringWidth(l) < 70 && resultLines.indexOf(l) === k);
    expect(full.out.split("\n")).toContain(resultLines[past]);
  });
});

describe("diff sees a change past a fold", () => {
  it("diff A B: one line changed deep in a 166-line result on the current branch makes the contexts differ, in human output and --json; the diff turns one context into the other", async () => {
    const { a, b } = changedCopy(99, "CHANGED: one line of a long result");
    const human = await cli(["diff", a, b]);
    expect(human.exitCode).toBe(1);
    expect(human.stdout).not.toContain("the current leaves' contexts are the same");
    expect(human.stdout).toMatch(/\n-\s*"skin": \{\n\+CHANGED: one line of a long result\n/);
    const stat = await cli(["diff", a, b, "--stat"]);
    expect(stat.stdout).toContain("the current leaves' contexts differ: 1 line removed, 1 added\n");
    const j = await cliJson(["diff", a, b]);
    expect(j.exitCode).toBe(1);
    expect(j.json.changed).toEqual([{ id: RESULT_ID, lineA: LINE, lineB: LINE, fields: ["message.content"] }]);
    expect(j.json.context).not.toBe("");
    // (the diff is of the contexts as `context` prints them piped: it turns A's into B's)
    const ca = (await cli(["context", a])).stdout;
    const cb = (await cli(["context", b])).stdout;
    expect(ca).not.toBe(cb);
    expect(applyPatch(ca, j.json.context)).toBe(cb);
  });

  it("diff FILE LEAF_A LEAF_B: two results that differ in their 100th line are two contexts", async () => {
    // (the changed result beside the original, under the same call: two branches that part above it)
    const dir = mkdtempSync(join(tmpdir(), "pi-session-whole-leaves-"));
    const { b } = changedCopy(99, "CHANGED on the other branch", dir);
    const sibling = { ...(JSON.parse(readFileSync(b, "utf8").split("\n")[LINE - 1]!) as Entry), id: "5151aaaa" };
    const file = join(dir, "two.jsonl");
    writeFileSync(file, `${lines.join("\n").trimEnd()}\n${JSON.stringify(sibling)}\n`);
    const j = await cliJson(["diff", file, RESULT_ID, "5151aaaa"]);
    expect(j.exitCode).toBe(1);
    expect(j.json.forkPoint.id).toBe(result.parentId);
    expect(j.json.context).toContain("\n+CHANGED on the other branch\n");
    const human = await cli(["diff", file, RESULT_ID, "5151aaaa"]);
    expect(human.stdout).not.toContain("the model sees the same on both");
    expect(human.stdout).toContain("what the model sees");
  });

  it("diff of two sessions the same but for a line past the fold of a call's written file: the contexts differ", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-whole-write-"));
    const content = Array.from({ length: 40 }, (_, k) => `line ${k}`).join("\n");
    const make = (text: string) =>
      [
        { type: "session", version: 3, id: "0000aaaa-0000-4000-8000-000000000001", timestamp: "2026-03-01T10:00:00.000Z", cwd: "/w" },
        { type: "message", id: "u1", parentId: null, timestamp: "2026-03-01T10:00:01.000Z", message: { role: "user", content: "write it", timestamp: 1 } },
        { type: "message", id: "a1", parentId: "u1", timestamp: "2026-03-01T10:00:02.000Z", message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "write", arguments: { path: "f.txt", content: text } }], provider: "p", model: "m", api: "x", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: 2 } },
      ]
        .map((e) => JSON.stringify(e))
        .join("\n") + "\n";
    writeFileSync(join(dir, "a.jsonl"), make(content));
    writeFileSync(join(dir, "b.jsonl"), make(content.replace("line 33", "line 33 changed")));
    const j = await cliJson(["diff", join(dir, "a.jsonl"), join(dir, "b.jsonl")]);
    expect(j.json.context).toContain("\n-  line 33\n+  line 33 changed\n");
  });
});
