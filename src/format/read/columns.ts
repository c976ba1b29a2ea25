/** Typed columns: one grown; an increasing one, and a stack, kept as runs; the search they share. */

type TypedArray = Int32Array | Uint32Array | Uint16Array | Uint8Array | Float64Array;

/** A typed array `length` long holding the first `count` values of `a` (a column grown). */
export function grown<T extends TypedArray>(a: T, length: number, count: number): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a.subarray(0, count) as never);
  return b;
}

/**
 * An increasing sequence of whole numbers (a node's line, a kept record's candidate, a repair
 * candidate's line: there, records split from one line share it), kept as runs
 * of numbers one after another: each run's first place and its number. Most such sequences are one
 * run or a few (a node a line but the header's), where a column was 4 bytes a place (BENCHMARKS.md,
 * "Memory an entry"). Where the runs come to a quarter of the places, a column after all.
 */
export class IncreasingRuns {
  length = 0;
  private runPlace = new Int32Array(16);
  private runValue = new Int32Array(16);
  private runs = 0;
  /** The run `at` found last (places are mostly asked for in order). */
  private lastRun = 0;
  private column: Int32Array | undefined;

  /** `room`: how many places there may be (the column's size, if one is made; it grows past it). */
  constructor(private room = 0) {}

  /** Room for `room` places, where a column is kept (else the size one is made at). */
  reserve(room: number): void {
    if (room <= this.room) return;
    this.room = room;
    if (this.column !== undefined) this.column = grown(this.column, room, this.length);
  }

  /** Adds the next value (no less than the last one; an equal one starts a run of its own, and `indexOf` finds the last of them). */
  push(value: number): void {
    const k = this.length++;
    if (this.column !== undefined) {
      if (k === this.column.length) this.column = grown(this.column, Math.max(this.room, 2 * k + 16), k);
      this.column[k] = value;
      return;
    }
    const r = this.runs - 1;
    if (r >= 0 && this.runValue[r]! + k - this.runPlace[r]! === value) return;
    if (4 * (this.runs + 1) > this.length + 64) {
      const column = new Int32Array(Math.max(this.room, this.length + 16));
      for (let j = 0; j < k; j++) column[j] = this.at(j);
      column[k] = value;
      this.column = column;
      this.runPlace = this.runValue = new Int32Array(0);
      this.runs = 0;
      return;
    }
    if (this.runs === this.runPlace.length) {
      this.runPlace = grown(this.runPlace, 2 * this.runs, this.runs);
      this.runValue = grown(this.runValue, 2 * this.runs, this.runs);
    }
    this.runPlace[this.runs] = k;
    this.runValue[this.runs++] = value;
  }

  /** The value at place `k` (`0 <= k < length`). */
  at(k: number): number {
    if (this.column !== undefined) return this.column[k]!;
    let r = this.lastRun;
    if (!(this.runPlace[r]! <= k && (r + 1 === this.runs || this.runPlace[r + 1]! > k))) {
      this.lastRun = r = lastAtMost(this.runPlace, this.runs, k);
    }
    return this.runValue[r]! + k - this.runPlace[r]!;
  }

  /** The place holding `value`, or -1. */
  indexOf(value: number): number {
    if (this.column !== undefined) {
      const column = this.column;
      let lo = 0;
      let hi = this.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const v = column[mid]!;
        if (v === value) return mid;
        if (v < value) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    }
    if (this.runs === 0 || value < this.runValue[0]!) return -1;
    const r = lastAtMost(this.runValue, this.runs, value);
    const k = this.runPlace[r]! + value - this.runValue[r]!;
    return k < (r + 1 < this.runs ? this.runPlace[r + 1]! : this.length) ? k : -1;
  }
}

/** The last of `a[0..n)` (ascending, `a[0] <= x`) at most `x`. */
export function lastAtMost(a: Int32Array, n: number, x: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (a[mid]! <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * A stack of whole numbers kept as runs of numbers one after another (the pairing walk's path: a
 * chain of a million entries is nodes n, n + 1, … and one run), where an array was 4 bytes an item
 * and grew by copies (BENCHMARKS.md, "Memory an entry"). Any numbers may be pushed: one that does
 * not follow the top starts a run.
 */
export class RunStack {
  private runPlace = new Int32Array(16);
  private runValue = new Int32Array(16);
  private runs = 0;
  private size = 0;
  /** The run `at` found last (items are mostly asked for near the last one). */
  private lastRun = 0;

  get length(): number {
    return this.size;
  }

  /** Drops the items from place `length` up (`length` no more than the stack's). */
  set length(length: number) {
    if (length >= this.size) return;
    this.size = length;
    this.runs = length === 0 ? 0 : this.runOf(length - 1) + 1;
    if (this.lastRun >= this.runs) this.lastRun = 0;
  }

  push(value: number): void {
    const r = this.runs - 1;
    if (r >= 0 && this.runValue[r]! + this.size - this.runPlace[r]! === value) {
      this.size++;
      return;
    }
    if (this.runs === this.runPlace.length) {
      this.runPlace = grown(this.runPlace, 2 * this.runs, this.runs);
      this.runValue = grown(this.runValue, 2 * this.runs, this.runs);
    }
    this.runPlace[this.runs] = this.size++;
    this.runValue[this.runs++] = value;
  }

  /** The item at place `k` (`0 <= k < length`). */
  at(k: number): number {
    const r = this.runOf(k);
    return this.runValue[r]! + k - this.runPlace[r]!;
  }

  private runOf(k: number): number {
    const r = this.lastRun;
    if (r < this.runs && this.runPlace[r]! <= k && (r + 1 === this.runs || this.runPlace[r + 1]! > k)) return r;
    return (this.lastRun = lastAtMost(this.runPlace, this.runs, k));
  }
}
