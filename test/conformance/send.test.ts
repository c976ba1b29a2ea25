/**
 * What pi sends for a leaf, against pi 1.6 itself: for every fixture, every corpus file and every
 * entry of them as the leaf, our sequence (`sentAt`: our context, conversion and transform) must
 * equal pi's `buildSessionContext` -> `convertToLlm` -> pi-ai's `transformMessages`, message for
 * message, the synthetic results' times aside; to the leaf's own model and to another one (another
 * model's thinking is dropped, images become placeholders for a model without vision).
 */
import { basename } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { targetModelAt } from "../../src/format/context/branch.js";
import { sentAt, type TargetModel } from "../../src/format/context/send.js";
import { openSessionSync } from "../../src/format/session/session.js";
import { corpusFiles, fixtureFiles } from "../helpers/paths.js";
import { pi, piEntries, piSent, piWalkLoops } from "../helpers/pi.js";

const tally = { files: 0, leaves: 0, synthetic: 0, skippedTurns: 0 };
afterAll(() => {
  console.log(`send conformance: ${tally.files} files, ${tally.leaves} leaves x 2 models equal to pi's transform (${tally.synthetic} synthetic results, ${tally.skippedTurns} errored or aborted turns left out)`);
});

const SYNTHETIC_TIME = 1;

function compareFile(path: string): void {
  const all = piEntries(path);
  const theirs = all.filter((e) => e.type !== "leaf");
  const session = openSessionSync(path);
  try {
    expect(theirs.length).toBe(session.tree.size);
    const byId = new Map(all.map((e) => [e.id, e]));
    for (let i = 0; i < theirs.length; i++) {
      const id = theirs[i]!.id;
      if (piWalkLoops(byId, id)) continue;
      let context;
      try {
        context = pi.buildSessionContext(all, id);
      } catch {
        continue; // pi throws on this leaf (the context conformance counts these)
      }
      // (entries by position: pi gives a v1 file's entries random ids)
      const node = session.nodeOf(session.entry(i).id as string) ?? i;
      const own = targetModelAt(session, node);
      const other: TargetModel = { provider: "elsewhere", api: "another-api", id: "another-model", images: false };
      for (const model of [own, other]) {
        const expected = piSent(context.messages, { provider: model.provider, api: model.api, id: model.id, input: model.images === false ? ["text"] : ["text", "image"] });
        for (const m of expected) if (m.role === "toolResult" && m.content?.[0]?.text === "No result provided" && m.isError && typeof m.timestamp === "number" && !context.messages.includes(m)) m.timestamp = SYNTHETIC_TIME;
        const got = [...sentAt(session, node, model, () => SYNTHETIC_TIME)];
        const ours = got.map((s) => JSON.stringify(s.message));
        const want = expected.map((m: unknown) => JSON.stringify(m));
        const first = ours.findIndex((m, k) => m !== want[k]);
        const where = `${basename(path)} leaf #${i} (${id}) to ${model.id}: message ${first < 0 ? ours.length : first} of ${want.length}`;
        expect(ours.length, where).toBe(want.length);
        if (first >= 0) expect(ours[first]!.slice(0, 2000), where).toBe(want[first]!.slice(0, 2000));
        if (model === own) {
          tally.synthetic += got.filter((s) => s.synthetic).length;
          tally.skippedTurns += context.messages.filter((m: any) => m.role === "assistant" && (m.stopReason === "error" || m.stopReason === "aborted")).length > 0 ? 1 : 0;
        }
        // every message is traced to an entry of the leaf's path
        for (const s of got) expect(session.tree.isAncestor(s.node, node) || s.node === node, `${basename(path)}: traced to a node off the path`).toBe(true);
      }
      tally.leaves++;
    }
    tally.files++;
  } finally {
    session.close();
  }
}

/**
 * Every entry as the leaf, pi's context and ours built for each: the corpus's large v1 session
 * takes 21-22 s alone on a 2-core machine (Node 22.19 and 24 alike), and over 60 s with two test
 * runs beside it. Its time is the comparison's, which grows with the square of a branch's length.
 */
const CORPUS_FILE_MS = 240_000;

describe("what pi sends, against pi's convertToLlm and transformMessages", () => {
  for (const file of fixtureFiles().filter((f) => f.endsWith(".jsonl"))) it(`fixture ${basename(file)}`, () => compareFile(file));
  for (const file of corpusFiles()) it(`corpus ${basename(file)}`, () => compareFile(file), CORPUS_FILE_MS);
});
