import { hexOf, hexString } from "./scanner.js";

/**
 * Entry ids and who holds them, in a few bytes a node instead of a `Map` of strings (BENCHMARKS.md,
 * "the index"). pi writes ids as 8 lowercase hex digits: such an id is kept as the number they
 * spell; any other id as its string (few, in pi's files). Nodes are added in file order, numbered
 * from 0, while the file is read; then `seal` sorts the numbers once (a radix sort: memory is read
 * in order, where a hash table would miss the cache on every entry) and an id is found by binary
 * search. The holder of an id is its last one, as pi's `byId` resolves a duplicated id.
 */

const NONE = 0;
const HEX = 1;
const OTHER = 2;

export class IdIndex {
  count = 0;
  /** Per node: the id's number (HEX), or its index in `others` (OTHER). */
  private value: Uint32Array;
  private kind: Uint8Array;
  private readonly others: string[] = [];
  /** The last holder of each other id. */
  private readonly otherHolder = new Map<string, number>();
  /** The hex nodes, by number then file order (`seal`). */
  private sorted: Uint32Array | undefined;
  /** Ids held by more than one node, with those nodes in file order. */
  readonly duplicates = new Map<string, number[]>();

  constructor(capacity: number) {
    this.value = new Uint32Array(capacity);
    this.kind = new Uint8Array(capacity);
  }

  /** Makes room for `capacity` nodes (the caller sizes it from what is left of the file). */
  reserve(capacity: number): void {
    if (capacity <= this.value.length) return;
    const value = new Uint32Array(capacity);
    value.set(this.value.subarray(0, this.count));
    this.value = value;
    const kind = new Uint8Array(capacity);
    kind.set(this.kind.subarray(0, this.count));
    this.kind = kind;
  }

  /** Adds the next node with its id (`hex` >= 0: the hex id's number; else `other`, or none); returns its number. */
  add(hex: number, other: string | undefined): number {
    if (this.count === this.value.length) this.reserve(Math.max(16, this.count * 2));
    const node = this.count++;
    if (hex >= 0) {
      this.kind[node] = HEX;
      this.value[node] = hex;
    } else if (other !== undefined) {
      this.kind[node] = OTHER;
      this.value[node] = this.others.length;
      this.others.push(other);
      const held = this.otherHolder.get(other);
      if (held !== undefined) (this.duplicates.get(other) ?? this.duplicates.set(other, [held]).get(other)!).push(node);
      this.otherHolder.set(other, node);
    }
    return node;
  }

  /** Sorts the hex ids for finding them, and notes the duplicated ones. Call once, after the last `add`. */
  seal(): void {
    let n = 0;
    for (let i = 0; i < this.count; i++) if (this.kind[i] === HEX) n++;
    let from = new Uint32Array(n);
    let to = new Uint32Array(n);
    for (let i = 0, k = 0; i < this.count; i++) if (this.kind[i] === HEX) from[k++] = i;
    // LSD radix sort on the 32-bit numbers; stable, so holders stay in file order. 16 bits a pass
    // for many ids, 8 for fewer: a pass costs its buckets as well as its ids, and `ls` seals
    // thousands of small sessions (BENCHMARKS.md, "sealing small sessions").
    const bits = n >= 1 << 16 ? 16 : 8;
    const mask = (1 << bits) - 1;
    const counts = new Int32Array(mask + 2);
    for (let shift = 0; shift < 32; shift += bits) {
      counts.fill(0);
      for (let k = 0; k < n; k++) counts[((this.value[from[k]!]! >>> shift) & mask) + 1]!++;
      for (let d = 0; d <= mask; d++) counts[d + 1]! += counts[d]!;
      for (let k = 0; k < n; k++) to[counts[(this.value[from[k]!]! >>> shift) & mask]!++] = from[k]!;
      [from, to] = [to, from];
    }
    this.sorted = from;
    for (let k = 1; k < n; k++) {
      if (this.value[from[k]!] !== this.value[from[k - 1]!]) continue;
      const id = hexString(this.value[from[k]!]!);
      const list = this.duplicates.get(id);
      if (list) list.push(from[k]!);
      else this.duplicates.set(id, [from[k - 1]!, from[k]!]);
    }
  }

  /** The node holding the id (the last one), or -1. */
  find(hex: number, other: string | undefined): number {
    if (hex < 0) return other === undefined ? -1 : (this.otherHolder.get(other) ?? -1);
    const sorted = this.sorted!;
    // the last position whose number is at most `hex`
    let lo = 0;
    let hi = sorted.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.value[sorted[mid]!]! <= hex) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return at >= 0 && this.value[sorted[at]!] === hex ? sorted[at]! : -1;
  }

  /**
   * The holders of many ids at once (`hex` numbers, `hex[k]` < 0 for none), as `find` would give
   * them: the queries sorted and merged with the sorted ids, one pass over each.
   */
  findAll(hex: ArrayLike<number>): Int32Array {
    const out = new Int32Array(hex.length).fill(-1);
    const order = Array.from({ length: hex.length }, (_, k) => k).filter((k) => hex[k]! >= 0);
    order.sort((a, b) => hex[a]! - hex[b]!);
    const sorted = this.sorted!;
    let at = 0;
    for (const k of order) {
      const want = hex[k]!;
      while (at < sorted.length && this.value[sorted[at]!]! < want) at++;
      // the last holder: the end of the run of equal numbers
      let last = -1;
      for (let j = at; j < sorted.length && this.value[sorted[j]!] === want; j++) last = sorted[j]!;
      out[k] = last;
    }
    return out;
  }

  /** The node holding `id` (the last one), or -1. */
  findString(id: string): number {
    const hex = hexOf(id);
    return this.find(hex, hex >= 0 ? undefined : id);
  }

  /** The node's id as the number of its hex digits, or -1 when it has none or another. */
  hexAt(node: number): number {
    return this.kind[node] === HEX ? this.value[node]! : -1;
  }

  /** Whether the node has an id. */
  has(node: number): boolean {
    return this.kind[node] !== NONE;
  }

  /** Whether the node's id is `hex` / `other` (as `add` takes them). */
  is(node: number, hex: number, other: string | undefined): boolean {
    return hex >= 0 ? this.kind[node] === HEX && this.value[node] === hex : this.kind[node] === OTHER && this.others[this.value[node]!] === other;
  }

  idOf(node: number): string | undefined {
    const k = this.kind[node];
    return k === HEX ? hexString(this.value[node]!) : k === OTHER ? this.others[this.value[node]!] : undefined;
  }

  /** The node that holds this node's id now (its last holder; the node itself when it has no id). */
  holderOf(node: number): number {
    const k = this.kind[node];
    if (k === NONE) return node;
    return this.find(k === HEX ? this.value[node]! : -1, k === OTHER ? this.others[this.value[node]!] : undefined);
  }

  /** Nodes whose id starts with `prefix`, each id once (its last holder). */
  withPrefix(prefix: string): number[] {
    const out: number[] = [];
    // A hex prefix names a range of numbers: no string is made for the hex ids.
    const hexPrefix = /^[0-9a-f]{0,8}$/.test(prefix);
    const low = hexPrefix ? parseInt(prefix.padEnd(8, "0"), 16) : 0;
    const high = hexPrefix ? parseInt(prefix.padEnd(8, "f"), 16) : -1;
    for (let node = 0; node < this.count; node++) {
      const k = this.kind[node];
      const matches = k === HEX ? this.value[node]! >= low && this.value[node]! <= high : k === OTHER && this.others[this.value[node]!]!.startsWith(prefix);
      if (matches && (this.duplicates.size === 0 || this.holderOf(node) === node)) out.push(node);
    }
    return out;
  }
}
