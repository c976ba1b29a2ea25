/**
 * An increasing sequence kept as runs (or, past a quarter of its places in runs, as a column)
 * answers as the array it stands for: the value at each place, asked in any order, and the place
 * of each value, -1 for the values between.
 */
import { describe, expect, it } from "vitest";
import { IncreasingRuns, RunStack } from "../../../src/format/read/columns.js";
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

describe("RunStack", () => {
  /** Pushes and cuts as a walk makes them (chains of numbers one after another, jumps, branches left), held to an array. */
  function walk(seed: number, steps: number, jump: number): void {
    const r = rng(seed);
    const stack = new RunStack();
    const array: number[] = [];
    for (let s = 0; s < steps; s++) {
      const roll = r();
      if (roll < 0.02 && array.length > 0) {
        const keep = Math.floor(r() * array.length);
        stack.length = keep;
        array.length = keep;
      } else if (roll < 0.05 && array.length > 0) {
        stack.length--;
        array.pop();
      } else {
        const top = array.length > 0 ? array[array.length - 1]! : 0;
        const v = r() < jump ? Math.floor(r() * 1e6) : top + 1;
        stack.push(v);
        array.push(v);
      }
      expect(stack.length).toBe(array.length);
      if (array.length > 0) {
        expect(stack.at(array.length - 1)).toBe(array[array.length - 1]);
        const k = Math.floor(r() * array.length);
        expect(stack.at(k), `step ${s}, place ${k}`).toBe(array[k]);
      }
    }
    for (let k = 0; k < array.length; k++) expect(stack.at(k)).toBe(array[k]);
  }
  it("a chain: one run", () => walk(1, 3000, 0));
  it("chains with jumps, cut back as a walk leaves branches", () => walk(2, 20000, 0.01));
  it("every push a jump (a run an item)", () => walk(3, 5000, 1));
  it("a cut to a run's first place, then a push that follows the run before it", () => {
    const stack = new RunStack();
    for (const v of [5, 6, 7, 20, 21]) stack.push(v);
    stack.length = 3;
    stack.push(8);
    expect([0, 1, 2, 3].map((k) => stack.at(k))).toEqual([5, 6, 7, 8]);
    stack.length = 0;
    stack.push(9);
    expect(stack.at(0)).toBe(9);
  });
});
