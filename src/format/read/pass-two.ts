import { crypto } from "../common/builtins.js";
import type { ByteSource } from "./source.js";
import type { ScanFields } from "./scanner.js";

/**
 * Pass two: the lines a command asks for, read again and parsed (pass one keeps only their place
 * in the line table). Lines are read in large blocks when they come in file order, as a branch of
 * an append-only file does, and a line's long plain string (a base64 image, usually) can be left
 * out without being copied into a string at all.
 */

/** How pass two reads an entry. */
export interface ReadOptions {
  /**
   * "length": the base64 data of a large image (the line's longest string, 64 KB or more) is not
   * decoded: the image block gets `data: ""` and the data's length under `IMAGE_DATA_LENGTH`.
   * For output that describes images rather than embedding them (an export with placeholders),
   * this saves decoding and parsing most of a session's bytes. Default "full".
   */
  imageData?: "full" | "length";
}

/** On an image block read with `imageData: "length"`: the length of the data left out. */
export const IMAGE_DATA_LENGTH: unique symbol = Symbol("pi-session.imageDataLength");

/** How many bytes an image block's base64 data decodes to, also when pass two left the data out. */
export function imageBytes(block: Record<string | symbol, unknown>): number {
  const omitted = block[IMAGE_DATA_LENGTH];
  const length = typeof omitted === "number" ? omitted : typeof block.data === "string" ? block.data.length : 0;
  return Math.floor((length * 3) / 4);
}

/**
 * On an entry read in pass two: true when pass one saw that none of its strings can hold a control
 * character, CR, DEL or bidi override (`LineFlag.PLAIN_TEXT`), so output need not clean them.
 */
export const PLAIN_TEXT: unique symbol = Symbol("pi-session.plainText");

/**
 * A random marker that stands in for a long string while the rest of its line is parsed: its bytes
 * as JSON, and the string they parse to. Made when first needed (a run without a long string
 * loads no `node:crypto`: "built-ins on demand").
 */
let longMarker: { bytes: Buffer; value: string } | undefined;
function marker(): { bytes: Buffer; value: string } {
  if (!longMarker) {
    const json = `\\u0000pi-session-long-string-${crypto().randomBytes(12).toString("hex")}`;
    longMarker = { bytes: Buffer.from(json), value: JSON.parse(`"${json}"`) as string };
  }
  return longMarker;
}

/** Where a line is, as pass two needs it. */
export interface LineSpan {
  /** 1-based line number (for messages, and the BOM of line 1). */
  line: number;
  offset: number;
  length: number;
  /** The line's long plain string (`ScanFields.longStart`), or -1. */
  longStart: number;
  longEnd: number;
  /** `LineFlag.PLAIN_TEXT` */
  plain: boolean;
}

/**
 * Reads lines again and parses them (pass two), without upgrading them: in large blocks rather
 * than a line at a time when they come in file order (a branch of an append-only file does), which
 * saves most system calls on a long branch; with `imageData: "length"`, a line's long string is not
 * read (see `ReadOptions`). Throws if a line no longer parses (the file changed).
 */
export function* readLines(source: ByteSource, count: number, spanAt: (k: number) => LineSpan, options: ReadOptions = {}, blockSize = 2 * 1024 * 1024): Generator<Record<string, unknown>> {
  const omits = (s: LineSpan) => options.imageData === "length" && s.longStart >= 0;
  const blocks = new BlockReads(source, spansAsRanges(count, spanAt, omits), blockSize);
  for (let k = 0; k < count; k++) {
    const span = spanAt(k);
    yield parseAt(source, span, omits(span) ? readWithoutLong(source, span) : blocks.line(k));
  }
}

/** Lines' spans as `BlockReads` takes them. */
function spansAsRanges(count: number, spanAt: (k: number) => LineSpan, omitted: (s: LineSpan) => boolean): LineRanges {
  return { count, offset: (k) => spanAt(k).offset, length: (k) => spanAt(k).length, omitted: (k) => omitted(spanAt(k)) };
}

/**
 * The bytes of lines (pass two without the parse), in order: each a view of the block it was read
 * in, valid until the next line is asked for (copy what is kept).
 */
export function* readLineBytes(source: ByteSource, count: number, spanAt: (k: number) => LineSpan, blockSize = 2 * 1024 * 1024): Generator<Buffer> {
  const blocks = new BlockReads(source, spansAsRanges(count, spanAt, () => false), blockSize);
  for (let k = 0; k < count; k++) yield blocks.line(k);
}

/** The byte ranges of lines to read in order: the `k`th at `offset(k)`, `length(k)` bytes; `omitted` ones are read elsewhere (they end a block). */
export interface LineRanges {
  count: number;
  offset(k: number): number;
  length(k: number): number;
  omitted(k: number): boolean;
}

/** No preview looks past this much of a line. */
export const PREVIEW_CAP = 1024 * 1024;
/** How much of a long string a preview reads. */
const PREVIEW_KEEP = 1024;

/**
 * What a preview reads of a line of `length` bytes whose long plain string (a base64 image,
 * usually; see `ScanFields.longStart`) is `long`: the line up to `PREVIEW_CAP`, or, around a long
 * string longer than `PREVIEW_KEEP`, the line to that many bytes into it and what follows it.
 * That string is plain ASCII, so the cut is clean, and no preview shows more of a string.
 * `piece(start, end)` gives the line's bytes from `start` to `end`: read from the file in pass two
 * (`Session.previewBytes`), a view of the line in pass one (`OpenOptions.previewLines`), one rule.
 */
export function previewCut(length: number, long: { start: number; end: number } | undefined, piece: (start: number, end: number) => Buffer): Buffer {
  if (!cutsLong(long)) return piece(0, Math.min(length, PREVIEW_CAP));
  return Buffer.concat([piece(0, long.start + PREVIEW_KEEP), piece(long.end, long.end + Math.min(length - long.end, PREVIEW_CAP))]);
}

/**
 * Whether `previewCut` ends a line of `length` bytes whose long plain string is `long` before the
 * line does (past `PREVIEW_CAP`): its bytes are then no JSON, and a preview searches them. A long
 * string cut short leaves JSON: the string is plain, and keeps its quotes.
 */
export function previewIsTruncated(length: number, long: { start: number; end: number } | undefined): boolean {
  return cutsLong(long) ? length - long.end > PREVIEW_CAP : length > PREVIEW_CAP;
}

/** Where the byte at `at` of a line is in what `previewCut` gives of it (`at` outside the part of the long string left out). */
export function previewPosition(at: number, long: { start: number; end: number } | undefined): number {
  return cutsLong(long) && at >= long.end ? at - (long.end - long.start - PREVIEW_KEEP) : at;
}

const cutsLong = (long: { start: number; end: number } | undefined): long is { start: number; end: number } => long !== undefined && long.end - long.start > PREVIEW_KEEP;

/**
 * The most bytes between two lines that one read takes in rather than reading the next line on
 * its own: a read costs about as much as copying this much from the page cache.
 */
const MAX_GAP = 16 * 1024;

/**
 * Lines read in large blocks when they come in file order (a branch of an append-only file does):
 * from a line, up to the last of the following lines that fits in one block, unless a line is
 * `omitted` (read in pieces elsewhere) or far from the one before (`MAX_GAP`: the nodes of a
 * branched tree's window lie scattered over the file, and blocks that took in the bytes between
 * them read the file many times over).
 */
export class BlockReads {
  // One block buffer for the whole walk: values never keep views of it.
  private buffer: Buffer | undefined;
  private block: Buffer | undefined;
  private blockStart = 0;

  constructor(
    private readonly source: ByteSource,
    private readonly ranges: LineRanges,
    private readonly blockSize: number,
  ) {}

  /** The bytes of the `k`th line: a view valid until the next call (a line of a block or more is read on its own). */
  line(k: number): Buffer {
    const r = this.ranges;
    const offset = r.offset(k);
    const length = r.length(k);
    if (length >= this.blockSize) return this.source.read(offset, length);
    if (!this.block || offset < this.blockStart || offset + length > this.blockStart + this.block.length) {
      let end = offset + length;
      for (let j = k + 1; j < r.count; j++) {
        const nextOffset = r.offset(j);
        const nextEnd = nextOffset + r.length(j);
        if (nextOffset < end || nextOffset - end > MAX_GAP || nextEnd - offset > this.blockSize || r.omitted(j)) break;
        end = nextEnd;
      }
      // Sized to the block (a single entry's read must not cost a whole block), grown as needed:
      // BENCHMARKS.md, "pass two's block".
      if (!this.buffer || this.buffer.length < end - offset) this.buffer = Buffer.allocUnsafe(end - offset);
      let n = 0;
      for (let m = -1; n < end - offset && m !== 0; n += m) m = this.source.readInto(this.buffer.subarray(n, end - offset), offset + n);
      this.block = this.buffer.subarray(0, n);
      this.blockStart = offset;
    }
    return this.block.subarray(offset - this.blockStart, offset - this.blockStart + length);
  }
}

/** A line's value from its bytes (read by pass two), as `readLines` gives it. */
export function parseAt(source: ByteSource, span: LineSpan, bytes: Buffer | LongString): Record<string, unknown> {
  const long = bytes instanceof Uint8Array ? undefined : bytes;
  const line = long ? long.skeleton : (bytes as Buffer);
  // Pass one classified the line already (NULs, UTF-8, blank): just decode and parse, skipping a
  // BOM on line 1 as `parseLine` does.
  const bom = span.line === 1 && line.length >= 3 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf ? 3 : 0;
  let value: unknown;
  try {
    // A plain line is ASCII (pass one saw every byte): decoded as Latin-1, the same string, faster.
    value = JSON.parse(line.toString(span.plain ? "latin1" : "utf8", bom));
  } catch {
    value = undefined;
  }
  if (value === undefined || typeof value !== "object" || value === null) throw new Error(`${source.name}:${span.line}: line changed since it was read`);
  if (long) restoreLongString(value, long);
  if (span.plain) (value as { [PLAIN_TEXT]?: boolean })[PLAIN_TEXT] = true;
  return value as Record<string, unknown>;
}

/** A line read without its long string. */
interface LongString {
  /** The line with the marker in place of the string's body. */
  skeleton: Buffer;
  /** The string's length (its bytes are plain ASCII without escapes). */
  length: number;
  /** Reads the string literal, quotes included. */
  literal(): Buffer;
}

/** The line with its long string (a plain one, pass one made sure) replaced by the marker. */
function readWithoutLong(source: ByteSource, span: LineSpan): LongString {
  const { offset, longStart: start, longEnd: end } = span;
  const head = source.read(offset, start);
  const tail = source.read(offset + end, span.length - end);
  return {
    skeleton: Buffer.concat([head, marker().bytes, tail]),
    length: end - start,
    literal: () => source.read(offset + start - 1, end - start + 2),
  };
}

/**
 * Puts the long string back where the marker is: as its length alone when it is an image's data,
 * else as the string itself (read now).
 */
function restoreLongString(value: object, long: LongString): void {
  const placed = marker().value;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const o = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      const v = o[key];
      if (v === placed) {
        if (key === "data" && o.type === "image" && !Array.isArray(o)) {
          o.data = "";
          (o as { [IMAGE_DATA_LENGTH]?: number })[IMAGE_DATA_LENGTH] = long.length;
        } else {
          o[key] = JSON.parse(long.literal().toString("latin1")) as string;
        }
        return;
      }
      if (v !== null && typeof v === "object") stack.push(v);
    }
  }
}

/** A line the scanner found valid, parsed without its long plain string when it has one. */
export function parseSkimmed(bytes: Buffer, fields: ScanFields): Record<string, unknown> {
  // A plain line is ASCII: decoded as Latin-1, as pass two does (`parseAt`).
  const encoding = fields.plainText ? "latin1" : "utf8";
  if (!fields.longPlain) return JSON.parse(bytes.toString(encoding)) as Record<string, unknown>;
  const start = fields.longStart;
  const end = fields.longEnd;
  const value = JSON.parse(Buffer.concat([bytes.subarray(0, start), marker().bytes, bytes.subarray(end)]).toString(encoding)) as Record<string, unknown>;
  restoreLongString(value, { skeleton: bytes, length: end - start, literal: () => bytes.subarray(start - 1, end + 1) });
  return value;
}
