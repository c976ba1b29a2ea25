/**
 * repair's candidates keep where each whole-line record lies as the offset's low 32 bits and the
 * first candidate past each 4 GiB: every offset comes back whole, past 4 and 8 GiB included (a
 * file that large is not made here: the offsets are given), and a split or joined record, whose
 * text is its own, has none.
 */
import { describe, expect, it } from "vitest";
import { emptyFields } from "../../../src/format/read/scanner.js";
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
