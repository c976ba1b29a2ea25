import { hexOf, hexString } from "./scanner.js";

/**
 * Entry ids and who holds them, in a few bytes a node instead of a `Map` of strings (BENCHMARKS.md,
 * "the index"). pi writes ids as 8 lowercase hex digits: such an id is kept as the number they
 * spell; any other id as its string (few, in pi's files). A hash table of node numbers (open
 * addressing over an Int32Array) finds the node that holds an id: the last one, as pi's `byId`
 * resolves a duplicated id. Nodes are added in file order, numbered from 0.
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
  /** Node + 1 of each id's last holder (0: empty), at its hash's slot or the next free one. */
  private slots = new Int32Array(1024);
  private mask = 1023;
  private used = 0;
  /** Ids held by more than one node, with those nodes in file order. */
  readonly duplicates = new Map<string, number[]>();

  constructor(capacity: number) {
    this.value = new Uint32Array(capacity);
    this.kind = new Uint8Array(capacity);
  }

  get capacity(): number {
    return this.value.length;
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

  /**
   * Adds the next node with its id (`hex` >= 0: the hex id's number; else `other`, or none);
   * returns the node number.
   */
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
    } else return node;
    this.place(node, hex, other);
    return node;
  }

  /** The node holding the id (the last one), or -1. */
  find(hex: number, other: string | undefined): number {
    if (hex < 0 && other === undefined) return -1;
    const slots = this.slots;
    for (let at = this.hash(hex, other); ; at = (at + 1) & this.mask) {
      const held = slots[at]! - 1;
      if (held < 0) return -1;
      if (this.holds(held, hex, other)) return held;
    }
  }

  /** The node holding `id` (the last one), or -1. */
  findString(id: string): number {
    const hex = hexOf(id);
    return this.find(hex, hex >= 0 ? undefined : id);
  }

  /** Whether the node has an id. */
  has(node: number): boolean {
    return this.kind[node] !== NONE;
  }

  /** Whether two nodes hold the same id. */
  same(a: number, b: number): boolean {
    return this.kind[a] === this.kind[b] && this.kind[a] !== NONE && (this.kind[a] === HEX ? this.value[a] === this.value[b] : this.others[this.value[a]!] === this.others[this.value[b]!]);
  }

  /** Whether the node's id is `hex` / `other` (as `add` takes them). */
  is(node: number, hex: number, other: string | undefined): boolean {
    return this.holds(node, hex, other);
  }

  idOf(node: number): string | undefined {
    const k = this.kind[node];
    return k === HEX ? hexString(this.value[node]!) : k === OTHER ? this.others[this.value[node]!] : undefined;
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
      if (matches && this.lastHolder(node)) out.push(node);
    }
    return out;
  }

  /** Whether no later node holds this node's id. */
  private lastHolder(node: number): boolean {
    return this.duplicates.size === 0 || this.holderOf(node) === node;
  }

  /** The node that holds this node's id now (its last holder; the node itself when it has no id). */
  holderOf(node: number): number {
    const k = this.kind[node];
    if (k === NONE) return node;
    return this.find(k === HEX ? this.value[node]! : -1, k === OTHER ? this.others[this.value[node]!] : undefined);
  }

  private holds(node: number, hex: number, other: string | undefined): boolean {
    return hex >= 0 ? this.kind[node] === HEX && this.value[node] === hex : this.kind[node] === OTHER && this.others[this.value[node]!] === other;
  }

  private hash(hex: number, other: string | undefined): number {
    let h: number;
    if (hex >= 0) h = hex;
    else {
      // FNV-1a over the UTF-16 code units
      h = 0x811c9dc5;
      for (let k = 0; k < other!.length; k++) h = Math.imul(h ^ other!.charCodeAt(k), 0x01000193);
    }
    return (Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0) & this.mask;
  }

  private place(node: number, hex: number, other: string | undefined): void {
    const slots = this.slots;
    for (let at = this.hash(hex, other); ; at = (at + 1) & this.mask) {
      const held = slots[at]! - 1;
      if (held < 0) {
        slots[at] = node + 1;
        if (++this.used * 4 > slots.length * 3) this.rehash();
        return;
      }
      if (this.holds(held, hex, other)) {
        // the same id again: the last holder is the one found from now on
        const id = this.idOf(node)!;
        const list = this.duplicates.get(id);
        if (list) list.push(node);
        else this.duplicates.set(id, [held, node]);
        slots[at] = node + 1;
        return;
      }
    }
  }

  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    this.mask = this.slots.length - 1;
    for (const entry of old) {
      if (entry === 0) continue;
      const node = entry - 1;
      const hex = this.kind[node] === HEX ? this.value[node]! : -1;
      const other = this.kind[node] === OTHER ? this.others[this.value[node]!] : undefined;
      let at = this.hash(hex, other);
      while (this.slots[at] !== 0) at = (at + 1) & this.mask;
      this.slots[at] = entry;
    }
  }
}
