/**
 * A session every request fails on (README): real sessions damaged as the public reports show
 * (fixtures/README.md, `pairing-*`). For each: `check` exits 1 with the finding at the line the
 * damage is on; `repair` fixes it in one run, and then what pi 1.6 itself sends for every leaf
 * (its `buildSessionContext`, `convertToLlm` and pi-ai's `transformMessages`) breaks no pairing
 * rule, pi's `SessionManager.open` loads every line, `check` passes, a second repair changes
 * nothing, the backup is the input, and every entry that did no damage is still on its branch, in
 * the same order. Clean files are left byte for byte; a call left unanswered is no error.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { pairingProblems, type SentMessage } from "../../src/format/context/send.js";
import { cli, cliJson } from "../helpers/cli.js";
import { corpusFiles, fixture, fixtureFiles } from "../helpers/paths.js";
import { generateDisplacedSession } from "../helpers/generate.js";
import { branches, pi, piEntries, piSent, sentBreaks } from "../helpers/pi.js";

type Entry = Record<string, any>;

/** Each fixture: the findings `check` must give (line:code), and the repair actions (line:code). */
const CASES: Record<string, { findings: string[]; actions: string[] }> = {
  // the torn assistant line goes, and with it the call its two results answered
  "pairing-torn-call.jsonl": { findings: ["13:line-invalid-json", "14:tool-result-orphan", "15:tool-result-orphan"], actions: ["13:invalid-dropped", "14:parent-reattached", "14:result-removed", "15:result-removed"] },
  "pairing-errored-turn.jsonl": { findings: ["17:tool-result-orphan"], actions: ["17:result-removed"] },
  "pairing-displaced.jsonl": { findings: ["15:tool-result-orphan", "16:tool-result-orphan"], actions: ["15:result-moved", "16:result-moved"] },
  "pairing-duplicate.jsonl": { findings: ["8:tool-result-duplicate"], actions: ["8:result-removed"] },
  "pairing-empty-id.jsonl": { findings: ["13:tool-result-no-id"], actions: ["13:result-removed"] },
  "pairing-compaction-cut.jsonl": { findings: ["16:compaction-keeps-result"], actions: ["16:compaction-kept-moved"] },
  // the stray result the compaction kept from goes: it keeps from the turn after it, not from itself (which kept nothing)
  "pairing-kept-stray.jsonl": { findings: ["4:tool-result-orphan", "7:compaction-keeps-result"], actions: ["4:result-removed", "7:compaction-kept-moved"] },
  // each result moves back after the results on its own branch, not after one moved onto the other branch
  "pairing-other-branch.jsonl": { findings: ["6:tool-result-orphan", "8:tool-result-orphan"], actions: ["6:result-moved", "8:result-moved"] },
};

/** The messages of pi's current leaf (the branch it resumes on), each as its JSON. */
function resumed(file: string): string[] {
  return pi.SessionManager.open(file).buildSessionContext().messages.map((m: unknown) => JSON.stringify(m));
}

/** Whether every item of `small` is in `big` (as many times). */
function within(small: string[], big: string[]): boolean {
  const left = new Map<string, number>();
  for (const x of big) left.set(x, (left.get(x) ?? 0) + 1);
  for (const x of small) {
    const n = left.get(x) ?? 0;
    if (n === 0) return false;
    left.set(x, n - 1);
  }
  return true;
}

function copy(name: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "pi-session-pairing-")), name);
  copyFileSync(fixture(name), file);
  return file;
}


/** Whether `small` is `big` with some items left out. */
function inOrder(small: string[], big: string[]): boolean {
  let k = 0;
  for (const x of big) if (x === small[k]) k++;
  return k === small.length;
}

describe("a session every request fails on", () => {
  for (const [name, expected] of Object.entries(CASES)) {
    it(`${name}: check finds it, repair makes every branch sendable, nothing sound is lost`, async () => {
      const file = copy(name);
      const input = readFileSync(file);
      const checked = await cliJson(["check", file]);
      expect(checked.exitCode).toBe(1);
      const errors = checked.json.files[0].findings.filter((f: { severity: string }) => f.severity === "error").map((f: { line: number; code: string }) => `${f.line}:${f.code}`);
      expect(errors).toEqual(expected.findings);
      // each pairing finding names the call id, and the file's findings end with what to run
      const human = await cli(["check", file]);
      for (const line of human.stdout.split("\n").filter((l) => /tool-result|compaction-keeps/.test(l))) expect(line).toMatch(/`[^`]*`|toolCallId/);
      expect(human.stdout).toContain(`\n  next: pi-session repair ${file}\n`);

      const repaired = await cliJson(["repair", file]);
      expect(repaired.exitCode, repaired.stderr).toBe(0);
      const actions = repaired.json.files[0].actions.map((a: { line: number; code: string }) => `${a.line}:${a.code}`);
      expect(actions).toEqual(expected.actions);
      expect(readFileSync(`${file}.bak`).equals(input)).toBe(true);
      // the branch pi resumes on holds every message it held but the results removed
      const removedMessages = new Set(
        repaired.json.files[0].actions
          .filter((a: { code: string }) => a.code === "result-removed")
          .map((a: { line: number }) => JSON.stringify(JSON.parse(input.toString("utf8").split("\n")[a.line - 1]!).message)),
      );
      expect(within(resumed(`${file}.bak`).filter((m) => !removedMessages.has(m)), resumed(file)), `${name}: pi's current branch`).toBe(true);

      // what pi itself sends for every leaf breaks no pairing rule
      const entries = piEntries(file);
      for (const leaf of branches(entries).keys()) {
        const context = pi.buildSessionContext(entries, leaf);
        const sent = piSent(context.messages, { provider: context.model?.provider, id: context.model?.modelId });
        expect(pairingProblems(sent.map((message: any) => ({ message, node: 0 }) as SentMessage)), `${name}: leaf ${leaf}`).toEqual([]);
      }
      // pi loads every line
      const lines = readFileSync(file, "utf8").trimEnd().split("\n").length;
      expect(pi.SessionManager.open(file).getEntries()).toHaveLength(lines - 1);
      expect((await cli(["check", file])).exitCode).toBe(0);
      const again = await cli(["repair", file]);
      expect(again.stdout).toContain("nothing to repair");
      // every entry that did no damage is on its branch, in order (a removed or moved result did)
      const damaging = new Set(
        repaired.json.files[0].actions
          .filter((a: { code: string }) => a.code === "result-removed" || a.code === "result-moved")
          .map((a: { line: number }) => JSON.parse(input.toString("utf8").split("\n")[a.line - 1]!).id),
      );
      const before = branches(piEntries(`${file}.bak`));
      const after = branches(entries);
      for (const [leaf, path] of before) {
        const kept = path.filter((id) => !damaging.has(id) && after.size > 0);
        const tip = damaging.has(leaf) ? kept[kept.length - 1]! : leaf;
        const where = [...after.values()].find((p) => p.includes(tip));
        expect(where, `${name}: the branch to ${leaf}`).toBeDefined();
        expect(inOrder(kept, where!), `${name}: the branch to ${leaf} keeps its entries in order`).toBe(true);
      }
    });
  }

  it("a moved result goes back under its call, and the message that stood between follows it", async () => {
    const file = copy("pairing-displaced.jsonl");
    await cli(["repair", file]);
    const entries = readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Entry);
    const byId = new Map(entries.map((e) => [e.id, e]));
    const line = (id: string) => entries.findIndex((e) => e.id === id);
    const steer = byId.get("c0ffee01")!;
    const second = byId.get(steer.parentId)!;
    const first = byId.get(second.parentId)!;
    const call = byId.get(first.parentId)!;
    // call -> its two results, in their order -> the user message that stood between
    expect(second.message.toolCallId).toBe("call_01_PMoL5Ll6kgK8qhU3BVub1503");
    expect(first.message.toolCallId).toBe("call_00_ke5apKdBX2gYG3Jm0Jgh9275");
    expect(call.message.content.filter((b: Entry) => b.type === "toolCall").map((b: Entry) => b.id)).toEqual([first.message.toolCallId, second.message.toolCallId]);
    // and the file stays append-only: every parent above its children
    for (const e of entries.slice(1)) if (e.parentId) expect(line(e.parentId)).toBeLessThan(line(e.id));
  });

  it("a displaced result on the file's last line stays where it is when moving it would make pi resume on another branch: said once, with why, the file untouched", async () => {
    const file = copy("pairing-leaf-branch.jsonl");
    const input = readFileSync(file);
    const before = resumed(file);
    expect(before.some((m) => m.includes("CURRENT BRANCH QUESTION"))).toBe(true);
    const repaired = await cliJson(["repair", file]);
    expect(repaired.exitCode).toBe(1);
    const actions = repaired.json.files[0].actions as Array<{ line: number; code: string; message: string }>;
    expect(actions.map((a) => `${a.line}:${a.code}`)).toEqual(["7:conversation-left"]);
    expect(actions[0]!.message).toMatch(/file would end on another branch/);
    expect(readFileSync(file).equals(input)).toBe(true);
    expect(resumed(file)).toEqual(before);
    const human = await cli(["repair", file]);
    expect(human.exitCode).toBe(1);
    expect(human.stdout.split("\n").filter((l) => l.includes("conversation-left"))).toHaveLength(1);
  });

  it("parallel calls answered after a message, a compaction keeping from above them: every result moved back, none removed (OpenClaw #9958, #15037)", async () => {
    // sessions pi's SessionManager wrote (test/helpers/generate.ts); in each, the pairing walk's
    // second round once read the tree the first round's moves left in file order, not in the order
    // the lines are written, and removed sound results below the moved ones
    for (const seed of [2, 5, 13, 21, 34]) {
      const file = generateDisplacedSession({ seed, dir: mkdtempSync(join(tmpdir(), "pi-session-displaced-")) });
      const input = readFileSync(file, "utf8");
      const lines = input.trimEnd().split("\n");
      const checked = await cliJson(["check", file]);
      const displaced = checked.json.files[0].findings.filter((f: { code: string }) => f.code === "tool-result-orphan").map((f: { line: number }) => f.line);
      expect(displaced.length, `seed ${seed}`).toBeGreaterThan(0);
      const resumedBefore = resumed(file);
      const repaired = await cliJson(["repair", file]);
      expect(repaired.exitCode, `seed ${seed}: ${repaired.stderr}`).toBe(0);
      expect(within(resumedBefore, resumed(file)), `seed ${seed}: pi's current branch holds what it held`).toBe(true);
      const actions = repaired.json.files[0].actions as Array<{ line: number; code: string }>;
      // each displaced result moved, nothing removed
      expect(actions.map((a) => `${a.line}:${a.code}`), `seed ${seed}`).toEqual(displaced.map((l: number) => `${l}:result-moved`));
      const after = readFileSync(file, "utf8").trimEnd().split("\n");
      expect(after.map((l) => JSON.parse(l).id).sort(), `seed ${seed}: every entry kept`).toEqual(lines.map((l) => JSON.parse(l).id).sort());
      // parents above their children, check clean, pi loads every entry and sends every leaf
      const at = new Map(after.map((l, i) => [JSON.parse(l).id as string, i]));
      for (const l of after.slice(1)) if (JSON.parse(l).parentId) expect(at.get(JSON.parse(l).parentId)!).toBeLessThan(at.get(JSON.parse(l).id)!);
      expect((await cli(["check", file])).exitCode, `seed ${seed}`).toBe(0);
      expect(pi.SessionManager.open(file).getEntries()).toHaveLength(after.length - 1);
      expect(sentBreaks(file), `seed ${seed}`).toEqual(new Map());
    }
  });

  it("a v1 file's conversation damage is found, and repair says it must be migrated first, writing nothing (exit 1)", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "pi-session-pairing-")), "v1.jsonl");
    const lines = [
      { type: "session", id: "v1pair", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
      { type: "message", timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } },
      { type: "message", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: {} }], provider: "p", model: "m", stopReason: "error", timestamp: 2 } },
      { type: "message", timestamp: "2026-01-01T00:00:03.000Z", message: { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 3 } },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const before = readFileSync(file);
    const checked = await cli(["check", file]);
    expect(checked.exitCode).toBe(1);
    expect(checked.stdout).toContain(`${file}:4: error tool-result-orphan: the result for \`c1\` answers a turn that ended in error (line 3), which pi does not send; a v1 file: \`pi-session migrate\` it before repair\n`);
    expect(checked.stdout).toContain(`\n  next: pi-session migrate ${file}\n`);
    expect(checked.stdout).not.toContain("next: pi-session repair");
    const repaired = await cli(["repair", file]);
    expect(repaired.exitCode).toBe(1);
    expect(repaired.stdout).toContain(`${file}:4: conversation-left: `);
    expect(repaired.stdout).toContain("a v1 file: run `pi-session migrate FILE`, then repair it");
    expect(repaired.stdout).toMatch(/left untouched: 1 error that repair does not mend here \(listed above\)\n$/);
    expect(readFileSync(file).equals(before)).toBe(true);
    // migrated, it is repaired
    expect((await cli(["migrate", file])).exitCode).toBe(0);
    expect((await cli(["repair", file])).exitCode).toBe(0);
    expect((await cli(["check", file])).exitCode).toBe(0);
  });

  it("an unanswered call is info: check passes, and repair leaves the file as it is", async () => {
    const file = copy("pairing-errored-turn.jsonl");
    await cli(["repair", file]);
    const checked = await cliJson(["check", file]);
    expect(checked.exitCode).toBe(0);
    expect(checked.json.files[0].findings.map((f: { code: string; severity: string }) => `${f.severity}:${f.code}`)).toContain("info:tool-call-unanswered");
  });

  it("repair leaves every clean fixture and corpus file with no pairing damage byte for byte", async () => {
    const clean = [...fixtureFiles().filter((f) => ["linear", "branched", "compacted", "harness", "v2-hook", "escapes", "null-content"].some((n) => basename(f) === `${n}.jsonl`)), ...corpusFiles().filter((f) => f.includes(".v3."))];
    for (const source of clean) {
      const r = await cliJson(["repair", source, "--check"]);
      expect(r.json.files[0].actions.filter((a: { code: string }) => /result|compaction-kept/.test(a.code)), basename(source)).toEqual([]);
    }
  });

  it("context --llm shows what is sent: the result pi supplies is marked, a refused result is said", async () => {
    const r = await cli(["context", fixture("pairing-errored-turn.jsonl"), "--llm"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("(supplied by pi: no result was recorded for the call on line 18)");
    expect(r.stdout).toContain("a provider refuses this (line 17)");
    const json = await cliJson(["context", fixture("pairing-errored-turn.jsonl"), "--llm"]);
    // the errored turn is not sent; the result after it is, as pi passes every result through
    expect(json.json.messages.some((m: Entry) => m.role === "assistant" && m.stopReason === "error")).toBe(false);
    expect(json.json.messages.at(-1)).toMatchObject({ role: "toolResult", isError: true, content: [{ type: "text", text: "No result provided" }] });
  });
});
