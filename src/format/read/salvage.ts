import { isUtf8 } from "node:buffer";

/**
 * The one line-salvage rule. A line is read three ways: as pi reads it (`parseLine`: what the
 * read-only commands show), as `check` describes it, and as `repair` rewrites it. The last two
 * must agree, so both come from here: whatever `check` says can be recovered from a line is what
 * `repair` keeps, and each piece `repair` keeps is a record `check` accepts.
 *
 * The rule, in order:
 * 1. Normalise: drop a BOM (line 1), a trailing CR and every NUL byte; bytes that are not UTF-8
 *    decode as U+FFFD (as pi reads them).
 * 2. What is left is blank (dropped), one JSON value (kept when it is a record: an object with a
 *    string `type`; dropped otherwise), or broken.
 * 3. Broken lines in a row may be one record split by raw newlines (`BrokenRun`): joined when the
 *    joined text is a record.
 * 4. Otherwise each broken line is cut into pieces (`salvagePieces`): the records in it are kept
 *    (two appends fused on one line, or a torn write followed by the next append), the rest are
 *    fragments, dropped.
 */

export const LineFlag = {
  BOM: 1,
  CRLF: 2,
  NUL: 4,
  BAD_UTF8: 8,
  NO_NEWLINE: 16,
  /** A broken line: the outcome of its salvage is kept beside the line table. */
  BROKEN: 32,
  NO_TYPE: 64,
  /** The entry has a string `timestamp`. */
  HAS_TIME: 128,
  /** The entry has a `parentId` key (of any value). */
  HAS_PARENT_KEY: 256,
  /**
   * The line's `message` object can be copied as it stands into a context (pi would not rewrite
   * it: v3, valid UTF-8, content present and not null); its byte range is in the line table.
   */
  RAW_MESSAGE: 512,
  /** No string of the line can decode to a control character, CR, DEL or bidi override (`ScanFields.plainText`). */
  PLAIN_TEXT: 1024,
  /** The entry's `parentId` is null. */
  PARENT_NULL: 2048,
} as const;

export interface ParsedLine {
  value: unknown;
  blank: boolean;
  flags: number;
}

const isBom = (bytes: Uint8Array) => bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

/**
 * Parses one line the way pi does (UTF-8 with U+FFFD for bad bytes, `JSON.parse`, blank lines
 * skipped), noting what else is wrong with it. A BOM at the start of the file is tolerated: pi
 * cannot read such a header, which the validator reports, but everything else can.
 */
export function parseLine(bytes: Buffer, firstLine = false): ParsedLine {
  let flags = 0;
  const end = bytes.length;
  if (end > 0 && bytes[end - 1] === 13) flags |= LineFlag.CRLF;
  let start = 0;
  if (firstLine && isBom(bytes)) {
    flags |= LineFlag.BOM;
    start = 3;
  }
  if (bytes.indexOf(0, start) !== -1) flags |= LineFlag.NUL;
  if (!isUtf8(bytes)) flags |= LineFlag.BAD_UTF8;
  const text = decodeLine(start === 0 ? bytes : bytes.subarray(start, end));
  // (undefined: longer than the largest string V8 can hold)
  if (text === undefined) return { value: undefined, blank: false, flags };
  if (!text.trim()) return { value: undefined, blank: true, flags };
  try {
    return { value: JSON.parse(text), blank: false, flags };
  } catch {
    return { value: undefined, blank: false, flags };
  }
}

export interface Normalized {
  /** The line without a BOM (line 1), a trailing CR or NUL bytes. */
  bytes: Buffer;
  bom: boolean;
  cr: boolean;
  nul: boolean;
}

/** Step 1 of the rule: strips a BOM (line 1), a trailing CR and NUL bytes. */
export function normalizeLine(raw: Buffer, firstLine: boolean): Normalized {
  let start = 0;
  let end = raw.length;
  const bom = firstLine && isBom(raw);
  if (bom) start = 3;
  const cr = end > start && raw[end - 1] === 13;
  if (cr) end--;
  let bytes = raw.subarray(start, end);
  const nul = bytes.indexOf(0) !== -1;
  if (nul) bytes = Buffer.from(bytes.filter((b) => b !== 0));
  return { bytes, bom, cr, nul };
}

/** The line's text (U+FFFD for bytes that are not UTF-8), or undefined when it is longer than a string can be. */
function decodeLine(bytes: Buffer): string | undefined {
  try {
    return bytes.toString("utf8");
  } catch {
    return undefined;
  }
}

/** A session record: a JSON object with a string `type`. */
export type SessionRecord = Record<string, unknown> & { type: string };

function isRecord(value: unknown): value is SessionRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as { type?: unknown }).type === "string";
}

/** Step 2: what a normalised line's text is. */
export type TextClass =
  | { kind: "blank" }
  | { kind: "record"; value: SessionRecord }
  /** An object without a string `type`. */
  | { kind: "no-type" }
  /** JSON that is not an object. */
  | { kind: "not-object" }
  /** Not JSON: for steps 3 and 4. */
  | { kind: "broken" };

function classifyText(text: string): TextClass {
  if (!text.trim()) return { kind: "blank" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "broken" };
  }
  if (isRecord(value)) return { kind: "record", value };
  return typeof value === "object" && value !== null && !Array.isArray(value) ? { kind: "no-type" } : { kind: "not-object" };
}

interface Piece {
  /** The record's text, trimmed. */
  text: string;
  value: SessionRecord;
}

export interface Pieces {
  records: Piece[];
  /** The text around them that is no record (a torn write, junk), trimmed. */
  fragments: string[];
}

/**
 * Step 4: the records in a broken line's text. From each `{` (left to right) the brackets are
 * matched, strings skipped, to the brace that closes it; when that text is a record it is a piece
 * and the search goes on after it, otherwise from the next `{`. A piece that follows torn text
 * must also carry a `timestamp` (every record pi writes does): a torn message leaves content
 * blocks behind (`{"type":"text",…}`), which are objects with a `type` but no records.
 *
 * Only a `{` followed (after JSON blanks) by `"` is tried: a record is an object with keys, and
 * inside a JSON string a quote is always escaped, so the braces of text a message holds (code the
 * model wrote, say) are never tried. A torn write leaves that text unterminated, and trying each
 * of its braces spent the budget below before the record after the tear was reached.
 *
 * A run of candidates without matching braces would make this quadratic; the bracket matching is
 * given a budget (a few times the line's length), past which the rest of the line is one fragment.
 */
export function salvagePieces(text: string): Pieces {
  const records: Piece[] = [];
  const fragments: string[] = [];
  const n = text.length;
  let budget = 8 * n + (1 << 20);
  /** End of the last piece (or 0): the text from here to the next piece is a fragment. */
  let kept = 0;
  let from = 0;
  const candidate = /\{[ \t\r\n]*"/g;
  while (from < n && budget > 0) {
    candidate.lastIndex = from;
    const start = candidate.exec(text)?.index ?? -1;
    if (start < 0) break;
    const end = matchingBrace(text, start);
    budget -= (end < 0 ? n : end) - start;
    if (end > 0) {
      const value = parseRecord(text.slice(start, end));
      const afterTorn = text.slice(kept, start).trim() !== "";
      if (value && (!afterTorn || "timestamp" in value)) {
        if (afterTorn) fragments.push(text.slice(kept, start).trim());
        records.push({ text: text.slice(start, end), value });
        kept = from = end;
        continue;
      }
    }
    from = start + 1;
  }
  const rest = text.slice(kept).trim();
  if (rest) fragments.push(rest);
  return { records, fragments };
}

function parseRecord(text: string): SessionRecord | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The index after the bracket that closes the `{` at `start` (strings skipped), or -1. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: to its closing quote
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** What became of a broken line (or of a run of them), as steps 3 and 4 decide. */
export type BrokenOutcome =
  /** Lines `first`..`last` (0-based) were one record, split by raw newlines. */
  | { kind: "joined"; first: number; last: number; text: string; value: SessionRecord }
  /** One line cut into pieces: `records` kept (none: the line is dropped), `fragments` dropped. */
  | ({ kind: "pieces"; index: number; terminated: boolean } & Pieces)
  /** A blank line that sat inside a run of broken lines and was not joined. */
  | { kind: "blank"; index: number };

/** The most lines, and bytes, a record split by raw newlines is looked for across. */
const MAX_JOIN_LINES = 16;
const MAX_JOIN_BYTES = 16 * 1024 * 1024;

/**
 * Step 3, over the lines in file order: broken lines (and blank ones between them) are held until
 * they join into a record, or until a line that is not broken ends the run; then each goes through
 * step 4. `onOutcome` hears every held line's fate, in line order.
 */
export class BrokenRun {
  private run: Array<{ index: number; text: string; terminated: boolean }> = [];
  private bytes = 0;

  constructor(private readonly onOutcome: (outcome: BrokenOutcome) => void) {}

  get active(): boolean {
    return this.run.length > 0;
  }

  /** A broken line (its normalised text). */
  add(index: number, text: string, terminated: boolean): void {
    const run = this.run;
    const end = text.trimEnd();
    if (run.length > 0 && end.endsWith("}")) {
      // Longest first: the join that starts earliest.
      for (let k = 0; k < run.length; k++) {
        if (!run[k]!.text.trimStart().startsWith("{")) continue;
        const joined = join(run, k, text);
        if (joined) {
          this.settle(k);
          this.onOutcome({ kind: "joined", first: run[0]!.index, last: index, ...joined });
          this.run = [];
          this.bytes = 0;
          return;
        }
      }
    }
    run.push({ index, text, terminated });
    this.bytes += text.length;
    while (run.length > MAX_JOIN_LINES || (run.length > 1 && this.bytes > MAX_JOIN_BYTES)) this.settle(1);
  }

  /**
   * A blank line: held when a run is open (a string split by two raw newlines leaves one between
   * its halves). Returns false when there is no run, and the line is the caller's.
   */
  blank(index: number): boolean {
    if (this.run.length === 0) return false;
    this.run.push({ index, text: "", terminated: true });
    return true;
  }

  /** A line that is neither broken nor blank ends the run. */
  flush(): void {
    if (this.run.length > 0) this.settle(this.run.length);
  }

  /** Settles the run's first `count` lines on their own (step 4). */
  private settle(count: number): void {
    for (const line of this.run.splice(0, count)) {
      this.bytes -= line.text.length;
      if (!line.text.trim()) this.onOutcome({ kind: "blank", index: line.index });
      else this.onOutcome({ kind: "pieces", index: line.index, terminated: line.terminated, ...salvagePieces(line.text) });
    }
  }
}

/**
 * `run[k..]` and `last` joined as one record, or undefined. A raw newline that fell between tokens
 * joins as a space (the same JSON on one line); one inside a string, where JSON forbids it, as the
 * escape `\n` it stood for.
 */
function join(run: ReadonlyArray<{ text: string }>, k: number, last: string): { text: string; value: SessionRecord } | undefined {
  const parts = [...run.slice(k).map((l) => l.text), last];
  const between = parseRecord(parts.join("\n"));
  if (between) return { text: parts.join(" "), value: between };
  const text = parts.join("\\n");
  const value = parseRecord(text);
  return value ? { text, value } : undefined;
}

/** A line that does not parse as it stands, as steps 1 and 2 read it. */
export interface Classified {
  normalized: Normalized;
  /** Its normalised text (undefined: too long to be a string). */
  text: string | undefined;
  /** What that text is (undefined: too long to be a string). */
  cls: TextClass | undefined;
  /** Whether the run took the line (a broken line, or a blank one inside a run): its fate comes later, as an outcome. */
  held: boolean;
}

/**
 * The rule over the lines of a file, in order, as `check` (the reader) and `repair` both drive it:
 * a line that does not parse as it stands is normalised and classified (`classify`); a broken one
 * joins the run of steps 3-4, a blank one too when a run is open (a string split by two raw
 * newlines leaves a blank line between its halves), and anything else ends the run. `onOutcome`
 * hears the fate of every line the run held, in line order.
 */
export class LineSalvager {
  private readonly run: BrokenRun;

  constructor(onOutcome: (outcome: BrokenOutcome) => void) {
    this.run = new BrokenRun(onOutcome);
  }

  classify(index: number, raw: Buffer, firstLine: boolean, terminated: boolean): Classified {
    const normalized = normalizeLine(raw, firstLine);
    const text = decodeLine(normalized.bytes);
    const cls = text === undefined ? undefined : classifyText(text);
    let held = false;
    if (cls?.kind === "blank") held = this.run.blank(index);
    else if (cls?.kind === "broken") {
      this.run.add(index, text!, terminated);
      held = true;
    } else this.flush();
    return { normalized, text, cls, held };
  }

  /** A line that is blank as it stands: held when a run is open; returns whether it was. */
  blank(index: number): boolean {
    return this.run.blank(index);
  }

  /** A line that is a record as it stands ends the run (and the end of the file does). */
  flush(): void {
    if (this.run.active) this.run.flush();
  }
}
