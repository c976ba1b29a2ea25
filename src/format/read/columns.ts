/** Typed columns: one grown, one given back; an increasing one, and a stack, kept as runs; the search they share; a map of whole numbers. */

type TypedArray = Int32Array | Uint32Array | Uint16Array | Uint8Array | Float64Array;

/** A typed array `length` long holding the first `count` values of `a` (a column grown). */
export function grown<T extends TypedArray>(a: T, length: number, count: number): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a.subarray(0, count) as never);
  return b;
}

/**
 * Gives the memory of columns done with back at once: each a typed array over a whole buffer of its
 * own, that no other view shares (the caller knows). A column left to the garbage collector stays
 * resident until V8 collects its wrapper, which may come after the next step has made columns of
 * its own: the tree's numbering scratch, 20 bytes an entry, was still held while `check`'s walk ran
 * in some runs and not in others, 25 MB apart at 1 GB (BENCHMARKS.md, "Memory an entry"). Where
 * the runtime has no `ArrayBuffer.prototype.transfer`, they are left to the collector.
 */
export function release(...columns: Array<TypedArray | undefined>): void {
  for (const c of columns) {
    if (c === undefined || c.byteOffset !== 0 || c.byteLength !== c.buffer.byteLength) continue;
    (c.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer }).transfer?.(0);
  }
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

/**
 * A map from 32-bit whole numbers to whole numbers 0 and up, in two typed columns: open addressing
 * with linear probing, a removal shifting back the keys after it. A `Map` of as many numbers was
 * some 24-40 bytes an entry of V8's heap, and both sizes held while it grew (the pairing walk's
 * stacks: a call id a call of a linear session; BENCHMARKS.md, "Memory an entry").
 */
export class IntMap {
  private keys = new Int32Array(16);
  private values = new Int32Array(16).fill(-1);
  private shift = 28;
  private size = 0;

  /** The value for `key`, or -1. */
  get(key: number): number {
    const at = this.placeOf(key);
    return at < 0 ? -1 : this.values[at]!;
  }

  set(key: number, value: number): void {
    if (2 * (this.size + 1) > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let at = this.home(key);
    while (this.values[at] !== -1) {
      if (this.keys[at] === key) {
        this.values[at] = value;
        return;
      }
      at = (at + 1) & mask;
    }
    this.keys[at] = key;
    this.values[at] = value;
    this.size++;
  }

  delete(key: number): void {
    let at = this.placeOf(key);
    if (at < 0) return;
    this.size--;
    const mask = this.keys.length - 1;
    // (each key after it whose home is not between the gap and itself moves back into the gap)
    for (let j = (at + 1) & mask; this.values[j] !== -1; j = (j + 1) & mask) {
      const home = this.home(this.keys[j]!);
      if (j > at ? home <= at || home > j : home <= at && home > j) {
        this.keys[at] = this.keys[j]!;
        this.values[at] = this.values[j]!;
        at = j;
      }
    }
    this.values[at] = -1;
  }

  private home(key: number): number {
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }

  private placeOf(key: number): number {
    const mask = this.keys.length - 1;
    for (let at = this.home(key); this.values[at] !== -1; at = (at + 1) & mask) if (this.keys[at] === key) return at;
    return -1;
  }

  private grow(): void {
    const { keys, values } = this;
    this.keys = new Int32Array(2 * keys.length);
    this.values = new Int32Array(2 * keys.length).fill(-1);
    this.shift--;
    this.size = 0;
    for (let i = 0; i < keys.length; i++) if (values[i] !== -1) this.set(keys[i]!, values[i]!);
    release(keys, values);
  }
}
