import { grown, IncreasingRuns } from "./columns.js";
import { IdIndex } from "./ids.js";
import type { ScanFields } from "./scanner.js";

/**
 * Pass one's result, one row per line, in typed columns: a few dozen bytes a line whatever its
 * size, so that memory grows with the number of lines and never with their bytes. Ids are kept as
 * numbers and bytes (`IdIndex`), not strings.
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

type ColumnKind = Uint32ArrayConstructor | Uint16ArrayConstructor | Uint8ArrayConstructor;

/**
 * The line table's columns, each with its element type. A line's length is not kept: it runs to
 * the next line's offset (`LineTable.lengthOf`). What few lines have (the range of a long string)
 * is kept beside the table, not in a column.
 */
const COLUMNS = {
  /** The offset's low 32 bits (`LineTable.offsetOf`). */
  offsetLow: Uint32Array,
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
const ROW_BYTES = ORDER.reduce((n, name) => n + COLUMNS[name].BYTES_PER_ELEMENT, 0);

export interface LineTable extends Columns {}

export class LineTable {
  count = 0;
  /** The offset just past the last line (the file's size, once pass one is done). */
  end = 0;
  /** The first line of each further 4 GiB of the file (offsets keep their low 32 bits; lines are in order). */
  private readonly wraps: number[] = [];
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
    const high = Math.floor(offset / 4294967296);
    while (this.wraps.length < high) this.wraps.push(i);
    this.offsetLow[i] = offset - high * 4294967296;
    return i;
  }

  /** A line's byte offset. */
  offsetOf(i: number): number {
    const wraps = this.wraps;
    if (wraps.length === 0) return this.offsetLow[i]!;
    let high = 0;
    while (high < wraps.length && wraps[high]! <= i) high++;
    return high * 4294967296 + this.offsetLow[i]!;
  }

  /** A line's length, without its `\n`: to the next line (or the end), less the newline that ends it. */
  lengthOf(i: number, terminated: boolean): number {
    const next = i + 1 < this.count ? this.offsetOf(i + 1) : this.end;
    return next - this.offsetOf(i) - (terminated ? 1 : 0);
  }
}

/** `NodeTable.millis` of a time kept in `oddTimes`. */
const ODD_TIME = 0xffff;

/**
 * Per-node columns: the node's line, its time, its resolved parent (a node, -1 for none) and its
 * id (in `ids`). A parent that is the entry before (most are) is resolved as the node is added;
 * the others wait in `unresolved` until the file is read, when the tree settles them, and
 * duplicated ids, with the ids sorted.
 */
export class NodeTable {
  count = 0;
  /** Nodes' lines (`lineOf`): one after another in most files, kept as runs (a column a node was 4 bytes an entry). */
  private readonly lines: IncreasingRuns;
  private capacity: number;
  /**
   * Times in ms, as whole seconds (since 1970, to 2106) and the ms past them: 6 bytes a node
   * instead of 8. A time these cannot hold (NaN, before 1970) is kept in `oddTimes`.
   */
  seconds: Uint32Array;
  millis: Uint16Array;
  readonly oddTimes = new Map<number, number>();
  parent: Int32Array;
  readonly ids: IdIndex;
  /**
   * Nodes whose parent is not the entry before, nor (for an id other than hex) an entry before it:
   * each with its parent id's number, or for another id -2 - its reference in `ids` (`IdIndex.refOf`).
   */
  readonly unresolved = new NodeNumbers();
  /** Nodes whose parent id is their own id. */
  readonly selfParents: number[] = [];

  constructor(capacity: number) {
    this.capacity = capacity;
    this.lines = new IncreasingRuns(capacity);
    this.seconds = new Uint32Array(capacity);
    this.millis = new Uint16Array(capacity);
    this.parent = new Int32Array(capacity);
    this.ids = new IdIndex(capacity);
  }

  /** Makes room for `capacity` nodes. */
  reserve(capacity: number): void {
    if (capacity <= this.capacity) return;
    this.capacity = capacity;
    this.lines.reserve(capacity);
    this.seconds = grown(this.seconds, capacity, this.count);
    this.millis = grown(this.millis, capacity, this.count);
    this.parent = grown(this.parent, capacity, this.count);
    this.ids.reserve(capacity);
  }

  /**
   * Adds a node, its id and parent id as the scanner read them (`ScanFields`: `parentKind` 1 for
   * a string parent id); `grow` says how many nodes to make room for when full.
   */
  add(lineIndex: number, time: number, f: NodeIds, grow: () => number): number {
    if (this.count === this.capacity) this.reserve(Math.max(this.capacity + 64, grow()));
    const n = this.count;
    const ids = this.ids;
    let parent = -1;
    if (f.parentKind === 1) {
      const idWords = f.idIsUuid ? f.idWords : undefined;
      const parentWords = f.parentIsUuid ? f.parentWords : undefined;
      if (sameId(f, idWords, parentWords)) this.selfParents.push(n);
      // most entries follow the one before: found without looking
      else if (n > 0 && ids.is(n - 1, f.parentHex, f.parentId, parentWords)) parent = n - 1;
      else if (f.parentHex >= 0 || (f.parentId === undefined && parentWords === undefined)) this.unresolved.add(n, f.parentHex);
      else {
        // Another id is found now if an entry before holds it (a later holder of the same id takes
        // its place when the tree is made), else kept as its reference, not its string.
        const holder = ids.find(-1, f.parentId, parentWords);
        if (holder >= 0) parent = holder;
        else this.unresolved.add(n, -2 - ids.refOf(f.parentId, parentWords));
      }
    }
    ids.add(f.idHex, f.id, f.idIsUuid ? f.idWords : undefined);
    this.count++;
    this.lines.push(lineIndex);
    if (time >= 0 && time < 4294967296000 && Number.isInteger(time)) {
      const s = Math.floor(time / 1000);
      this.seconds[n] = s;
      this.millis[n] = time - s * 1000;
    } else {
      this.millis[n] = ODD_TIME;
      this.oddTimes.set(n, time);
    }
    this.parent[n] = parent;
    return n;
  }

  /** Node `n`'s line (0-based). */
  lineOf(n: number): number {
    return this.lines.at(n);
  }

  /** The node on line `index` (0-based), or -1. */
  nodeAtLine(index: number): number {
    return this.lines.indexOf(index);
  }

  /** A node's time in ms since the epoch (NaN when it has none). */
  timeOf(n: number): number {
    const ms = this.millis[n]!;
    return ms === ODD_TIME ? this.oddTimes.get(n)! : this.seconds[n]! * 1000 + ms;
  }
}

/** What a node's id and parent id are, as the scanner reads them. */
export type NodeIds = Pick<ScanFields, "idHex" | "idIsUuid" | "idWords" | "id" | "parentKind" | "parentHex" | "parentIsUuid" | "parentWords" | "parentId">;

/** Whether the parent id is the entry's own. */
function sameId(f: NodeIds, idWords: Uint32Array | undefined, parentWords: Uint32Array | undefined): boolean {
  if (f.idHex >= 0 || f.parentHex >= 0) return f.idHex === f.parentHex;
  if (idWords !== undefined || parentWords !== undefined) {
    if (idWords === undefined || parentWords === undefined) return false;
    for (let k = 0; k < 4; k++) if (idWords[k] !== parentWords[k]) return false;
    return true;
  }
  return f.id !== undefined && f.id === f.parentId;
}

/** Pairs of a node and a number (a parent id's, a tool call id's hash), in typed arrays that grow. */
export class NodeNumbers {
  // (eight to start: a typed array of up to 64 bytes is made in V8's heap, at a tenth of the cost
  // of a larger one, and most sessions have few or none: BENCHMARKS.md, "a scan's fields")
  node = new Int32Array(8);
  number = new Float64Array(8);
  count = 0;

  add(node: number, value: number): void {
    if (this.count === this.node.length) {
      this.node = grown(this.node, this.count * 2, this.count);
      this.number = grown(this.number, this.count * 2, this.count);
    }
    this.node[this.count] = node;
    this.number[this.count++] = value;
  }
}
