/**
 * Ids other than pi's hex and UUIDs, kept once each (`IdStrings`, for the id index: read/ids.ts),
 * and the hash and the growth rule the two share.
 */

/**
 * Ids other than pi's hex and UUIDs, each kept once and named by a reference (a number), in a few
 * typed arrays instead of a string and a `Map` entry each (several hundred bytes an id): their
 * characters run together, a byte each when every one is under U+0100, else two (UTF-16, so that
 * any string, a lone surrogate included, comes back as it was). An open-addressing hash table finds
 * a string's reference.
 */
export class IdStrings {
  /** Id k's characters: `chars` from `starts[k]` to `starts[k + 1]`, two bytes each where `wide[k]`. */
  private chars = Buffer.alloc(0);
  private starts = new Uint32Array(1);
  private wide = new Uint8Array(0);
  private count = 0;
  /** The last node holding each id (-1: none yet, a parent named before its entry). */
  private holder = new Int32Array(0);
  /** References + 1 (0: empty), placed by hash. */
  private table = new Int32Array(0);
  /** The string being looked up, as `read` left it. */
  private scratch = Buffer.allocUnsafe(256);
  private scratchLength = 0;
  private scratchWide = false;

  /** The node holding the id a reference stands for (its last holder so far), or -1. */
  holderOf(ref: number): number {
    return this.holder[ref]!;
  }

  /** Makes `node` the holder of the id; returns the holder before it (-1: none). */
  hold(ref: number, node: number): number {
    const before = this.holder[ref]!;
    this.holder[ref] = node;
    return before;
  }

  /** The string's reference, -1 when it has none. */
  find(s: string): number {
    if (this.count === 0) return -1;
    return this.table[this.slotFor(s)]! - 1;
  }

  /** The string's reference, given one if it is new (`room`: ids there may be in all, at most, as far as the caller knows). */
  intern(s: string, room: number): number {
    if (this.table.length === 0) this.table = new Int32Array(16);
    const at = this.slotFor(s);
    const found = this.table[at]!;
    if (found !== 0) return found - 1;
    const k = this.count;
    if (k + 2 > this.starts.length) {
      const n = nextRoom(k, room);
      const starts = new Uint32Array(n + 1);
      starts.set(this.starts.subarray(0, k + 1));
      this.starts = starts;
      const wide = new Uint8Array(n);
      wide.set(this.wide.subarray(0, k));
      this.wide = wide;
      const holder = new Int32Array(n).fill(-1);
      holder.set(this.holder.subarray(0, k));
      this.holder = holder;
    }
    const from = this.starts[k]!;
    if (from + this.scratchLength > this.chars.length) {
      // (room for as many more as the ids so far average)
      const average = (from + this.scratchLength) / (k + 1);
      const chars = Buffer.allocUnsafe(Math.ceil(average * nextRoom(k, room)) + this.scratchLength);
      this.chars.copy(chars, 0, 0, from);
      this.chars = chars;
    }
    this.scratch.copy(this.chars, from, 0, this.scratchLength);
    this.starts[k + 1] = from + this.scratchLength;
    this.wide[k] = this.scratchWide ? 1 : 0;
    this.count++;
    this.table[at] = k + 1;
    if (this.count * 4 > this.table.length * 3) this.rehash();
    return k;
  }

  /** The id a reference stands for. */
  stringOf(k: number): string {
    return this.chars.toString(this.wide[k] ? "utf16le" : "latin1", this.starts[k]!, this.starts[k + 1]!);
  }

  /** Reads `s` into `scratch`, then finds its place in the table: where it is, or the empty place it would take. */
  private slotFor(s: string): number {
    let wide = false;
    for (let i = 0; i < s.length && !wide; i++) wide = s.charCodeAt(i) > 0xff;
    const n = wide ? 2 * s.length : s.length;
    if (n > this.scratch.length) this.scratch = Buffer.allocUnsafe(2 * n);
    this.scratchLength = this.scratch.write(s, 0, wide ? "utf16le" : "latin1");
    this.scratchWide = wide;
    const table = this.table;
    const mask = table.length - 1;
    for (let at = hashBytes(this.scratch, 0, this.scratchLength, wide) & mask; ; at = (at + 1) & mask) {
      const entry = table[at]!;
      if (entry === 0 || this.holds(entry - 1)) return at;
    }
  }

  /** Whether id k is what `slotFor` read last. */
  private holds(k: number): boolean {
    if ((this.wide[k] === 1) !== this.scratchWide) return false;
    const from = this.starts[k]!;
    const n = this.starts[k + 1]! - from;
    return n === this.scratchLength && this.chars.compare(this.scratch, 0, n, from, from + n) === 0;
  }

  /** The table twice the size, the references placed again. */
  private rehash(): void {
    const old = this.table;
    const table = (this.table = new Int32Array(2 * old.length));
    const mask = table.length - 1;
    for (let i = 0; i < old.length; i++) {
      const entry = old[i]!;
      if (entry === 0) continue;
      const k = entry - 1;
      let at = hashBytes(this.chars, this.starts[k]!, this.starts[k + 1]!, this.wide[k] === 1) & mask;
      while (table[at] !== 0) at = (at + 1) & mask;
      table[at] = entry;
    }
  }
}

/**
 * How many a column holding `count` grows to: twice, but no more than what the caller said there
 * may be (`room`) while that is more; past it, twice.
 */
export function nextRoom(count: number, room: number): number {
  return room > count + 16 ? Math.min(2 * count + 16, room) : 2 * count + 16;
}

/** A 32-bit hash's bits mixed (murmur3's finaliser). */
export function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** FNV-1a over the bytes, its bits mixed (murmur3's finaliser; a wide string's apart from a narrow one's). */
function hashBytes(b: Uint8Array, from: number, to: number, wide: boolean): number {
  let h = wide ? 0x811c9dc4 : 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return mix(h);
}
