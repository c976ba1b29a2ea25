import { fold, YPOGEGRAMMENI } from "./fold.js";

/**
 * The terms the search index keeps of a text, and the terms a query asks of it: one rule for both,
 * so that whatever `grep` would find in a text, the index says the text may hold.
 *
 * A text is case folded (fold.ts), then read as runs: a word is a run of letters, digits and `_`
 * (what `grep -w` takes for a word: `\p{L}`, `\p{N}`, `_`), each one term; a script written
 * without spaces (Chinese, Japanese, Thai, …) is a run of its own, kept as each pair of
 * neighbouring characters and its last character alone (a one- or two-character word is a term,
 * a longer one the pairs it is made of); anything else parts runs and is kept by no term. A word
 * longer than `LONG` characters is kept as pieces of `LONG` that start every `LONG / 2` (its end
 * too), and one longer than `GIANT` as the pieces of its first `GIANT` characters, its last piece
 * and `GIANT_TERM`: whatever part of it a query names lies in a piece, or the entry is a candidate.
 *
 * A query is read the same way (query.ts): a run inside what it asks is a whole term, one at its
 * start may end a longer word, one at its end may start one, and one that is all of it may lie
 * anywhere in one (`Lookup`). The index's answer is a superset of the entries that match; each is
 * then matched as `grep` matches it.
 */

const OTHER = 0;
const WORD = 1;
const UNSPACED = 2;

/** The scripts written without spaces between words: their runs are kept as pairs of characters. */
const UNSPACED_SCRIPTS = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Bopomofo}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\p{sc=Tibetan}\p{sc=Yi}]/u;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** A word longer than this many characters (code points) is kept as pieces this long. */
export const LONG = 64;
/** Pieces of a long word start every this many characters: any part of it this long lies in one. */
const PIECE_STEP = LONG / 2;
/** A word longer than this is kept by its first pieces, its last and `GIANT_TERM`. */
const GIANT = 4096;
/** The term an entry with a word longer than `GIANT` holds (a query that may lie inside one asks for it too). */
export const GIANT_TERM = "_0giant0_";

let bmp: Uint8Array | undefined;
/** Characters read from which the table of the plane is made (`TermWriter`): what an append or a small session reads asks character by character. */
const TABLE_FROM = 256 * 1024;
/** Characters asked of one by one: a query's few, and astral ones (the table is made for a text to index). */
const asked = new Map<number, number>();

/** What each BMP character is, made once from the expressions (one pass over the plane). */
function table(): Uint8Array {
  if (bmp) return bmp;
  const t = new Uint8Array(65536);
  const chars: string[] = [];
  for (let c = 0; c < 65536; c++) chars.push(c >= 0xd800 && c <= 0xdfff ? " " : String.fromCharCode(c));
  const plane = chars.join("");
  for (const m of plane.matchAll(/[\p{L}\p{N}_]+/gu)) t.fill(WORD, m.index, m.index + m[0].length);
  for (const m of plane.matchAll(new RegExp(`${UNSPACED_SCRIPTS.source}+`, "gu"))) {
    for (let i = m.index; i < m.index + m[0].length; i++) if (t[i] === WORD) t[i] = UNSPACED;
  }
  return (bmp = t);
}

/** What a code point is to the index (`OTHER`, `WORD`, `UNSPACED`), asked of the expressions (and kept). */
function kindOf(cp: number): number {
  if (bmp && cp < 65536) return bmp[cp]!;
  let k = asked.get(cp);
  if (k === undefined) {
    const ch = String.fromCodePoint(cp);
    k = !WORD_CHAR.test(ch) ? OTHER : UNSPACED_SCRIPTS.test(ch) ? UNSPACED : WORD;
    asked.set(cp, k);
  }
  return k;
}

/** A run of a folded text: what it is and where it lies (UTF-16 offsets). */
export interface Run {
  kind: "word" | "unspaced";
  start: number;
  end: number;
}

/** The runs of a folded text, in order. */
export function runsOf(s: string): Run[] {
  const runs: Run[] = [];
  forEachRun(s, (kind, start, end) => runs.push({ kind: kind === WORD ? "word" : "unspaced", start, end }));
  return runs;
}

/**
 * Calls `visit` with each run of `s` (folded): its kind (`WORD`, `UNSPACED`) and its bounds. `fast`:
 * a text to index, whose characters are looked up in a table of the plane made once (a query's
 * few are asked of one by one).
 */
function forEachRun(s: string, visit: (kind: number, start: number, end: number) => void, fast = false): void {
  const t = fast ? table() : undefined;
  const n = s.length;
  let kind = OTHER;
  let start = 0;
  let i = 0;
  while (i < n) {
    let cp = s.charCodeAt(i);
    let width = 1;
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
      const low = s.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = ((cp - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
        width = 2;
      }
    }
    const k = t && cp < 65536 ? t[cp]! : kindOf(cp);
    if (k !== kind) {
      if (kind !== OTHER) visit(kind, start, i);
      kind = k;
      start = i;
    }
    i += width;
  }
  if (kind !== OTHER) visit(kind, start, n);
}

/** How many code points `s` holds. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** `s` from code point `from` to code point `to` (the code points of a long word, as an array). */
const piece = (points: string[], from: number, to: number) => points.slice(from, to).join("");

/**
 * The terms of texts, entry by entry: `add` each searchable text of an entry, then `take` its
 * terms, space separated (what the index's tokenizer splits).
 */
export class TermWriter {
  private parts: string[] = [];
  /** Characters read so far: a table of the plane pays for itself only over many (it takes a pass over 65,536). */
  private read = 0;

  add(text: string): void {
    // (a character that folds to a letter but is none, read both ways: as the letter, and as what parts words)
    if (text.includes(YPOGEGRAMMENI)) this.scan(fold(text.replaceAll(YPOGEGRAMMENI, " ")));
    this.scan(fold(text));
  }

  /** The terms added since the last `take`, space separated ("" for none). */
  take(): string {
    const out = this.parts.join(" ");
    this.parts = [];
    return out;
  }

  private scan(s: string): void {
    this.read += s.length;
    forEachRun(
      s,
      (kind, start, end) => {
        if (kind === WORD) this.word(s.slice(start, end));
        else this.unspaced(s, start, end);
      },
      this.read > TABLE_FROM,
    );
  }

  private word(w: string): void {
    if (w.length <= LONG || codePoints(w) <= LONG) {
      this.parts.push(w);
      return;
    }
    const points = Array.from(w);
    const n = points.length;
    const last = Math.min(n, GIANT);
    for (let at = 0; at + LONG < last; at += PIECE_STEP) this.parts.push(piece(points, at, at + LONG));
    this.parts.push(piece(points, Math.max(0, last - LONG), last));
    if (n > GIANT) this.parts.push(piece(points, n - LONG, n), GIANT_TERM);
  }

  /** A run of a script without spaces: each pair of neighbours, and the last character alone. */
  private unspaced(s: string, start: number, end: number): void {
    let prev = -1;
    for (let i = start; i < end; ) {
      const w = s.charCodeAt(i) >= 0xd800 && s.charCodeAt(i) <= 0xdbff && i + 1 < end ? 2 : 1;
      if (prev >= 0) this.parts.push(s.slice(prev, i + w));
      prev = i;
      i += w;
    }
    if (prev >= 0) this.parts.push(s.slice(prev, end));
  }
}

/** How an index term must relate to a run of a query for an entry to hold it. */
type LookupKind = "exact" | "prefix" | "suffix" | "substring";

/** One term (or terms: any of them) an entry must hold for a query's item to match in it. */
export interface Lookup {
  kind: LookupKind;
  /** Folded. */
  term: string;
  /** A run of a script without spaces (its pairs are looked up as they are, never in the vocabulary). */
  unspaced?: boolean;
}

/**
 * What the index must hold of an entry for `literal` to match in it: as `grep -F -i` finds it
 * (`fixed`), or as `grep -w -i -F` does (`word`: a whole word, so every run in it is whole). Each
 * lookup is needed; none: any entry may hold it (it has no letter, digit or `_`).
 */
export function lookupsOf(literal: string, mode: "fixed" | "word"): Lookup[] {
  const s = fold(literal);
  const out: Lookup[] = [];
  forEachRun(s, (kind, start, end) => {
    const r = s.slice(start, end);
    if (kind === UNSPACED) {
      const points = Array.from(r);
      if (points.length === 1) out.push({ kind: "prefix", term: r, unspaced: true });
      for (let k = 0; k + 1 < points.length; k++) out.push({ kind: "exact", term: points[k]! + points[k + 1]!, unspaced: true });
      return;
    }
    const atStart = start === 0;
    const atEnd = end === s.length;
    const kind2: LookupKind = mode === "word" || (!atStart && !atEnd) ? "exact" : atStart && atEnd ? "substring" : atStart ? "suffix" : "prefix";
    out.push(...wordLookup(r, kind2));
  });
  return out;
}

/** A word run's lookup, as the index keeps a word of its length (`TermWriter.word`). */
function wordLookup(r: string, kind: LookupKind): Lookup[] {
  const short = r.length <= PIECE_STEP || codePoints(r) <= PIECE_STEP;
  // (what may lie anywhere in a word lies whole in one of its pieces by its first PIECE_STEP characters)
  if (kind === "substring") return [{ kind, term: short ? r : piece(Array.from(r), 0, PIECE_STEP) }];
  if (short || codePoints(r) <= LONG) return [{ kind, term: r }];
  const points = Array.from(r);
  // (a word longer than LONG that is it or starts with it begins with this piece; one that ends with it ends with its last)
  return [{ kind: "exact", term: kind === "suffix" ? piece(points, points.length - LONG, points.length) : piece(points, 0, LONG) }];
}
