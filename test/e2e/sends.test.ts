/**
 * A gate that fails only what is broken (docs/commands.md, "check"): the pairing rules judged by what pi
 * sends. The oracle is pi 1.6 itself: for every leaf of a file (each entry without children, and
 * the current leaf), its `buildSessionContext`, `convertToLlm` and pi-ai's `transformMessages`, then
 * a plain reading of the provider's rule (a tool result answers a call of the assistant message
 * right before it, once), written here, not taken from the code under test.
 *
 * - Sessions written by pi's own SessionManager (seeded: compactions keeping from any entry, as pi's
 *   `appendCompaction` allows, branches, summaries, labels): `check` fails exactly those some leaf
 *   of which sends a broken pairing; `repair` leaves every other one byte for byte, and after it
 *   no leaf of any sends a broken pairing.
 * - The same with context edits (pi's `appendContextEdit`, on any editable entry of the branch, as
 *   pi's overflow recovery and extensions write them): an edit that omits an assistant turn holding
 *   calls, or replaces its content without them, leaves its results without their calls on every
 *   branch below it; `check` fails exactly the sessions pi then sends broken, and `repair` adds an
 *   edit omitting each such result, losing nothing.
 * - A compaction keeping from a result, superseded on its only branch: valid (said as information)
 *   and left; the same on a side branch whose leaf it starts: an error, and repaired on that branch.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { generateSession, rng } from "../helpers/generate.js";
import { pi, piEntries, sentBreaks, sentBreaksWithoutEdits } from "../helpers/pi.js";

type Entry = Record<string, any>;

/** A session of tool turns pi's SessionManager writes, compacted often, each compaction keeping from any entry of its branch (a result among them), with branches from anywhere. */
function compactionHeavy(seed: number, dir: string): string {
  const r = rng(seed);
  const sm = pi.SessionManager.create("/work/project", dir);
  const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  let t = 1_780_000_000_000 + seed * 1_000_000;
  for (let i = 0; i < 30; i++) {
    sm.appendMessage({ role: "user", content: `step ${i}`, timestamp: (t += 1000) });
    const id = `call_${seed}_${i}`;
    sm.appendMessage({ role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: `ls ${i}` } }], api: "x", provider: "anthropic", model: "claude", usage, stopReason: "toolUse", timestamp: (t += 1000) });
    sm.appendMessage({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: `out ${i}` }], isError: false, timestamp: (t += 1000) });
    const branch = sm.getBranch() as Array<{ id: string }>;
    const x = r();
    if (x < 0.35 && branch.length > 3) sm.appendCompaction(`summary ${i}`, branch[Math.floor(r() * (branch.length - 1))]!.id, 1000);
    else if (x < 0.5) sm.branch((sm.getEntries() as Array<{ id: string }>)[Math.floor(r() * sm.getEntries().length)]!.id);
  }
  return sm.getSessionFile() as string;
}

describe("check and repair judge what pi sends", () => {
  // A test a seed: each spawns the CLI a few times, and 50 or 60 of them in one test took 25 s
  // alone and over the 60 s timeout on a loaded 2-core machine. The totals are checked after them.
  describe("on sessions pi's SessionManager wrote: check fails exactly those some leaf sends broken, repair leaves the rest byte for byte and mends those on every leaf", () => {
    let sendsBroken = 0;
    let notSent = 0;
    it.each(Array.from({ length: 50 }, (_, k) => k + 1))("seed %i", async (seed) => {
      const dir = mkdtempSync(join(tmpdir(), `pi-session-sends-${seed}-`));
      const file = seed <= 30 ? generateSession({ seed, dir, steps: 80, contextEdits: false }) : compactionHeavy(seed, dir);
      const before = readFileSync(file);
      const breaks = sentBreaks(file);
      const checked = await cliJson(["check", file]);
      const findings = checked.json.files[0].findings as Array<{ severity: string; code: string; line: number }>;
      const errors = findings.filter((f) => f.severity === "error");
      notSent += findings.filter((f) => f.code === "pairing-not-sent").length;
      if (breaks.size === 0) {
        expect([checked.exitCode, errors], `seed ${seed}: nothing pi sends is broken`).toEqual([0, []]);
        const repaired = await cli(["repair", file]);
        expect(repaired.exitCode, `seed ${seed}`).toBe(0);
        expect(readFileSync(file).equals(before), `seed ${seed}: left byte for byte`).toBe(true);
        return;
      }
      sendsBroken++;
      expect(checked.exitCode, `seed ${seed}: ${[...breaks.values()][0]}`).toBe(1);
      expect(errors.every((f) => ["compaction-keeps-result", "tool-result-orphan", "tool-result-duplicate"].includes(f.code)), `seed ${seed}`).toBe(true);
      const repaired = await cli(["repair", file]);
      expect(repaired.exitCode, `seed ${seed}: ${repaired.stderr}`).toBe(0);
      expect(sentBreaks(file), `seed ${seed}: after repair`).toEqual(new Map());
      expect((await cli(["check", file])).exitCode, `seed ${seed}: checked after repair`).toBe(0);
    });
    it("the seeds hold both cases: sessions pi sends broken, and superseded breaks it never sends", () => {
      console.log(`${sendsBroken} sessions sent broken, ${notSent} breaks never sent`);
      expect(sendsBroken).toBeGreaterThan(3);
      expect(notSent).toBeGreaterThan(3);
    });
  });

  describe("with context edits: check fails exactly the sessions pi sends broken after its edits; repair adds omissions, loses nothing, and is done in one run", () => {
    let sendsBroken = 0;
    let byEdits = 0;
    it.each(Array.from({ length: 60 }, (_, k) => k + 101))("seed %i", async (seed) => {
      const dir = mkdtempSync(join(tmpdir(), `pi-session-edits-${seed}-`));
      const file = generateSession({ seed, dir, steps: 80, contextEdits: true });
      const before = readFileSync(file, "utf8");
      const breaks = sentBreaks(file);
      const checked = await cliJson(["check", file]);
      const findings = checked.json.files[0].findings as Array<{ code: string; severity: string; causedBy?: { code: string } }>;
      expect(checked.exitCode, `seed ${seed}: ${[...breaks.values()][0]}`).toBe(breaks.size > 0 ? 1 : 0);
      if (breaks.size === 0) return;
      sendsBroken++;
      if (findings.some((f) => f.code === "context-edit-drops-calls")) {
        byEdits++;
        expect(findings.filter((f) => f.causedBy?.code === "context-edit-drops-calls").every((f) => f.code === "tool-result-orphan")).toBe(true);
      }
      const repaired = await cliJson(["repair", file]);
      expect(repaired.exitCode, `seed ${seed}: ${repaired.stderr}`).toBe(0);
      expect(sentBreaks(file), `seed ${seed}: after repair`).toEqual(new Map());
      // (and a reader that applies no edits, as OpenClaw's, sends no break the repair made)
      if (sentBreaksWithoutEdits(`${file}.bak`).size === 0) expect(sentBreaksWithoutEdits(file), `seed ${seed}: without edits`).toEqual(new Map());
      // every entry is still there but results removed (each listed); pi loads every line
      const after = readFileSync(file, "utf8").trimEnd().split("\n");
      const ids = new Set(after.map((l) => JSON.parse(l).id));
      const gone = before.trimEnd().split("\n").filter((l) => !ids.has(JSON.parse(l).id)).length;
      const actions = repaired.json.files[0].actions as Array<{ code: string }>;
      expect(gone, `seed ${seed}`).toBe(actions.filter((a) => a.code === "result-removed").length);
      expect(pi.SessionManager.open(file).getEntries(), `seed ${seed}`).toHaveLength(after.length - 1);
      expect((await cli(["repair", file, "--check"])).exitCode, `seed ${seed}: a second repair`).toBe(0);
    });
    it("the seeds hold sessions an edit broke", () => {
      console.log(`${sendsBroken} of 60 sessions with edits sent broken, ${byEdits} by an edit`);
      expect(byEdits).toBeGreaterThan(5);
    });
  });

  /** A session pi writes: a call and its result, then a compaction keeping from the result. */
  function keptFromResult(): { sm: any; compaction: string } {
    const sm = pi.SessionManager.create("/work/project", mkdtempSync(join(tmpdir(), "pi-session-sends-")));
    let t = 1_780_000_000_000;
    const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    sm.appendMessage({ role: "user", content: "list the files", timestamp: (t += 1000) });
    sm.appendMessage({ role: "assistant", content: [{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls" } }], api: "x", provider: "anthropic", model: "claude", usage, stopReason: "toolUse", timestamp: (t += 1000) });
    const result = sm.appendMessage({ role: "toolResult", toolCallId: "call_1", toolName: "bash", content: [{ type: "text", text: "a b" }], isError: false, timestamp: (t += 1000) });
    sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "two files" }], api: "x", provider: "anthropic", model: "claude", usage, stopReason: "stop", timestamp: (t += 1000) });
    const compaction = sm.appendCompaction("listed the files", result, 1000);
    return { sm, compaction };
  }

  it("a compaction keeping from a result, superseded on its only branch, is valid (information, why it is never sent) and left byte for byte", async () => {
    const { sm } = keptFromResult();
    sm.appendMessage({ role: "user", content: "now what", timestamp: 1_780_000_100_000 });
    const now = sm.appendMessage({ role: "user", content: "and then", timestamp: 1_780_000_101_000 });
    sm.appendCompaction("later", now, 1000);
    sm.appendMessage({ role: "user", content: "go on", timestamp: 1_780_000_102_000 });
    const file = sm.getSessionFile() as string;
    expect(sentBreaks(file)).toEqual(new Map());
    const before = readFileSync(file);
    const checked = await cliJson(["check", file]);
    expect(checked.exitCode).toBe(0);
    expect(checked.json.files[0].findings).toEqual([
      expect.objectContaining({ code: "pairing-not-sent", severity: "info", line: 6, message: expect.stringMatching(/^the compaction keeps from the result for `call_1` \(line 4\) but not from its call; not sent: a later compaction stands on every branch through this one/) }),
    ]);
    const human = await cli(["check", file]);
    expect(human.stdout).toContain("pairing-not-sent");
    const repaired = await cliJson(["repair", file]);
    expect(repaired.exitCode).toBe(0);
    expect(repaired.json.files[0].actions).toEqual([]);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("the same compaction on a side branch whose leaf it starts is an error, and repair mends that branch", async () => {
    const { sm, compaction } = keptFromResult();
    sm.appendMessage({ role: "user", content: "side question", timestamp: 1_780_000_100_000 });
    sm.branch(compaction);
    const now = sm.appendMessage({ role: "user", content: "main question", timestamp: 1_780_000_101_000 });
    sm.appendCompaction("later", now, 1000);
    sm.appendMessage({ role: "user", content: "go on", timestamp: 1_780_000_102_000 });
    const file = sm.getSessionFile() as string;
    const breaks = sentBreaks(file);
    expect(breaks.size).toBe(1);
    const side = piEntries(file).find((e: Entry) => e.message?.content === "side question")!;
    expect([...breaks.keys()]).toEqual([side.id]);
    const checked = await cliJson(["check", file]);
    expect(checked.exitCode).toBe(1);
    expect(checked.json.files[0].findings.filter((f: { severity: string }) => f.severity === "error").map((f: { code: string; line: number }) => `${f.line}:${f.code}`)).toEqual(["6:compaction-keeps-result"]);
    const repaired = await cliJson(["repair", file]);
    expect(repaired.exitCode).toBe(0);
    expect(repaired.json.files[0].actions.map((a: { code: string; line: number }) => `${a.line}:${a.code}`)).toEqual(["6:compaction-kept-moved"]);
    expect(sentBreaks(file)).toEqual(new Map());
    expect(pi.SessionManager.open(file).getEntries()).toHaveLength(readFileSync(file, "utf8").trimEnd().split("\n").length - 1);
  });
});
