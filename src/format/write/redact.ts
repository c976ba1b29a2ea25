import type { SessionDetector } from "../redact/detector.js";
import { Placeholders } from "../redact/placeholder.js";
import { redactRecord } from "../redact/record.js";
import { LineSalvager, normalizeLine, type BrokenOutcome } from "../read/salvage.js";
import { emptyFields, scanShape, Verdict } from "../read/scanner.js";
import { forEachLine, SliceSource, type ByteSource } from "../read/source.js";
import { rewriteLines, type RewriteResult } from "./rewrite.js";

/**
 * A session with its secrets replaced (README, "What redact finds"; docs/commands.md, "redact"): what
 * `redact` writes, `redact --check` looks for, and `export --redact` exports. Each line is read
 * for secrets after JSON decoding, every string of it (`format/redact/record.ts`); a line that
 * holds one is written again as pi writes a record (`JSON.stringify`), every other line is kept
 * byte for byte. A line that is not JSON is read by the salvage rule (`format/read/salvage.ts`,
 * as `repair` reads it): the records in it are read and written each on a line, and what is left
 * (a torn write, junk) is dropped and said, never copied unread.
 *
 * Two passes, as the other writers make: `planRedaction` reads the file and finds what to replace
 * (all `--check` needs), `writeRedaction` writes it (the lines to change read again: nothing of
 * the file is held), and `redactionLeft` reads what was written for anything left.
 */

/** A secret found: where it is, what found it, what replaced it; never the value. */
export interface RedactFinding {
  /** The line (1-based) of the file read. */
  line: number;
  /** The entry's id (the session's, on its header), or null. */
  entry: string | null;
  /** The field's path in the line's record: `message.content[2].arguments.command`. */
  field: string;
  /** What found it: `secretlint-rule-github`, `env OPENAI_API_KEY`, `cwd`, `--secret 1`, `--deny 1`. */
  rule: string;
  /** The placeholder's kind: `github-token`, `env-variable`, `user-name`, `secret`, `deny`. */
  kind: string;
  placeholder: string;
}

/**
 * What could not be read of a line and was dropped (`fragment`: beside records that were kept), or
 * what was read otherwise than a line a record: lines that were one record (`joined`: written as
 * one), a line of several records (`fused`: written each on a line).
 */
export interface UnreadPart {
  line: number;
  /** For `joined`, the last of the lines. */
  lastLine?: number;
  what: "torn" | "not-json" | "fragment" | "too-long" | "joined" | "fused";
  /** Bytes (characters, for a fragment) dropped; for `joined`, those of the record. */
  bytes: number;
  /** Records read from the line and written, each on a line of its own. */
  records: number;
}

export interface RedactPlan {
  lines: number;
  findings: RedactFinding[];
  unread: UnreadPart[];
  imagesDropped: number;
  /** Lines that will be written again (a secret in them, an image dropped, a broken line read). */
  changedLines: number;
  /** Lines (0-based) whose record changes, read again as they are written. */
  readonly changed: LineSet;
  /** Broken lines (0-based): what is written in their place. */
  readonly broken: Map<number, string[]>;
}

export interface RedactOptions {
  /** Images become a text block saying what was there (`--drop-images`). */
  dropImages: boolean;
  /** Only secrets are looked for: a line without an anchor is not asked whether it is JSON (`--check`, and what was written read again). */
  findOnly?: boolean;
  /** Stop at the first finding (reading what was written). */
  firstOnly?: boolean;
}

/** A set of line numbers, a bit a line, grown as lines come. */
class LineSet {
  private bits = new Uint8Array(1024);
  size = 0;

  add(index: number): void {
    if (index >> 3 >= this.bits.length) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, (index >> 3) + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    if (!this.has(index)) this.size++;
    this.bits[index >> 3]! |= 1 << (index & 7);
  }

  has(index: number): boolean {
    return index >> 3 < this.bits.length && (this.bits[index >> 3]! & (1 << (index & 7))) !== 0;
  }
}

/** The longest line V8 can hold as a string (in bytes, as UTF-8 decodes to at most as many characters). */
const MAX_STRING = 0x1fffffe8;

/** What a line's bytes are when parsed: a JSON value (normalised first where it must be), blank, or broken. */
type Read = { kind: "value"; value: unknown } | { kind: "blank" } | { kind: "broken" };

/** Parses a line that holds, or may hold, a secret (as pi does; a BOM, CR or NUL bytes that keep it from parsing removed). */
function readLine(bytes: Buffer, firstLine: boolean): Read {
  const text = bytes.length < MAX_STRING ? bytes.toString("utf8") : undefined;
  if (text !== undefined) {
    try {
      return { kind: "value", value: JSON.parse(text) };
    } catch {
      // normalised below
    }
  }
  const n = normalizeLine(bytes, firstLine).bytes;
  const again = n.length < MAX_STRING ? n.toString("utf8") : undefined;
  if (again === undefined) return { kind: "broken" };
  if (!again.trim()) return { kind: "blank" };
  try {
    return { kind: "value", value: JSON.parse(again) };
  } catch {
    return { kind: "broken" };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> & { type: string } => typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as { type?: unknown }).type === "string";

const entryOf = (v: unknown): string | null => (isRecord(v) && typeof v.id === "string" ? v.id : null);

/**
 * What a session's first lines say (its first 16, within its first MB): the working directory its
 * header names (whose user name is a secret too), and whether any is a record (a JSON object with
 * a string `type`; `records` counts them up to the header that names it): none, and the file holds
 * no session (a binary file, another program's JSON).
 */
export function sessionHead(source: ByteSource): { cwd: string | undefined; records: number } {
  // (most sessions say it in their first line: the first 64 KB are read first, the first MB where they do not settle it)
  const quick = headOf(source, 64 * 1024);
  return quick.settled ? quick : headOf(source, 1 << 20);
}

/** `sessionHead` from the first `limit` bytes; `settled`: what more bytes would not change (a working directory found, or 16 lines read). */
function headOf(source: ByteSource, limit: number): { cwd: string | undefined; records: number; settled: boolean } {
  let cwd: string | undefined;
  let records = 0;
  let seen = 0;
  let first = -1;
  const head = new SliceSource(source, 0, Math.min(source.size, limit));
  forEachLine(head, (buffer, start, end, _line, _offset, terminated) => {
    if (first < 0) for (let i = start; i < end && first < 0; i++) if (buffer[i]! > 0x20) first = buffer[i]!;
    // (a line the slice cuts is not judged: a session's first message may be longer than a MB)
    if (seen >= 16 || cwd !== undefined || (!terminated && head.size < source.size)) return;
    const r = readLine(buffer.subarray(start, end), ++seen === 1);
    if (r.kind !== "value" || !isRecord(r.value)) return;
    records++;
    if (cwd === undefined && r.value.type === "session" && typeof r.value.cwd === "string") cwd = r.value.cwd;
  });
  // (no whole line in the slice: a session's starts with a record's brace)
  if (seen === 0 && first === 0x7b) records = 1;
  return { cwd, records, settled: cwd !== undefined || seen >= 16 || head.size === source.size };
}

/**
 * Reads `source` for secrets (pass one): every finding, with its line and field, and what will be
 * written of each line that changes. `placeholders` are the run's (a secret reads the same in every
 * session of it).
 */
export function planRedaction(source: ByteSource, detector: SessionDetector, placeholders: Placeholders, options: RedactOptions): RedactPlan {
  const plan: RedactPlan = { lines: 0, findings: [], unread: [], imagesDropped: 0, changedLines: 0, changed: new LineSet(), broken: new Map() };
  const scan = detector.lines;
  const fields = emptyFields();
  let stop = false;
  /** A value read from line `index`: its secrets replaced; true when it changed. */
  const redact = (value: unknown, index: number): { changed: boolean; value: unknown } => {
    const r = redactRecord(value, detector, placeholders, options.dropImages);
    const entry = entryOf(r.value);
    for (const f of r.findings) plan.findings.push({ line: index + 1, entry, field: f.field, rule: f.rule, kind: f.kind, placeholder: f.placeholder });
    plan.imagesDropped += r.imagesDropped;
    if (options.firstOnly && r.findings.length > 0) stop = true;
    return { changed: r.findings.length > 0 || r.imagesDropped > 0, value: r.value };
  };
  const salvager = new LineSalvager((o: BrokenOutcome) => {
    if (o.kind === "blank") return;
    if (o.kind === "joined") {
      const { value } = redact(o.value, o.first);
      plan.broken.set(o.first, [JSON.stringify(value)]);
      for (let i = o.first + 1; i <= o.last; i++) plan.broken.set(i, []);
      plan.unread.push({ line: o.first + 1, lastLine: o.last + 1, what: "joined", bytes: Buffer.byteLength(o.text), records: 1 });
      return;
    }
    const line = o.index + 1;
    const written: string[] = [];
    for (const r of o.records) {
      written.push(JSON.stringify(redact(r.value, o.index).value));
    }
    plan.broken.set(o.index, written);
    if (o.records.length === 0) plan.unread.push({ line, what: o.terminated ? "not-json" : "torn", bytes: o.fragments.reduce((n, f) => n + Buffer.byteLength(f), 0), records: 0 });
    else if (o.fragments.length === 0) plan.unread.push({ line, what: "fused", bytes: 0, records: o.records.length });
    else for (const f of o.fragments) plan.unread.push({ line, what: "fragment", bytes: Buffer.byteLength(f), records: o.records.length });
  });
  /** A broken line is held by the salvage rule (it may join the lines after it): those are asked whether they are JSON. */
  let holding = false;
  forEachLine(source, (buffer, start, end, line, _offset, terminated) => {
    if (stop) return;
    const index = line - 1;
    plan.lines = line;
    if (!detector.everyLine && !scan.holds(buffer, start, end)) {
      // (a line without an anchor holds no secret: only whether it is JSON is asked, and in --check not even that)
      if (options.findOnly && !holding) return;
      if (scanShape(buffer, fields, start, end) === Verdict.Valid) {
        salvager.flush();
        holding = false;
        return;
      }
    }
    const bytes = buffer.subarray(start, end);
    const r = readLine(bytes, index === 0);
    if (r.kind === "broken") {
      if (bytes.length >= MAX_STRING) {
        plan.broken.set(index, []);
        plan.unread.push({ line, what: "too-long", bytes: bytes.length, records: 0 });
        return;
      }
      salvager.classify(index, bytes, index === 0, terminated);
      holding = true;
      return;
    }
    if (r.kind === "blank") {
      if (!salvager.blank(index)) holding = false;
      return;
    }
    salvager.flush();
    holding = false;
    if (redact(r.value, index).changed) plan.changed.add(index);
  });
  salvager.flush();
  plan.changedLines = plan.changed.size + plan.broken.size;
  return plan;
}

/** Writes the redacted session (pass two): the lines `plan` changes read and redacted again, broken lines as planned, the rest byte for byte. */
export function writeRedaction(source: ByteSource, plan: RedactPlan, detector: SessionDetector, placeholders: Placeholders, options: RedactOptions, write: (chunk: string | Uint8Array) => void): RewriteResult {
  return rewriteLines(
    source,
    (index, bytes) => {
      const broken = plan.broken.get(index);
      if (broken) return broken;
      if (!plan.changed.has(index)) return null;
      const r = readLine(bytes, index === 0);
      if (r.kind !== "value") throw new Error(`line ${index + 1} read otherwise than in the plan`);
      return [JSON.stringify(redactRecord(r.value, detector, placeholders, options.dropImages).value)];
    },
    write,
  );
}

/** The first secret left in what was written (read again before the write is committed), or undefined. */
export function redactionLeft(source: ByteSource, detector: SessionDetector): RedactFinding | undefined {
  return planRedaction(source, detector, new Placeholders(), { dropImages: false, findOnly: true, firstOnly: true }).findings[0];
}
