/** The validator on every fixture: each corruption gets its code, clean files get no errors. */
import { describe, expect, it } from "vitest";
import { FINDING_INFO, type FindingCode } from "../../../src/format/check/findings.js";
import { Validator } from "../../../src/format/check/validate.js";
import { openSessionBuffer, openSessionSync } from "../../../src/format/session/session.js";
import { assistant, entry, header, jsonl, user } from "../../helpers/builders.js";
import { corpusFiles, fixture, fixtureFiles } from "../../helpers/paths.js";

/** Findings from whole entries, or from a skim (`OpenOptions.skim`). */
function findings(name: string, skim = false) {
  const v = new Validator();
  const s = openSessionSync(fixture(name), { onRecord: v.onRecord, skim });
  try {
    return v.findings(s);
  } finally {
    s.close();
  }
}
const codes = (name: string) => findings(name).map((f) => `${f.line ?? "-"}:${f.code}`);
const errors = (name: string) => findings(name).filter((f) => f.severity === "error");

describe("validator", () => {
  it("finds the same from a skim as from whole entries, on every fixture and corpus file", () => {
    for (const file of [...fixtureFiles(), ...corpusFiles()]) {
      const both = [false, true].map((skim) => {
        const v = new Validator();
        const s = openSessionSync(file, { onRecord: v.onRecord, skim });
        try {
          return v.findings(s);
        } finally {
          s.close();
        }
      });
      expect(both[1], file).toEqual(both[0]);
    }
  });

  it.each(["linear.jsonl", "branched.jsonl", "compacted.jsonl", "v1.jsonl", "v2-hook.jsonl", "harness.jsonl", "header-only.jsonl", "escapes.jsonl", "null-content.jsonl"])(
    "%s has no errors",
    (name) => {
      expect(errors(name)).toEqual([]);
    },
  );

  const expected: Array<[string, string[]]> = [
    ["torn-last-line.jsonl", ["5:line-torn"]],
    ["no-final-newline.jsonl", ["4:line-no-newline"]],
    ["fused.jsonl", ["3:line-fused"]],
    ["fused-whole.jsonl", ["3:line-fused"]],
    ["nul-bytes.jsonl", ["3:line-nul", "4:line-nul"]],
    ["crlf-bom.jsonl", ["1:line-bom", "1:line-crlf"]],
    ["garbage-lines.jsonl", ["3:line-blank", "4:line-invalid-json", "5:line-not-object", "6:line-not-object", "7:entry-no-type", "8:line-blank"]],
    ["invalid-utf8.jsonl", ["3:line-invalid-utf8"]],
    ["no-header.jsonl", ["1:header-missing"]],
    ["header-not-first.jsonl", ["2:header-not-first", "4:header-duplicate"]],
    ["duplicate-ids.jsonl", ["5:id-duplicate", "6:id-duplicate"]],
    ["orphans.jsonl", ["5:parent-missing"]],
    ["cycle.jsonl", ["3:parent-cycle", "5:parent-self"]],
    ["forward-parent.jsonl", ["3:parent-forward"]],
    ["missing-role.jsonl", ["5:message-invalid", "6:message-invalid"]],
    ["dangling-refs.jsonl", ["5:compaction-target-missing", "6:label-target-missing", "7:context-edit-target-missing", "8:branch-summary-from-missing", "9:tool-result-orphan"]],
    ["empty.jsonl", ["-:file-empty"]],
    ["newer-version.jsonl", ["1:version-unsupported"]],
    ["v1.jsonl", ["1:version-legacy"]],
    ["null-content.jsonl", ["7:message-unknown-role", "8:entry-unknown-type"]],
  ];
  it.each(expected)("%s reports %j", (name, want) => {
    expect(codes(name)).toEqual(expect.arrayContaining(want));
  });

  it("gives every finding a line (where it is about one), a message and a hint", () => {
    for (const [name] of expected) {
      for (const f of findings(name)) {
        expect(f.message.length).toBeGreaterThan(5);
        expect(f.hint).toBe(FINDING_INFO[f.code as FindingCode].hint);
        if (f.code !== "file-empty") expect(f.line).toBeGreaterThan(0);
      }
    }
  });

  it("finds a toolResult's call on its own branch only", () => {
    expect(codes("linear.jsonl")).not.toContain("5:tool-result-orphan");
  });

  it("matches each toolResult with the call on its own branch when the id is declared on two branches", () => {
    // r -> a1 (declares `call`) -> t1 (answers it); r -> a2 (declares `call` too) -> t2 (answers
    // it); r -> t3 (answers `call`, but no call above it) and a long chain reusing the id
    const call = (id: string, parent: string) => assistant(id, parent, "x", { message: { role: "assistant", content: [{ type: "toolCall", id: "functions.eval:1", name: "eval", arguments: {} }], provider: "p", model: "m", stopReason: "toolUse", timestamp: 1 } });
    const result = (id: string, parent: string) => entry("message", id, parent, { message: { role: "toolResult", toolCallId: "functions.eval:1", toolName: "eval", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 1 } });
    const records = [header(), user("r", null, "hi"), call("a1", "r"), result("t1", "a1"), call("a2", "r"), result("t2", "a2"), result("t3", "r"), result("t4", "t1")];
    let parent = "t2";
    for (let i = 0; i < 50; i++) {
      records.push(call(`c${i}`, parent), result(`d${i}`, `c${i}`));
      parent = `d${i}`;
    }
    const v = new Validator();
    const s = openSessionBuffer("two-branches.jsonl", jsonl(...records), { onRecord: v.onRecord });
    const found = v.findings(s);
    // t3 has no call above it; t4 answers a1's call a second time (t1 answered it); the chain's
    // results each answer the call right before them
    expect(found.filter((f) => f.code === "tool-result-orphan").map((f) => f.entryId)).toEqual(["t3"]);
    expect(found.filter((f) => f.code === "tool-result-duplicate").map((f) => f.entryId)).toEqual(["t4"]);
  });

  it("names a duplicated id's first lines only, however many lines hold it", () => {
    const records = [header(), user("r", null, "hi")];
    for (let i = 0; i < 30; i++) records.push(user("same", "r", `again ${i}`));
    const v = new Validator();
    const s = openSessionBuffer("dup.jsonl", jsonl(...records), { onRecord: v.onRecord });
    const dups = v.findings(s).filter((f) => f.code === "id-duplicate");
    expect(dups).toHaveLength(29);
    expect(dups[0]!.message).toBe("id `same` is used on 30 lines (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, …)");
  });
});
