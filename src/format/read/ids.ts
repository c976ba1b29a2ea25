import { grown, IncreasingRuns } from "./columns.js";
import { IdStrings, mix, nextRoom } from "./id-strings.js";
import { hexOf, hexString, readUuid, uuidString } from "./scan-values.js";

/**
 * Entry ids and who holds them, in a few bytes a node instead of a `Map` of strings (BENCHMARKS.md,
 * "the index"). pi writes ids as 8 lowercase hex digits: such an id is kept as the number they
 * spell. A UUID (36 characters, lowercase hex, dashes where they go: a replayer's, another tool's)
 * is kept as its 16 bytes; any other id once, as its characters (`IdStrings`). Nodes are added in
 * file order, numbered from 0, while the file is read; then `seal` sorts the hex numbers once (a
 * radix sort: memory is read in order, where a hash table would miss the cache on every entry) and
 * a hex id is found by binary search. UUIDs and other ids are found by their hash as the nodes are
 * added (a UUID's table holds its last holder; sorting 16-byte keys cost more than the misses). The
 * holder of an id is its last one, as pi's `byId` resolves a duplicated id.
 *
 * A parent id waiting to be found is kept as a reference (`refOf`), not a string: a UUID's slot
 * * 2, another id's reference in `IdStrings` * 2 + 1.
 */

const NONE = 0;
/** The most hex ids `seal` sorts by insertion rather than by radix. */
const SMALL_SORT = 64;
/** How many nodes without a UUID the runs of UUID slots take (`IdIndex.odd`) before the columns are made. */
const ODD_NODES = 64;
const HEX = 1;
const UUID = 2;
const TEXT = 3;

export class IdIndex {
  count = 0;
  /** Nodes there is room for (the caller's estimate: what columns are made at). */
  private capacity: number;
  /**
   * Per node: the id's number (HEX), its slot in `words` (UUID), or its reference in `strings`
   * (TEXT); none while the nodes so far hold UUIDs, but a few (`uuidSlots`, `odd`).
   */
  private value: Uint32Array | undefined;
  private kind: Uint8Array | undefined;
  /**
   * While every node so far holds a UUID: each one's slot in `words`, as runs (the slots are
   * given in node order: a run, but where a parent named before its entry took one). The two
   * columns were 5 bytes an entry of a replayer's transcript (BENCHMARKS.md, "Memory an entry").
   */
  private uuidSlots: IncreasingRuns | undefined;
  /**
   * While the slots are runs: the few nodes that hold no UUID (a header's id of its own, an entry
   * with none), each one's kind * 2^32 + value, and a bit a node saying which they are. Past a
   * few, the columns after all (`ODD_NODES`): one such node made them for the whole file. (A file
   * whose first two nodes hold no UUID makes them at once.)
   */
  private readonly odd = new Map<number, number>();
  private oddBits: Uint32Array = new Uint32Array(0);
  /** UUIDs, four 32-bit words a slot (the nodes' and the parents' waiting to be found), most significant first. */
  private words = new Uint32Array(0);
  private slots = 0;
  /** Other ids, each once, with the last holder of each. */
  private readonly strings = new IdStrings();
  /** The last node added with a TEXT id, and that id (most parents are the entry before: found without a lookup). */
  private lastText: string | undefined;
  private lastTextNode = -1;
  /** A UUID as `readUuid` read it. */
  private readonly word = new Uint32Array(4);
  /** The hex nodes, by number then file order (`seal`). */
  private sorted: Uint32Array | undefined;
  /**
   * The last node holding each UUID, + 1 (0: empty), placed by the UUID's hash; while the nodes'
   * numbers leave room (`nodeBits`), with 6 more bits of the hash above it, so that a probe
   * that meets another UUID is told so without its words being looked up and compared (a new
   * UUID's search in a table four fifths full probes a dozen places: compared each, they were a
   * sixth of reading a UUID session). Past 2^25 nodes, untagged.
   */
  private uuidTable = new Int32Array(0);
  private tagged = true;
  private readonly nodeMask: number;
  private uuids = 0;
  /** Ids held by more than one node, with those nodes in file order. */
  readonly duplicates = new Map<string, number[]>();

  /** `nodeBits`: the bits of a UUID table's entry for its node (`uuidTable`; tests give fewer, to see the table untagged). */
  constructor(
    capacity: number,
    private readonly nodeBits = NODE_BITS,
  ) {
    this.capacity = capacity;
    this.nodeMask = 2 ** nodeBits - 1;
    this.uuidSlots = new IncreasingRuns(capacity);
  }

  /** Makes room for `capacity` nodes (the caller sizes it from what is left of the file). */
  reserve(capacity: number): void {
    if (capacity <= this.capacity) return;
    this.capacity = capacity;
    this.uuidSlots?.reserve(capacity);
    if (this.odd.size > 0) this.oddBits = grownBits(this.oddBits, capacity);
    if (!this.value || !this.kind) return;
    const value = new Uint32Array(capacity);
    value.set(this.value.subarray(0, this.count));
    this.value = value;
    const kind = new Uint8Array(capacity);
    kind.set(this.kind.subarray(0, this.count));
    this.kind = kind;
  }

  /** A node's kind of id. (Small, to be inlined in the loops over every node: the rest is `runKindAt`.) */
  private kindAt(node: number): number {
    return this.kind ? this.kind[node]! : this.runKindAt(node);
  }

  /** A node's value: its hex number, UUID slot or string reference (`value`; the rest is `runValueAt`). */
  private valueAt(node: number): number {
    return this.value ? this.value[node]! : this.runValueAt(node);
  }

  /** `kindAt` while the slots are runs. */
  private runKindAt(node: number): number {
    if (node >= this.count) return NONE;
    return this.isOdd(node) ? Math.floor(this.odd.get(node)! / 2 ** 32) : UUID;
  }

  /** `valueAt` while the slots are runs. */
  private runValueAt(node: number): number {
    return this.isOdd(node) ? this.odd.get(node)! % 2 ** 32 : this.uuidSlots!.at(node);
  }

  private isOdd(node: number): boolean {
    // (no bits while there are none)
    const w = node >>> 5;
    return w < this.oddBits.length && (this.oddBits[w]! & (1 << (node & 31))) !== 0;
  }

  /** Node `node`'s kind and value: in the columns, or, while the slots are runs, as one of the few odd nodes. */
  private set(node: number, kind: number, value: number): void {
    if (this.kind && this.value) {
      this.kind[node] = kind;
      this.value[node] = value;
      return;
    }
    if (this.odd.size === 0) this.oddBits = grownBits(this.oddBits, this.capacity);
    this.odd.set(node, kind * 2 ** 32 + value);
    this.oddBits[node >>> 5]! |= 1 << (node & 31);
  }

  /** The columns, made when more than a few nodes hold something other than a UUID. */
  private columns(): void {
    if (!this.value || !this.kind) {
      const value = new Uint32Array(this.capacity);
      const kind = new Uint8Array(this.capacity);
      for (let node = 0; node < this.count; node++) {
        value[node] = this.valueAt(node);
        kind[node] = this.kindAt(node);
      }
      this.value = value;
      this.kind = kind;
      this.uuidSlots = undefined;
      this.odd.clear();
      this.oddBits = new Uint32Array(0);
    }
  }

  /**
   * Adds the next node with its id (`hex` >= 0: the hex id's number; else a UUID's `words`, as the
   * scanner reads them; else `other`, or none); returns its number.
   */
  add(hex: number, other: string | undefined, words?: Uint32Array): number {
    if (this.count === this.capacity) this.reserve(Math.max(16, this.count * 2));
    const uuid = hex < 0 && (words !== undefined || (other !== undefined && readUuid(other, this.word)));
    // (a file whose ids are not UUIDs makes them at its second node)
    if (this.uuidSlots && !uuid && (this.odd.size >= ODD_NODES || (this.count > 0 && this.uuids === 0))) this.columns();
    const node = this.count++;
    // (an odd node's place in the runs holds the value before it: they do not decrease)
    if (this.uuidSlots && !uuid) this.uuidSlots.push(node > 0 ? this.uuidSlots.at(node - 1) : 0);
    if (hex >= 0) {
      this.set(node, HEX, hex);
    } else if (uuid) {
      if (words !== undefined) copyWords(words, this.word);
      const slot = this.newSlot();
      if (this.uuidSlots) this.uuidSlots.push(slot);
      else this.set(node, UUID, slot);
      const held = this.holdUuid(node);
      if (held >= 0) {
        const id = uuidString(this.word, 0);
        (this.duplicates.get(id) ?? this.duplicates.set(id, [held]).get(id)!).push(node);
      }
    } else if (other === undefined) {
      if (this.uuidSlots) this.set(node, NONE, 0);
    } else {
      const ref = this.strings.intern(other, this.capacity);
      this.set(node, TEXT, ref);
      const held = this.strings.hold(ref, node);
      if (held >= 0) (this.duplicates.get(other) ?? this.duplicates.set(other, [held]).get(other)!).push(node);
      this.lastText = other;
      this.lastTextNode = node;
    }
    return node;
  }

  /** A slot holding `word`'s UUID (the last slot again when it holds the same: a parent named right after its entry). */
  private newSlot(): number {
    const last = 4 * (this.slots - 1);
    if (this.slots > 0 && compareWords(this.words, last, this.word, 0) === 0) return this.slots - 1;
    if (4 * (this.slots + 1) > this.words.length) {
      // (where most nodes so far have UUIDs, room for as many as the nodes have at once, as
      // `rehashUuids` sizes its table: doubling to it left a copy of each size behind, the last
      // two both held while one is copied to the other)
      const room = this.uuids * 2 > this.count ? Math.max(this.capacity, 2 * this.slots + 16) : nextRoom(this.slots, this.capacity);
      const words = new Uint32Array(4 * room);
      words.set(this.words.subarray(0, 4 * this.slots));
      this.words = words;
    }
    const at = 4 * this.slots;
    const w = this.word;
    this.words[at] = w[0]!;
    this.words[at + 1] = w[1]!;
    this.words[at + 2] = w[2]!;
    this.words[at + 3] = w[3]!;
    return this.slots++;
  }

  /** The reference of an id other than hex (see the class's comment: a UUID's `words`, or `other`), kept if it is new. */
  refOf(other: string | undefined, words?: Uint32Array): number {
    if (words !== undefined) {
      copyWords(words, this.word);
      return 2 * this.newSlot();
    }
    return readUuid(other!, this.word) ? 2 * this.newSlot() : 2 * this.strings.intern(other!, this.capacity) + 1;
  }

  /** The id a reference stands for (`refOf`). */
  refString(ref: number): string {
    return ref & 1 ? this.strings.stringOf(ref >>> 1) : uuidString(this.words, 4 * (ref >>> 1));
  }

  /** The node holding the id a reference stands for (its last holder so far), or -1. */
  holderOfRef(ref: number): number {
    return ref & 1 ? this.strings.holderOf(ref >>> 1) : this.findWords(this.words, 4 * (ref >>> 1));
  }

  /** Makes `node` (its UUID in `word`) the holder of its UUID; returns the holder before it (-1: none). */
  private holdUuid(node: number): number {
    if (5 * (this.uuids + 1) > 4 * this.uuidTable.length) this.rehashUuids(true);
    else if (this.tagged && node + 1 >= this.nodeMask) this.rehashUuids(false);
    const table = this.uuidTable;
    const size = table.length;
    const hash = hashWords(this.word, 0);
    const mine = this.entryOf(node, hash);
    for (let at = hash % size; ; at = at + 1 === size ? 0 : at + 1) {
      const entry = table[at]!;
      if (entry === 0) {
        table[at] = mine;
        this.uuids++;
        return -1;
      }
      if (this.tagged && (entry ^ mine) >>> this.nodeBits !== 0) continue;
      const held = this.nodeOfEntry(entry);
      if (compareWords(this.words, 4 * this.valueAt(held), this.word, 0) === 0) {
        table[at] = mine;
        return held;
      }
    }
  }

  /** A table entry: `node` + 1, and the hash's tag above it while the table is tagged. */
  private entryOf(node: number, hash: number): number {
    return this.tagged ? (tagOf(hash) << this.nodeBits) | (node + 1) : node + 1;
  }

  private nodeOfEntry(entry: number): number {
    return (this.tagged ? entry & this.nodeMask : entry) - 1;
  }

  /**
   * The UUID table placed again (`grow`: twice the size, 16 places at first; else the same size,
   * untagged, for a node number past the tags' room, `nodeBits`); where most nodes so far have UUIDs, large
   * enough for as many as the nodes have room for (their columns are sized from the file), so that
   * a long session's table is made once or twice, not twenty times. At most four fifths full, of
   * any size (not a power of two: that rounding was 3 bytes an entry).
   */
  private rehashUuids(grow: boolean): void {
    const old = this.uuidTable;
    const wasTagged = this.tagged;
    let size = old.length;
    if (grow) {
      size = Math.max(16, 2 * old.length);
      if (this.uuids * 2 > this.count) size = Math.max(size, Math.ceil((5 * this.capacity) / 4));
    }
    if (this.count + 1 >= this.nodeMask) this.tagged = false;
    const table = (this.uuidTable = new Int32Array(size));
    for (let i = 0; i < old.length; i++) {
      const entry = old[i]!;
      if (entry === 0) continue;
      const node = (wasTagged ? entry & this.nodeMask : entry) - 1;
      const hash = hashWords(this.words, 4 * this.valueAt(node));
      let at = hash % size;
      while (table[at] !== 0) at = at + 1 === size ? 0 : at + 1;
      table[at] = this.entryOf(node, hash);
    }
  }

  /** Sorts the hex ids for finding them, and notes the duplicated ones. Call once, after the last `add`. */
  seal(): void {
    const n = this.countOf(HEX);
    const from = new Uint32Array(n);
    for (let i = 0, k = 0; i < this.count; i++) if (this.kindAt(i) === HEX) from[k++] = i;
    // LSD radix sort on the 32-bit numbers; stable, so holders stay in file order. 16 bits a pass
    // for many ids, 8 for fewer: a pass costs its buckets as well as its ids, and `ls` seals
    // thousands of small sessions (BENCHMARKS.md, "sealing small sessions"); the fewest, by
    // insertion, stable too, without the buckets.
    if (n <= SMALL_SORT) this.insertionSort(from, n);
    else this.radixSort(from, n);
    this.noteDuplicates();
  }

  /** `from[0..n)` sorted by their hex numbers, in place, holders of one id in file order. */
  private insertionSort(from: Uint32Array, n: number): void {
    for (let k = 1; k < n; k++) {
      const node = from[k]!;
      const value = this.valueAt(node);
      let j = k - 1;
      for (; j >= 0 && this.valueAt(from[j]!) > value; j--) from[j + 1] = from[j]!;
      from[j + 1] = node;
    }
    this.sorted = from;
  }

  /** `from[0..n)` sorted by their hex numbers (into `sorted`), holders of one id in file order. */
  private radixSort(sorting: Uint32Array, n: number): void {
    let from = sorting;
    let to: Uint32Array = new Uint32Array(n);
    const bits = n >= 1 << 16 ? 16 : 8;
    const mask = (1 << bits) - 1;
    const counts = new Int32Array(mask + 2);
    for (let shift = 0; shift < 32; shift += bits) {
      counts.fill(0);
      for (let k = 0; k < n; k++) counts[((this.valueAt(from[k]!) >>> shift) & mask) + 1]!++;
      for (let d = 0; d <= mask; d++) counts[d + 1]! += counts[d]!;
      for (let k = 0; k < n; k++) to[counts[(this.valueAt(from[k]!) >>> shift) & mask]!++] = from[k]!;
      [from, to] = [to, from];
    }
    this.sorted = from;
  }

  /** Ids held by more than one node (`duplicates`), from the sorted hex nodes. */
  private noteDuplicates(): void {
    const from = this.sorted!;
    for (let k = 1; k < from.length; k++) {
      if (this.valueAt(from[k]!) !== this.valueAt(from[k - 1]!)) continue;
      const id = hexString(this.valueAt(from[k]!));
      const list = this.duplicates.get(id);
      if (list) list.push(from[k]!);
      else this.duplicates.set(id, [from[k - 1]!, from[k]!]);
    }
  }

  private countOf(kind: number): number {
    let n = 0;
    for (let i = 0; i < this.count; i++) if (this.kindAt(i) === kind) n++;
    return n;
  }

  /** The last node so far whose UUID is the one at `w[o..o+4)`, or -1. */
  private findWords(w: Uint32Array, o: number): number {
    const table = this.uuidTable;
    if (this.uuids === 0) return -1;
    const size = table.length;
    const hash = hashWords(w, o);
    const tag = tagOf(hash);
    for (let at = hash % size; ; at = at + 1 === size ? 0 : at + 1) {
      const entry = table[at]!;
      if (entry === 0) return -1;
      if (this.tagged && entry >>> this.nodeBits !== tag) continue;
      const node = this.nodeOfEntry(entry);
      if (compareWords(this.words, 4 * this.valueAt(node), w, o) === 0) return node;
    }
  }

  /** The node holding the id (the last one; while nodes are added, the last so far), or -1 (a hex id: once sealed). */
  find(hex: number, other: string | undefined, words?: Uint32Array): number {
    if (hex < 0) {
      if (words !== undefined) return this.findWords(words, 0);
      if (other === undefined) return -1;
      if (readUuid(other, this.word)) return this.findWords(this.word, 0);
      const ref = this.strings.find(other);
      return ref < 0 ? -1 : this.strings.holderOf(ref);
    }
    const sorted = this.sorted!;
    // the last position whose number is at most `hex`
    let lo = 0;
    let hi = sorted.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.valueAt(sorted[mid]!) <= hex) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return at >= 0 && this.valueAt(sorted[at]!) === hex ? sorted[at]! : -1;
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
      while (at < sorted.length && this.valueAt(sorted[at]!) < want) at++;
      // the last holder: the end of the run of equal numbers
      let last = -1;
      for (let j = at; j < sorted.length && this.valueAt(sorted[j]!) === want; j++) last = sorted[j]!;
      out[k] = last;
    }
    return out;
  }

  /** The node holding `id` (the last one), or -1. */
  findString(id: string): number {
    const hex = hexOf(id);
    return this.find(hex, hex >= 0 ? undefined : id);
  }

  /** The slot of the node's UUID (a parent's reference to it is twice that: `refOf`), or -1 when it has none or another id. */
  uuidSlotAt(node: number): number {
    return this.kindAt(node) === UUID ? this.valueAt(node) : -1;
  }

  /** The node's id as the number of its hex digits, or -1 when it has none or another. */
  hexAt(node: number): number {
    return this.kindAt(node) === HEX ? this.valueAt(node) : -1;
  }

  /** Whether the node has an id. */
  has(node: number): boolean {
    return this.kindAt(node) !== NONE;
  }

  /** Whether the node's id is `hex` / `words` / `other` (as `add` takes them). */
  is(node: number, hex: number, other: string | undefined, words?: Uint32Array): boolean {
    if (hex >= 0) return this.kindAt(node) === HEX && this.valueAt(node) === hex;
    const k = this.kindAt(node);
    if (words !== undefined) return k === UUID && compareWords(this.words, 4 * this.valueAt(node), words, 0) === 0;
    if (other === undefined || k === NONE || k === HEX) return false;
    if (k === UUID) return readUuid(other, this.word) && compareWords(this.words, 4 * this.valueAt(node), this.word, 0) === 0;
    return node === this.lastTextNode ? other === this.lastText : this.strings.find(other) === this.valueAt(node);
  }

  idOf(node: number): string | undefined {
    const k = this.kindAt(node);
    return k === HEX ? hexString(this.valueAt(node)) : k === UUID ? uuidString(this.words, 4 * this.valueAt(node)) : k === TEXT ? this.strings.stringOf(this.valueAt(node)) : undefined;
  }

  /** The node that holds this node's id now (its last holder; the node itself when it has no id). */
  holderOf(node: number): number {
    const k = this.kindAt(node);
    if (k === NONE) return node;
    return k === HEX ? this.find(this.valueAt(node), undefined) : k === UUID ? this.findWords(this.words, 4 * this.valueAt(node)) : this.strings.holderOf(this.valueAt(node));
  }

  /** Nodes whose id starts with `prefix`, each id once (its last holder). */
  withPrefix(prefix: string): number[] {
    const out: number[] = [];
    // A hex prefix names a range of numbers: no string is made for the hex ids.
    const hexPrefix = /^[0-9a-f]{0,8}$/.test(prefix);
    const low = hexPrefix ? parseInt(prefix.padEnd(8, "0"), 16) : 0;
    const high = hexPrefix ? parseInt(prefix.padEnd(8, "f"), 16) : -1;
    for (let node = 0; node < this.count; node++) {
      const k = this.kindAt(node);
      const matches = k === HEX ? this.valueAt(node) >= low && this.valueAt(node) <= high : k !== NONE && this.idOf(node)!.startsWith(prefix);
      if (matches && (this.duplicates.size === 0 || this.holderOf(node) === node)) out.push(node);
    }
    return out;
  }
}

function copyWords(from: Uint32Array, to: Uint32Array): void {
  to[0] = from[0]!;
  to[1] = from[1]!;
  to[2] = from[2]!;
  to[3] = from[3]!;
}

/** The bits of a UUID table's entry that hold its node + 1 while the table is tagged (6 more for the tag: 31 in all). */
const NODE_BITS = 25;

/** 6 bits of a UUID's hash other than those that place it (`IdIndex.uuidTable`). */
function tagOf(hash: number): number {
  return Math.imul(hash, 0x9e3779b1) >>> 26;
}

/** A UUID's four words (at `w[o..o+4)`) mixed into a hash. */
function hashWords(w: Uint32Array, o: number): number {
  return mix(Math.imul(Math.imul(Math.imul(w[o]! ^ 0x9e3779b9, 0x01000193) ^ w[o + 1]!, 0x01000193) ^ w[o + 2]!, 0x01000193) ^ w[o + 3]!);
}

/** The UUIDs at `a[i..]` and `b[j..]` compared, most significant word first. */
function compareWords(a: Uint32Array, i: number, b: Uint32Array, j: number): number {
  for (let k = 0; k < 4; k++) if (a[i + k] !== b[j + k]) return a[i + k]! < b[j + k]! ? -1 : 1;
  return 0;
}

/** A bit a node for `capacity` nodes, the bits of `bits` kept. */
function grownBits(bits: Uint32Array, capacity: number): Uint32Array {
  const room = (capacity >>> 5) + 1;
  return room <= bits.length ? bits : grown(bits, room, bits.length);
}
