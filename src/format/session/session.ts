import { isUtf8 } from "node:buffer";
import { KIND_CODE, KINDS, Interner, LineTable, NodeTable, type LineKind, type LineRecord } from "../read/line-table.js";
import { migrateEntryV1ToV2, migrateEntryV2ToV3, V1IdAllocator } from "../schema/migrations.js";
import { parseAt, parseSkimmed, readLineBytes, readLines, type LineSpan, type ReadOptions } from "../read/pass-two.js";
import { LineFlag, LineSalvager, parseLine, type BrokenOutcome, type TextClass } from "../read/salvage.js";
import { beginsSession, emptyFields, fieldsOf, hexOf, LONG_STRING, scanLine, unsentMessage, Verdict, type ScanFields } from "../read/scanner.js";
import { BufferSource, FileSource, forEachLine, growthFor, type ByteSource } from "../read/source.js";
import { TreeIndex } from "./tree.js";
import { CURRENT_VERSION, fileKindOf, PI_EVENT_TYPES, type AnyEntry, type FileKind, type SessionHeader } from "../schema/types.js";

/**
 * The one reader every command shares. Pass one walks the bytes line by line and keeps a compact
 * record per line in the line table (offset, length, kind, type, id, parent, timestamp, role);
 * pass two re-reads and parses only the lines a command asks for. Memory grows with the number of
 * lines, not with their size.
 *
 * Every line is classified; nothing is skipped silently. Read-only commands see the file as pi
 * sees it: unparseable lines are left out of the tree (and reported, in the words of the salvage
 * rule that `repair` follows), orphans are roots, and v1/v2 files are upgraded in memory (with
 * deterministic v1 ids) so that every command works on the v3 shape.
 */

export interface OpenOptions {
  /**
   * Called in pass one with entries (upgraded to v3 shape) and the header, for commands that need
   * to see entries anyway (`show`, `check`, names for `tree` and `ls`): they gather what they need
   * without a second read. Which entries, and how whole, `only` and `skim` say; without either,
   * every entry is parsed whole.
   */
  onRecord?: (value: AnyEntry | SessionHeader, record: LineRecord) => void;
  /**
   * With `onRecord`: parse and pass on only entries of these types (and the header); every other
   * line goes through the scanner alone. `tree` asks for labels, `ls` for session names.
   */
  only?: ReadonlySet<string>;
  /**
   * With `onRecord`: every entry is passed on, but a message (the bulk of a session) as the
   * skeleton the scanner read without parsing it: `{ type, message: { role, provider, model,
   * usage, toolCallId, content: [{ type: "toolCall", id }…] } }`, the tool calls' ids and nothing
   * else of the content (its id and parent are the record's). Other entries are parsed whole
   * (they are few and small). What `show` and `check` need of every entry, at a fraction of
   * `JSON.parse`'s cost.
   */
  skim?: boolean;
  /**
   * With `skim`: whether a message's `usage` is parsed into its skeleton (the one part of a skim
   * that costs a parse; default true). `check` reads none.
   */
  skimUsage?: boolean;
  /**
   * With `skim`: only entries that may carry usage are passed on (messages with a `usage` object,
   * as skeletons without their tool calls; `usage` entries, compactions and branch summaries,
   * whole), and the header: `usage`'s read. Every line is still scanned and recorded.
   */
  usageOnly?: boolean;
  /**
   * With `onRecord` for whole entries: "length" hands them on as `ReadOptions.imageData` does, a
   * large image's data left out. A line of 64 KB or more is parsed without its long plain string.
   * Default "full".
   */
  imageData?: "full" | "length";
  /**
   * Called with each record the salvage rule finds on a line pi skips (a record fused with torn
   * text, one split by a raw newline): what pi does not read, but `repair` would keep.
   */
  onSkipped?: (value: Record<string, unknown>, line: number) => void;
}

/** What pass one carries from line to line (`Session.scan`). */
interface ScanState {
  /** The scanner's fields of the current line (one object, refilled). */
  fields: ScanFields;
  onRecord: OpenOptions["onRecord"];
  only: OpenOptions["only"];
  skim: boolean;
  /** Every entry parsed whole for `onRecord`. */
  whole: boolean;
  skimImages: boolean;
  skimUsage: boolean;
  usageOnly: boolean;
  /** Records pi keeps so far (v1 `firstKeptEntryIndex` counts them). */
  ordinal: number;
  prevV1Id: string | null;
  /** The current line's offset in the file. */
  at: number;
  salvager: LineSalvager;
  growNodes: () => number;
}

/** Entry types that may carry usage besides messages (`usage/records.ts`). */
const USAGE_TYPES = new Set(["usage", "compaction", "branch_summary"]);

/** Entry types a skim still parses whole (few and small; their fields are what show and check read). */
const PARSED_WHEN_SKIMMED = new Set(["compaction", "label", "branch_summary", "context_edit", "model_change", "thinking_level_change", "session_info", "usage", "leaf", "active_tools_change"]);

/** A code for a type or role that the table's byte column cannot hold (the rest are in `overflow`). */
const OVERFLOW = 255;

/** Interned strings in a byte column, the 255th and later kept beside it by line. */
class ByteInterner extends Interner {
  readonly overflow = new Map<number, string>();
  codeFor(s: string | undefined, line: number): number {
    const c = this.code(s);
    if (c < OVERFLOW) return c;
    this.overflow.set(line, s!);
    return OVERFLOW;
  }
  stringOf(code: number, line: number): string | undefined {
    return code === OVERFLOW ? this.overflow.get(line) : this.strings[code];
  }
}

/** A session concatenated after the file's first (`Session.laterSessions`). */
export interface LaterSession {
  /** 1-based line of its header. */
  line: number;
  id: string;
  timestamp: string | undefined;
  cwd: string | undefined;
}

/** An entry's record (`Session.record`): its id and parent id read from the tables when asked for. */
class NodeRecord implements LineRecord {
  readonly index: number;
  readonly line: number;
  readonly offset: number;
  readonly length: number;
  readonly kind: LineKind;
  readonly flags: number;
  readonly time: number;
  readonly node: number;
  readonly type?: string;
  readonly role?: string;
  /** (a private field: a record spread into a plain object carries no session with it) */
  readonly #session: Session;
  constructor(session: Session, r: Omit<LineRecord, "id" | "parentId" | "node"> & { node: number }) {
    this.#session = session;
    this.index = r.index;
    this.line = r.line;
    this.offset = r.offset;
    this.length = r.length;
    this.kind = r.kind;
    this.flags = r.flags;
    this.time = r.time;
    this.node = r.node;
    if (r.type !== undefined) this.type = r.type;
    if (r.role !== undefined) this.role = r.role;
  }
  get id(): string | undefined {
    return this.#session.nodeId(this.node);
  }
  get parentId(): string | null | undefined {
    return this.#session.nodeParentId(this.node);
  }
}

function stringOr(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

export class Session {
  private readonly table: LineTable;
  private readonly nodes: NodeTable;
  private readonly types = new ByteInterner();
  private readonly roles = new ByteInterner();
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
  /** The line of the first record pi's loader keeps (the header should be it), or -1. */
  private firstRecordIndex = -1;
  /** The parent ids of nodes whose link was cut to break a cycle (for their records). */
  private readonly cutParents = new Map<number, string>();
  /** What the salvage rule makes of each line pi skips, by line index (such lines are few). */
  private readonly salvage = new Map<number, LineSalvage>();
  /** Harness `leaf` entries (line, table index, target), in file order. */
  readonly leafMoves: Array<{ line: number; index: number; target: string | null }> = [];
  /**
   * Later sessions concatenated into the file (`cat a.jsonl b.jsonl`): each a later header with an
   * id of its own whose next entry starts a tree (no parent; in a v1 file, any such header).
   */
  readonly laterSessions: LaterSession[] = [];
  /** A later header, until the next entry says whether a session begins there (`beginsSession`). */
  private pendingSession: (Omit<LaterSession, "id"> & { id: unknown }) | undefined;

  private constructor(readonly source: ByteSource) {
    // Sized for a line per 512 bytes, capped so that a big file does not reserve more than it may
    // need; later growth is sized from the lines a byte so far (`grow`).
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

  /**
   * Whether the file is a pi session at all (`fileKindOf`): pi's `--mode json` event stream and
   * other JSONL files are not, and nothing reads or repairs them as one (`repair` decides by the
   * same rule from its own records).
   */
  get isSessionLike(): boolean {
    return this.fileKind === "session";
  }

  /** What the file is (`fileKindOf`): a session, pi's `--mode json` event stream, or another file. */
  get fileKind(): FileKind {
    let entryWithId = false;
    for (let node = 0; node < this.nodes.count && !entryWithId; node++) if (this.nodes.ids.has(node) && this.table.type[this.nodes.line[node]!] !== 0) entryWithId = true;
    return fileKindOf({ header: this.header !== null, entryWithId, events: entryWithId ? 0 : this.eventCount });
  }

  /** How many of the file's records are pi `--mode json` events. */
  get eventCount(): number {
    let events = 0;
    for (let i = 0; i < this.table.count; i++) if (PI_EVENT_TYPES.has(this.types.stringOf(this.table.type[i]!, i) ?? "")) events++;
    return events;
  }

  get lineCount(): number {
    return this.table.count;
  }

  /** What pass one made of line `index` (0-based): its kind, its `LineFlag`s, its length and, for a line pi skips, what the salvage rule makes of it. */
  lineState(index: number): { kind: LineKind; flags: number; length: number; salvage: LineSalvage | undefined } {
    return { kind: KINDS[this.table.kind[index]!]!, flags: this.table.flags[index]!, length: this.lengthOf(index), salvage: this.salvage.get(index) };
  }

  static open(source: ByteSource, options: OpenOptions = {}): Session {
    const session = new Session(source);
    session.scan(options);
    return session;
  }

  close(): void {
    this.source.close();
  }

  /** The node of line `index` (0-based), or -1 (nodes are numbered in file order: a binary search). */
  nodeAtLine(index: number): number {
    const lines = this.nodes.line;
    let lo = 0;
    let hi = this.nodes.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const l = lines[mid]!;
      if (l === index) return mid;
      if (l < index) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private lengthOf(i: number): number {
    return this.table.lengthOf(i, !(this.table.flags[i]! & LineFlag.NO_NEWLINE));
  }

  /**
   * The record of line `index` (0-based). An entry's id and parent id are made into strings only
   * when asked for (`onRecord` hands every entry's record on, and most readers never ask).
   */
  record(index: number, node = this.nodeAtLine(index)): LineRecord {
    const t = this.table;
    if (node >= 0) {
      return new NodeRecord(this, { index, line: index + 1, offset: t.offsetOf(index), length: this.lengthOf(index), kind: KINDS[t.kind[index]!]!, flags: t.flags[index]!, time: this.nodes.timeOf(node), type: this.types.stringOf(t.type[index]!, index), role: this.roles.stringOf(t.role[index]!, index), node });
    }
    const r: LineRecord = {
      index,
      line: index + 1,
      offset: t.offsetOf(index),
      length: this.lengthOf(index),
      kind: KINDS[t.kind[index]!]!,
      flags: t.flags[index]!,
      time: NaN,
    };
    const type = this.types.stringOf(t.type[index]!, index);
    if (type !== undefined) r.type = type;
    const role = this.roles.stringOf(t.role[index]!, index);
    if (role !== undefined) r.role = role;
    return r;
  }

  /** A node's `parentId` as the file has it (null, a string, or undefined for none or another value). */
  nodeParentId(node: number): string | null | undefined {
    return this.parentIdOf(node);
  }

  /** A node's `parentId` as the file has it (null, a string, or undefined for none or another value). */
  private parentIdOf(node: number): string | null | undefined {
    const flags = this.table.flags[this.nodes.line[node]!]!;
    if (!(flags & LineFlag.HAS_PARENT_KEY)) return undefined;
    if (flags & LineFlag.PARENT_NULL) return null;
    const p = this.tree ? this.tree.parent[node]! : this.nodes.parent[node]!;
    if (p >= 0) return this.nodes.ids.idOf(p);
    return this.tree?.missingParents.get(node) ?? this.cutParents.get(node) ?? (this.nodes.selfParents.includes(node) ? this.nodes.ids.idOf(node) : undefined);
  }

  /** Every line's record (materialised: for small files and tests). */
  get records(): LineRecord[] {
    return Array.from({ length: this.table.count }, (_, i) => this.record(i));
  }

  /** The line of the first record pi keeps (1-based), or undefined. */
  get firstRecordLine(): number | undefined {
    return this.firstRecordIndex >= 0 ? this.firstRecordIndex + 1 : undefined;
  }

  /** The full entry of a tree node (pass two), upgraded to the v3 shape. */
  entry(node: number, options: ReadOptions = {}): AnyEntry {
    const i = this.nodes.line[node]!;
    const value = readLines(this.source, 1, () => this.spanOf(i), options).next().value!;
    return this.upgrade(value, this.record(i, node));
  }

  entries(nodes: ArrayLike<number>): AnyEntry[] {
    return Array.from(nodes, (n) => this.entry(n));
  }

  /** The entries of `nodes`, in order (read in large blocks: see `readLines`). */
  *entriesInOrder(nodes: ArrayLike<number>, options: ReadOptions = {}): Generator<{ node: number; entry: AnyEntry }> {
    let k = 0;
    // A v3 file's entries need no upgrade (nor, then, their records).
    const current = !this.v1Ids && this.version >= CURRENT_VERSION;
    for (const value of readLines(this.source, nodes.length, (j) => this.spanOf(this.nodes.line[nodes[j]!]!), options)) {
      const node = nodes[k++]!;
      yield { node, entry: current ? (value as AnyEntry) : this.upgrade(value, this.nodeRecord(node)) };
    }
  }

  /**
   * The lines of `nodes`, in order, as bytes read in large blocks (see `readLines`): each a view
   * valid until the next is asked for.
   */
  *linesInOrder(nodes: ArrayLike<number>): Generator<Buffer> {
    yield* readLineBytes(this.source, nodes.length, (j) => this.spanOf(this.nodes.line[nodes[j]!]!));
  }

  /** A node's entry from its line's bytes (from `linesInOrder`), upgraded to the v3 shape. */
  entryFromBytes(node: number, bytes: Buffer): AnyEntry {
    const i = this.nodes.line[node]!;
    return this.upgrade(parseAt(this.source, this.spanOf(i), bytes), this.record(i, node));
  }

  private spanOf(i: number): LineSpan {
    const t = this.table;
    const long = t.long.get(i);
    return { line: i + 1, offset: t.offsetOf(i), length: this.lengthOf(i), longStart: long ? long.start : -1, longEnd: long ? long.end : -1, plain: (t.flags[i]! & LineFlag.PLAIN_TEXT) !== 0 };
  }

  nodeRecord(node: number): LineRecord {
    return this.record(this.nodes.line[node]!, node);
  }

  /** Entry id of a node, without materialising its record. */
  nodeId(node: number): string | undefined {
    return this.nodes.ids.idOf(node);
  }

  /** Line number (1-based) of a node. */
  nodeLine(node: number): number {
    return this.nodes.line[node]! + 1;
  }

  nodeTime(node: number): number {
    return this.nodes.timeOf(node);
  }

  /** A node's `LineFlag`s, without materialising its record. */
  nodeFlags(node: number): number {
    return this.table.flags[this.nodes.line[node]!]!;
  }

  /** The entry type and message role of a node, without reading its line. */
  nodeKind(node: number): { type: string | undefined; role: string | undefined } {
    const i = this.nodes.line[node]!;
    return { type: this.types.stringOf(this.table.type[i]!, i), role: this.roles.stringOf(this.table.role[i]!, i) };
  }

  /** Whether a node has an id (without making its string). */
  nodeHasId(node: number): boolean {
    return this.nodes.ids.has(node);
  }

  /** The entry type of a node, without reading its line. */
  nodeType(node: number): string | undefined {
    const i = this.nodes.line[node]!;
    return this.types.stringOf(this.table.type[i]!, i);
  }

  /**
   * A number for a node's type and role together (equal numbers, equal type and role), or -1
   * for one of the rare types or roles kept by line (`OVERFLOW`).
   */
  nodeKindKey(node: number): number {
    const i = this.nodes.line[node]!;
    const type = this.table.type[i]!;
    const role = this.table.role[i]!;
    return type === OVERFLOW || role === OVERFLOW ? -1 : (type << 8) | role;
  }

  /** The message role of a node, without reading its line. */
  nodeRole(node: number): string | undefined {
    const i = this.nodes.line[node]!;
    return this.roles.stringOf(this.table.role[i]!, i);
  }

  /** Where a node's line starts in the file. */
  nodeOffset(node: number): number {
    return this.table.offsetOf(this.nodes.line[node]!);
  }

  /** A node's line length in bytes (without its newline). */
  nodeLength(node: number): number {
    return this.lengthOf(this.nodes.line[node]!);
  }

  /** The raw bytes of line `index` (0-based). */
  lineBytes(index: number): Buffer {
    return this.source.read(this.table.offsetOf(index), this.lengthOf(index));
  }

  /** Whether a node's line holds a long plain string (a base64 image, usually: `previewBytes` leaves most of it out). */
  nodeHasLong(node: number): boolean {
    return this.table.long.has(this.nodes.line[node]!);
  }

  /** The raw bytes of a node's line, at most `max` of them (a preview needs only the start). */
  nodeBytes(node: number, max = Number.POSITIVE_INFINITY): Buffer {
    const i = this.nodes.line[node]!;
    return this.source.read(this.table.offsetOf(i), Math.min(this.lengthOf(i), max));
  }

  /**
   * A node's line for a preview: whole, except that its long string (a base64 image, usually; see
   * `ScanFields.longStart`) keeps only its first `keep` bytes. That string is plain ASCII, so the
   * cut is clean, and no preview shows more of a string; a line of megabytes costs a few KB.
   */
  previewBytes(node: number, keep = 1024): Buffer {
    const i = this.nodes.line[node]!;
    const t = this.table;
    const offset = t.offsetOf(i);
    const length = this.lengthOf(i);
    const long = t.long.get(i);
    if (!long || long.end - long.start <= keep) return this.source.read(offset, Math.min(length, 1024 * 1024));
    return Buffer.concat([this.source.read(offset, long.start + keep), this.source.read(offset + long.end, Math.min(length - long.end, 1024 * 1024))]);
  }

  /**
   * The JSON bytes of a node's `message` object, when they can stand for the parsed message as is
   * (see `LineFlag.RAW_MESSAGE`); undefined otherwise. `line`: the node's line, if read already.
   */
  rawMessage(node: number, line?: Buffer): Buffer | undefined {
    const i = this.nodes.line[node]!;
    const t = this.table;
    if (!(t.flags[i]! & LineFlag.RAW_MESSAGE)) return undefined;
    const bytes = line ?? this.source.read(t.offsetOf(i), this.lengthOf(i));
    return messageBytes(bytes, t.msgStart[i]!);
  }

  /** The node holding `id` (the last one, as pi resolves ids), or undefined. */
  nodeOf(id: string): number | undefined {
    if (typeof id !== "string") return undefined;
    const node = this.nodes.ids.findString(id);
    return node >= 0 ? node : undefined;
  }

  /** Ids held by more than one node, with those nodes in file order. */
  get duplicateIds(): ReadonlyMap<string, number[]> {
    return this.nodes.ids.duplicates;
  }

  /** Nodes whose id starts with `prefix`. */
  nodesWithPrefix(prefix: string): number[] {
    return this.nodes.ids.withPrefix(prefix);
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

  /**
   * Pass one: every line read once, in order (`forEachLine`), classified and recorded in the line
   * table (`readRecordLine` for the lines the scanner accepts, `readOtherLine` for the rest), each
   * entry registered as a node (`addRecord`); then the tree, the current leaf and the line findings.
   */
  private scan(options: OpenOptions): void {
    const t = this.table;
    const nodes = this.nodes;
    const size = this.source.size;
    const { onRecord, only } = options;
    const skim = onRecord !== undefined && options.skim === true && only === undefined;
    const whole = onRecord !== undefined && !skim && only === undefined;
    const state: ScanState = {
      fields: emptyFields(),
      onRecord,
      only,
      skim,
      whole,
      skimImages: whole && options.imageData === "length",
      skimUsage: options.skimUsage !== false,
      usageOnly: skim && options.usageOnly === true,
      ordinal: 0,
      prevV1Id: null,
      at: 0,
      // Lines pi skips are described by the salvage rule `repair` follows (what it would keep).
      salvager: new LineSalvager((outcome) => this.noteSalvage(outcome, options.onSkipped)),
      // Tables grow to what the file's bytes so far say the rest will need (a little over).
      growNodes: () => growthFor(nodes.count, state.at, size),
    };
    const growLines = () => growthFor(t.count, state.at, size);
    forEachLine(this.source, (buffer, start, end, line, offset, terminated) => {
      state.at = offset;
      // (the line's own view is made only where it is needed: most lines need none)
      const i = t.add(offset, growLines);
      const flags = terminated ? 0 : LineFlag.NO_NEWLINE;
      // The scanner validates the line and keeps the fields pass one needs. Line 1 (a header,
      // maybe behind a BOM) and anything it defers or rejects (NULs, invalid JSON to classify,
      // a line outside its memory) take the JSON.parse path.
      const verdict = line === 1 || (whole && !(state.skimImages && end - start >= LONG_STRING)) ? Verdict.Defer : scanLine(buffer, state.fields, start, end, skim);
      if (verdict === Verdict.Valid && state.fields.object) {
        this.addRecord(state, i, line, this.readRecordLine(state, buffer, start, end, i), flags | this.recordFlags(state.fields, buffer, start, end, i), buffer, start, end);
        return;
      }
      this.readOtherLine(state, buffer, start, end, i, line, terminated, flags);
    });
    t.end = this.source.size;
    state.salvager.flush();
    this.tree = new TreeIndex(nodes);
    for (const { node, problem } of this.tree.problems) {
      if (problem !== "cycle") continue;
      // the link the tree cut: its id, for the entry's record
      const flags = t.flags[nodes.line[node]!]!;
      if (flags & LineFlag.HAS_PARENT_KEY && !(flags & LineFlag.PARENT_NULL)) this.cutParents.set(node, this.cutParentId(node));
    }
    this.leafNode = this.findLeaf();
  }

  /** The flags of a line the scanner accepted (its fields in `f`), and its message's place when it can be copied as it is. */
  private recordFlags(f: ScanFields, buffer: Buffer, start: number, end: number, i: number): number {
    const t = this.table;
    let flags = 0;
    if (end > start && buffer[end - 1] === 13) flags |= LineFlag.CRLF;
    if (!f.ascii && !isUtf8(buffer.subarray(start, end))) flags |= LineFlag.BAD_UTF8;
    if (f.plainText) flags |= LineFlag.PLAIN_TEXT;
    if (f.longPlain) t.long.set(i, { start: f.longStart, end: f.longEnd });
    if (f.messageStart >= 0 && f.messageStart < 65536 && endsWithMessage(buffer, start + f.messageEnd, end)) {
      t.msgStart[i] = f.messageStart;
      const role = f.role;
      const nullable = role === "system" || role === "user" || role === "assistant" || role === "toolResult";
      if (role !== undefined && (!nullable || f.contentKind === 2) && !(flags & LineFlag.BAD_UTF8) && this.version >= CURRENT_VERSION) flags |= LineFlag.RAW_MESSAGE;
    }
    return flags;
  }

  /**
   * The fast path: a line the scanner accepted as a JSON object. Its value is parsed only where
   * it matters here (the header, harness leaves, v1 compactions) or to the caller (`only`,
   * `whole`), or skimmed (`skim`); most lines are not parsed at all.
   */
  private readRecordLine(state: ScanState, buffer: Buffer, start: number, end: number, i: number): Record<string, unknown> | undefined {
    const f = state.fields;
    if (this.firstRecordIndex < 0) this.firstRecordIndex = i;
    state.ordinal++;
    const type = f.type;
    const wanted = state.only !== undefined && type !== undefined && state.only.has(type);
    const own = type === "session" || type === "leaf" || (this.v1Ids && type === "compaction");
    // (`usageOnly`: what carries no usage is not passed on, so not read)
    if (state.usageOnly && !own && !(type === "message" ? f.usageStart >= 0 : type !== undefined && USAGE_TYPES.has(type))) return undefined;
    // (a message whose `responseModel`, the model that answered, is not a string is parsed whole
    // when usage is asked for: the skeleton keeps only a string)
    const parse =
      own || wanted || state.whole ||
      (state.skim && (type === undefined || PARSED_WHEN_SKIMMED.has(type) || (type === "message" && (f.calls < 0 || (state.skimUsage && f.responseModelKind === 2)))));
    if (parse) return f.longPlain ? parseSkimmed(buffer.subarray(start, end), f) : (JSON.parse(buffer.toString(f.plainText ? "latin1" : "utf8", start, end)) as Record<string, unknown>);
    return state.skim ? skeleton(buffer, start, f, state.skimUsage, !state.usageOnly) : undefined;
  }

  /**
   * Any other line, read as pi reads it (`parseLine`): blank, not JSON (then described by the
   * salvage rule: what `repair` makes of it), JSON that is not an object, or a record the scanner
   * left to `JSON.parse` (line 1, NULs, lines outside its memory).
   */
  private readOtherLine(state: ScanState, buffer: Buffer, start: number, end: number, i: number, line: number, terminated: boolean, lineFlags: number): void {
    const t = this.table;
    const bytes = buffer.subarray(start, end);
    const parsed = parseLine(bytes, line === 1);
    let flags = lineFlags | parsed.flags;
    const value = parsed.value;
    let kind: LineKind;
    if (parsed.blank) {
      kind = "blank";
      state.salvager.blank(i);
    } else if (value === undefined) {
      kind = "invalid";
      const { cls, held } = state.salvager.classify(i, bytes, line === 1, terminated);
      if (cls?.kind === "broken") flags |= LineFlag.BROKEN;
      // (held blank: its outcome says; too long for a string: no rule reads it)
      else if (cls !== undefined && !held) this.salvage.set(i, { kind: "normalized", to: cls.kind });
    } else {
      state.salvager.flush();
      // pi keeps every truthy JSON value it parses.
      if (value) {
        if (this.firstRecordIndex < 0) this.firstRecordIndex = i;
        state.ordinal++;
      }
      kind = typeof value !== "object" || value === null || Array.isArray(value) ? "not-object" : "entry";
    }
    if (kind !== "entry") {
      t.kind[i] = KIND_CODE[kind];
      t.flags[i] = flags;
      return;
    }
    const obj = value as Record<string, unknown>;
    fieldsOf(obj, state.fields);
    this.addRecord(state, i, line, obj, flags, buffer, start, end);
  }

  /**
   * A record (its fields in `state.fields`, its value in `obj` if it was parsed) as the session
   * holds it: the header, a harness leaf move, or an entry, a node of the tree (v1 entries given
   * their deterministic ids); the caller's `onRecord` hears it.
   */
  private addRecord(state: ScanState, i: number, line: number, obj: Record<string, unknown> | undefined, lineFlags: number, buffer: Buffer, start: number, end: number): void {
    const t = this.table;
    const f = state.fields;
    let flags = lineFlags;
    const type = f.type;
    if (type === undefined) flags |= LineFlag.NO_TYPE;
    t.type[i] = this.types.codeFor(type, i);
    if (type === "session") {
      obj ??= JSON.parse(buffer.toString("utf8", start, end)) as Record<string, unknown>;
      t.flags[i] = flags;
      if (this.header) {
        t.kind[i] = KIND_CODE["extra-header"];
        this.pendingSession = { line, id: obj.id, timestamp: stringOr(obj.timestamp), cwd: stringOr(obj.cwd) };
        return;
      }
      t.kind[i] = KIND_CODE.header;
      this.header = obj as SessionHeader;
      if (this.version < 2) this.v1Ids = new V1IdAllocator(String(obj.id ?? ""));
      this.headerRecord = this.record(i, -1);
      state.onRecord?.(this.header, this.headerRecord);
      return;
    }
    t.kind[i] = KIND_CODE.entry;
    if (type === "message" && f.role !== undefined) t.role[i] = this.roles.codeFor(f.role === "hookMessage" && this.version < 3 ? "custom" : f.role, i);
    if (f.hasTimestamp) flags |= LineFlag.HAS_TIME;
    if (type === "leaf") {
      if (f.parentKind !== 0) flags |= LineFlag.HAS_PARENT_KEY;
      t.flags[i] = flags;
      this.isHarness = true;
      const target = (obj as { targetId?: unknown }).targetId;
      this.leafMoves.push({ line, index: i, target: typeof target === "string" ? target : null });
      return;
    }
    const pending = this.pendingSession;
    if (pending) {
      if (beginsSession(pending.id, this.laterSessions.at(-1)?.id ?? this.header?.id, f.parentKind)) this.laterSessions.push({ ...pending, id: pending.id });
      this.pendingSession = undefined;
    }
    const nodes = this.nodes;
    let node: number;
    if (this.v1Ids) {
      const id = this.v1Ids.next(line);
      const prev = state.prevV1Id;
      flags |= LineFlag.HAS_PARENT_KEY | (prev === null ? LineFlag.PARENT_NULL : 0);
      node = nodes.add(i, f.time, hexOf(id), undefined, prev === null ? 2 : 1, prev === null ? -1 : hexOf(prev), undefined, state.growNodes);
      state.prevV1Id = id;
      // Before resolving the index: a compaction may name itself (pi has given it its id by then).
      this.idsByOrdinal[state.ordinal - 1] = id;
      if (type === "compaction" && obj && typeof obj.firstKeptEntryIndex === "number") this.fkIndexByLine.set(line, this.idsByOrdinal[obj.firstKeptEntryIndex]);
    } else {
      if (f.parentKind !== 0) flags |= LineFlag.HAS_PARENT_KEY;
      if (f.parentKind === 2) flags |= LineFlag.PARENT_NULL;
      node = nodes.add(i, f.time, f.idHex, f.id, f.parentKind, f.parentHex, f.parentId, state.growNodes);
    }
    t.flags[i] = flags;
    const only = state.only;
    if (state.onRecord && obj && (only === undefined || (type !== undefined && only.has(type)))) {
      const record = this.record(i, node);
      state.onRecord(this.upgrade(obj, record), record);
    }
  }

  /** The parent id of a node whose link was cut to break a cycle, read again from its line. */
  private cutParentId(node: number): string {
    const value = JSON.parse(this.nodeBytes(node).toString("utf8")) as { parentId?: unknown };
    return String(value.parentId);
  }

  private noteSalvage(outcome: BrokenOutcome, onSkipped: OpenOptions["onSkipped"]): void {
    switch (outcome.kind) {
      case "joined":
        this.salvage.set(outcome.first, { kind: "joined", last: outcome.last });
        for (let i = outcome.first + 1; i <= outcome.last; i++) this.salvage.set(i, { kind: "joined-part" });
        onSkipped?.(outcome.value, outcome.first + 1);
        return;
      case "pieces":
        this.salvage.set(outcome.index, { kind: "pieces", records: outcome.records.length, fragments: outcome.fragments.length, terminated: outcome.terminated });
        for (const r of outcome.records) onSkipped?.(r.value, outcome.index + 1);
        return;
      case "blank":
        // a blank line held in a run that did not join (a line of NULs, once normalised)
        this.salvage.set(outcome.index, { kind: "normalized", to: "blank" });
        return;
    }
  }

  /**
   * pi's current leaf: the last entry of the file. In a harness file, a `leaf` entry moves it to
   * its `targetId` (null: before the first entry) until the next ordinary entry.
   */
  private findLeaf(): number {
    const lastNode = this.nodes.count - 1;
    // pi resolves the leaf id through byId, so a duplicated id names its last holder.
    const resolve = (node: number) => this.nodes.ids.holderOf(node);
    const lastMove = this.leafMoves[this.leafMoves.length - 1];
    if (!lastMove) return lastNode >= 0 ? resolve(lastNode) : -1;
    // An ordinary entry after the last move wins.
    if (lastNode >= 0 && this.nodes.line[lastNode]! > lastMove.index) return resolve(lastNode);
    return lastMove.target === null ? -1 : this.nodes.ids.findString(lastMove.target);
  }
}

/** What the salvage rule makes of a line pi skips (`BrokenOutcome`, kept small: counts, not text). */
export type LineSalvage =
  | { kind: "joined"; last: number }
  | { kind: "joined-part" }
  | { kind: "pieces"; records: number; fragments: number; terminated: boolean }
  /** The line once normalised (its NULs removed) is this. */
  | { kind: "normalized"; to: Exclude<TextClass["kind"], "broken"> };

/** Whether nothing but whitespace and the line's closing brace follow the `message` object (it is the last key): `bytes[messageEnd..end)`. */
function endsWithMessage(bytes: Buffer, messageEnd: number, end: number): boolean {
  let k = messageEnd;
  while (k < end && (bytes[k] === 0x20 || bytes[k] === 0x09)) k++;
  if (k >= end || bytes[k] !== 0x7d) return false;
  for (k++; k < end; k++) if (bytes[k] !== 0x20 && bytes[k] !== 0x09 && bytes[k] !== 0x0d) return false;
  return true;
}

/** The `message` object's bytes of a line whose last key it is (`endsWithMessage`), from where it starts. */
function messageBytes(line: Buffer, start: number): Buffer {
  let end = line.length;
  // back over trailing whitespace, the line's closing brace, and whitespace before it
  while (end > start && line[end - 1] !== 0x7d) end--;
  end--;
  while (end > start && (line[end - 1] === 0x20 || line[end - 1] === 0x09)) end--;
  return line.subarray(start, end);
}

/**
 * A message entry as a skim hands it on (`OpenOptions.skim`): what the scanner read of it, in the
 * shape of the entry, without parsing the line (only `usage`, a few dozen bytes, is parsed). The
 * line is `bytes` from `at` (the scanner's positions are the line's own; no view is made of it).
 */
function skeleton(bytes: Buffer, at: number, f: ScanFields, usage: boolean, calls = true): Record<string, unknown> {
  // (its id and parent are the record's: `LineRecord.id`, `parentId`)
  const entry: Record<string, unknown> = { type: f.type };
  if (f.type !== "message" || f.messageStart < 0) return entry;
  const message: Record<string, unknown> = {};
  if (f.role !== undefined) message.role = f.role;
  if (f.provider !== undefined) message.provider = f.provider;
  if (f.model !== undefined) message.model = f.model;
  if (f.responseModel !== undefined) message.responseModel = f.responseModel;
  if (usage && f.usageStart >= 0) message.usage = JSON.parse(bytes.toString("latin1", at + f.usageStart, at + f.usageEnd));
  if (f.toolCallId !== undefined) message.toolCallId = f.toolCallId;
  // what decides whether pi sends the message: an assistant turn's end, a bash run's exclusion
  if (f.role === "assistant" && (f.stopReason === "error" || f.stopReason === "aborted")) message.stopReason = f.stopReason;
  if (f.role === "bashExecution" && unsentMessage(bytes, at, f)) message.excludeFromContext = true;
  if (calls && f.calls > 0) {
    const content: Array<{ type: string; id: string }> = [];
    for (let k = 0; k < f.calls; k++) content.push({ type: "toolCall", id: JSON.parse(bytes.toString("utf8", at + f.callOpen[k]! - 1, at + f.callClose[k]! + 1)) as string });
    message.content = content;
  }
  entry.message = message;
  return entry;
}

/** Opens a session file (for bytes already in memory, as standard input is, `openSessionBuffer`). */
export async function openSession(path: string, options: OpenOptions = {}): Promise<Session> {
  return Session.open(new FileSource(path), options);
}

export function openSessionSync(path: string, options: OpenOptions = {}): Session {
  return Session.open(new FileSource(path), options);
}

export function openSessionBuffer(name: string, bytes: Buffer, options: OpenOptions = {}): Session {
  return Session.open(new BufferSource(name, bytes), options);
}
