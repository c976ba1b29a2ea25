/**
 * The values a scan's positions hold, read from the line's bytes (read/scanner.ts keeps the
 * positions): ids as pi writes them (8 hex digits as a number, a UUID as its four words, any other
 * as its text), pi's timestamps, strings decoded, and the few strings most lines share interned.
 */

/** The 8 lowercase hex digits of `s` as a number, or -1. */
export function hexOf(s: string): number {
  if (s.length !== 8) return -1;
  let v = 0;
  for (let k = 0; k < 8; k++) {
    const d = HEX[s.charCodeAt(k)] ?? -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** The number `hexOf` read, as the 8 digits again. */
export function hexString(v: number): string {
  return HEX_BYTE[v >>> 24]! + HEX_BYTE[(v >>> 16) & 255]! + HEX_BYTE[(v >>> 8) & 255]! + HEX_BYTE[v & 255]!;
}

/**
 * The UUID at `w[o..o+4)` (most significant word first) as its 36 characters: written into a
 * scratch buffer and decoded once, a flat string. Joined from its pieces it was a tree of a dozen
 * strings (some 450 bytes of V8's heap where the 36 characters take 52; `check` kept one for each
 * label of a 1 GB transcript: BENCHMARKS.md, "Memory an entry"), and ten times slower to make.
 */
export function uuidString(w: Uint32Array, o = 0): string {
  const out = UUID_TEXT;
  let at = 0;
  for (let k = 0; k < 4; k++) {
    const v = w[o + k]!;
    for (let shift = 28; shift >= 0; shift -= 4) {
      if (at === 8 || at === 13 || at === 18 || at === 23) out[at++] = 0x2d;
      out[at++] = HEX_DIGIT[(v >>> shift) & 15]!;
    }
  }
  return out.toString("latin1", 0, 36);
}

const UUID_TEXT = Buffer.alloc(36);
const HEX_DIGIT = Buffer.from("0123456789abcdef", "latin1");

/** Whether `s` is a lowercase UUID (as `uuid` reads one from bytes), its 32 digits then in `words`, most significant first. */
export function readUuid(s: string, words: Uint32Array): boolean {
  if (s.length !== 36 || s.charCodeAt(8) !== 45 || s.charCodeAt(13) !== 45 || s.charCodeAt(18) !== 45 || s.charCodeAt(23) !== 45) return false;
  // (its characters as bytes, read as the scan reads an id's; a character past U+00FF is no digit, nor what latin1 makes of it)
  for (let i = 0; i < 36; i++) if (s.charCodeAt(i) > 0x7f) return false;
  UUID_SCRATCH.write(s, 0, "latin1");
  return uuid(UUID_SCRATCH, -1, 36, words);
}

const UUID_SCRATCH = Buffer.alloc(36);


/** Digit values of `0-9a-f` by character code (-1 for every other). */
const HEX = new Int8Array(128).fill(-1);
for (let k = 0; k < 16; k++) HEX["0123456789abcdef".charCodeAt(k)] = k;
const HEX_BYTE = Array.from({ length: 256 }, (_, k) => k.toString(16).padStart(2, "0"));

/** The string between quotes at `open` and `close` as `hexOf` reads it, without making the string. */
function hex8(b: Uint8Array, open: number, close: number): number {
  if (close - open !== 9) return -1;
  let v = 0;
  for (let k = open + 1; k < close; k++) {
    const c = b[k]!;
    const d = c < 128 ? HEX[c]! : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/**
 * Whether the string between quotes at `open` and `close` is a lowercase UUID (36 characters,
 * dashes after the 8th, 12th, 16th and 20th digit), read into `words` without making the string.
 */
function uuid(b: Uint8Array, open: number, close: number, words: Uint32Array): boolean {
  if (close - open !== 37 || b[open + 9] !== 45 || b[open + 14] !== 45 || b[open + 19] !== 45 || b[open + 24] !== 45) return false;
  let v = 0;
  let n = 0;
  for (let k = open + 1; k < close; k++) {
    const c = b[k]!;
    if (c === 45 && (k === open + 9 || k === open + 14 || k === open + 19 || k === open + 24)) continue;
    const d = c < 128 ? HEX[c]! : -1;
    if (d < 0) return false;
    v = v * 16 + d;
    if ((++n & 7) === 0) {
      words[(n >>> 3) - 1] = v;
      v = 0;
    }
  }
  return true;
}

/** What `readId` gives for a UUID (its words then in the caller's array). */
export const UUID_READ = Symbol("uuid");

/**
 * The id (or parent id) between quotes at `open` and `close`, as a scan keeps it: the number of 8
 * hex digits; a UUID, read into `words` (written with escapes too: it is the same UUID, as
 * `fieldsOf` keeps it); else its text.
 */
export function readId(b: Uint8Array, open: number, close: number, words: Uint32Array): number | typeof UUID_READ | string {
  const hex = hex8(b, open, close);
  if (hex >= 0) return hex;
  if (uuid(b, open, close, words)) return UUID_READ;
  const text = decodeId(b, open, close);
  return text.length === 36 && readUuid(text, words) ? UUID_READ : text;
}

const decoder = new TextDecoder();

/** The decimal number in `n` bytes of `b` from `at`; NaN if one is not a digit. */
function digits(b: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = b[at + k]! - 0x30;
    if (c < 0 || c > 9) return NaN;
    v = v * 10 + c;
  }
  return v;
}

/** The last date `isoTime` read (yyyymmdd) and its midnight in ms: a session's entries share a few days. */
let lastDate = -1;
let lastMidnight = 0;

/** `Date.parse` of `YYYY-MM-DDTHH:MM:SS.sssZ` in `b[start..end)`, without making a string; undefined for any other form. */
export function isoTime(b: Uint8Array, start: number, end: number): number | undefined {
  if (end - start !== 24 || b[start + 4] !== 0x2d || b[start + 7] !== 0x2d || b[start + 10] !== 0x54 || b[start + 13] !== 0x3a || b[start + 16] !== 0x3a || b[start + 19] !== 0x2e || b[start + 23] !== 0x5a) return undefined;
  const year = digits(b, start, 4);
  const month = digits(b, start + 5, 2);
  const day = digits(b, start + 8, 2);
  const hour = digits(b, start + 11, 2);
  const minute = digits(b, start + 14, 2);
  const second = digits(b, start + 17, 2);
  const ms = digits(b, start + 20, 3);
  // Anything unusual (year < 100, which Date.UTC reads as 19xx; hour 24; a day past the month's
  // end, which Date.UTC rolls over and Date.parse rejects; non-digits) is left to Date.parse.
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const monthDays = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  if (!(year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= monthDays && hour <= 23 && minute <= 59 && second <= 59 && ms >= 0)) return undefined;
  const date = year * 10000 + month * 100 + day;
  if (date !== lastDate) {
    lastDate = date;
    lastMidnight = Date.UTC(year, month - 1, day);
  }
  return lastMidnight + ((hour * 60 + minute) * 60 + second) * 1000 + ms;
}

/** The JSON string between the quotes at `open` and `close`, decoded. */
export function decodeString(b: Uint8Array, open: number, close: number): string {
  let ascii = true;
  for (let k = open + 1; k < close; k++) {
    const c = b[k]!;
    if (c === 0x5c) return JSON.parse(decoder.decode(b.subarray(open, close + 1))) as string;
    if (c >= 0x80) ascii = false;
  }
  // Kept fields are short and almost always ASCII: a Latin-1 slice is then the same string, faster.
  const slice = (b as unknown as { latin1Slice?: (start: number, end: number) => string }).latin1Slice;
  if (ascii && slice) return slice.call(b, open + 1, close);
  return decoder.decode(b.subarray(open + 1, close));
}

/** The last id `decodeId` decoded, and its bytes. */
let lastId = "";
const lastIdBytes = new Uint8Array(64);
let lastIdLength = -1;

/**
 * `decodeString` for ids that are not hex: a line's parent is most often the id of the line
 * before, so the last one decoded is kept and handed back when the bytes match.
 */
export function decodeId(b: Uint8Array, open: number, close: number): string {
  const n = close - open - 1;
  if (n === lastIdLength) {
    let k = 0;
    while (k < n && b[open + 1 + k] === lastIdBytes[k]) k++;
    if (k === n) return lastId;
  }
  const id = decodeString(b, open, close);
  if (n <= lastIdBytes.length) {
    for (let k = 0; k < n; k++) lastIdBytes[k] = b[open + 1 + k]!;
    lastIdLength = n;
    lastId = id;
  }
  return id;
}

/** Strings pass one meets on most lines (types, roles, providers and models seen so far), found by their bytes. */
const KNOWN: Array<Array<{ s: string; b: Uint8Array }>> = [];
const encoder = new TextEncoder();
function remember(s: string): void {
  const list = (KNOWN[s.length] ??= []);
  if (list.length < 8) list.push({ s, b: encoder.encode(s) });
}
for (const s of ["message", "model_change", "thinking_level_change", "usage", "compaction", "branch_summary", "custom", "custom_message", "context_edit", "label", "session_info", "session", "leaf", "active_tools_change", "user", "assistant", "toolResult", "system", "bashExecution", "hookMessage"]) remember(s);

/** A string pass one keeps on many lines, without making a new one when it has been seen (interned). */
export function knownString(b: Uint8Array, open: number, close: number): string {
  const n = close - open - 1;
  const candidates = KNOWN[n];
  if (candidates) {
    outer: for (const k of candidates) {
      for (let i = 0; i < n; i++) if (b[open + 1 + i] !== k.b[i]) continue outer;
      return k.s;
    }
  }
  const s = decodeString(b, open, close);
  if (n < 64 && s.length === n) remember(s);
  return s;
}
