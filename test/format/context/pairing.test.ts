/**
 * The linear pairing walk against the rule it stands for: for every tool result of every fixture
 * and corpus file, the walk flags it exactly when the provider's rule (`pairingProblems`) refuses it
 * in what pi sends with that result as the leaf (`sentAt`), so one pass over the tree says what a
 * walk per entry would.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { Validator } from "../../../src/format/check/validate.js";
import { pairingProblems, sentAt } from "../../../src/format/context/send.js";
import { openSessionBuffer, openSessionSync } from "../../../src/format/session/session.js";
import { assistant, entry, header, jsonl, user } from "../../helpers/builders.js";
import { corpusFiles, fixtureFiles } from "../../helpers/paths.js";
import { sentBreaks } from "../../helpers/pi.js";

const RESULT_CODES = new Set(["tool-result-orphan", "tool-result-duplicate", "tool-result-no-id"]);

function agree(path: string): number {
  const v = new Validator();
  const session = openSessionSync(path, { onRecord: v.onRecord, skim: true, skimUsage: false });
  try {
    const flagged = new Set(v.findings(session).filter((f) => RESULT_CODES.has(f.code)).map((f) => f.line));
    let results = 0;
    for (let n = 0; n < session.tree.size; n++) {
      if (session.nodeType(n) !== "message" || session.nodeRole(n) !== "toolResult") continue;
      results++;
      const sent = [...sentAt(session, n)];
      const refused = pairingProblems(sent).some((p) => sent[p.index]!.node === n && !sent[p.index]!.synthetic);
      expect(flagged.has(session.nodeLine(n)), `${basename(path)}: the result on line ${session.nodeLine(n)}`).toBe(refused);
    }
    return results;
  } finally {
    session.close();
  }
}

describe("the pairing walk says what the provider's rule says, for every result", () => {
  for (const file of [...fixtureFiles().filter((f) => f.endsWith(".jsonl")), ...corpusFiles()]) {
    it(basename(file), () => {
      agree(file);
    });
  }
  it("judges results on the damaged fixtures (the test is not empty)", () => {
    const files = fixtureFiles().filter((f) => basename(f).startsWith("pairing-"));
    expect(files.length).toBe(9);
    expect(files.map(agree).reduce((a, b) => a + b, 0)).toBeGreaterThan(40);
  });
});

/**
 * Context edits, as pi 1.6's `buildSessionContext` applies them (the latest edit of an entry on
 * the branch wins; an edit counts where the context holds it and its target): each case's sessions
 * judged by the validator, and the same files by pi itself (`sentBreaks`), which must agree.
 */
describe("context edits: what the walk judges is what pi sends", () => {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-pairing-edits-"));
  const call = (id: string, parentId: string, callId: string) =>
    assistant(id, parentId, "", { message: { role: "assistant", content: [{ type: "toolCall", id: callId, name: "bash", arguments: { command: "ls" } }], provider: "anthropic", model: "claude", stopReason: "toolUse" } });
  const result = (id: string, parentId: string, callId: string) => entry("message", id, parentId, { message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: "a b" }], isError: false } });
  const edit = (id: string, parentId: string, targetId: string, replacement: unknown) => entry("context_edit", id, parentId, { targetId, replacement });
  const base = [header(), user("u1", null, "list"), call("a1", "u1", "c1"), result("r1", "a1", "c1")];
  /** The findings for the session, and whether pi sends some leaf of it broken. */
  function judge(name: string, records: Array<Record<string, unknown>>) {
    const file = join(dir, `${name}.jsonl`);
    writeFileSync(file, jsonl(...records));
    const v = new Validator();
    const s = openSessionBuffer(name, readFileSync(file), { onRecord: v.onRecord, skim: true, skimUsage: false });
    const found = v.findings(s).filter((f) => f.severity === "error").map((f) => `${f.line}:${f.code}${f.causedBy ? `<-${f.causedBy.line}` : ""}`);
    return { found, pi: sentBreaks(file).size > 0 };
  }
  const cases: Array<[string, Array<Record<string, unknown>>, string[]]> = [
    ["an edit omitting the turn: its result is sent without the call", [...base, edit("e1", "r1", "a1", null), user("u2", "e1", "go on")], ["4:tool-result-orphan<-5", "5:context-edit-drops-calls"]],
    ["a replacement of the turn without its call", [...base, edit("e1", "r1", "a1", { content: "done" }), user("u2", "e1", "go on")], ["4:tool-result-orphan<-5", "5:context-edit-drops-calls"]],
    ["a replacement keeping the call: nothing breaks", [...base, edit("e1", "r1", "a1", { content: [{ type: "toolCall", id: "c1", name: "bash", arguments: {} }] }), user("u2", "e1", "go on")], []],
    ["the result omitted too, after: nothing is sent broken", [...base, edit("e1", "r1", "a1", null), edit("e2", "e1", "r1", null), user("u2", "e2", "go on")], []],
    ["the result omitted, then rewritten: the latest edit wins, and it is sent again", [...base, edit("e1", "r1", "a1", null), edit("e2", "e1", "r1", null), edit("e3", "e2", "r1", { content: "again" }), user("u2", "e3", "go on")], ["4:tool-result-orphan<-5", "5:context-edit-drops-calls"]],
    ["a later edit gives the call back", [...base, edit("e1", "r1", "a1", null), edit("e2", "e1", "a1", { content: [{ type: "toolCall", id: "c1", name: "bash", arguments: {} }] }), user("u2", "e2", "go on")], []],
    ["the edit on a branch of its own: only its leaves", [...base, user("u2", "r1", "main"), edit("e1", "r1", "a1", null)], ["4:tool-result-orphan<-6", "6:context-edit-drops-calls"]],
    [
      "an edit whose target a compaction cut does nothing; a later compaction keeping both brings it back",
      [...base, entry("compaction", "k1", "r1", { summary: "s", firstKeptEntryId: "k1", tokensBefore: 1 }), edit("e1", "k1", "a1", null), user("u2", "e1", "on"), entry("compaction", "k2", "u2", { summary: "t", firstKeptEntryId: "u1", tokensBefore: 1 }), user("u3", "k2", "more")],
      ["4:tool-result-orphan<-6", "6:context-edit-drops-calls"],
    ],
    // (what a result answered is undone when the walk leaves its branch)
    ["a call answered on one branch and again on another: no result is a second one", [...base, user("u2", "r1", "one"), result("r2", "a1", "c1"), user("u3", "r2", "two")], []],
    ["a call answered twice on one branch: the second result is", [...base, result("r2", "r1", "c1"), user("u2", "r2", "two")], ["5:tool-result-duplicate"]],
    ["an edit whose target stays cut: nothing breaks", [...base, entry("compaction", "k1", "r1", { summary: "s", firstKeptEntryId: "k1", tokensBefore: 1 }), edit("e1", "k1", "a1", null), user("u2", "e1", "on")], []],
  ];
  for (const [name, records, expected] of cases) {
    it(name, () => {
      const { found, pi } = judge(name.replace(/\W+/g, "-"), records);
      expect(found).toEqual(expected);
      expect(pi).toBe(expected.length > 0);
    });
  }
});
