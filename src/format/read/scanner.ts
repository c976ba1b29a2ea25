/**
 * Pass one's scan of a line: a validating JSON scanner, because `JSON.parse` is the cost of pass
 * one (it builds every string and object of a line only for the reader to keep a few fields). It
 * runs in WebAssembly SIMD (wasm/scan.wat) over the read buffer itself, which lives in the module's
 * memory: string bodies (most of a session's bytes) are skipped 16 bytes at a time, the grammar is
 * checked in full, and the few fields pass one keeps are left as byte positions.
 *
 * It answers "valid" only when `JSON.parse` would succeed on the line, "invalid" only when it
 * would throw, and "defer" when it is unsure (escaped keys, very deep nesting) or cannot run (the
 * line is not in the module's memory, as a line longer than a read chunk is not, or WebAssembly is
 * unavailable, as under `node --jitless`). On "defer" the caller parses the line with `JSON.parse`
 * and reads the same fields from the value (`fieldsOf`): one grammar, written once, and the
 * platform's parser as its only fallback. Bytes are not decoded: invalid UTF-8 inside a string is
 * JSON-valid (the decoder replaces it), as in pi.
 */

import { isAscii } from "node:buffer";
import { scratch, simdScan, simdSlots } from "./wasm/simd.js";
import { decodeId, decodeString, hexOf, hexString, isoTime, knownString, readId, readUuid, UUID_READ, uuidString } from "./scan-values.js";

export const enum Verdict {
  Valid = 0,
  Invalid = 1,
  Defer = 2,
}

/** The most tool-call ids a line's scan keeps; a message with more is parsed instead (`ScanFields.calls` -1). */
const MAX_CALLS = 64;

export interface ScanFields {
  /** True when the line is a JSON object (other valid JSON is reported as not an object). */
  object: boolean;
  type: string | undefined;
  /**
   * The id as a number when it is 8 lowercase hex digits (`idHex`, as pi writes them); else, read
   * from the bytes, a lowercase UUID as its four words (`idIsUuid`, `idWords`); else the string in
   * `id` (`idText` gives any of them as a string).
   */
  idHex: number;
  idIsUuid: boolean;
  idWords: Uint32Array;
  id: string | undefined;
  /** 0: no `parentId` key; 1: a string; 2: null; 3: another value. */
  parentKind: 0 | 1 | 2 | 3;
  /** As `idHex`, `idIsUuid`, `idWords` and `id`, for a string `parentId` (`parentText`). */
  parentHex: number;
  parentIsUuid: boolean;
  parentWords: Uint32Array;
  parentId: string | undefined;
  /** Whether `timestamp` is a string. */
  hasTimestamp: boolean;
  /**
   * `Date.parse(timestamp)`, read straight from the bytes for pi's own format
   * (`YYYY-MM-DDTHH:MM:SS.sssZ`); NaN without a string timestamp.
   */
  time: number;
  /** `message.role` when `message` is an object holding a string `role`. */
  role: string | undefined;
  /** Byte range of the top-level `message` object (-1 when it is not an object). */
  messageStart: number;
  messageEnd: number;
  /** `message.content`: 0 absent, 1 null, 2 another value. */
  contentKind: 0 | 1 | 2;
  /** Where the (last) value of `message.content` starts (-1: none, or a line `JSON.parse` read). */
  contentStart: number;
  /**
   * From `scanShape`, or `scanLine` asked for them: what the content's blocks hold that grep and a
   * preview read, in order (`textKind`):
   * 1 a `text` block's string, 2 a `thinking` block's, 3 a `toolCall` block's `name`, each as its
   * quotes (`textOpen[k]`, `textClose[k]`), and 4 where a `toolCall` block's `arguments` start
   * (`textOpen[k]`); the last value of each key. -1 where a block's type is escaped or there are
   * more than 64 (the content is then read another way).
   */
  texts: number;
  textOpen: Int32Array;
  textClose: Int32Array;
  textKind: Uint8Array;
  /** `message.provider` and `message.model`, when strings. */
  provider: string | undefined;
  model: string | undefined;
  /** `message.responseModel` (the model that answered), when a string. */
  responseModel: string | undefined;
  /** `message.responseModel`: 0 absent, 1 a string, 2 another value. */
  responseModelKind: 0 | 1 | 2;
  /** Byte range of the `message.usage` object (-1 when there is none). */
  usageStart: number;
  usageEnd: number;
  /** `message.toolCallId`, when a string. */
  toolCallId: string | undefined;
  /** `message.stopReason`, when a string (what decides whether pi sends an assistant turn). */
  stopReason: string | undefined;
  /**
   * The `id`s of the `toolCall` blocks of `message.content` (a string `id`), as the byte ranges of
   * their bodies (`callOpen[k]`..`callClose[k]`); -1 when there were more than `MAX_CALLS`.
   */
  calls: number;
  callOpen: Int32Array;
  callClose: Int32Array;
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

/** `byteClasses` bits of the Classes slot. */
const CONTROL_BYTE = 1;
const HIGH_BYTE = 2;

/**
 * Where a scan leaves what it found, one i32 each (scan.wat writes this layout at OUT). Positions
 * are of the quotes of a kept string value, or a byte range; -1 when there is none.
 */
const enum Slot {
  /** What kinds of byte the line (less a trailing CR) holds: CONTROL_BYTE, HIGH_BYTE, DEL_BYTE (4). */
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
  ProviderOpen,
  ProviderClose,
  ModelOpen,
  ModelClose,
  UsageStart,
  UsageEnd,
  ToolCallIdOpen,
  ToolCallIdClose,
  /** How many tool-call id pairs follow at `CALLS` (-1: more than MAX_CALLS). */
  Calls,
  /** -2: the key is there but its value (so far) is no string. */
  ResponseModelOpen,
  ResponseModelClose,
  StopReasonOpen,
  StopReasonClose,
  ContentStart,
  /** How many of the content's texts follow at `TEXTS` (-1: an escaped block type, or more than MAX_TEXTS). */
  Texts,
}

/** Where the pairs of tool-call id quotes begin, in i32 slots (OUT + 1024 bytes). */
const CALLS = 256;
/** Where the content's texts begin, three i32 slots each (open quote, close quote, kind), in i32 slots (OUT + 1536 bytes). */
const TEXTS = 384;
/** The most texts a scan keeps (`ScanFields.texts` -1 past them). */
const MAX_TEXTS = 64;

/**
 * Whether a later header begins a session of its own (sessions written one after another into a
 * file, as `cat a.jsonl b.jsonl` makes): its id is not the one before it, and the record after it
 * starts a tree (`parentKind` of no parent, or null: pi's first entry of a session; a v1 entry has none).
 */
export function beginsSession(id: unknown, previousId: unknown, nextParentKind: number): id is string {
  return typeof id === "string" && id !== previousId && (nextParentKind === 0 || nextParentKind === 2);
}

/**
 * Scans `b[start..end)`. Fills `out` and returns the verdict; `out` is only meaningful for
 * `Verdict.Valid`, its positions relative to `b[start]`. Defers any line outside the WebAssembly
 * module's memory (see the module comment). With `texts`, the content's texts too (`ScanFields.texts`:
 * pass one's previews read them; the scan pays 3 % for them).
 */
export function scanLine(b: Uint8Array, out: ScanFields, start = 0, end = b.length, deep = true, texts = false): Verdict {
  // A trailing CR (CRLF files) is whitespace; any other byte below 0x20 rules out the fast path.
  const body = end > start && b[end - 1] === 0x0d ? end - 1 : end;
  const verdict = simdScan(b, start, end, body, texts);
  if (verdict < 0) return Verdict.Defer;
  if (verdict === Verdict.Valid) {
    fill(b, simdSlots, b.byteOffset, start, out, deep);
    if (texts) fillTexts(simdSlots, b.byteOffset + start, out);
    else out.texts = -1;
  } else out.object = false;
  return verdict;
}

/**
 * As `scanLine`, but of a valid line's fields only what grep's raw count reads (grep/raw-count.ts):
 * `object`, `type`, `role`, `messageStart`, `messageEnd`, `contentStart`, and the content's texts. Ids and times, which
 * the rest of `scanLine`'s filling reads, were a sixth of a count's scanning.
 */
export function scanShape(b: Uint8Array, out: ScanFields, start: number, end: number): Verdict {
  const body = end > start && b[end - 1] === 0x0d ? end - 1 : end;
  const verdict = simdScan(b, start, end, body, true);
  if (verdict < 0) return Verdict.Defer;
  if (verdict !== Verdict.Valid) {
    out.object = false;
    return verdict;
  }
  const r = simdSlots;
  const base = b.byteOffset;
  out.object = (r[Slot.Flags]! & 1) !== 0;
  let p = r[Slot.TypeOpen]!;
  out.type = p < 0 ? undefined : knownString(b, p - base, r[Slot.TypeClose]! - base);
  p = r[Slot.RoleOpen]!;
  out.role = p < 0 ? undefined : knownString(b, p - base, r[Slot.RoleClose]! - base);
  p = r[Slot.MessageStart]!;
  out.messageStart = p < 0 ? -1 : p - base - start;
  out.messageEnd = p < 0 ? -1 : r[Slot.MessageEnd]! - base - start;
  p = r[Slot.ContentStart]!;
  out.contentStart = p < 0 ? -1 : p - base - start;
  fillTexts(r, base + start, out);
  return verdict;
}

function fillTexts(r: Int32Array, lineAt: number, out: ScanFields): void {
  const texts = r[Slot.Texts]!;
  out.texts = texts;
  for (let k = 0; k < texts; k++) {
    out.textOpen[k] = r[TEXTS + 3 * k]! - lineAt;
    out.textClose[k] = r[TEXTS + 3 * k + 1]! - lineAt;
    out.textKind[k] = r[TEXTS + 3 * k + 2]!;
  }
}

/**
 * `scanShape` of a line held anywhere (pass two's reads, not the module's memory), scanned in a
 * copy: Defer when the memory is lent out (a pass one is reading) or WebAssembly is unavailable.
 */
export function scanShapeOf(bytes: Uint8Array, out: ScanFields): Verdict {
  const memory = scratch();
  if (!memory || bytes.length > memory.length) return Verdict.Defer;
  memory.set(bytes);
  return scanShape(memory, out, 0, bytes.length);
}

/**
 * `out` from the slots a valid scan left (addresses in the memory; `base` is `b`'s, `start` the
 * line's index in `b`). Positions in `out` are the line's own (from its first byte). Without
 * `deep`, what only a skim reads of a message (provider, model, usage, toolCallId, tool calls) is
 * left out.
 */
function fill(b: Uint8Array, r: Int32Array, base: number, start: number, out: ScanFields, deep: boolean): void {
  /** A slot's address as an index in `b` (for reading), and as a position in the line (for `out`). */
  const local = (p: number) => p - base;
  const own = (p: number) => p - base - start;
  const classes = r[Slot.Classes]!;
  const flags = r[Slot.Flags]!;
  out.object = (flags & 1) !== 0;
  out.ascii = (classes & (CONTROL_BYTE | HIGH_BYTE)) === 0; // (a trailing CR is ASCII too)
  out.plainText = classes === 0 && (flags & 2) === 0;
  let p = r[Slot.TypeOpen]!;
  out.type = p < 0 ? undefined : knownString(b, local(p), local(r[Slot.TypeClose]!));
  out.parentKind = r[Slot.ParentKind]! as ScanFields["parentKind"];
  p = r[Slot.ParentOpen]!;
  const parent = p < 0 ? undefined : readId(b, local(p), local(r[Slot.ParentClose]!), out.parentWords);
  out.parentHex = typeof parent === "number" ? parent : -1;
  out.parentIsUuid = parent === UUID_READ;
  out.parentId = typeof parent === "string" ? parent : undefined;
  p = r[Slot.IdOpen]!;
  const id = p < 0 ? undefined : readId(b, local(p), local(r[Slot.IdClose]!), out.idWords);
  out.idHex = typeof id === "number" ? id : -1;
  out.idIsUuid = id === UUID_READ;
  out.id = typeof id === "string" ? id : undefined;
  p = r[Slot.TimestampOpen]!;
  out.hasTimestamp = p >= 0;
  if (p < 0) out.time = NaN;
  else {
    const close = local(r[Slot.TimestampClose]!);
    out.time = isoTime(b, local(p) + 1, close) ?? Date.parse(decodeString(b, local(p), close));
  }
  p = r[Slot.RoleOpen]!;
  out.role = p < 0 ? undefined : knownString(b, local(p), local(r[Slot.RoleClose]!));
  p = r[Slot.MessageStart]!;
  out.messageStart = p < 0 ? -1 : own(p);
  out.messageEnd = p < 0 ? -1 : own(r[Slot.MessageEnd]!);
  out.contentKind = r[Slot.ContentKind]! as ScanFields["contentKind"];
  p = r[Slot.ContentStart]!;
  out.contentStart = p < 0 ? -1 : own(p);
  p = r[Slot.LongStart]!;
  out.longStart = p < 0 ? -1 : own(p);
  out.longEnd = p < 0 ? -1 : own(r[Slot.LongEnd]!);
  out.longPlain = p >= 0 && r[Slot.LongEscaped] === 0 && (out.ascii || isAscii(b.subarray(local(p), local(r[Slot.LongEnd]!))));
  if (!deep) {
    out.provider = out.model = out.responseModel = out.toolCallId = out.stopReason = undefined;
    out.responseModelKind = 0;
    out.usageStart = out.usageEnd = -1;
    out.calls = 0;
    return;
  }
  p = r[Slot.ProviderOpen]!;
  out.provider = p < 0 ? undefined : knownString(b, local(p), local(r[Slot.ProviderClose]!));
  p = r[Slot.ModelOpen]!;
  out.model = p < 0 ? undefined : knownString(b, local(p), local(r[Slot.ModelClose]!));
  p = r[Slot.ResponseModelOpen]!;
  out.responseModelKind = p === -1 ? 0 : p === -2 ? 2 : 1;
  out.responseModel = p < 0 ? undefined : knownString(b, local(p), local(r[Slot.ResponseModelClose]!));
  p = r[Slot.UsageStart]!;
  out.usageStart = p < 0 || r[Slot.UsageEnd]! < 0 ? -1 : own(p);
  out.usageEnd = out.usageStart < 0 ? -1 : own(r[Slot.UsageEnd]!);
  p = r[Slot.ToolCallIdOpen]!;
  out.toolCallId = p < 0 ? undefined : decodeId(b, local(p), local(r[Slot.ToolCallIdClose]!));
  p = r[Slot.StopReasonOpen]!;
  out.stopReason = p < 0 ? undefined : knownString(b, local(p), local(r[Slot.StopReasonClose]!));
  const calls = r[Slot.Calls]!;
  out.calls = calls;
  for (let k = 0; k < calls; k++) {
    out.callOpen[k] = own(r[CALLS + 2 * k]!) + 1;
    out.callClose[k] = own(r[CALLS + 2 * k + 1]!);
  }
}

/**
 * The fields of a line `JSON.parse` read (the scan deferred): the same as a scan leaves, but for
 * the byte positions, which only a scan knows (-1).
 */
export function fieldsOf(value: Record<string, unknown>, out: ScanFields): void {
  out.object = true;
  out.type = typeof value.type === "string" ? value.type : undefined;
  const id = value.id;
  out.idHex = typeof id === "string" ? hexOf(id) : -1;
  out.idIsUuid = typeof id === "string" && out.idHex < 0 && readUuid(id, out.idWords);
  out.id = typeof id === "string" && out.idHex < 0 && !out.idIsUuid ? id : undefined;
  const parent = value.parentId;
  out.parentKind = !("parentId" in value) ? 0 : typeof parent === "string" ? 1 : parent === null ? 2 : 3;
  out.parentHex = typeof parent === "string" ? hexOf(parent) : -1;
  out.parentIsUuid = typeof parent === "string" && out.parentHex < 0 && readUuid(parent, out.parentWords);
  out.parentId = typeof parent === "string" && out.parentHex < 0 && !out.parentIsUuid ? parent : undefined;
  out.hasTimestamp = typeof value.timestamp === "string";
  out.time = out.hasTimestamp ? Date.parse(value.timestamp as string) : NaN;
  const m = value.message;
  const message = m && typeof m === "object" && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
  out.role = typeof message?.role === "string" ? message.role : undefined;
  out.messageStart = out.messageEnd = -1;
  out.contentKind = !message || !("content" in message) ? 0 : message.content === null ? 1 : 2;
  out.contentStart = -1;
  out.texts = -1;
  out.provider = typeof message?.provider === "string" ? message.provider : undefined;
  out.model = typeof message?.model === "string" ? message.model : undefined;
  out.responseModel = typeof message?.responseModel === "string" ? message.responseModel : undefined;
  out.responseModelKind = !message || !("responseModel" in message) ? 0 : out.responseModel !== undefined ? 1 : 2;
  out.usageStart = out.usageEnd = -1;
  out.toolCallId = typeof message?.toolCallId === "string" ? message.toolCallId : undefined;
  out.stopReason = typeof message?.stopReason === "string" ? message.stopReason : undefined;
  out.calls = 0;
  out.longStart = out.longEnd = -1;
  out.longPlain = out.ascii = out.plainText = false;
}

/** The scanned line's id as a string, whichever way the scan kept it. */
export function idText(f: ScanFields): string | undefined {
  return f.idHex >= 0 ? hexString(f.idHex) : f.idIsUuid ? uuidString(f.idWords) : f.id;
}

/**
 * Where each typed array of a scan's fields lies in their one buffer (`emptyFields`), in bytes:
 * the four-byte ones first, so that each is aligned.
 */
const PARENT_WORDS_AT = 16;
const TEXT_OPEN_AT = 32;
const TEXT_CLOSE_AT = TEXT_OPEN_AT + 4 * MAX_TEXTS;
const CALL_OPEN_AT = TEXT_CLOSE_AT + 4 * MAX_TEXTS;
const CALL_CLOSE_AT = CALL_OPEN_AT + 4 * MAX_CALLS;
const TEXT_KIND_AT = CALL_CLOSE_AT + 4 * MAX_CALLS;
const FIELDS_BYTES = TEXT_KIND_AT + MAX_TEXTS;

export function emptyFields(): ScanFields {
  // (its typed arrays are views of one buffer: a typed array of its own costs a microsecond or
  // more to make, and `ls` makes a scan's fields for each of thousands of sessions: BENCHMARKS.md,
  // "a scan's fields")
  const buffer = new ArrayBuffer(FIELDS_BYTES);
  return {
    object: false,
    type: undefined,
    idHex: -1,
    idIsUuid: false,
    idWords: new Uint32Array(buffer, 0, 4),
    id: undefined,
    parentKind: 0,
    parentHex: -1,
    parentIsUuid: false,
    parentWords: new Uint32Array(buffer, PARENT_WORDS_AT, 4),
    parentId: undefined,
    hasTimestamp: false,
    time: NaN,
    role: undefined,
    messageStart: -1,
    messageEnd: -1,
    contentKind: 0,
    contentStart: -1,
    texts: -1,
    textOpen: new Int32Array(buffer, TEXT_OPEN_AT, MAX_TEXTS),
    textClose: new Int32Array(buffer, TEXT_CLOSE_AT, MAX_TEXTS),
    textKind: new Uint8Array(buffer, TEXT_KIND_AT, MAX_TEXTS),
    provider: undefined,
    model: undefined,
    responseModel: undefined,
    responseModelKind: 0,
    usageStart: -1,
    usageEnd: -1,
    toolCallId: undefined,
    stopReason: undefined,
    calls: 0,
    callOpen: new Int32Array(buffer, CALL_OPEN_AT, MAX_CALLS),
    callClose: new Int32Array(buffer, CALL_CLOSE_AT, MAX_CALLS),
    longStart: -1,
    longEnd: -1,
    longPlain: false,
    ascii: false,
    plainText: false,
  };
}

/** Fields no scan is using, given back by the last one (`lendFields`). */
let spareFields: ScanFields | undefined;

/**
 * Calls `scan` with a scan's fields, the ones the last such call gave back when no other call is
 * using them: a reader of a whole file (pass one, `usage`'s) makes none of its own for each of
 * the thousands of sessions a store holds (BENCHMARKS.md, "a scan's fields").
 */
export function lendFields<T>(scan: (fields: ScanFields) => T): T {
  const fields = spareFields ?? emptyFields();
  spareFields = undefined;
  try {
    return scan(fields);
  } finally {
    spareFields = fields;
  }
}

/**
 * The value of `"key":` at the top level of the object `bytes[from..to)` (its braces included),
 * found by its bytes, for a field the scanner does not read (a bash run's `excludeFromContext`): `undefined` when the key is not there, `AMBIGUOUS` when the last
 * occurrence is not at the top level (the caller parses the line), else the value's JSON text (a
 * string with its quotes). pi writes such keys after the content, so the last occurrence is
 * found near the end and checked by reading on to the object's close. Whitespace around the colon
 * is allowed; a key spelled with escapes is not seen.
 */
const AMBIGUOUS = Symbol("ambiguous");
function keyValueIn(bytes: Buffer, from: number, to: number, key: Buffer): string | undefined | typeof AMBIGUOUS {
  // (searched within the range: `bytes` may be a whole read chunk)
  const found = bytes.subarray(from, to).lastIndexOf(key);
  if (found < 0) return undefined;
  const at = from + found;
  const space = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
  let p = at + key.length;
  while (p < to && space(bytes[p])) p++;
  if (bytes[p] !== 0x3a) return AMBIGUOUS; // `"key"` as a value, not a key
  p++;
  while (p < to && space(bytes[p])) p++;
  const valueStart = p;
  // on to the object's close: a closer that comes sooner means the key was nested
  let depth = 0;
  let valueEnd = -1;
  for (let q = p; q < to; q++) {
    const c = bytes[q]!;
    if (c === 0x22) {
      q++;
      while (q < to && bytes[q] !== 0x22) q += bytes[q] === 0x5c ? 2 : 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) {
        if (valueEnd < 0) valueEnd = q;
        return q === to - 1 ? bytes.toString("utf8", valueStart, valueEnd).trim() : AMBIGUOUS;
      }
      depth--;
    } else if (c === 0x2c && depth === 0 && valueEnd < 0) valueEnd = q;
  }
  return AMBIGUOUS;
}

const EXCLUDE_FROM_CONTEXT = Buffer.from('"excludeFromContext"');

/**
 * Whether pi leaves a scanned message out of what it sends: an assistant turn whose `stopReason`
 * (the scanner reads it) is "error" or "aborted", a bash run whose `excludeFromContext` is `true`
 * (read from the message's bytes, the line parsed when the key is there but not at the message's
 * top level).
 */
export function unsentMessage(bytes: Buffer, at: number, f: ScanFields): boolean {
  if (f.role === "assistant") return f.stopReason === "error" || f.stopReason === "aborted";
  if (f.role !== "bashExecution" || f.messageStart < 0) return false;
  let raw = keyValueIn(bytes, at + f.messageStart, at + f.messageEnd, EXCLUDE_FROM_CONTEXT);
  if (raw === AMBIGUOUS) {
    const end = bytes.indexOf(0x0a, at + f.messageEnd);
    const message = (JSON.parse(bytes.toString("utf8", at, end < 0 ? bytes.length : end)) as { message?: Record<string, unknown> }).message;
    raw = JSON.stringify(message?.excludeFromContext);
  }
  return raw === "true";
}
