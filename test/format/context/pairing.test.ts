/**
 * The linear pairing walk against the rule it stands for: for every tool result of every fixture
 * and corpus file, the walk flags it exactly when the provider's rule (`pairingProblems`) refuses it
 * in what pi sends with that result as the leaf (`sentAt`), so one pass over the tree says what a
 * walk per entry would.
 */
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { openSessionSync, pairingProblems, sentAt, Validator } from "../../../src/format/index.js";
import { corpusFiles, fixtureFiles } from "../../helpers/paths.js";

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
    expect(files.length).toBe(6);
    expect(files.map(agree).reduce((a, b) => a + b, 0)).toBeGreaterThan(40);
  });
});
