import { IdIndex } from "./ids.js";

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

/**
 * The line table's columns, each with its element type. A line's length is not kept: it runs to
 * the next line's offset (`LineTable.lengthOf`). What few lines have (the range of a long string)
 * is kept beside the table, not in a column.
 */
const COLUMNS = {
  offset: Float64Array,
  flags: Uint16Array,
  /** Where the `message` object starts in the line, for a line whose last key it is (`LineFlag.RAW_MESSAGE`). */
  msgStart: Uint16Array,
  /** Interned type and role (a code past 254 says: look beside the table). */
  type: Uint8Array,
  role: Uint8Array,
  kind: Uint8Array,
} as const satisfies Record<string, ColumnKind>;

type ColumnName = keyof typeof COLUMNS;
type Columns = { -readonly [K in ColumnName]: InstanceType<(typeof COLUMNS)[K]> };

/** Column names, widest element first, so that each column in the shared buffer is aligned. */
const ORDER = (Object.keys(COLUMNS) as ColumnName[]).sort((a, b) => COLUMNS[b].BYTES_PER_ELEMENT - COLUMNS[a].BYTES_PER_ELEMENT);

/** Bytes a row takes, summed from the columns. */
export const ROW_BYTES = ORDER.reduce((n, name) => n + COLUMNS[name].BYTES_PER_ELEMENT, 0);

export interface LineTable extends Columns {}

export class LineTable {
  count = 0;
  /** The offset just past the last line (the file's size, once pass one is done). */
  end = 0;
  /** Byte ranges of the few lines' long plain strings (`ScanFields.longStart`), by line index. */
  readonly long = new Map<number, { start: number; end: number }>();
  private capacity = 0;

  constructor(capacity: number) {
    this.allocate(capacity);
  }

  /**
   * The columns, all in one buffer (widest first, so each is aligned): a typed array outside V8's
   * heap costs a microsecond or two to allocate, which counts when `ls` opens thousands of small
   * sessions (BENCHMARKS.md, "the line table"). Copies the rows there are.
   */
  allocate(capacity: number): void {
    if (capacity <= this.capacity) return;
    const buffer = new ArrayBuffer(capacity * ROW_BYTES);
    let at = 0;
    for (const name of ORDER) {
      const Kind = COLUMNS[name];
      const column = new Kind(buffer, at, capacity);
      at += capacity * Kind.BYTES_PER_ELEMENT;
      if (this.count > 0) column.set((this[name] as typeof column).subarray(0, this.count) as never);
      (this as unknown as Record<ColumnName, typeof column>)[name] = column;
    }
    this.capacity = capacity;
  }

  /** A new row for the line at `offset` (every other column 0); `grow` says how many rows to make room for when full. */
  add(offset: number, grow: () => number): number {
    if (this.count === this.capacity) this.allocate(Math.max(this.capacity + 64, grow()));
    const i = this.count++;
    this.offset[i] = offset;
    return i;
  }

  /** A line's length, without its `\n`: to the next line (or the end), less the newline that ends it. */
  lengthOf(i: number, terminated: boolean): number {
    const next = i + 1 < this.count ? this.offset[i + 1]! : this.end;
    return next - this.offset[i]! - (terminated ? 1 : 0);
  }
}

/**
 * Per-node columns: the node's line, its time, its resolved parent (a node, -1 for none) and its
 * id (in `ids`). A parent is resolved as the node is added, to the id's holder so far; the few
 * that are not there yet (a parent later in the file, or none) wait in `unresolved`, and the tree
 * settles them, and duplicated ids, when the file is read.
 */
export class NodeTable {
  count = 0;
  line: Int32Array;
  time: Float64Array;
  parent: Int32Array;
  readonly ids: IdIndex;
  /** Nodes whose parent id was not held by an earlier node when they were added. */
  readonly unresolved = new Map<number, { hex: number; other: string | undefined }>();
  /** Nodes whose parent id is their own id. */
  readonly selfParents: number[] = [];

  constructor(capacity: number) {
    this.line = new Int32Array(capacity);
    this.time = new Float64Array(capacity);
    this.parent = new Int32Array(capacity);
    this.ids = new IdIndex(capacity);
  }

  /** Makes room for `capacity` nodes. */
  reserve(capacity: number): void {
    if (capacity <= this.line.length) return;
    const grow = <T extends Int32Array | Float64Array>(a: T, C: { new (n: number): T }): T => {
      const b = new C(capacity);
      b.set(a.subarray(0, this.count) as never);
      return b;
    };
    this.line = grow(this.line, Int32Array);
    this.time = grow(this.time, Float64Array);
    this.parent = grow(this.parent, Int32Array);
    this.ids.reserve(capacity);
  }

  /**
   * Adds a node. `parentKind` as `ScanFields.parentKind` (1: the parent id is `parentHex` or
   * `parentOther`); `grow` says how many nodes to make room for when full.
   */
  add(lineIndex: number, time: number, idHex: number, idOther: string | undefined, parentKind: number, parentHex: number, parentOther: string | undefined, grow: () => number): number {
    if (this.count === this.line.length) this.reserve(Math.max(this.line.length + 64, grow()));
    const n = this.count;
    let parent = -1;
    if (parentKind === 1) {
      const own = idHex >= 0 || idOther !== undefined;
      if (own && (idHex >= 0 ? parentHex === idHex : parentOther === idOther)) this.selfParents.push(n);
      // most entries follow the one before: found without the table
      else if (n > 0 && this.ids.is(n - 1, parentHex, parentOther)) parent = n - 1;
      else {
        parent = this.ids.find(parentHex, parentOther);
        if (parent < 0) this.unresolved.set(n, { hex: parentHex, other: parentOther });
      }
    }
    this.ids.add(idHex, idOther);
    this.count++;
    this.line[n] = lineIndex;
    this.time[n] = time;
    this.parent[n] = parent;
    return n;
  }
}
