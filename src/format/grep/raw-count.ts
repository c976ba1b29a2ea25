import type { ScanFields } from "../read/scanner.js";
import { simdFindNeedle } from "../read/wasm/simd.js";
import { escapesNeedle, findRun, type ClassRun, type GrepPattern } from "./pattern.js";

/**
 * Whether an entry matches, told from its line's raw bytes: `grep -c` and `-l` of a fixed string
 * in most lines (a common word), where decoding every line that holds the needle was most of the
 * search (`JSON.parse` half of `grep -F -c the` over 300 sessions: BENCHMARKS.md, "the raw count").
 *
 * It takes a line the scanner (read/scanner.ts, `scanShape`) found valid, which also kept where
 * the message's (last) content starts and what its blocks hold that the rule reads
 * (grep/pattern.ts, `searchableTexts`): a text's or thinking's string, a tool call's name and
 * where its arguments start. Only those are searched for the needle (a tool call's arguments
 * walked for their string values). Where the scanner kept no blocks (an escaped type, more than
 * 64), and for the message's other strings and entries of other kinds, the JSON is read as far
 * as the rule needs: each object's members to their ends, strings passed over by a search for
 * their closing quote, the last value of a key kept (`JSON.parse` keeps the last). A match when
 * the needle lies in a searched string where no escape touches it; no match when it lies in none
 * and no `\u` escape in the line may spell one of its characters; else unsure, and the line is
 * decoded as before. That is for a pattern a text matches exactly when it holds the needle
 * (`GrepPattern.exact`); for any other (a regular expression, a word), each searched string is
 * decoded on its own and the expression run on it, unless its bytes, free of `\u` escapes, lack
 * what every match holds (the needle, or the run of a class: `GrepPattern.run`): then a key or a type
 * spelled with escapes is all that leaves a verdict unsure (BENCHMARKS.md, "the raw count of an
 * expression"). It serves without `--tool` or dates, in a v3 session.
 */
export const enum RawVerdict {
  Match,
  NoMatch,
  Unsure,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const LETTER_U = 0x75;

/** Bytes that end a number, `true`, `false` or `null`. */
const SCALAR_END = new Uint8Array(256);
for (const c of ",}] \t\r\n") SCALAR_END[c.charCodeAt(0)] = 1;
const SPACE = new Uint8Array(256);
for (const c of " \t\r\n") SPACE[c.charCodeAt(0)] = 1;

const quoted = (s: string) => Buffer.from(JSON.stringify(s));

/** The message's keys the rule reads besides its content, and a block's (`MESSAGE_KEYS[k]` is slot k). */
const MESSAGE_KEYS = ["errorMessage", "toolName", "command", "output"].map(quoted);
const enum M {
  ErrorMessage,
  ToolName,
  Command,
  Output,
}
/** An entry's keys the rule reads when it is no message. */
const ENTRY_KEYS = ["content", "summary", "name", "label"].map(quoted);
const enum E {
  Content,
  Summary,
  Name,
  Label,
}
const BLOCK_KEYS = ["type", "text", "thinking", "name", "arguments"].map(quoted);
const enum B {
  Type,
  Text,
  Thinking,
  Name,
  Arguments,
}
/** The block types the rule reads, as `kindOf` tells them. */
const BLOCK_TYPES = ["text", "thinking", "toolCall"].map(quoted);
const enum Kind {
  Text,
  Thinking,
  ToolCall,
  Other = -1,
  /** A string with an escape: what it spells is left to the decoder. */
  Escaped = -2,
}

/** `ScanFields.textKind` of a text block's string, and of where a tool call's arguments start (only an assistant's are read but the first). */
const TEXT_KIND = 1;
const ARGUMENTS_KIND = 4;
/** How far `stringEnd` looks byte by byte. */
const NEAR = 32;
/** The most keys an object's reading keeps. */
const SLOTS = 8;
/** `keyOf` of a key with an escape (it may spell any). */
const KEY_ESCAPED = -2;

export class RawCount {
  /** The needle where a text matches exactly when it holds it (`GrepPattern.exact`); else undefined, and `regex` decides. */
  private readonly needle: Uint8Array | undefined;
  private readonly regex: RegExp;
  /** What every match holds, for a regular expression: a needle, or a run of a class (neither: every string is decoded). */
  private readonly sieve: Uint8Array | undefined;
  private readonly run: ClassRun | undefined;
  private readonly fold: boolean;
  private readonly units: ReadonlySet<number>;
  private b!: Buffer;
  private end = 0;
  /** A needle was seen that an escape touches, or a key or type was escaped: no answer is certain but a match. */
  private unsure = false;
  /** Where the value `stringsHold` read ends, when it found no match there. */
  private after = 0;
  /** Where the values of the message's (or entry's) keys start, and of a block's (`members`). */
  private readonly messageSlots = new Int32Array(SLOTS);
  private readonly blockSlots = new Int32Array(SLOTS);

  /** `roles`: grep's `--role`. */
  constructor(
    pattern: GrepPattern,
    private readonly roles: ReadonlySet<string> | undefined,
  ) {
    this.needle = pattern.exact ? pattern.needle! : undefined;
    this.regex = pattern.regex;
    this.sieve = pattern.needle;
    this.run = pattern.run;
    this.fold = pattern.fold;
    this.units = pattern.needleUnits;
  }

  /** The verdict on the line `b[start..end)`, which the scanner found valid and left `f` of. */
  judge(b: Buffer, start: number, end: number, f: ScanFields): RawVerdict {
    if (!f.object) return RawVerdict.Unsure;
    const type = f.type;
    // (entryRole: a message's role, else the entry's type)
    const role = type === "message" && f.role !== undefined ? f.role : (type ?? "(none)");
    if (this.roles !== undefined && !this.roles.has(role)) return RawVerdict.NoMatch;
    this.b = b;
    this.end = end;
    this.unsure = false;
    let found: boolean;
    switch (type) {
      case "message":
        if (f.messageStart < 0) return RawVerdict.NoMatch;
        found = this.messageHolds(start + f.messageStart, role, f.contentStart < 0 ? -1 : start + f.contentStart, start, f);
        break;
      case "custom_message":
      case "compaction":
      case "branch_summary":
      case "session_info":
      case "label":
        found = this.entryHolds(this.space(start), type);
        break;
      default:
        return RawVerdict.NoMatch;
    }
    if (found) return RawVerdict.Match;
    // (a string an expression was run on was decoded: an escape in it told nothing unsure)
    return this.unsure || (this.needle !== undefined && escapesNeedle(b, start, end, this.units)) ? RawVerdict.Unsure : RawVerdict.NoMatch;
  }

  /** Whether the searchable text of an entry other than a message, the object at `at`, holds the needle (searchableTexts). */
  private entryHolds(at: number, type: string): boolean {
    const e = this.messageSlots;
    if (this.members(at, ENTRY_KEYS, e) < 0) return false;
    switch (type) {
      case "custom_message":
        return this.contentHolds(e[E.Content]!, false);
      case "session_info":
        return this.stringHolds(e[E.Name]!);
      case "label":
        return this.stringHolds(e[E.Label]!);
      default:
        return this.stringHolds(e[E.Summary]!);
    }
  }

  /**
   * Whether the searchable texts of the message object at `at` hold the needle (searchableTexts'
   * `message` case). Its content (most of the line) is where the scanner found its last value
   * start (`contentAt`); the message's own strings are read only when the content has no match.
   */
  private messageHolds(at: number, role: string, contentAt: number, start: number, f: ScanFields): boolean {
    switch (role) {
      case "user":
      case "system":
      case "custom":
        return this.scannedContentHolds(contentAt, false, start, f);
      case "assistant":
      case "toolResult":
        if (this.scannedContentHolds(contentAt, role === "assistant", start, f)) return true;
        break;
      case "bashExecution":
        break;
      default:
        return false;
    }
    const m = this.messageSlots;
    if (this.members(at, MESSAGE_KEYS, m) < 0) return false;
    if (role === "assistant") return this.stringHolds(m[M.ErrorMessage]!);
    if (role === "toolResult") return this.stringHolds(m[M.ToolName]!);
    return this.stringHolds(m[M.Command]!) || this.stringHolds(m[M.Output]!);
  }

  /**
   * Message content at `at` (-1: none), whose blocks' texts the scanner may have kept
   * (`ScanFields.texts`: then only they are searched, no block read); else `contentHolds`.
   */
  private scannedContentHolds(at: number, assistant: boolean, start: number, f: ScanFields): boolean {
    if (at < 0 || this.b[at] !== OPEN_BRACKET || f.texts < 0) return this.contentHolds(at, assistant);
    for (let k = 0; k < f.texts; k++) {
      const kind = f.textKind[k];
      if (kind !== TEXT_KIND && !assistant) continue;
      if (kind === ARGUMENTS_KIND ? this.stringsHold(start + f.textOpen[k]!) : this.rangeHolds(start + f.textOpen[k]!, start + f.textClose[k]!)) return true;
    }
    return false;
  }

  /** Message content at `at` (-1: none): a string, or blocks (contentTexts). */
  private contentHolds(at: number, assistant: boolean): boolean {
    const b = this.b;
    if (at < 0) return false;
    if (b[at] !== OPEN_BRACKET) return this.stringHolds(at);
    let i = this.space(at + 1);
    if (b[i] === CLOSE_BRACKET) return false;
    const s = this.blockSlots;
    for (;;) {
      if (b[i] === OPEN_BRACE) {
        const end = this.members(i, BLOCK_KEYS, s);
        if (end < 0) return false;
        const kind = this.kindOf(s[B.Type]!);
        if (kind === Kind.Text && this.stringHolds(s[B.Text]!)) return true;
        if (assistant && kind === Kind.Thinking && this.stringHolds(s[B.Thinking]!)) return true;
        if (assistant && kind === Kind.ToolCall && (this.stringHolds(s[B.Name]!) || (s[B.Arguments]! >= 0 && this.stringsHold(s[B.Arguments]!)))) return true;
        if (kind === Kind.Escaped) this.unsure = true;
        i = end;
      } else i = this.valueEnd(i);
      i = this.space(i);
      if (b[i] !== COMMA) return false;
      i = this.space(i + 1);
    }
  }

  /** What the block type at `at` is (-1: no string, or another). */
  private kindOf(at: number): Kind {
    if (at < 0 || this.b[at] !== QUOTE) return Kind.Other;
    const close = this.stringEnd(at);
    for (let k = 0; k < BLOCK_TYPES.length; k++) if (this.same(at, close + 1, BLOCK_TYPES[k]!)) return k as Kind;
    return this.escaped(at, close) ? Kind.Escaped : Kind.Other;
  }

  /**
   * Whether any string value in the value at `at` holds the needle, keys aside (stringsIn: a tool
   * call's arguments). A match in a member whose key comes again later is none (`JSON.parse`
   * keeps the last), so the object's later keys are looked at before it counts. Without a match,
   * `after` is left where the value ends (each member is read once, not again to pass it).
   */
  private stringsHold(at: number): boolean {
    const b = this.b;
    const c = b[at];
    if (c === QUOTE) {
      const close = this.stringEnd(at);
      this.after = close + 1;
      return this.rangeHolds(at, close);
    }
    if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
      this.after = this.valueEnd(at);
      return false;
    }
    let i = this.space(at + 1);
    if (b[i] === CLOSE_BRACE || b[i] === CLOSE_BRACKET) {
      this.after = i + 1;
      return false;
    }
    for (;;) {
      let key = -1;
      let keyEnd = -1;
      if (c === OPEN_BRACE) {
        key = i;
        keyEnd = this.stringEnd(i) + 1;
        i = this.space(this.space(keyEnd) + 1);
      }
      if (this.stringsHold(i)) {
        // (a container that matched stopped inside itself: its end is found only now)
        const end = b[i] === QUOTE ? this.after : this.valueEnd(i);
        if (key < 0 || !this.keyAgain(key, keyEnd, end)) return true;
        this.after = end;
      }
      i = this.space(this.after);
      if (b[i] !== COMMA) {
        this.after = i + 1;
        return false;
      }
      i = this.space(i + 1);
    }
  }

  /** Whether the key `b[key..keyEnd)` (quotes and all) may come again among the members from `from` on; an escaped key may. */
  private keyAgain(key: number, keyEnd: number, from: number): boolean {
    const b = this.b;
    const name = b.subarray(key, keyEnd);
    let i = this.space(from);
    while (b[i] === COMMA) {
      i = this.space(i + 1);
      const close = this.stringEnd(i);
      if (this.same(i, close + 1, name)) return true;
      if (this.escaped(i, close)) {
        this.unsure = true;
        return true;
      }
      i = this.space(this.valueEnd(this.space(this.space(close + 1) + 1)));
    }
    return false;
  }

  /**
   * Reads the members of the object at `at`: `slots[k]` is where the last value of `keys[k]` starts
   * (-1: none). Returns where the object ends, or -1 when a key holds an escape (it may spell one of `keys`).
   */
  private members(at: number, keys: readonly Buffer[], slots: Int32Array): number {
    const b = this.b;
    slots.fill(-1);
    let i = this.space(at + 1);
    if (b[i] === CLOSE_BRACE) return i + 1;
    for (;;) {
      const close = this.stringEnd(i);
      const k = this.keyOf(i, close + 1, keys);
      if (k === KEY_ESCAPED) return -1;
      i = this.space(this.space(close + 1) + 1);
      if (k >= 0) slots[k] = i;
      i = this.space(this.valueEnd(i));
      if (b[i] !== COMMA) return i + 1;
      i = this.space(i + 1);
    }
  }

  /** Whether the string at `at` (-1 or another value: no) holds the needle where no escape touches it. */
  private stringHolds(at: number): boolean {
    if (at < 0 || this.b[at] !== QUOTE) return false;
    return this.rangeHolds(at, this.stringEnd(at));
  }

  /** Whether the string between the quotes at `at` and `close` holds a match: the needle where no escape touches it, or the expression's. */
  private rangeHolds(at: number, close: number): boolean {
    const needle = this.needle;
    if (needle === undefined) return this.matchIn(at, close);
    const b = this.b;
    const length = needle.length;
    for (let from = at + 1; from + length <= close; ) {
      const p = simdFindNeedle(b, from, close, needle, this.fold);
      if (p === -2) {
        this.unsure = true;
        return false;
      }
      if (p < 0 || p + length > close) return false;
      if (untouched(b, at + 1, p)) return true;
      this.unsure = true;
      from = p + 1;
    }
    return false;
  }

  /**
   * Whether the expression matches the string between the quotes at `at` and `close`, decoded: its
   * bytes as they are where they hold no escape, else by `JSON.parse`; not decoded at all where
   * they hold no `\u` escape and lack what every match holds.
   */
  private matchIn(at: number, close: number): boolean {
    const b = this.b;
    const firstEscape = indexOfByte(b, at + 1, close, BACKSLASH);
    const escaped = firstEscape >= 0;
    // (an escape but `\uXXXX` stands for a character JSON may write escaped, which neither the
    // needle nor the run holds (pattern.ts, ESCAPABLE): where the string has no `\u`, its raw bytes
    // hold them wherever its text does; a tool's output, `\n` every line, is not decoded for nothing)
    if ((!escaped || !holdsBytes(b, firstEscape, close, BACKSLASH_U)) && !this.mayMatch(at + 1, close)) return false;
    let text: string;
    if (!escaped) text = b.toString("utf8", at + 1, close);
    else {
      try {
        text = JSON.parse(b.toString("utf8", at, close + 1)) as string;
      } catch {
        this.unsure = true;
        return false;
      }
    }
    this.regex.lastIndex = 0;
    return this.regex.test(text);
  }

  /** Whether `b[from..to)` holds what every match holds (the sieve's needle or run), or the pattern has none. */
  private mayMatch(from: number, to: number): boolean {
    const b = this.b;
    if (this.sieve !== undefined) {
      const p = simdFindNeedle(b, from, to, this.sieve, this.fold);
      return p === -2 || (p >= 0 && p + this.sieve.length <= to);
    }
    return this.run === undefined || findRun(b, from, to, to, this.run) >= 0;
  }

  /**
   * The closing quote of the string whose opening quote is at `at`. The next quote is looked for
   * byte by byte for a few bytes (most strings are keys and short values; a native search pays a
   * call's cost), then by `Buffer.indexOf` (the scanner's 16-byte search took twice as long here).
   */
  private stringEnd(at: number): number {
    const b = this.b;
    for (let j = at + 1; ; j++) {
      const near = Math.min(j + NEAR, this.end);
      while (j < near && b[j] !== QUOTE) j++;
      if (j === near) j = b.indexOf(QUOTE, j);
      if (j < 0 || j >= this.end) return this.end;
      let k = j - 1;
      while (b[k] === BACKSLASH) k--;
      if (((j - 1 - k) & 1) === 0) return j;
    }
  }

  /** Where the value at `at` ends. */
  private valueEnd(at: number): number {
    const b = this.b;
    const c = b[at];
    if (c === QUOTE) return this.stringEnd(at) + 1;
    let i = at;
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      let depth = 0;
      while (i < this.end) {
        const d = b[i];
        if (d === QUOTE) {
          i = this.stringEnd(i) + 1;
          continue;
        }
        if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
        else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
        i++;
      }
      return i;
    }
    while (i < this.end && !SCALAR_END[b[i]!]) i++;
    return i;
  }

  private space(at: number): number {
    let i = at;
    while (SPACE[this.b[i]!]) i++;
    return i;
  }

  /** Which of `keys` the key `b[from..to)` (quotes and all) is: -1 another, `KEY_ESCAPED` (and unsure) one with an escape. */
  private keyOf(from: number, to: number, keys: readonly Buffer[]): number {
    let k = keys.length - 1;
    while (k >= 0 && !this.same(from, to, keys[k]!)) k--;
    if (k < 0 && this.escaped(from, to)) {
      this.unsure = true;
      return KEY_ESCAPED;
    }
    return k;
  }

  /** Whether `b[from..to)` holds a backslash (a key's or a type's few bytes: a native search would run on past `to`). */
  private escaped(from: number, to: number): boolean {
    const b = this.b;
    for (let k = from; k < to; k++) if (b[k] === BACKSLASH) return true;
    return false;
  }

  /** Whether `b[from..to)` is `name`'s bytes. */
  private same(from: number, to: number, name: Uint8Array): boolean {
    if (to - from !== name.length) return false;
    const b = this.b;
    for (let k = 0; k < name.length; k++) if (b[from + k] !== name[k]) return false;
    return true;
  }
}

/** Where `b[from..to)` first holds the byte `c`, or -1 (a native search, bounded: `Buffer.indexOf` would run to the buffer's end). */
function indexOfByte(b: Buffer, from: number, to: number, c: number): number {
  if (to - from < 64) {
    for (let i = from; i < to; i++) if (b[i] === c) return i;
    return -1;
  }
  const k = b.subarray(from, to).indexOf(c);
  return k < 0 ? -1 : from + k;
}

/** The bytes a `\uXXXX` escape starts with (the string holds none where it lacks them). */
const BACKSLASH_U = Buffer.from("\\u");

/** Whether `b[from..to)` holds `bytes`. */
function holdsBytes(b: Buffer, from: number, to: number, bytes: Uint8Array): boolean {
  return b.subarray(from, to).indexOf(bytes) >= 0;
}

/**
 * Whether the needle found at `p` in a string whose body starts at `body` is there as it is: not
 * a character an escape's backslash stands before, nor inside a `\uXXXX` escape's digits. Only the
 * nearest backslash within five bytes can be either (in valid JSON an escape's digits hold no
 * backslash), and it escapes when it ends an odd run of them.
 */
function untouched(b: Uint8Array, body: number, p: number): boolean {
  for (let q = p - 1; q >= body && q >= p - 5; q--) {
    if (b[q] !== BACKSLASH) continue;
    let r = q;
    while (r > body && b[r - 1] === BACKSLASH) r--;
    if (((q - r + 1) & 1) === 0) return true;
    return q !== p - 1 && !(b[q + 1] === LETTER_U && p <= q + 5);
  }
  return true;
}
