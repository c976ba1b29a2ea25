import { BUCKETS_AT, simdAnchors, type AnchorTables } from "../read/wasm/simd.js";

/**
 * Which lines may hold a secret, from their bytes, before any is parsed: a line is read for
 * secrets when it holds an anchor (a string every finding holds one of: `SessionDetector.anchors`)
 * or an escape that could spell one (`\u`, `\/`), or a NUL byte (dropped when a broken line is
 * read, joining what stood on either side). A string JSON holds with none of these in its bytes
 * decodes to a string with none of the anchors, so a line without any is kept as it is, unparsed:
 * the anchors are written as JSON writes them (`JSON.stringify`'s escapes: a quote, a backslash,
 * a control character), and JSON's other escapes are the two above.
 *
 * Most lines hold none, and the bytes of all of them are searched: the search is for the rarest
 * pair of bytes of each anchor (a table of the 65,536 pairs), each hit checked for the whole
 * anchor, and what must follow it where a rule says (`RuleSet.follows`: a URL's `://`). Where the
 * line lies in the WebAssembly module's memory (a read chunk: format/read/wasm/), the module
 * searches it, table and anchors copied there, and each anchor it finds is checked again here,
 * with what follows it; elsewhere (a line pieced together across reads, no WebAssembly) this
 * file's loop does. Over the 319 MB store of BENCHMARKS.md's "redact", the module took 0.19-0.21 s
 * and this loop 1.04-1.27 s (0.6 and 3.3-4 ns a byte); `Buffer.indexOf` of each anchor in turn
 * took 3-4 s a 200 MB pass, and one regular expression of them all 5-6 s.
 */
/** The bucket of a pair with a NUL byte in it. */
const NUL = 1;

/**
 * What must follow an anchor in a line's bytes (from `at`, the byte after it, to the line's `end`)
 * for anything to be found there (`RuleSet.follows`).
 */
export type Follows = (b: Uint8Array, at: number, end: number) => boolean;

export class AnchorScan {
  private readonly table = new Uint16Array(65536);
  /** Bucket 1 is a NUL byte's pairs: a hit at once. */
  private readonly buckets: Array<Array<{ bytes: Buffer; at: number; follows: Follows | undefined }>> = [[], []];
  /** An anchor of one byte: every line is read. */
  private readonly every: boolean = false;
  /** What the WebAssembly search looks for (`simdAnchors`): undefined where it does not fit. */
  private readonly tables: AnchorTables | undefined;

  /** `follows`: of the anchors, those held only where what follows them says so. */
  constructor(anchors: Iterable<string>, follows: ReadonlyMap<string, Follows> = new Map()) {
    for (let x = 0; x < 256; x++) this.table[x << 8] = this.table[x] = NUL;
    const written = new Map<string, Follows | undefined>([...anchors].map((a) => [asWritten(a), follows.get(a)]));
    for (const escape of ["\\u", "\\/"]) written.set(escape, undefined);
    for (const [anchor, after] of written) {
      const bytes = Buffer.from(anchor, "utf8");
      if (bytes.length < 2) {
        this.every = true;
        continue;
      }
      let at = 0;
      let best = -1;
      for (let i = 0; i + 1 < bytes.length; i++) {
        const score = Math.min(rarity(bytes[i]!), rarity(bytes[i + 1]!)) * 64 + rarity(bytes[i]!) + rarity(bytes[i + 1]!);
        if (score > best) {
          best = score;
          at = i;
        }
      }
      const pair = bytes[at]! | (bytes[at + 1]! << 8);
      if (this.table[pair] === 0) {
        this.table[pair] = this.buckets.length;
        this.buckets.push([]);
      }
      this.buckets[this.table[pair]!]!.push({ bytes, at, follows: after });
    }
    this.tables = this.forWasm();
  }

  /** The table and buckets as the WebAssembly search reads them (`AnchorTables`), where they fit. */
  private forWasm(): AnchorTables | undefined {
    if (this.buckets.length > 256) return undefined;
    const buckets = new Uint8Array(65536);
    const view = new DataView(buckets.buffer);
    let at = 1024;
    for (let t = 2; t < this.buckets.length; t++) {
      view.setUint32(4 * t, BUCKETS_AT + at, true);
      for (const { bytes, at: pair } of this.buckets[t]!) {
        if (at + 4 + bytes.length + 2 > buckets.length) return undefined;
        view.setUint16(at, bytes.length, true);
        view.setUint16(at + 2, pair, true);
        buckets.set(bytes, at + 4);
        at += 4 + bytes.length;
      }
      // (a length of 0 ends the bucket)
      view.setUint16(at, 0, true);
      at += 2;
    }
    return { pairs: Uint8Array.from(this.table), buckets };
  }

  /** Whether `b[start..end)` (a line's bytes) holds an anchor, an escape that could spell one, or a NUL byte. */
  holds(b: Uint8Array, start: number, end: number): boolean {
    if (this.every || (end - start === 1 && b[start] === 0)) return true;
    // (in the WebAssembly module's memory, the anchors are looked for there, what follows one checked here)
    if (this.tables) {
      for (let from = start; ; ) {
        const i = simdAnchors(b, start, end, from, this.tables);
        if (i === -2) break;
        if (i < 0) return false;
        if (this.anchorAt(b, i, start, end)) return true;
        from = i + 1;
      }
    }
    const table = this.table;
    // (each byte read once: the pair is the last byte and this one)
    let last = b[start]!;
    for (let j = start + 1; j < end; j++) {
      const byte = b[j]!;
      const t = table[last | (byte << 8)]!;
      last = byte;
      if (t !== 0 && this.anchorAt(b, j - 1, start, end)) return true;
    }
    return false;
  }

  /** Whether the pair of bytes at `i` (one the table marks) is a NUL byte's, or an anchor's whole within `b[start..end)`. */
  private anchorAt(b: Uint8Array, i: number, start: number, end: number): boolean {
    const t = this.table[b[i]! | (b[i + 1]! << 8)]!;
    if (t === NUL) return true;
    for (const { bytes, at, follows } of this.buckets[t]!) {
      const s = i - at;
      if (s < start || s + bytes.length > end) continue;
      let k = 0;
      while (k < bytes.length && b[s + k] === bytes[k]) k++;
      if (k === bytes.length && (follows === undefined || follows(b, s + k, end))) return true;
    }
    return false;
  }
}

/** An anchor as JSON writes it inside a string. */
function asWritten(anchor: string): string {
  return JSON.stringify(anchor).slice(1, -1);
}

/** How rare a byte is in a session's text: letters by their frequency in English, a space least rare, anything else rarer than any letter. */
function rarity(byte: number): number {
  const k = FREQUENT.indexOf(String.fromCharCode(byte));
  return k < 0 ? 30 : k;
}

const FREQUENT = " etaoinshrdlcumwfgypbvkjxqz";

/**
 * Which anchors a decoded string holds, in one pass over it: a rule runs, and a literal is looked
 * for, only where one of its anchors is in the string. The same pairs as a line's bytes are searched
 * by, over the string's UTF-16 code units; an anchor with a character past U+00FF, or of one
 * character, is looked for with `includes`. (Each anchor looked for with `includes` in turn read a
 * long tool result some eighty times: a quarter of `redact --check`'s time over a store.)
 */
export class StringAnchors {
  private readonly table = new Uint16Array(65536);
  private readonly buckets: Array<Array<{ anchor: string; at: number }>> = [[]];
  /** Anchors looked for with `includes`. */
  private readonly others: string[] = [];

  constructor(anchors: Iterable<string>) {
    for (const anchor of new Set(anchors)) {
      if (anchor.length < 2 || /[^\u0000-\u00ff]/.test(anchor)) {
        this.others.push(anchor);
        continue;
      }
      let at = 0;
      let best = -1;
      for (let i = 0; i + 1 < anchor.length; i++) {
        const a = anchor.charCodeAt(i);
        const b = anchor.charCodeAt(i + 1);
        const score = Math.min(rarity(a), rarity(b)) * 64 + rarity(a) + rarity(b);
        if (score > best) {
          best = score;
          at = i;
        }
      }
      const pair = anchor.charCodeAt(at) | (anchor.charCodeAt(at + 1) << 8);
      if (this.table[pair] === 0) {
        this.table[pair] = this.buckets.length;
        this.buckets.push([]);
      }
      this.buckets[this.table[pair]!]!.push({ anchor, at });
    }
  }

  /** The anchors `text` holds (undefined: none). */
  within(text: string): Set<string> | undefined {
    let found: Set<string> | undefined;
    const table = this.table;
    const end = text.length;
    let last = end > 0 ? text.charCodeAt(0) : 0;
    for (let j = 1; j < end; j++) {
      const c = text.charCodeAt(j);
      const pair = last < 256 && c < 256 ? last | (c << 8) : 0;
      last = c;
      const t = pair === 0 ? 0 : table[pair]!;
      if (t === 0) continue;
      for (const { anchor, at } of this.buckets[t]!) {
        const s = j - 1 - at;
        if (s >= 0 && (found === undefined || !found.has(anchor)) && text.startsWith(anchor, s)) (found ??= new Set()).add(anchor);
      }
    }
    for (const anchor of this.others) if (text.includes(anchor)) (found ??= new Set()).add(anchor);
    return found;
  }
}
