/**
 * repair's id phase takes most entries without making a string of their ids (an id held once, the
 * entry kept before as parent, told by the id's number or its UUID's slot): an entry whose id another
 * holds is still renamed, or dropped as an exact repeat, whether the ids are pi's hex or UUIDs, and
 * wherever it hangs (under the entry before it, or not).
 */
import { describe, expect, it } from "vitest";
import { BufferSource } from "../../../src/format/read/source.js";
import { planRepair } from "../../../src/format/write/repair/index.js";
import { entry, header, jsonl } from "../../helpers/builders.js";

const hexIds = (n: number) => n.toString(16).padStart(8, "0");
const uuidIds = (n: number) => `${hexIds(n)}-0000-4000-8000-${hexIds(n)}0000`;

function plan(id: (n: number) => string, chain: Array<[self: number, parent: number | null, text: string]>) {
  const lines = chain.map(([self, parent, text]) => entry("custom", id(self), parent === null ? null : id(parent), { data: text, timestamp: `2026-01-01T00:00:0${text.charCodeAt(0) - 97}.000Z` }));
  return planRepair(new BufferSource("s.jsonl", jsonl(header(), ...lines)));
}

describe("repair's ids", () => {
  for (const [kind, id] of [["hex", hexIds], ["UUID", uuidIds]] as const) {
    it(`${kind}: an entry holding an earlier entry's id, under the entry before it, is renamed; an exact repeat dropped`, () => {
      const p = plan(id, [
        [1, null, "a"],
        [2, 1, "b"],
        [1, 2, "c"], // entry 1's id again, a different entry, under the one before it
        [3, 1, "d"],
        [3, 3, "d"], // (parent 3 its own: a repeat differs in its parent, so it is no exact repeat)
        [4, 3, "e"],
        [4, 3, "e"], // an exact repeat of the one before it
        [5, 4, "f"],
      ]);
      const codes = p.actions.map((a) => `${a.code}@${a.line}`);
      // (line 6 is renamed too, and its parent, its own old id, is its own id's no longer: re-attached to the entry before)
      expect(codes).toEqual(["id-renamed@4", "id-renamed@6", "parent-reattached@6", "duplicate-dropped@8"]);
      expect(p.keptRecords).toBe(8); // the header and seven entries
    });
  }
});
