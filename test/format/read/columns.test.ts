/**
 * An increasing sequence kept as runs (or, past a quarter of its places in runs, as a column)
 * answers as the array it stands for: the value at each place, asked in any order, and the place
 * of each value, -1 for the values between.
 */
import { describe, expect, it } from "vitest";
import { IncreasingRuns, IntMap, release, RunStack } from "../../../src/format/read/columns.js";
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

describe("IntMap", () => {
  /** Sets, gets and deletes held to a `Map`: keys from a pool (`pool` of them: a small pool, chains of collisions), any 32-bit value. */
  function agreeMap(seed: number, steps: number, pool: number): void {
    const r = rng(seed);
    const m = new IntMap();
    const want = new Map<number, number>();
    const keys = Array.from({ length: pool }, () => (Math.floor(r() * 2 ** 32) | 0));
    for (let s = 0; s < steps; s++) {
      const key = keys[Math.floor(r() * pool)]!;
      const roll = r();
      if (roll < 0.45) {
        const value = Math.floor(r() * 2 ** 31);
        m.set(key, value);
        want.set(key, value);
      } else if (roll < 0.8) {
        m.delete(key);
        want.delete(key);
      }
      expect(m.get(key), `step ${s}`).toBe(want.get(key) ?? -1);
    }
    for (const key of keys) expect(m.get(key)).toBe(want.get(key) ?? -1);
  }
  it("a few keys, set and deleted again and again", () => agreeMap(1, 20000, 8));
  it("thousands of keys, growing and shrinking", () => agreeMap(2, 60000, 5000));
  it("keys whose places wrap around the table's end, deleted in every order", () => {
    // (keys the map's hash places in the last two of its first 16 places: their runs wrap to the start)
    const atEnd: number[] = [];
    for (let k = 1; atEnd.length < 6; k++) if (Math.imul(k, 0x9e3779b1) >>> 28 >= 14) atEnd.push(k);
    const r = rng(9);
    for (let round = 0; round < 2000; round++) {
      const m = new IntMap();
      const want = new Map<number, number>();
      for (const k of atEnd.slice(0, 3 + (round % 4))) {
        m.set(k, round + k);
        want.set(k, round + k);
      }
      const order = [...want.keys()].sort(() => r() - 0.5);
      for (const k of order.slice(0, 1 + (round % order.length))) {
        m.delete(k);
        want.delete(k);
        for (const j of atEnd) expect(m.get(j), `round ${round}: ${j} after deleting ${k}`).toBe(want.get(j) ?? -1);
      }
    }
  });
  it("keys that differ only in their high bits, and 0 and -1 as keys", () => {
    const m = new IntMap();
    const keys = [0, -1, 1 << 31, 1 << 30, (1 << 30) | 1, 3 << 29, 7 << 28];
    keys.forEach((k, i) => m.set(k, i));
    keys.forEach((k, i) => expect(m.get(k)).toBe(i));
    m.delete(1 << 30);
    expect(m.get(1 << 30)).toBe(-1);
    keys.filter((k) => k !== 1 << 30).forEach((k) => expect(m.get(k)).toBe(keys.indexOf(k)));
  });
});

describe("release", () => {
  it("gives back a column that owns its buffer, and leaves a view on a shared one", () => {
    const own = new Int32Array(1000).fill(7);
    const shared = new Int32Array(1000).fill(3);
    const view = shared.subarray(10, 20);
    release(own, view);
    expect(own.length).toBe(0);
    expect(view.length).toBe(10);
    expect(shared[500]).toBe(3);
  });
});
