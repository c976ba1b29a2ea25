/**
 * An increasing sequence kept as runs (or, past a quarter of its places in runs, as a column)
 * answers as the array it stands for: the value at each place, asked in any order, and the place
 * of each value, -1 for the values between.
 */
import { describe, expect, it } from "vitest";
import { IncreasingRuns } from "../../../src/format/read/columns.js";
import { rng } from "../../helpers/generate.js";

function agree(values: number[], room = 0): void {
  const runs = new IncreasingRuns(room);
  for (const v of values) runs.push(v);
  expect(runs.length).toBe(values.length);
  const r = rng(values.length);
  for (let i = 0; i < values.length; i++) {
    const k = Math.floor(r() * values.length);
    expect(runs.at(k)).toBe(values[k]);
  }
  for (let k = 0; k < values.length; k++) expect(runs.at(k)).toBe(values[k]);
  const placeOf = new Map(values.map((v, k) => [v, k]));
  const top = values.length > 0 ? values[values.length - 1]! + 3 : 3;
  for (let v = -2; v < top; v++) expect(runs.indexOf(v), `value ${v}`).toBe(placeOf.get(v) ?? -1);
}

/** `n` values from `first`, each past the one before by 1, or (with chance `jump`) by 2 to 5. */
function sequence(n: number, first: number, jump: (k: number) => number, seed: number): number[] {
  const r = rng(seed);
  const out: number[] = [];
  for (let k = 0, v = first; k < n; k++, v += r() < jump(k) ? 2 + Math.floor(r() * 4) : 1) out.push(v);
  return out;
}

describe("IncreasingRuns", () => {
  it("empty, and one value", () => {
    agree([]);
    agree([7]);
  });
  it("one run", () => agree(sequence(1000, 1, () => 0, 1)));
  it("a few runs", () => agree(sequence(5000, 0, () => 0.002, 2)));
  it("runs enough for a column", () => agree(sequence(3000, 4, () => 0.6, 3)));
  it("runs, then a column half way, with room given and outgrown", () => agree(sequence(4000, 2, (k) => (k < 2000 ? 0.001 : 0.7), 4), 1000));
  it("equal values (records split from one line): each its own run, the last of them found", () => {
    const r = rng(5);
    const values: number[] = [];
    for (let k = 0, v = 1; k < 3000; k++, v += r() < 0.01 ? 0 : 1) values.push(v);
    expect(new Set(values).size).toBeLessThan(values.length);
    agree(values);
  });
});
