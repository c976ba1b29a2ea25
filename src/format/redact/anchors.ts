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
 * anchor. A pass over 200 MB takes 0.6-1.4 s (BENCHMARKS.md, "redact"); `Buffer.indexOf` of each
 * anchor in turn took 3-4 s, and one regular expression of them all 5-6 s.
 */
/** The bucket of a pair with a NUL byte in it. */
const NUL = 1;

export class AnchorScan {
  private readonly table = new Uint16Array(65536);
  /** Bucket 1 is a NUL byte's pairs: a hit at once. */
  private readonly buckets: Array<Array<{ bytes: Buffer; at: number }>> = [[], []];
  /** An anchor of one byte: every line is read. */
  private readonly every: boolean = false;

  constructor(anchors: Iterable<string>) {
    for (let x = 0; x < 256; x++) this.table[x << 8] = this.table[x] = NUL;
    for (const anchor of new Set([...anchors].map(asWritten).concat(["\\u", "\\/"]))) {
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
      this.buckets[this.table[pair]!]!.push({ bytes, at });
    }
  }

  /** Whether `b[start..end)` (a line's bytes) holds an anchor, an escape that could spell one, or a NUL byte. */
  holds(b: Uint8Array, start: number, end: number): boolean {
    if (this.every || (end - start === 1 && b[start] === 0)) return true;
    const table = this.table;
    // (each byte read once: the pair is the last byte and this one)
    let last = b[start]!;
    for (let j = start + 1; j < end; j++) {
      const byte = b[j]!;
      const t = table[last | (byte << 8)]!;
      last = byte;
      if (t === 0) continue;
      if (t === NUL) return true;
      const i = j - 1;
      for (const { bytes, at } of this.buckets[t]!) {
        const s = i - at;
        if (s < start || s + bytes.length > end) continue;
        let k = 0;
        while (k < bytes.length && b[s + k] === bytes[k]) k++;
        if (k === bytes.length) return true;
      }
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
