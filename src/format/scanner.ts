/**
 * A validating JSON scanner for one line, written by hand because `JSON.parse` is the cost of
 * pass one: it builds every string and object of a line only for the reader to keep four fields.
 * This walks the bytes once, checks the whole grammar (structure, string escapes and control
 * characters, numbers, literals, trailing bytes) and keeps just the top-level `type`, `id`,
 * `parentId`, `timestamp` and `message.role`. `npm run bench` shows what it saves.
 *
 * It runs in WebAssembly SIMD (wasm/scan.wat) where the line lies in the module's memory, as pass
 * one's lines do: string bodies (most of a session's bytes: text and base64 images) are skipped 16
 * bytes at a time. Measured on a single-threaded cold `ls` of 5,000 sessions (758 MB), that halved
 * the scan: 3.80 -> 2.35 s for the whole listing. Elsewhere (a line pieced together across reads,
 * no WebAssembly) the JavaScript scanner below runs, under the same contract: it skips string
 * bodies with the native byte search (`indexOf`), which is sound only when the line holds no
 * control byte; a word-at-a-time check (4-6 GB/s) decides that first, and a line with one takes the
 * byte-by-byte path. Both leave what they found in the same slots, read by one function.
 *
 * It answers "valid" only when `JSON.parse` would succeed on the line, and "invalid" only when it
 * would throw; anything it is unsure of (escaped keys, very deep nesting) is "defer", and the caller
 * falls back to `JSON.parse`. Bytes are not decoded: invalid UTF-8 inside a string is JSON-valid
 * (the decoder replaces it), as in pi.
 */

import { isAscii } from "node:buffer";
import { simdScan, simdSlots } from "./wasm/simd.js";

export const enum Verdict {
  Valid = 0,
  Invalid = 1,
  Defer = 2,
}

export interface ScanFields {
  /** True when the line is a JSON object (other valid JSON is reported as not an object). */
  object: boolean;
  type: string | undefined;
  id: string | undefined;
  /** 0: no `parentId` key; 1: a string; 2: null; 3: another value. */
  parentKind: 0 | 1 | 2 | 3;
  parentId: string | undefined;
  /** Whether `timestamp` is a string. */
  hasTimestamp: boolean;
  /** `message.role` when `message` is an object holding a string `role`. */
  role: string | undefined;
  /**
   * `Date.parse(timestamp)`, read straight from the bytes for pi's own format
   * (`YYYY-MM-DDTHH:MM:SS.sssZ`); NaN without a string timestamp.
   */
  time: number;
  /** Byte range of the top-level `message` object (-1 when it is not an object). */
  messageStart: number;
  messageEnd: number;
  /** `message.content`: 0 absent, 1 null, 2 another value. */
  contentKind: 0 | 1 | 2;
  /**
   * Byte range of the body (between the quotes) of the line's longest string value, when it is at
   * least `LONG_STRING` bytes (-1 otherwise): a base64 image, usually, which pass two may then skip.
   */
  longStart: number;
  longEnd: number;
  /** Whether that string is plain ASCII without escapes (its byte length is its string length). */
  longPlain: boolean;
  /** True when the line is all printable ASCII, so valid UTF-8 (false may also mean it holds a control byte, such as a tab between tokens). */
  ascii: boolean;
  /**
   * True when no string of the line can decode to a control character, CR, DEL or bidi override:
   * the line is printable ASCII without DEL and its only escapes are `\n \t \" \\ \/`. (False
   * says only that one may.)
   */
  plainText: boolean;
}

/** The least body length, in bytes, of a string value that `ScanFields.longStart` records. */
export const LONG_STRING = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 512;
const STACK = new Uint8Array(MAX_DEPTH + 1);

// Top-level keys the reader keeps, as bytes.
const K_TYPE = bytes("type");
const K_ID = bytes("id");
const K_PARENT = bytes("parentId");
const K_TIMESTAMP = bytes("timestamp");
const K_MESSAGE = bytes("message");
const K_ROLE = bytes("role");
const K_CONTENT = bytes("content");

function bytes(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

const enum Key {
  Other,
  Type,
  Id,
  Parent,
  Timestamp,
  Message,
  Role,
  Content,
}

/** Whether byte `c` may start or continue a JSON number. */
function isNumberByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/**
 * Where a scan leaves what it found, one i32 each: the JavaScript scanner in `SLOTS`, the
 * WebAssembly one in its memory (scan.wat writes the same layout). Positions are of the quotes of a
 * kept string value, or a byte range; -1 when there is none.
 */
export const enum Slot {
  /** `byteClasses` of the line (less a trailing CR). */
  Classes,
  /** Bit 0: the line is an object; bit 1: some escape may decode to a control character (\u \r \b \f). */
  Flags,
  TypeOpen,
  TypeClose,
  IdOpen,
  IdClose,
  /** `ScanFields.parentKind`. */
  ParentKind,
  ParentOpen,
  ParentClose,
  TimestampOpen,
  TimestampClose,
  RoleOpen,
  RoleClose,
  MessageStart,
  MessageEnd,
  /** `ScanFields.contentKind`. */
  ContentKind,
  LongStart,
  LongEnd,
  /** Whether the long string holds an escape. */
  LongEscaped,
  Count,
}

const SLOTS = new Int32Array(Slot.Count);

/**
 * Scans `b[start..end)`. Fills `out` and returns the verdict. `out` is only meaningful for
 * `Verdict.Valid`. A line in the WebAssembly module's memory (pass one's read chunk) is scanned
 * there; any other, or any line where WebAssembly is unavailable, in JavaScript.
 */
export function scanLine(b: Uint8Array, out: ScanFields, start = 0, end = b.length): Verdict {
  if (start !== 0 || end !== b.length) b = b.subarray(start, end);
  end = b.length;
  // A trailing CR (CRLF files) is whitespace; any other byte below 0x20 rules out the fast path.
  const body = end > 0 && b[end - 1] === 0x0d ? end - 1 : end;
  let verdict = simdScan(b, end, body);
  let slots = simdSlots;
  let base = b.byteOffset;
  if (verdict < 0) {
    verdict = scanJs(b, end, body);
    slots = SLOTS;
    base = 0;
  }
  if (verdict === Verdict.Valid) fill(b, slots, base, out);
  else out.object = false;
  return verdict;
}

/** `out` from the slots a valid scan left (positions `base` on from the line's). */
function fill(b: Uint8Array, r: Int32Array, base: number, out: ScanFields): void {
  const classes = r[Slot.Classes]!;
  const flags = r[Slot.Flags]!;
  out.object = (flags & 1) !== 0;
  out.ascii = (classes & (CONTROL_BYTE | HIGH_BYTE)) === 0; // (a trailing CR is ASCII too)
  out.plainText = classes === 0 && (flags & 2) === 0;
  let at = r[Slot.TypeOpen]!;
  out.type = at < 0 ? undefined : knownString(b, at - base, r[Slot.TypeClose]! - base);
  // The parent first: it is most often the id the line before decoded (`decodeId`).
  out.parentKind = r[Slot.ParentKind]! as ScanFields["parentKind"];
  at = r[Slot.ParentOpen]!;
  out.parentId = at < 0 ? undefined : decodeId(b, at - base, r[Slot.ParentClose]! - base);
  at = r[Slot.IdOpen]!;
  out.id = at < 0 ? undefined : decodeId(b, at - base, r[Slot.IdClose]! - base);
  at = r[Slot.TimestampOpen]!;
  out.hasTimestamp = at >= 0;
  if (at < 0) out.time = NaN;
  else {
    const close = r[Slot.TimestampClose]! - base;
    out.time = isoTime(b, at - base + 1, close) ?? Date.parse(decodeString(b, at - base, close));
  }
  at = r[Slot.RoleOpen]!;
  out.role = at < 0 ? undefined : knownString(b, at - base, r[Slot.RoleClose]! - base);
  at = r[Slot.MessageStart]!;
  out.messageStart = at < 0 ? -1 : at - base;
  out.messageEnd = at < 0 ? -1 : r[Slot.MessageEnd]! - base;
  out.contentKind = r[Slot.ContentKind]! as ScanFields["contentKind"];
  at = r[Slot.LongStart]!;
  out.longStart = at < 0 ? -1 : at - base;
  out.longEnd = at < 0 ? -1 : r[Slot.LongEnd]! - base;
  out.longPlain = at >= 0 && r[Slot.LongEscaped] === 0 && (out.ascii || isAscii(b.subarray(out.longStart, out.longEnd)));
}

/** The scan in JavaScript: the verdict, and the slots (`SLOTS`) of a valid line. */
function scanJs(b: Uint8Array, end: number, body: number): Verdict {
  const r = SLOTS;
  const classes = byteClasses(b, 0, body);
  fastStrings = !(classes & CONTROL_BYTE);
  oddEscape = false;
  nextBackslash = -1;
  r.fill(-1);
  r[Slot.Classes] = classes;
  r[Slot.ParentKind] = 0;
  r[Slot.ContentKind] = 0;
  r[Slot.LongEscaped] = 0;
  let longest = LONG_STRING - 1;
  let i = 0;
  while (i < end && isWs(b[i]!)) i++;
  if (i === end) return Verdict.Invalid; // blank: JSON.parse("") throws
  const object = b[i] === 0x7b;

  // Container stack (shared: one scan runs at a time): 1 = object, 2 = array. Depth 1 is the top level.
  const stack = STACK;
  let depth = 0;
  // Which top-level key's value comes next, and whether we are inside the top-level `message`.
  let pendingKey: Key = Key.Other;
  let messageDepth = -1;
  // Parser state: what the grammar expects next.
  // 0 value, 1 key or '}' (just after '{'), 2 key (after ','), 3 ':', 4 ',' or close, 5 end of input
  let state = 0;

  while (i < end) {
    const c = b[i]!;
    if (isWs(c)) {
      i++;
      continue;
    }
    switch (state) {
      case 0: {
        // a value
        if (pendingKey === Key.Content) r[Slot.ContentKind] = c === 0x6e ? 1 : 2;
        if (c === QUOTE) {
          const close = stringEnd(b, i + 1, end);
          if (close < 0) return close === -2 ? Verdict.Defer : Verdict.Invalid;
          if (pendingKey !== Key.Other) capture(r, pendingKey, i, close);
          if (close - i - 1 > longest) {
            longest = close - i - 1;
            r[Slot.LongStart] = i + 1;
            r[Slot.LongEnd] = close;
            r[Slot.LongEscaped] = escaped ? 1 : 0;
          }
          i = close + 1;
        } else if (c === 0x7b || c === 0x5b) {
          if (depth >= MAX_DEPTH) return Verdict.Defer;
          stack[++depth] = c === 0x7b ? 1 : 2;
          if (pendingKey === Key.Message && depth === 2 && c === 0x7b) {
            messageDepth = 2;
            r[Slot.MessageStart] = i;
          }
          i++;
          pendingKey = Key.Other;
          state = c === 0x7b ? 1 : 6;
          continue;
        } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
          const lit = c === 0x74 ? "true" : c === 0x66 ? "false" : "null";
          for (let k = 0; k < lit.length; k++) if (b[i + k] !== lit.charCodeAt(k)) return Verdict.Invalid;
          if (pendingKey === Key.Parent) r[Slot.ParentKind] = c === 0x6e ? 2 : 3;
          i += lit.length;
        } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          const next = numberEnd(b, i, end);
          if (next < 0) return Verdict.Invalid;
          if (pendingKey === Key.Parent) r[Slot.ParentKind] = 3;
          i = next;
        } else {
          return Verdict.Invalid;
        }
        pendingKey = Key.Other;
        state = depth === 0 ? 5 : 4;
        continue;
      }
      case 6: // just after '[': a value or ']'
        if (c === 0x5d) {
          break; // closes the container (below)
        }
        state = 0;
        continue;
      case 1: // just after '{': a key or '}'
      case 2: {
        // a key
        if (c === 0x7d && state === 1) {
          break; // closes the container (below)
        }
        if (c !== QUOTE) return Verdict.Invalid;
        const close = stringEnd(b, i + 1, end);
        if (close < 0) return close === -2 ? Verdict.Defer : Verdict.Invalid;
        pendingKey = Key.Other;
        // Only keys of the top level and of `message` are kept.
        if (depth === 1 || depth === messageDepth) {
          if (escaped) return Verdict.Defer; // an escaped key
          pendingKey = classifyKey(b, i + 1, close, depth === messageDepth);
          forget(r, pendingKey);
        }
        i = close + 1;
        state = 3;
        continue;
      }
      case 3:
        if (c !== 0x3a) return Verdict.Invalid;
        i++;
        state = 0;
        continue;
      case 4: {
        // after a value: ',' or the container's close
        const top = stack[depth];
        if (c === 0x2c) {
          i++;
          state = top === 1 ? 2 : 0;
          continue;
        }
        if ((c === 0x7d && top === 1) || (c === 0x5d && top === 2)) {
          break; // closes the container (below)
        }
        return Verdict.Invalid;
      }
      case 5:
        return Verdict.Invalid; // bytes after the value (e.g. two fused records)
    }
    // Only the three container-closing branches (']' after '[', '}' after '{', a close after a
    // value) get here: one place closes a container.
    depth--;
    i++;
    if (messageDepth > depth) {
      messageDepth = -1;
      r[Slot.MessageEnd] = i;
    }
    state = depth === 0 ? 5 : 4;
  }
  if (state !== 5) return Verdict.Invalid;
  r[Slot.Flags] = (object ? 1 : 0) | (oddEscape ? 2 : 0);
  return Verdict.Valid;
}

/** Each kept key's slot for where its string value opens, by `Key` (-1: `message` and `content` keep none). */
const OPEN_SLOT: readonly number[] = [-1, Slot.TypeOpen, Slot.IdOpen, Slot.ParentOpen, Slot.TimestampOpen, -1, Slot.RoleOpen, -1];

/** A string value of a kept key: where its quotes are. */
function capture(r: Int32Array, key: Key, open: number, close: number): void {
  const slot = OPEN_SLOT[key]!;
  if (slot < 0) return;
  if (key === Key.Parent) r[Slot.ParentKind] = 1;
  r[slot] = open;
  r[slot + 1] = close;
}

/** A kept key seen (again): what an earlier value of it left is forgotten (JSON.parse keeps the last). */
function forget(r: Int32Array, key: Key): void {
  const slot = OPEN_SLOT[key]!;
  if (slot >= 0) r[slot] = -1;
  if (key === Key.Parent) r[Slot.ParentKind] = 3; // until a string or null says otherwise
  if (key === Key.Message) {
    r[Slot.RoleOpen] = r[Slot.MessageStart] = r[Slot.MessageEnd] = -1;
    r[Slot.ContentKind] = 0;
  }
  if (key === Key.Content) r[Slot.ContentKind] = 0;
}

let viewOf: ArrayBufferLike | undefined;
let view: Uint32Array<ArrayBufferLike> = new Uint32Array(0);

/** Whether the current line has no control byte, so strings may be skipped with `indexOf`. */
let fastStrings = false;
/** Whether the current line holds an escape that may decode to a control character (see `ScanFields.plainText`). */
let oddEscape = false;
/** Whether the string `stringEnd` last scanned holds an escape. */
let escaped = false;
/** The next backslash at or after the last search position (-1: not searched yet; Infinity: none). */
let nextBackslash = -1;

/** `byteClasses` bits. */
export const CONTROL_BYTE = 1;
export const HIGH_BYTE = 2;
export const DEL_BYTE = 4;

/**
 * What kinds of byte `b[start..end)` holds, four bytes at a time: `CONTROL_BYTE` when one is below
 * 0x20 (`(x - 0x20…) & ~x & 0x80…` is non-zero exactly then), else `HIGH_BYTE` when one is 0x80 or
 * above (the line is not ASCII) and `DEL_BYTE` when one is 0x7F (found as a zero byte of
 * `x ^ 0x7F…`). One pass for all: pass one is bound by memory bandwidth, so every pass over a
 * line's bytes counts. After a control byte it stops (the other bits are unknown then).
 */
export function byteClasses(b: Uint8Array, start: number, end: number): number {
  let i = start;
  let high = 0;
  let del = 0;
  const misalign = (4 - ((b.byteOffset + i) & 3)) & 3;
  for (const head = Math.min(end, i + misalign); i < head; i++) {
    const c = b[i]!;
    if (c < 0x20) return CONTROL_BYTE;
    high |= c;
    if (c === 0x7f) del = 0x80;
  }
  const words = (end - i) >>> 2;
  if (words > 0) {
    // One word view per underlying buffer (lines are views of a few read buffers), not per line.
    if (b.buffer !== viewOf) {
      viewOf = b.buffer;
      view = new Uint32Array(b.buffer, 0, b.buffer.byteLength >>> 2);
    }
    const w = view;
    const base = (b.byteOffset + i) >>> 2;
    let acc = 0;
    let k = base;
    const stop = base + words;
    for (; k + 4 <= stop; k += 4) {
      const a = w[k]!;
      const c = w[k + 1]!;
      const d = w[k + 2]!;
      const e = w[k + 3]!;
      acc |= ((a - 0x20202020) & ~a) | ((c - 0x20202020) & ~c) | ((d - 0x20202020) & ~d) | ((e - 0x20202020) & ~e);
      if (acc & 0x80808080) return CONTROL_BYTE;
      high |= a | c | d | e;
      const ya = a ^ 0x7f7f7f7f;
      const yc = c ^ 0x7f7f7f7f;
      const yd = d ^ 0x7f7f7f7f;
      const ye = e ^ 0x7f7f7f7f;
      del |= ((ya - 0x01010101) & ~ya) | ((yc - 0x01010101) & ~yc) | ((yd - 0x01010101) & ~yd) | ((ye - 0x01010101) & ~ye);
    }
    for (; k < stop; k++) {
      const a = w[k]!;
      if (((a - 0x20202020) & ~a & 0x80808080) !== 0) return CONTROL_BYTE;
      high |= a;
      const y = a ^ 0x7f7f7f7f;
      del |= (y - 0x01010101) & ~y;
    }
    i += words * 4;
  }
  for (; i < end; i++) {
    const c = b[i]!;
    if (c < 0x20) return CONTROL_BYTE;
    high |= c;
    if (c === 0x7f) del = 0x80;
  }
  return (high & 0x80808080 ? HIGH_BYTE : 0) | (del & 0x80808080 ? DEL_BYTE : 0);
}

/** Whether `b[start..end)` holds a byte below 0x20. */
export function hasControlByte(b: Uint8Array, start: number, end: number): boolean {
  return (byteClasses(b, start, end) & CONTROL_BYTE) !== 0;
}

const SHORT = 32;

/**
 * The index of the closing quote of a string whose body starts at `i`; -1 if the string is
 * invalid (raw control character, bad escape, no close).
 */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  escaped = false;
  if (fastStrings) {
    // Short strings (keys, ids) by hand; long ones by native search for the quote and backslash.
    const stop = Math.min(end, i + SHORT);
    for (; i < stop; i++) {
      const c = b[i]!;
      if (c === QUOTE) return i;
      if (c === BACKSLASH) {
        const next = escapeEnd(b, i, end);
        if (next < 0) return -1;
        escaped = true;
        i = next - 1;
      }
    }
    const buf = b as Buffer;
    for (;;) {
      const q = buf.indexOf(QUOTE, i);
      if (q < 0) return -1;
      if (nextBackslash !== Infinity && nextBackslash < i) {
        const bs = buf.indexOf(BACKSLASH, i);
        nextBackslash = bs < 0 ? Infinity : bs;
      }
      if (nextBackslash > q) return q;
      const next = escapeEnd(b, nextBackslash, end);
      if (next < 0) return -1;
      escaped = true;
      i = next;
    }
  }
  while (i < end) {
    const c = b[i]!;
    if (c === QUOTE) return i;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      escaped = true;
      const e = b[i + 1];
      if (e === 0x75 || e === 0x72 || e === 0x62 || e === 0x66) oddEscape = true;
      if (e === 0x75) {
        if (i + 5 >= end || !isHex(b[i + 2]!) || !isHex(b[i + 3]!) || !isHex(b[i + 4]!) || !isHex(b[i + 5]!)) return -1;
        i += 6;
        continue;
      }
      if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2;
        continue;
      }
      return -1;
    }
    i++;
  }
  return -1;
}

/** The index after the escape sequence at `i` (a backslash), or -1 if it is not a valid escape. */
function escapeEnd(b: Uint8Array, i: number, end: number): number {
  const e = b[i + 1];
  // \u, \r, \b and \f may decode to what output must clean; \n \t \" \\ \/ never do.
  if (e === 0x75 || e === 0x72 || e === 0x62 || e === 0x66) oddEscape = true;
  if (e === 0x75) {
    if (i + 5 >= end || !isHex(b[i + 2]!) || !isHex(b[i + 3]!) || !isHex(b[i + 4]!) || !isHex(b[i + 5]!)) return -1;
    return i + 6;
  }
  if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) return i + 2;
  return -1;
}

/** The end of a number starting at `i` (JSON grammar), or -1. */
function numberEnd(b: Uint8Array, i: number, end: number): number {
  const start = i;
  if (b[i] === 0x2d) i++;
  if (b[i] === 0x30) i++;
  else if (b[i]! >= 0x31 && b[i]! <= 0x39) while (i < end && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
  else return -1;
  if (b[i] === 0x2e) {
    i++;
    const d = i;
    while (i < end && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
    if (i === d) return -1;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === 0x2b || b[i] === 0x2d) i++;
    const d = i;
    while (i < end && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
    if (i === d) return -1;
  }
  if (i < end && isNumberByte(b[i]!)) return -1;
  return i > start ? i : -1;
}

function same(b: Uint8Array, start: number, end: number, key: Uint8Array): boolean {
  if (end - start !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (b[start + k] !== key[k]) return false;
  return true;
}

/** Which kept key `b[start..end)` (unescaped) names. */
function classifyKey(b: Uint8Array, start: number, end: number, inMessage: boolean): Key {
  if (inMessage) return same(b, start, end, K_ROLE) ? Key.Role : same(b, start, end, K_CONTENT) ? Key.Content : Key.Other;
  if (same(b, start, end, K_TYPE)) return Key.Type;
  if (same(b, start, end, K_ID)) return Key.Id;
  if (same(b, start, end, K_PARENT)) return Key.Parent;
  if (same(b, start, end, K_TIMESTAMP)) return Key.Timestamp;
  if (same(b, start, end, K_MESSAGE)) return Key.Message;
  return Key.Other;
}

const decoder = new TextDecoder();

/** `Date.parse` of `YYYY-MM-DDTHH:MM:SS.sssZ` in `b[start..end)`, without making a string; undefined for any other form. */
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

function isoTime(b: Uint8Array, start: number, end: number): number | undefined {
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

function decodeString(b: Uint8Array, open: number, close: number): string {
  let ascii = true;
  for (let k = open + 1; k < close; k++) {
    const c = b[k]!;
    if (c === BACKSLASH) return JSON.parse(decoder.decode(b.subarray(open, close + 1))) as string;
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
 * `decodeString` for ids: a line's parent is most often the id of the line before, so the last one
 * decoded is kept and handed back when the bytes match (one decode a line instead of two, and one
 * string, whose hash the tree's map then computes once).
 */
function decodeId(b: Uint8Array, open: number, close: number): string {
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

/** The entry types and roles pi writes, as bytes by length: matched without making a new string. */
const KNOWN: Array<Array<{ s: string; b: Uint8Array }>> = [];
for (const s of ["message", "model_change", "thinking_level_change", "usage", "compaction", "branch_summary", "custom", "custom_message", "context_edit", "label", "session_info", "session", "leaf", "active_tools_change", "user", "assistant", "toolResult", "system", "bashExecution", "hookMessage"]) {
  (KNOWN[s.length] ??= []).push({ s, b: bytes(s) });
}

function knownString(b: Uint8Array, open: number, close: number): string {
  const candidates = KNOWN[close - open - 1];
  if (candidates) for (const k of candidates) if (same(b, open + 1, close, k.b)) return k.s;
  return decodeString(b, open, close);
}

export function emptyFields(): ScanFields {
  return { object: false, type: undefined, id: undefined, parentKind: 0, parentId: undefined, hasTimestamp: false, time: NaN, role: undefined, messageStart: -1, messageEnd: -1, contentKind: 0, longStart: -1, longEnd: -1, longPlain: false, ascii: false, plainText: false };
}
