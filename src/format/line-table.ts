/**
 * Pass one's result, one row per line, in typed columns: a few dozen bytes a line whatever its
 * size, so that memory grows with the number of lines and never with their bytes. Strings are kept
 * only for ids (in the node table).
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

export const KINDS: readonly LineKind[] = ["blank", "header", "entry", "extra-header", "invalid", "not-object"];
export const KIND_CODE = Object.fromEntries(KINDS.map((k, i) => [k, i])) as Record<LineKind, number>;

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

/** Interns the few distinct type and role strings as small codes (0 = none). */
export class Interner {
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

type ColumnKind = Float64ArrayConstructor | Int32ArrayConstructor | Uint16ArrayConstructor | Uint8ArrayConstructor;

/** The line table's columns, each with its element type and the value a new row starts with. */
const COLUMNS = {
  offset: [Float64Array, 0],
  length: [Float64Array, 0],
  /** Byte range of the `message` object within the line (scan path only; -1 otherwise). */
  msgStart: [Int32Array, -1],
  msgEnd: [Int32Array, -1],
  /** Byte range of the line's longest string body, if long and plain (`ScanFields.longStart`; -1 otherwise). */
  longStart: [Int32Array, -1],
  longEnd: [Int32Array, -1],
  ordinal: [Int32Array, -1],
  node: [Int32Array, -1],
  flags: [Uint16Array, 0],
  type: [Uint16Array, 0],
  role: [Uint16Array, 0],
  kind: [Uint8Array, 0],
} as const satisfies Record<string, readonly [ColumnKind, number]>;

type ColumnName = keyof typeof COLUMNS;
type Columns = { -readonly [K in ColumnName]: InstanceType<(typeof COLUMNS)[K][0]> };

/** Column names, widest element first, so that each column in the shared buffer is aligned. */
const ORDER = (Object.keys(COLUMNS) as ColumnName[]).sort((a, b) => COLUMNS[b][0].BYTES_PER_ELEMENT - COLUMNS[a][0].BYTES_PER_ELEMENT);

/** Bytes a row takes, summed from the columns. */
export const ROW_BYTES = ORDER.reduce((n, name) => n + COLUMNS[name][0].BYTES_PER_ELEMENT, 0);

export interface LineTable extends Columns {}

export class LineTable {
  count = 0;
  private capacity = 0;

  constructor(capacity: number) {
    this.allocate(capacity);
  }

  /**
   * The columns, all in one buffer (widest first, so each is aligned): a typed array outside V8's
   * heap costs a microsecond or two to allocate, which counts when `ls` opens thousands of small
   * sessions (BENCHMARKS.md, "the line table"). Copies the rows there are.
   */
  private allocate(capacity: number): void {
    const buffer = new ArrayBuffer(capacity * ROW_BYTES);
    let at = 0;
    for (const name of ORDER) {
      const Kind = COLUMNS[name][0];
      const column = new Kind(buffer, at, capacity);
      at += capacity * Kind.BYTES_PER_ELEMENT;
      if (this.count > 0) column.set((this[name] as typeof column).subarray(0, this.count) as never);
      // Rows are only ever added: the rows to come start at their columns' starting values now.
      if (COLUMNS[name][1] !== 0) column.fill(COLUMNS[name][1], this.count);
      (this as unknown as Record<ColumnName, typeof column>)[name] = column;
    }
    this.capacity = capacity;
  }

  /** A new row for the line at `offset`, every other column at its starting value. */
  add(offset: number, length: number): number {
    if (this.count === this.capacity) this.allocate(this.capacity * 2);
    const i = this.count++;
    this.offset[i] = offset;
    this.length[i] = length;
    return i;
  }
}

/** Per-node columns, fed to the tree index. */
export class NodeTable {
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
