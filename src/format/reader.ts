import { isUtf8 } from "node:buffer";
import { randomBytes } from "node:crypto";
import { finding, type Finding } from "./findings.js";
import { migrateEntryV1ToV2, migrateEntryV2ToV3, V1IdAllocator } from "./migrations.js";
import { BufferSource, FileSource, forEachLine, type ByteSource } from "./source.js";
import { emptyFields, LONG_STRING, scanLine, Verdict, type ScanFields } from "./scanner.js";
import { TreeIndex } from "./tree.js";
import { CURRENT_VERSION, type AnyEntry, type SessionHeader } from "./types.js";

/**
 * The one reader every command shares. Pass one walks the bytes line by line and keeps a compact
 * record per line (offset, length, kind, type, id, parent, timestamp, role); pass two re-reads and
 * parses only the lines a command asks for (`loadEntry`). Memory grows with the number of lines,
 * not with their size.
 *
 * Every line is classified; nothing is skipped silently. Read-only commands see the file as pi
 * sees it: unparseable lines are left out of the tree (and reported), orphans are roots, and
 * v1/v2 files are upgraded in memory (with deterministic v1 ids) so that every command works on
 * the v3 shape.
 */

export type LineKind =
  /** The session header (the first one, wherever it is). */
  | "header"
  /** A tree entry: a JSON object with a `type` other than `session`, or without `type`. */
  | "entry"
  /** A `session` record after the first header. */
  | "extra-header"
  | "blank"
  /** Not JSON (or not UTF-8-decodable as a string at all). */
  | "invalid"
  /** Valid JSON that is not an object. */
  | "not-object";

const KINDS: readonly LineKind[] = ["blank", "header", "entry", "extra-header", "invalid", "not-object"];
const KIND_CODE = Object.fromEntries(KINDS.map((k, i) => [k, i])) as Record<LineKind, number>;

export const LineFlag = {
  BOM: 1,
  CRLF: 2,
  NUL: 4,
  BAD_UTF8: 8,
  NO_NEWLINE: 16,
  FUSED: 32,
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
} as const;

/** One line of the file, as pass one saw it (materialised on demand from the line table). */
export interface LineRecord {
  /** Index in the line table (line - 1). */
  index: number;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte length without the `\n`. */
  length: number;
  kind: LineKind;
  flags: number;
  /** Position among the records pi's loader keeps (header = 0); -1 for lines pi skips. */
  ordinal: number;
  type?: string;
  /** For v1 files, the id given in memory. */
  id?: string;
  parentId?: string | null;
  /** The entry's timestamp in ms since the epoch (NaN when missing or unparseable). */
  time: number;
  /** `message.role` for message entries (after the v2 -> v3 rename). */
  role?: string;
  /** Node index in the tree, for entries. */
  node?: number;
}

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

/**
 * On an entry read in pass two: true when pass one saw that none of its strings can hold a control
 * character, CR, DEL or bidi override (`LineFlag.PLAIN_TEXT`), so output need not clean them.
 */
export const PLAIN_TEXT: unique symbol = Symbol("pi-session.plainText");

/** A random marker that stands in for a long string while the rest of its line is parsed. */
const LONG_MARKER = `\\u0000pi-session-long-string-${randomBytes(12).toString("hex")}`;
const LONG_MARKER_BYTES = Buffer.from(LONG_MARKER);
const LONG_MARKER_VALUE = JSON.parse(`"${LONG_MARKER}"`) as string;

/** Where a line is, as pass two needs it. */
interface LineSpan {
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
function* readLines(source: ByteSource, spans: readonly LineSpan[], options: ReadOptions = {}, blockSize = 8 * 1024 * 1024): Generator<Record<string, unknown>> {
  const omits = (s: LineSpan) => options.imageData === "length" && s.longStart >= 0;
  // One block buffer for the whole walk: values never keep views of it.
  let buffer: Buffer | undefined;
  let block: Buffer | undefined;
  let blockStart = 0;
  for (let k = 0; k < spans.length; k++) {
    const span = spans[k]!;
    const { offset, length } = span;
    if (omits(span)) {
      yield parseAt(source, span, readWithoutLong(source, span));
      continue;
    }
    if (length >= blockSize) {
      yield parseAt(source, span, source.read(offset, length));
      continue;
    }
    if (!block || offset < blockStart || offset + length > blockStart + block.length) {
      // Read from here up to the last of the following lines that fits in one block (a line whose
      // long string is left out ends it: that line is read in two pieces).
      let end = offset + length;
      for (let j = k + 1; j < spans.length; j++) {
        const next = spans[j]!;
        if (next.offset < end || next.offset + next.length - offset > blockSize || omits(next)) break;
        end = next.offset + next.length;
      }
      // Sized to the block (a single entry's read must not cost a block of 8 MB), grown as needed.
      if (!buffer || buffer.length < end - offset) buffer = Buffer.allocUnsafe(end - offset);
      let n = 0;
      for (let m = -1; n < end - offset && m !== 0; n += m) m = source.readInto(buffer.subarray(n, end - offset), offset + n);
      block = buffer.subarray(0, n);
      blockStart = offset;
    }
    yield parseAt(source, span, block.subarray(offset - blockStart, offset - blockStart + length));
  }
}

function parseAt(source: ByteSource, span: LineSpan, bytes: Buffer | LongString): Record<string, unknown> {
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
    skeleton: Buffer.concat([head, LONG_MARKER_BYTES, tail]),
    length: end - start,
    literal: () => source.read(offset + start - 1, end - start + 2),
  };
}

/**
 * Puts the long string back where the marker is: as its length alone when it is an image's data,
 * else as the string itself (read now).
 */
function restoreLongString(value: object, long: LongString): void {
  const stack: object[] = [value];
  while (stack.length > 0) {
    const o = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      const v = o[key];
      if (v === LONG_MARKER_VALUE) {
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
function parseSkimmed(bytes: Buffer, fields: ScanFields): Record<string, unknown> {
  // A plain line is ASCII: decoded as Latin-1, as pass two does (`parseAt`).
  const encoding = fields.plainText ? "latin1" : "utf8";
  if (!fields.longPlain) return JSON.parse(bytes.toString(encoding)) as Record<string, unknown>;
  const start = fields.longStart;
  const end = fields.longEnd;
  const value = JSON.parse(Buffer.concat([bytes.subarray(0, start), LONG_MARKER_BYTES, bytes.subarray(end)]).toString(encoding)) as Record<string, unknown>;
  restoreLongString(value, { skeleton: bytes, length: end - start, literal: () => bytes.subarray(start - 1, end + 1) });
  return value;
}

export interface OpenOptions {
  /**
   * Called in pass one with every entry (upgraded to v3 shape) and the header, for commands that
   * need to see every entry anyway (`show`, `check`): they gather what they need without a second
   * read. Without it, pass one parses nothing it does not need (see `scanner.ts`).
   */
  onRecord?: (value: AnyEntry | SessionHeader, record: LineRecord) => void;
  /**
   * With `onRecord` for every entry: "length" hands entries on as `ReadOptions.imageData` does, a
   * large image's data left out (`show` and `check` look at neither its bytes nor its length).
   * A line of 64 KB or more then goes through the scanner, which finds the data, and is parsed
   * without it: most of a session's bytes are never copied into strings. Default "full".
   */
  imageData?: "full" | "length";
  /**
   * With `onRecord`: parse and pass on only entries of these types (and the header); every other
   * line goes through the scanner. `tree` asks for labels, `ls` for session names.
   */
  only?: ReadonlySet<string>;
  /**
   * Called in pass one with each tree node's line bytes (valid only during the call), for work
   * that wants every line but not its parse (`tree` computes previews here, with no second read).
   * `longStart`..`longEnd`: the body of the line's long plain string (a base64 image, usually; -1
   * when there is none), which holds no quote, so no key: a search for one may skip it.
   */
  onNode?: (node: number, bytes: Buffer, type: string | undefined, role: string | undefined, longStart: number, longEnd: number) => void;
}

/** Interns the few distinct type and role strings as small codes (0 = none). */
class Interner {
  readonly strings: Array<string | undefined> = [undefined];
  private readonly codes = new Map<string, number>();
  code(s: string | undefined): number {
    if (s === undefined) return 0;
    let c = this.codes.get(s);
    if (c === undefined) {
      c = this.strings.length;
      this.strings.push(s);
      this.codes.set(s, c);
    }
    return c;
  }
}

/**
 * Pass one's result, one row per line, in typed columns: a few dozen bytes a line whatever its
 * size, so a 1 GB session indexes in tens of megabytes. Strings are kept only for ids.
 */
class LineTable {
  count = 0;
  offset!: Float64Array;
  length!: Float64Array;
  /** Byte range of the `message` object within the line (scan path only; -1 otherwise). */
  msgStart!: Int32Array;
  msgEnd!: Int32Array;
  /** Byte range of the line's longest string body, if long and plain (`ScanFields.longStart`; -1 otherwise). */
  longStart!: Int32Array;
  longEnd!: Int32Array;
  ordinal!: Int32Array;
  node!: Int32Array;
  flags!: Uint16Array;
  type!: Uint16Array;
  role!: Uint16Array;
  kind!: Uint8Array;

  constructor(capacity: number) {
    this.allocate(capacity);
  }

  /**
   * The columns, all in one buffer (widest first, so each is aligned): allocating a typed array
   * outside V8's heap costs a microsecond or two, which was 2-3 % of listing thousands of small
   * sessions when each column had its own. Copies the rows there are.
   */
  private allocate(capacity: number): void {
    const old = this.count > 0 ? this : undefined; // (each column is read before it is replaced)
    const buffer = new ArrayBuffer(capacity * ROW_BYTES);
    let at = 0;
    const column = <T extends Float64Array | Int32Array | Uint16Array | Uint8Array>(Kind: { new (b: ArrayBuffer, at: number, n: number): T; BYTES_PER_ELEMENT: number }, previous: T | undefined): T => {
      const c = new Kind(buffer, at, capacity);
      at += capacity * Kind.BYTES_PER_ELEMENT;
      if (previous) c.set(previous.subarray(0, this.count) as never);
      return c;
    };
    this.offset = column(Float64Array, old?.offset);
    this.length = column(Float64Array, old?.length);
    this.msgStart = column(Int32Array, old?.msgStart);
    this.msgEnd = column(Int32Array, old?.msgEnd);
    this.longStart = column(Int32Array, old?.longStart);
    this.longEnd = column(Int32Array, old?.longEnd);
    this.ordinal = column(Int32Array, old?.ordinal);
    this.node = column(Int32Array, old?.node);
    this.flags = column(Uint16Array, old?.flags);
    this.type = column(Uint16Array, old?.type);
    this.role = column(Uint16Array, old?.role);
    this.kind = column(Uint8Array, old?.kind);
  }

  add(offset: number, length: number): number {
    if (this.count === this.offset.length) this.grow();
    const i = this.count++;
    this.offset[i] = offset;
    this.length[i] = length;
    this.kind[i] = 0;
    this.flags[i] = 0;
    this.ordinal[i] = -1;
    this.type[i] = 0;
    this.role[i] = 0;
    this.node[i] = -1;
    this.msgStart[i] = -1;
    this.msgEnd[i] = -1;
    this.longStart[i] = -1;
    this.longEnd[i] = -1;
    return i;
  }

  private grow(): void {
    this.allocate(this.offset.length * 2);
  }
}

/** Bytes a row takes: two Float64 columns, six Int32, three Uint16, one Uint8. */
const ROW_BYTES = 2 * 8 + 6 * 4 + 3 * 2 + 1;

/** Per-node columns, fed to the tree index. */
class NodeTable {
  count = 0;
  line: Int32Array;
  time: Float64Array;
  readonly ids: Array<string | undefined> = [];
  readonly parentIds: Array<string | null | undefined> = [];

  constructor(capacity: number) {
    this.line = new Int32Array(capacity);
    this.time = new Float64Array(capacity);
  }

  add(lineIndex: number, id: string | undefined, parentId: string | null | undefined, time: number): number {
    if (this.count === this.line.length) {
      const line = new Int32Array(this.line.length * 2);
      line.set(this.line);
      this.line = line;
      const t = new Float64Array(this.time.length * 2);
      t.set(this.time);
      this.time = t;
    }
    const n = this.count++;
    this.line[n] = lineIndex;
    this.time[n] = time;
    this.ids.push(id);
    this.parentIds.push(parentId);
    return n;
  }
}

export class Session {
  private readonly table: LineTable;
  private readonly nodes: NodeTable;
  private readonly types = new Interner();
  private readonly roles = new Interner();
  /** Line-level findings from pass one. */
  readonly lineFindings: Finding[] = [];
  header: SessionHeader | null = null;
  headerRecord: LineRecord | null = null;
  tree!: TreeIndex;
  /** The current leaf's node index; -1 when there is none (no entries, or a harness leaf of null). */
  leafNode = -1;
  /** Whether the file uses agent-core harness `leaf` entries. */
  isHarness = false;
  private v1Ids: V1IdAllocator | undefined;
  /** ids by ordinal, for v1 `firstKeptEntryIndex`. */
  private idsByOrdinal: Array<string | undefined> = [];
  private fkIndexByLine = new Map<number, string | undefined>();
  /** Harness `leaf` entries (line, table index, target), in file order. */
  readonly leafMoves: Array<{ line: number; index: number; target: string | null }> = [];

  private constructor(readonly source: ByteSource) {
    // Sized for a line per 512 bytes (pi's lines are longer; the tables double when short), capped
    // so that a big file does not reserve more than it may need: growing copies every column, which
    // was 2-3 % of listing thousands of small sessions.
    const capacity = Math.min(1 << 16, Math.max(64, Math.ceil(source.size / 512) || 0));
    this.table = new LineTable(capacity);
    this.nodes = new NodeTable(capacity);
  }

  get name(): string {
    return this.source.name;
  }

  /** The version the file declares (1 when the header has none). */
  get version(): number {
    const v = this.header?.version;
    return typeof v === "number" ? v : 1;
  }

  get size(): number {
    return this.source.size;
  }

  get lineCount(): number {
    return this.table.count;
  }

  static open(source: ByteSource, options: OpenOptions = {}): Session {
    const session = new Session(source);
    session.scan(options);
    return session;
  }

  close(): void {
    this.source.close();
  }

  /** The record of line `index` (0-based). */
  record(index: number): LineRecord {
    const t = this.table;
    const node = t.node[index]!;
    const r: LineRecord = {
      index,
      line: index + 1,
      offset: t.offset[index]!,
      length: t.length[index]!,
      kind: KINDS[t.kind[index]!]!,
      flags: t.flags[index]!,
      ordinal: t.ordinal[index]!,
      time: node >= 0 ? this.nodes.time[node]! : NaN,
    };
    const type = this.types.strings[t.type[index]!];
    if (type !== undefined) r.type = type;
    const role = this.roles.strings[t.role[index]!];
    if (role !== undefined) r.role = role;
    if (node >= 0) {
      r.node = node;
      const id = this.nodes.ids[node];
      if (id !== undefined) r.id = id;
      const parentId = this.nodes.parentIds[node];
      if (parentId !== undefined) r.parentId = parentId;
    }
    return r;
  }

  /** Every line's record (materialised: for small files and tests). */
  get records(): LineRecord[] {
    return Array.from({ length: this.table.count }, (_, i) => this.record(i));
  }

  kindOf(index: number): LineKind {
    return KINDS[this.table.kind[index]!]!;
  }

  /** The full entry of a tree node (pass two), upgraded to the v3 shape. */
  entry(node: number, options: ReadOptions = {}): AnyEntry {
    const i = this.nodes.line[node]!;
    const value = readLines(this.source, [this.spanOf(i)], options).next().value!;
    return this.upgrade(value, this.record(i));
  }

  entries(nodes: readonly number[]): AnyEntry[] {
    return nodes.map((n) => this.entry(n));
  }

  /** The entries of `nodes`, in order (read in large blocks: see `readLines`). */
  *entriesInOrder(nodes: readonly number[], options: ReadOptions = {}): Generator<{ node: number; entry: AnyEntry }> {
    const spans = nodes.map((n) => this.spanOf(this.nodes.line[n]!));
    let k = 0;
    // A v3 file's entries need no upgrade (nor, then, their records).
    const current = !this.v1Ids && this.version >= CURRENT_VERSION;
    for (const value of readLines(this.source, spans, options)) {
      const node = nodes[k++]!;
      yield { node, entry: current ? (value as AnyEntry) : this.upgrade(value, this.nodeRecord(node)) };
    }
  }

  private spanOf(i: number): LineSpan {
    const t = this.table;
    return { line: i + 1, offset: t.offset[i]!, length: t.length[i]!, longStart: t.longStart[i]!, longEnd: t.longEnd[i]!, plain: (t.flags[i]! & LineFlag.PLAIN_TEXT) !== 0 };
  }

  nodeRecord(node: number): LineRecord {
    return this.record(this.nodes.line[node]!);
  }

  /** Entry id of a node, without materialising its record. */
  nodeId(node: number): string | undefined {
    return this.nodes.ids[node];
  }

  /** Line number (1-based) of a node. */
  nodeLine(node: number): number {
    return this.nodes.line[node]! + 1;
  }

  nodeTime(node: number): number {
    return this.nodes.time[node]!;
  }

  /** A node's `LineFlag`s, without materialising its record. */
  nodeFlags(node: number): number {
    return this.table.flags[this.nodes.line[node]!]!;
  }

  /** The entry type and message role of a node, without reading its line. */
  nodeKind(node: number): { type: string | undefined; role: string | undefined } {
    const i = this.nodes.line[node]!;
    return { type: this.types.strings[this.table.type[i]!], role: this.roles.strings[this.table.role[i]!] };
  }

  /** The raw bytes of a node's line, at most `max` of them (a preview needs only the start). */
  nodeBytes(node: number, max = Number.POSITIVE_INFINITY): Buffer {
    const i = this.nodes.line[node]!;
    return this.source.read(this.table.offset[i]!, Math.min(this.table.length[i]!, max));
  }

  /**
   * A node's line for a preview: whole, except that its long string (a base64 image, usually; see
   * `ScanFields.longStart`) keeps only its first `keep` bytes. That string is plain ASCII, so the
   * cut is clean, and no preview shows more of a string; a line of megabytes costs a few KB.
   */
  previewBytes(node: number, keep = 1024): Buffer {
    const i = this.nodes.line[node]!;
    const t = this.table;
    const offset = t.offset[i]!;
    const start = t.longStart[i]!;
    const end = t.longEnd[i]!;
    if (start < 0 || end - start <= keep) return this.source.read(offset, Math.min(t.length[i]!, 1024 * 1024));
    return Buffer.concat([this.source.read(offset, start + keep), this.source.read(offset + end, Math.min(t.length[i]! - end, 1024 * 1024))]);
  }

  /**
   * The JSON bytes of a node's `message` object, when they can stand for the parsed message as is
   * (see `LineFlag.RAW_MESSAGE`); undefined otherwise.
   */
  rawMessage(node: number): Buffer | undefined {
    const i = this.nodes.line[node]!;
    const t = this.table;
    if (!(t.flags[i]! & LineFlag.RAW_MESSAGE)) return undefined;
    return this.source.read(t.offset[i]! + t.msgStart[i]!, t.msgEnd[i]! - t.msgStart[i]!);
  }

  /** The node holding `id` (the last one, as pi resolves ids), or undefined. */
  nodeOf(id: string): number | undefined {
    return this.tree.byId.get(id);
  }

  /** Nodes whose id starts with `prefix`. */
  nodesWithPrefix(prefix: string): number[] {
    const out: number[] = [];
    for (const [id, node] of this.tree.byId) if (id.startsWith(prefix)) out.push(node);
    return out;
  }

  /** Re-reads and parses one line; throws if it no longer parses (the file changed). */
  loadRecord(record: LineRecord): AnyEntry | SessionHeader {
    const bytes = this.source.read(record.offset, record.length);
    const parsed = parseLine(bytes, record.line === 1);
    if (parsed.value === undefined || typeof parsed.value !== "object" || parsed.value === null) {
      throw new Error(`${this.name}:${record.line}: line changed since it was read`);
    }
    return this.upgrade(parsed.value as Record<string, unknown>, record);
  }

  /** A parsed line upgraded to the v3 shape (v1 ids and parents, the v2 role rename). */
  upgrade(value: Record<string, unknown>, record: LineRecord): AnyEntry {
    if (record.kind !== "entry") return value as AnyEntry;
    let out = value;
    if (this.v1Ids && record.id !== undefined) {
      out = migrateEntryV1ToV2(out, {
        id: record.id,
        parentId: record.parentId ?? null,
        firstKeptEntryId: this.fkIndexByLine.get(record.line),
      });
    }
    if (this.version < CURRENT_VERSION) out = migrateEntryV2ToV3(out);
    return out as AnyEntry;
  }

  private scan(options: OpenOptions): void {
    const t = this.table;
    const fields = emptyFields();
    const only = options.only;
    const full = options.onRecord !== undefined && only === undefined;
    const skimImages = full && options.imageData === "length";
    let ordinal = 0;
    let prevV1Id: string | null = null;
    forEachLine(this.source, (bytes, line, offset, terminated) => {
      const i = t.add(offset, bytes.length);
      let flags = terminated ? 0 : LineFlag.NO_NEWLINE;
      // Fast path: the scanner validates the line and keeps the few fields pass one needs. Lines
      // whose content matters here (headers, v1 compactions, harness leaves) and anything odd
      // (NULs, a BOM, invalid JSON to classify) take the JSON.parse path.
      let obj: Record<string, unknown> | undefined;
      let value: unknown;
      let kind: LineKind;
      let verdict = Verdict.Defer;
      // (A line with a NUL byte is never valid JSON: the scanner says so, and parseLine flags it.)
      if ((!full || (skimImages && bytes.length >= LONG_STRING)) && line !== 1) verdict = scanLine(bytes, fields);
      const wanted = only !== undefined && fields.type !== undefined && only.has(fields.type);
      if (verdict === Verdict.Valid && fields.object && !wanted && fields.type !== "session" && fields.type !== "leaf" && !(this.v1Ids && fields.type === "compaction")) {
        if (bytes.length > 0 && bytes[bytes.length - 1] === 13) flags |= LineFlag.CRLF;
        if (!fields.ascii && !isUtf8(bytes)) flags |= LineFlag.BAD_UTF8;
        if (fields.plainText) flags |= LineFlag.PLAIN_TEXT;
        t.ordinal[i] = ordinal++;
        kind = "entry";
        if (fields.longPlain) {
          t.longStart[i] = fields.longStart;
          t.longEnd[i] = fields.longEnd;
        }
        // Every entry wanted (a long line, skimmed): parsed here, without its image data.
        if (full) obj = parseSkimmed(bytes, fields);
        if (fields.messageStart >= 0) {
          t.msgStart[i] = fields.messageStart;
          t.msgEnd[i] = fields.messageEnd;
          const role = fields.role;
          const nullable = role === "system" || role === "user" || role === "assistant" || role === "toolResult";
          if (role !== undefined && (!nullable || fields.contentKind === 2) && !(flags & LineFlag.BAD_UTF8) && this.version >= CURRENT_VERSION) flags |= LineFlag.RAW_MESSAGE;
        }
      } else {
        const parsed = parseLine(bytes, line === 1);
        flags |= parsed.flags;
        value = parsed.value;
        if (parsed.blank) kind = "blank";
        else if (value === undefined) kind = "invalid";
        else {
          // pi keeps every truthy JSON value it parses.
          if (value) t.ordinal[i] = ordinal++;
          kind = typeof value !== "object" || value === null || Array.isArray(value) ? "not-object" : "entry";
        }
        if (kind === "entry") {
          obj = value as Record<string, unknown>;
          fields.type = typeof obj.type === "string" ? obj.type : undefined;
          fields.id = typeof obj.id === "string" ? obj.id : undefined;
          fields.parentKind = !("parentId" in obj) ? 0 : typeof obj.parentId === "string" ? 1 : obj.parentId === null ? 2 : 3;
          fields.parentId = typeof obj.parentId === "string" ? obj.parentId : undefined;
          fields.hasTimestamp = typeof obj.timestamp === "string";
          fields.time = typeof obj.timestamp === "string" ? Date.parse(obj.timestamp) : NaN;
          const role = (obj.message as { role?: unknown } | null | undefined)?.role;
          fields.role = obj.message && typeof obj.message === "object" && typeof role === "string" ? role : undefined;
        }
      }
      if (kind !== "entry") {
        t.kind[i] = KIND_CODE[kind];
        t.flags[i] = flags;
        return;
      }
      const type = fields.type;
      if (type === undefined) flags |= LineFlag.NO_TYPE;
      t.type[i] = this.types.code(type);
      if (type === "session") {
        obj ??= JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
        t.flags[i] = flags;
        if (this.header) {
          t.kind[i] = KIND_CODE["extra-header"];
          return;
        }
        t.kind[i] = KIND_CODE.header;
        this.header = obj as SessionHeader;
        if (this.version < 2) this.v1Ids = new V1IdAllocator(String(obj.id ?? ""));
        this.headerRecord = this.record(i);
        options.onRecord?.(this.header, this.headerRecord);
        return;
      }
      t.kind[i] = KIND_CODE.entry;
      let id: string | undefined;
      let parentId: string | null | undefined;
      if (this.v1Ids) {
        id = this.v1Ids.next(line);
        parentId = prevV1Id;
        prevV1Id = id;
        // Before resolving the index: a compaction may name itself (pi has given it its id by then).
        if (t.ordinal[i]! >= 0) this.idsByOrdinal[t.ordinal[i]!] = id;
        if (type === "compaction" && obj && typeof obj.firstKeptEntryIndex === "number") {
          this.fkIndexByLine.set(line, this.idsByOrdinal[obj.firstKeptEntryIndex]);
        }
      } else {
        id = fields.id;
        parentId = fields.parentKind === 1 ? fields.parentId : fields.parentKind === 2 ? null : undefined;
      }
      if (fields.parentKind !== 0 || this.v1Ids) flags |= LineFlag.HAS_PARENT_KEY;
      if (fields.hasTimestamp) flags |= LineFlag.HAS_TIME;
      t.flags[i] = flags;
      if (type === "message" && fields.role !== undefined) {
        t.role[i] = this.roles.code(fields.role === "hookMessage" && this.version < 3 ? "custom" : fields.role);
      }
      if (type === "leaf") {
        this.isHarness = true;
        const target = (obj as { targetId?: unknown }).targetId;
        this.leafMoves.push({ line, index: i, target: typeof target === "string" ? target : null });
      } else {
        t.node[i] = this.nodes.add(i, id, parentId, fields.time);
        options.onNode?.(t.node[i]!, bytes, type, this.roles.strings[t.role[i]!], t.longStart[i]!, t.longEnd[i]!);
      }
      if (options.onRecord && obj && (only === undefined || (type !== undefined && only.has(type)))) {
        const record = this.record(i);
        options.onRecord(this.upgrade(obj, record), record);
      }
    });
    this.tree = new TreeIndex(this.nodes.ids, this.nodes.parentIds, this.nodes.time.subarray(0, this.nodes.count));
    this.leafNode = this.findLeaf();
    this.collectLineFindings();
  }

  /**
   * pi's current leaf: the last entry of the file. In a harness file, a `leaf` entry moves it to
   * its `targetId` (null: before the first entry) until the next ordinary entry.
   */
  private findLeaf(): number {
    const lastNode = this.nodes.count - 1;
    // pi resolves the leaf id through byId, so a duplicated id names its last holder.
    const resolve = (node: number) => {
      const id = this.nodes.ids[node];
      return id !== undefined ? (this.tree.byId.get(id) ?? node) : node;
    };
    const lastMove = this.leafMoves[this.leafMoves.length - 1];
    if (!lastMove) return lastNode >= 0 ? resolve(lastNode) : -1;
    // An ordinary entry after the last move wins.
    if (lastNode >= 0 && this.nodes.line[lastNode]! > lastMove.index) return resolve(lastNode);
    return lastMove.target === null ? -1 : (this.tree.byId.get(lastMove.target) ?? -1);
  }

  private collectLineFindings(): void {
    const out = this.lineFindings;
    const t = this.table;
    if (t.count === 0 || (t.count === 1 && t.length[0] === 0)) {
      out.push(finding("file-empty", "the file is empty"));
      return;
    }
    let firstParsed = -1;
    for (let i = 0; i < t.count; i++) {
      const flags = t.flags[i]!;
      const kind = KINDS[t.kind[i]!]!;
      const at = { line: i + 1 };
      if (flags & LineFlag.BOM) out.push(finding("line-bom", "the line starts with a UTF-8 byte-order mark", at));
      if (flags & LineFlag.CRLF) out.push(finding("line-crlf", "the line ends with CR LF", at));
      if (flags & LineFlag.BAD_UTF8) out.push(finding("line-invalid-utf8", "the line is not valid UTF-8", at));
      if (t.ordinal[i] === 0) firstParsed = i;
      switch (kind) {
        case "blank":
          out.push(finding("line-blank", "blank line", at));
          break;
        case "invalid":
          out.push(invalidLineFinding(i + 1, flags));
          break;
        case "not-object":
          out.push(finding("line-not-object", "the line is JSON but not an object", at));
          break;
        case "extra-header":
          out.push(finding("header-duplicate", "a second session header", at));
          break;
        case "entry":
          if (flags & LineFlag.NO_TYPE) out.push(finding("entry-no-type", "a record without `type`", at));
          break;
        case "header":
          break;
      }
    }
    const last = t.count - 1;
    const lastKind = KINDS[t.kind[last]!];
    if (t.flags[last]! & LineFlag.NO_NEWLINE && lastKind !== "invalid" && lastKind !== "blank") {
      out.push(finding("line-no-newline", "the last line has no newline", { line: last + 1 }));
    }
    if (!this.header) {
      out.push(finding("header-missing", "no session header", { line: 1 }));
    } else {
      const h = this.header;
      const at = { line: this.headerRecord!.line };
      if (firstParsed >= 0 && firstParsed !== this.headerRecord!.index) {
        out.push(finding("header-not-first", `the header is on line ${at.line}, after another record`, at));
      }
      const bad = ["id", "timestamp", "cwd"].filter((k) => typeof h[k] !== "string");
      if (bad.length > 0) {
        out.push(finding("header-invalid", `the header's ${bad.map((k) => `\`${k}\``).join(", ")} ${bad.length > 1 ? "are" : "is"} missing or not a string`, at));
      }
      if (h.version !== undefined && typeof h.version !== "number") {
        out.push(finding("header-invalid", "the header's `version` is not a number", at));
      } else if (this.version > CURRENT_VERSION) {
        out.push(finding("version-unsupported", `version ${this.version} is newer than the supported ${CURRENT_VERSION}`, at));
      } else if (this.version < CURRENT_VERSION) {
        out.push(finding("version-legacy", `a v${this.version} file (current: v${CURRENT_VERSION})`, at));
      }
    }
  }
}

function invalidLineFinding(line: number, flags: number): Finding {
  const at = { line };
  if (flags & LineFlag.NUL) return finding("line-nul", "NUL bytes in the line", at);
  if (flags & LineFlag.FUSED) return finding("line-fused", "two JSON records fused on one line", at);
  if (flags & LineFlag.NO_NEWLINE) return finding("line-torn", "the last line is cut off (no newline, not JSON)", at);
  return finding("line-invalid-json", "the line is not valid JSON", at);
}

export interface ParsedLine {
  value: unknown;
  blank: boolean;
  flags: number;
}

/**
 * Parses one line the way pi does (UTF-8 with U+FFFD for bad bytes, `JSON.parse`, blank lines
 * skipped), noting what else is wrong with it. A BOM at the start of the file is tolerated: pi
 * cannot read such a header, which the validator reports, but everything else can.
 */
export function parseLine(bytes: Buffer, firstLine = false): ParsedLine {
  let flags = 0;
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 13) {
    flags |= LineFlag.CRLF;
  }
  let start = 0;
  if (firstLine && end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    flags |= LineFlag.BOM;
    start = 3;
  }
  if (bytes.indexOf(0, start) !== -1) flags |= LineFlag.NUL;
  if (!isUtf8(bytes)) flags |= LineFlag.BAD_UTF8;
  let text: string;
  try {
    text = bytes.toString("utf8", start, end);
  } catch {
    // Longer than the largest string V8 can hold.
    return { value: undefined, blank: false, flags };
  }
  if (!text.trim()) {
    return { value: undefined, blank: true, flags };
  }
  try {
    return { value: JSON.parse(text), blank: false, flags };
  } catch {
    if (text.indexOf("{", 1) !== -1 && fusedSplit(text) !== undefined) flags |= LineFlag.FUSED;
    return { value: undefined, blank: false, flags };
  }
}

/**
 * Where a line that does not parse holds a second record: `{...}{...}` (two appends on one line) or
 * `{"type":"mess{"type":...}` (a torn write, then the next append). Returns the offset of the
 * record that follows, or undefined.
 */
export function fusedSplit(text: string): number | undefined {
  const boundary = /}\s*{/g;
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) {
    const cut = m.index + 1;
    if (parsesAsObject(text.slice(0, cut).replace(/^[\s\0]+/, ""))) return text.indexOf("{", cut);
  }
  const start = /\{\s*"type"\s*:/g;
  for (let m = start.exec(text); m; m = start.exec(text)) {
    if (m.index > 0 && parsesAsObject(text.slice(m.index))) return m.index;
  }
  return undefined;
}

function parsesAsObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** Opens a session file, or reads `-` from stdin into memory first. */
export async function openSession(input: string, options: OpenOptions = {}): Promise<Session> {
  if (input === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Session.open(new BufferSource("<stdin>", Buffer.concat(chunks)), options);
  }
  return Session.open(new FileSource(input), options);
}

export function openSessionSync(path: string, options: OpenOptions = {}): Session {
  return Session.open(new FileSource(path), options);
}

export function openSessionBuffer(name: string, bytes: Buffer, options: OpenOptions = {}): Session {
  return Session.open(new BufferSource(name, bytes), options);
}
