/**
 * What `grep` searches, and how a pattern is matched: the rule, in one place.
 *
 * An entry's searchable texts are its decoded strings, each on its own (docs/commands.md, "grep"): message text
 * (user, assistant, custom, system), an assistant's `errorMessage`, thinking text, tool calls'
 * names and every string value of their arguments, tool results' `toolName` and text,
 * `bashExecution` command and output, `custom_message` content, compaction and branch summaries,
 * `session_info` names, labels. Never ids, timestamps, base64 image data, thinking signatures or
 * usage.
 */

/** One searchable text of an entry: which field it is (`text`, `thinking`, `tool.arguments.command`, …) and the text. */
export type TextVisitor = (field: string, text: string, tool: string | undefined) => boolean | void;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);

/** Message text as pi's content holds it: a string, or blocks of which `text` ones are read (`field`) and, for an assistant, thinking and tool calls. */
function contentTexts(content: unknown, field: string, visit: TextVisitor, tool: string | undefined, assistant: boolean): boolean {
  if (typeof content === "string") return visit(field, content, tool) === true;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") {
      if (visit(field, block.text, tool) === true) return true;
    } else if (assistant && block.type === "thinking" && typeof block.thinking === "string") {
      if (visit("thinking", block.thinking, tool) === true) return true;
    } else if (assistant && block.type === "toolCall") {
      const name = typeof block.name === "string" ? block.name : undefined;
      if (name !== undefined && visit("tool.name", name, name) === true) return true;
      if (stringsIn(block.arguments, "tool.arguments", visit, name)) return true;
    }
  }
  return false;
}

/** Every string value in `value`, depth first, each with its path (`tool.arguments.edits.0.oldText`). */
function stringsIn(value: unknown, path: string, visit: TextVisitor, tool: string | undefined): boolean {
  if (typeof value === "string") return visit(path, value, tool) === true;
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) if (stringsIn(value[k], `${path}.${k}`, visit, tool)) return true;
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) if (stringsIn(v, `${path}.${k}`, visit, tool)) return true;
  }
  return false;
}

/**
 * Calls `visit` with each searchable text of `entry` (upgraded to v3), in order; stops at the first
 * call that returns true, and says whether one did. `tool` is the tool a text belongs to (a call's
 * name, a result's `toolName`), for `--tool`. What `grep` matches and what `search` indexes.
 */
export function searchableTexts(entry: Json, visit: TextVisitor): boolean {
  switch (entry.type) {
    case "message": {
      const m = entry.message;
      if (!isObject(m)) return false;
      switch (m.role) {
        case "user":
        case "system":
        case "custom":
          return contentTexts(m.content, "text", visit, undefined, false);
        case "assistant":
          if (contentTexts(m.content, "text", visit, undefined, true)) return true;
          return typeof m.errorMessage === "string" && visit("errorMessage", m.errorMessage, undefined) === true;
        case "toolResult": {
          const tool = typeof m.toolName === "string" ? m.toolName : undefined;
          if (tool !== undefined && visit("toolName", tool, tool) === true) return true;
          return contentTexts(m.content, "text", visit, tool, false);
        }
        case "bashExecution":
          if (typeof m.command === "string" && visit("command", m.command, undefined) === true) return true;
          return typeof m.output === "string" && visit("output", m.output, undefined) === true;
        default:
          return false;
      }
    }
    case "custom_message":
      return contentTexts(entry.content, "content", visit, undefined, false);
    case "compaction":
    case "branch_summary":
      return typeof entry.summary === "string" && visit("summary", entry.summary, undefined) === true;
    case "session_info":
      return typeof entry.name === "string" && visit("name", entry.name, undefined) === true;
    case "label":
      return typeof entry.label === "string" && visit("label", entry.label, undefined) === true;
    default:
      return false;
  }
}

/** What an entry is, in one word: a message's role, else the entry's type. */
export function entryRole(entry: Json): string {
  const m = entry.message;
  if (entry.type === "message" && isObject(m) && typeof m.role === "string") return m.role;
  return typeof entry.type === "string" ? entry.type : "(none)";
}

export interface PatternOptions {
  /** The pattern is a fixed string, not a regular expression. */
  fixed?: boolean;
  ignoreCase?: boolean;
  /** Only whole words: no letter, digit or `_` right before or after. */
  word?: boolean;
}

/**
 * A compiled pattern: the regular expression matched against each text, and the needle the raw
 * bytes of a line are searched for first (a run of characters every match must hold, each of which
 * JSON writes as it is), when there is one.
 */
export interface GrepPattern {
  regex: RegExp;
  /** The needle's UTF-8 bytes (lower case where `fold`), or undefined: every line is decoded. */
  needle: Uint8Array | undefined;
  /** ASCII letters of the needle match either case. */
  fold: boolean;
  /**
   * Without a needle, a run every match holds when the pattern has one: `length` or more bytes in a
   * row, each one of `members` (ASCII characters JSON writes as they are), or undefined.
   */
  run: ClassRun | undefined;
  /** The needle's (or the run's) characters as UTF-16 code units: a `\uXXXX` escape of one of them may spell it otherwise. */
  needleUnits: Set<number>;
  /**
   * A text matches exactly when it holds the needle (ASCII letters in either case where `fold`):
   * a fixed string without -w, every character of it in the needle (grep/raw-count.ts).
   */
  exact: boolean;
}

/** A run of characters of one class: `members[byte]` is 1 for a member. */
export interface ClassRun {
  members: Uint8Array;
  length: number;
}

/**
 * Where the first run of `run.length` members in `b` starts, from `from` and before `limit`,
 * ending by `end`; -1 where none does. The byte a run's last member would be is looked at first:
 * if it is no member, no run holds it, and the search jumps past it; most bytes are never read.
 */
export function findRun(b: Uint8Array, from: number, limit: number, end: number, run: ClassRun): number {
  const { members, length } = run;
  let i = from;
  while (i < limit) {
    const last = i + length - 1;
    if (last >= end) return -1;
    if (!members[b[last]!]) {
      i = last + 1;
      continue;
    }
    let k = last - 1;
    while (k >= i && members[b[k]!]) k--;
    if (k < i) return i;
    i = k + 1;
  }
  return -1;
}

export class PatternError extends Error {}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * Compiles PATTERN as `grep` reads it: a JavaScript regular expression (`-F`: a fixed string;
 * `-i`: either case; `-w`: whole words). Throws `PatternError` naming what is wrong.
 */
export function compilePattern(pattern: string, options: PatternOptions = {}): GrepPattern {
  const source = options.fixed ? escapeRegex(pattern) : pattern;
  // Read with the `u` flag, as rg reads patterns: `\p{L}` is a letter, `.` a whole character (an
  // emoji, not half of one), case folding is Unicode's. A pattern only a plain RegExp reads (`\-`
  // outside a class, a lone `{`) is read so, without -w (whole words need Unicode letters).
  const body = options.word ? `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])` : source;
  const flags = `g${options.ignoreCase ? "i" : ""}`;
  let regex: RegExp;
  let unicode = true;
  try {
    regex = new RegExp(body, `${flags}u`);
  } catch (error) {
    if (options.word) throw new PatternError((error as Error).message.replace(/^Invalid regular expression: /, ""));
    try {
      regex = new RegExp(body, flags);
      unicode = false;
    } catch {
      throw new PatternError((error as Error).message.replace(/^Invalid regular expression: /, ""));
    }
  }
  const literal = options.fixed ? pattern : requiredLiteral(pattern);
  const needle = literal === undefined ? undefined : needleOf(literal, options.ignoreCase === true, unicode);
  const run = needle === undefined && !options.fixed ? requiredRun(pattern, options.ignoreCase === true, unicode) : undefined;
  const units = new Set<number>();
  if (needle !== undefined) for (let k = 0; k < needle.length; k++) units.add(needle.charCodeAt(k));
  if (run !== undefined) run.members.forEach((m, b) => m && units.add(b));
  if (options.ignoreCase) for (const u of [...units]) for (const c of [String.fromCharCode(u).toUpperCase(), String.fromCharCode(u).toLowerCase()]) if (c.length === 1) units.add(c.charCodeAt(0));
  return {
    regex,
    needle: needle === undefined ? undefined : Buffer.from(options.ignoreCase ? needle.toLowerCase() : needle, "utf8"),
    fold: options.ignoreCase === true,
    run,
    needleUnits: units,
    exact: options.fixed === true && !options.word && needle === pattern,
  };
}

/** Characters JSON may write escaped (`\"`, `\\`, `\/`, control characters): not in a needle. */
const ESCAPABLE = /["\\/\u0000-\u001f\u2028\u2029\u007f]/;

/**
 * A character no case mapping or folding changes (Chinese, Arabic, Hebrew, Thai, digits, most
 * punctuation): an expression with `i` (or `iu`) matches it with itself alone, as its bytes are
 * (test/format/grep/grep.test.ts asks every code point).
 */
export const CASELESS = /^[^\p{CWCM}\p{CWCF}]$/u;

/**
 * The longest run of `literal` whose characters the raw bytes hold as they are: none that JSON
 * escapes; with -i only ASCII (whose case the search folds) and characters without case, and with
 * -u -i neither `k` nor `s` (Unicode case folding matches them to the Kelvin sign and the long s);
 * at least 2 bytes.
 */
function needleOf(literal: string, ignoreCase: boolean, unicode: boolean): string | undefined {
  let best = "";
  let run = "";
  for (const ch of literal) {
    const ok = !ESCAPABLE.test(ch) && (!ignoreCase || (ch.charCodeAt(0) < 0x80 ? !(unicode && /[ks]/i.test(ch)) : CASELESS.test(ch)));
    if (ok) {
      run += ch;
      if (run.length > best.length) best = run;
    } else run = "";
  }
  return Buffer.byteLength(best) >= 2 && Buffer.byteLength(best) <= 1024 ? best : undefined;
}

/**
 * A literal every match of regular expression `source` holds, or undefined: the longest run of
 * plain characters at the top level of a pattern without alternation (a quantified character,
 * a group, a class or an escape that is not one character ends a run; an optional one is left out).
 */
export function requiredLiteral(source: string): string | undefined {
  let best = "";
  let run = "";
  let depth = 0;
  const end = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      const next = source[i + 1];
      if (next === undefined) return undefined;
      let ch: string | undefined;
      let width = 2;
      if (/[.*+?^${}()|[\]\\/-]/.test(next)) ch = next;
      else if (next === "n") ch = "\n";
      else if (next === "t") ch = "\t";
      else if (next === "r") ch = "\r";
      else if (next === "u" && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
        ch = String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
        width = 6;
      } else if (next === "x" && /^[0-9a-fA-F]{2}$/.test(source.slice(i + 2, i + 4))) {
        ch = String.fromCharCode(parseInt(source.slice(i + 2, i + 4), 16));
        width = 4;
      }
      i += width - 1;
      if (depth > 0) continue;
      if (ch === undefined) {
        end();
        continue;
      }
      if (quantified(source, i + 1)) {
        end();
        continue;
      }
      run += ch;
      continue;
    }
    if (c === "(") {
      depth++;
      end();
      continue;
    }
    if (c === ")") {
      depth--;
      end();
      if (quantified(source, i + 1)) {
        // (a group that may be absent or repeated: what came before it still holds)
      }
      continue;
    }
    if (c === "|") {
      if (depth === 0) return undefined;
      continue;
    }
    if (depth > 0) continue;
    if (c === "[") {
      end();
      // skip the class
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      continue;
    }
    if (".^$".includes(c)) {
      end();
      continue;
    }
    if ("*+?{".includes(c)) {
      // a quantifier on the run's last character: that character may be absent or repeated
      run = run.slice(0, -1);
      end();
      if (c === "{") while (i < source.length && source[i] !== "}") i++;
      continue;
    }
    if (quantified(source, i + 1)) {
      end();
      continue;
    }
    run += c;
  }
  end();
  return best.length > 0 ? best : undefined;
}

/** The shortest run worth searching for: a shorter one is in nearly every line. */
const MIN_RUN = 4;

/**
 * A run every match of regular expression `source` holds when it has no needle (`[0-9a-f]{40}`,
 * `\d{4}-\d{2}-\d{2}`): the longest sequence of atoms at the top level of a pattern without
 * alternation, each a character, a class or `\d`/`\w` that must occur at least once (its
 * quantifier's minimum is added), every character of which JSON writes as it is; assertions
 * (`\b`, `^`, `$`) consume nothing and do not end it. A group, `.`, a negated class, an optional
 * atom or a character JSON may escape ends it. With -i a letter stands for both cases; with -w
 * (`u`) and -i, `k` and `s` end it (they match the Kelvin sign and the long s).
 */
export function requiredRun(source: string, ignoreCase: boolean, unicode: boolean): ClassRun | undefined {
  if (topLevelAlternation(source)) return undefined;
  let best: ClassRun | undefined;
  let members = new Uint8Array(256);
  let length = 0;
  const end = () => {
    if (length >= MIN_RUN && (best === undefined || length > best.length)) best = { members, length };
    members = new Uint8Array(256);
    length = 0;
  };
  for (let i = 0; i < source.length; ) {
    const atom = readAtom(source, i);
    i = atom.next;
    if (atom.kind === "assertion") continue;
    const q = readQuantifier(source, i);
    i = q.next;
    const set = atom.kind === "class" ? foldClass(atom.members, ignoreCase, unicode) : undefined;
    if (set === undefined || q.min === 0) {
      end();
      continue;
    }
    for (let b = 0; b < 256; b++) members[b]! |= set[b]!;
    length += q.min;
    // (an atom that may repeat past its minimum still leaves the run whole: what follows it follows a member)
  }
  end();
  return best;
}

/** Whether `source` has a `|` outside every group and class. */
function topLevelAlternation(source: string): boolean {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(source, i);
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) return true;
  }
  return false;
}

/** Where the class that opens at `i` closes (its `]`). */
function classEnd(source: string, i: number): number {
  let k = i + 1;
  while (k < source.length && source[k] !== "]") k += source[k] === "\\" ? 2 : 1;
  return k;
}

type Atom = { kind: "class"; members: Uint8Array | undefined; next: number } | { kind: "assertion"; next: number };

const DIGITS = "0123456789";
const WORD = `${DIGITS}ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_`;

/** Members of the characters given; undefined if one is not ASCII or JSON may escape it. */
function classOf(chars: string): Uint8Array | undefined {
  const m = new Uint8Array(256);
  for (const ch of chars) {
    const b = ch.charCodeAt(0);
    if (ch.length !== 1 || b >= 0x80 || ESCAPABLE.test(ch)) return undefined;
    m[b] = 1;
  }
  return m;
}

/** The atom at `i`: a class of characters (members undefined: one this search cannot use), or an assertion. */
function readAtom(source: string, i: number): Atom {
  const c = source[i]!;
  if (c === "^" || c === "$") return { kind: "assertion", next: i + 1 };
  if (c === "\\") {
    const n = source[i + 1];
    if (n === "b" || n === "B") return { kind: "assertion", next: i + 2 };
    if (n === "d") return { kind: "class", members: classOf(DIGITS), next: i + 2 };
    if (n === "w") return { kind: "class", members: classOf(WORD), next: i + 2 };
    if (n !== undefined && /[.*+?^${}()|[\]\\/-]/.test(n)) return { kind: "class", members: classOf(n), next: i + 2 };
    // (any other escape: a class or character this search does not read, of up to 2 characters)
    return { kind: "class", members: undefined, next: skipEscape(source, i) };
  }
  if (c === "(") {
    let depth = 0;
    let k = i;
    for (; k < source.length; k++) {
      const d = source[k];
      if (d === "\\") k++;
      else if (d === "[") k = classEnd(source, k);
      else if (d === "(") depth++;
      else if (d === ")" && --depth === 0) break;
    }
    return { kind: "class", members: undefined, next: k + 1 };
  }
  if (c === "[") return readClass(source, i);
  if (c === ".") return { kind: "class", members: undefined, next: i + 1 };
  const code = source.codePointAt(i)!;
  return { kind: "class", members: classOf(String.fromCodePoint(code)), next: i + (code > 0xffff ? 2 : 1) };
}

function skipEscape(source: string, i: number): number {
  const n = source[i + 1];
  if (n === "u" && source[i + 2] === "{") return source.indexOf("}", i) + 1 || source.length;
  if (n === "u") return i + 6;
  if (n === "x") return i + 4;
  if ((n === "p" || n === "P") && source[i + 2] === "{") return source.indexOf("}", i) + 1 || source.length;
  if (n === "c") return i + 3;
  if (n === "k" && source[i + 2] === "<") return source.indexOf(">", i) + 1 || source.length;
  return i + 2;
}

/** A `[...]` class: its members, undefined if it is negated or holds what `classOf` refuses or this does not read. */
function readClass(source: string, i: number): Atom {
  const close = classEnd(source, i);
  let k = i + 1;
  let usable = source[k] !== "^";
  // each item a character (a range's dash marked apart from an escaped one) or a set of characters
  const items: Array<{ ch: string; dash?: boolean } | { set: string }> = [];
  for (; k < close; k++) {
    const ch = source[k]!;
    if (ch !== "\\") {
      items.push(ch === "-" ? { ch, dash: true } : { ch });
      continue;
    }
    const n = source[++k] ?? "";
    if (n === "d") items.push({ set: DIGITS });
    else if (n === "w") items.push({ set: WORD });
    else if (/[.*+?^${}()|[\]\\/-]/.test(n)) items.push({ ch: n });
    else usable = false;
  }
  let chars = "";
  for (let j = 0; j < items.length; j++) {
    const a = items[j]!;
    const dash = items[j + 1];
    const b = items[j + 2];
    if ("ch" in a && dash && "dash" in dash && dash.dash && b && "ch" in b) {
      const from = a.ch.charCodeAt(0);
      const to = b.ch.charCodeAt(0);
      if (to < from || to >= 0x80) usable = false;
      else for (let c = from; c <= to; c++) chars += String.fromCharCode(c);
      j += 2;
    } else chars += "ch" in a ? a.ch : a.set;
  }
  return { kind: "class", members: usable && chars.length > 0 ? classOf(chars) : undefined, next: close + 1 };
}

/** The quantifier at `i`, if any: its minimum (1 without one) and where the pattern goes on. */
function readQuantifier(source: string, i: number): { min: number; next: number } {
  const c = source[i];
  let min = 1;
  let next = i;
  if (c === "*" || c === "?") [min, next] = [0, i + 1];
  else if (c === "+") [min, next] = [1, i + 1];
  else if (c === "{") {
    const m = /^\{(\d+)(,\d*)?\}/.exec(source.slice(i));
    if (m) [min, next] = [Number(m[1]), i + m[0].length];
  }
  if (next > i && source[next] === "?") next++;
  return { min, next };
}

/** `members` with both cases of each letter under -i; undefined for a `k` or `s` under -u -i. */
function foldClass(members: Uint8Array | undefined, ignoreCase: boolean, unicode: boolean): Uint8Array | undefined {
  if (members === undefined || !ignoreCase) return members;
  const out = new Uint8Array(members);
  for (let b = 0x41; b <= 0x5a; b++) {
    if (!members[b] && !members[b + 0x20]) continue;
    if (unicode && (b === 0x4b || b === 0x53)) return undefined;
    out[b] = out[b + 0x20] = 1;
  }
  return out;
}

function quantified(source: string, at: number): boolean {
  const q = source[at];
  return q === "*" || q === "+" || q === "?" || q === "{";
}

export interface TextMatch {
  field: string;
  /** UTF-16 offsets of the first match in the field's text. */
  start: number;
  end: number;
  /** The match (at most `MATCH_KEPT` characters of it) and the text around it (`CONTEXT_KEPT` before, twice that after): what a snippet is cut from, not the whole text. */
  before: string;
  match: string;
  after: string;
}

const CONTEXT_KEPT = 200;
const MATCH_KEPT = 1000;

/** The text a snippet is made from: the match and some of the text around it. */
export function excerpt(field: string, text: string, start: number, end: number): TextMatch {
  return { field, start, end, before: text.slice(Math.max(0, start - CONTEXT_KEPT), start), match: text.slice(start, Math.min(end, start + MATCH_KEPT)), after: text.slice(end, end + 2 * CONTEXT_KEPT) };
}

/**
 * The first match in an entry's searchable texts, or undefined. `tool`: only texts of that tool's
 * calls and results.
 */
export function firstMatch(entry: Json, pattern: GrepPattern, tool?: string): TextMatch | undefined {
  let found: TextMatch | undefined;
  const regex = pattern.regex;
  searchableTexts(entry, (field, text, owner) => {
    if (tool !== undefined && owner !== tool) return false;
    regex.lastIndex = 0;
    // (an empty match at the end is a match too: `^$` finds an empty text)
    const m = regex.exec(text);
    if (!m) return false;
    found = excerpt(field, text, m.index, m.index + m[0].length);
    return true;
  });
  return found;
}

/**
 * Whether a line's raw bytes may spell the needle otherwise than as it is: a `\uXXXX` escape of
 * one of its characters (any character may be written so).
 */
export function escapesNeedle(bytes: Uint8Array, start: number, end: number, units: ReadonlySet<number>): boolean {
  for (let i = start; i + 5 < end; i++) {
    // (from backslash to backslash: the search is native)
    i = bytes.indexOf(0x5c, i);
    if (i < 0 || i + 5 >= end) return false;
    if (bytes[i + 1] !== 0x75) {
      i++; // another escape: its character is not a backslash that starts one
      continue;
    }
    let v = 0;
    for (let k = 2; k < 6; k++) {
      const c = bytes[i + k]!;
      const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
      if (d < 0) {
        v = -1;
        break;
      }
      v = v * 16 + d;
    }
    if (v >= 0 && units.has(v)) return true;
    i += 5;
  }
  return false;
}
