/**
 * repair's candidates keep where each whole-line record lies as the offset's low 32 bits and the
 * first candidate past each 4 GiB: every offset comes back whole, past 4 and 8 GiB included (a
 * file that large is not made here: the offsets are given), and a split or joined record, whose
 * text is its own, has none. And they tell whether a record's parent id is another record's own id
 * by the ids' numbers (pi's hex, a UUID's slot), as the strings tell it.
 */
import { describe, expect, it } from "vitest";
import { emptyFields, fieldsOf } from "../../../src/format/read/scanner.js";
import { Candidates } from "../../../src/format/write/repair/work.js";

describe("repair's candidates", () => {
  it("give back each record's offset whole, across 4 GiB boundaries, and -1 for a record with its own text", () => {
    const c = new Candidates(() => 4096);
    const offsets: number[] = [];
    let at = 0;
    for (let k = 0; k < 3000; k++) {
      const text = k % 97 === 5;
      // (mostly lines of a few hundred bytes; now and then a line of a gigabyte or more)
      at += k % 400 === 399 ? Math.floor(1.3 * 2 ** 30) + k : 200 + (k % 7);
      offsets.push(text ? -1 : at);
      c.add(k, text ? -1 : at, 100, text ? `{"k":${k}}` : undefined, emptyFields(), 0);
    }
    expect(at).toBeGreaterThan(2 * 2 ** 32);
    for (let k = 0; k < offsets.length; k++) expect(c.offsetOf(k), `candidate ${k}`).toBe(offsets[k]);
  });
});

describe("a candidate's parent id against another's own id", () => {
  const uuid = (n: number) => `${n.toString(16).padStart(8, "0")}-0000-4000-8000-00000000000${n % 10}`;
  for (const [kind, id] of [["hex", (n: number) => n.toString(16).padStart(8, "0")], ["UUID", uuid], ["other", (n: number) => `entry-${n}`]] as const) {
    it(`${kind} ids: what the strings say, or false where the numbers cannot tell`, () => {
      // (parents: the entry before, one further back, one later, a missing one, none)
      const links: Array<[number, number | null]> = [[1, null], [2, 1], [3, 2], [4, 2], [5, 7], [6, 5], [7, 99], [8, 7]];
      const c = new Candidates(() => 64);
      const f = emptyFields();
      for (const [k, [self, parent]] of links.entries()) {
        fieldsOf({ type: "custom", id: id(self), parentId: parent === null ? null : id(parent) }, f);
        c.add(k, k * 100, 80, undefined, f, 0);
      }
      for (let k = 0; k < links.length; k++) {
        for (let p = 0; p < links.length; p++) {
          const same = links[k]![1] === links[p]![0];
          // (a UUID is told by its slot: a parent named right after its entry shares the entry's; others are not told apart by number)
          const told = c.parentIsIdOf(k, p);
          if (kind === "other") expect(told).toBe(false);
          else if (kind === "hex" || p === k - 1) expect(told, `${k} under ${p}`).toBe(same);
          else expect(told && !same, `${k} under ${p}`).toBe(false);
        }
      }
    });
  }
});
