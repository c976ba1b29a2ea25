import { KINDS, type LineKind, type LineRecord } from "../read/line-table.js";
import { migrateEntryV1ToV2, migrateEntryV2ToV3 } from "../schema/migrations.js";
import { parseAt, previewCut, previewIsTruncated, readLineBytes, readLines, type LineSpan, type ReadOptions } from "../read/pass-two.js";
import { LineFlag, parseLine } from "../read/salvage.js";
import { BufferSource, FileSource, type ByteSource } from "../read/source.js";
import type { TreeIndex } from "./tree.js";
import { CURRENT_VERSION, fileKindOf, PI_EVENT_TYPES, type AnyEntry, type FileKind, type SessionHeader } from "../schema/types.js";
import type { OpenOptions } from "./options.js";
import { OVERFLOW, SessionParts, type LaterSession, type LineSalvage } from "./parts.js";
import { messageBytes, PassOne } from "./pass-one.js";

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

export class Session {
  /** What pass one filled in. */
  private readonly p: SessionParts;
  tree!: TreeIndex;
  /** The current leaf's node index; -1 when there is none (no entries, or a harness leaf of null). */
  leafNode = -1;

  private constructor(readonly source: ByteSource) {
    this.p = new SessionParts(source.size);
  }

  /** The session header (the first one, wherever it is), and its line's record. */
  get header(): SessionHeader | null {
    return this.p.header;
  }
  get headerRecord(): LineRecord | null {
    return this.p.headerRecord;
  }
  /** Whether the file uses agent-core harness `leaf` entries. */
  get isHarness(): boolean {
    return this.p.isHarness;
  }
  /** Harness `leaf` entries (line, table index, target), in file order. */
  get leafMoves(): ReadonlyArray<{ line: number; index: number; target: string | null }> {
    return this.p.leafMoves;
  }
  /**
   * Later sessions concatenated into the file (`cat a.jsonl b.jsonl`): each a later header with an
   * id of its own whose next entry starts a tree (no parent; in a v1 file, any such header).
   */
  get laterSessions(): readonly LaterSession[] {
    return this.p.laterSessions;
  }

  get name(): string {
    return this.source.name;
  }

  /** The version the file declares (1 when the header has none). */
  get version(): number {
    const v = this.p.header?.version;
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
    for (let node = 0; node < this.p.nodes.count && !entryWithId; node++) if (this.p.nodes.ids.has(node) && this.p.table.type[this.p.nodes.lineOf(node)] !== 0) entryWithId = true;
    return fileKindOf({ header: this.p.header !== null, entryWithId, events: entryWithId ? 0 : this.eventCount });
  }

  /** How many of the file's records are pi `--mode json` events. */
  get eventCount(): number {
    let events = 0;
    for (let i = 0; i < this.p.table.count; i++) if (PI_EVENT_TYPES.has(this.p.types.stringOf(this.p.table.type[i]!, i) ?? "")) events++;
    return events;
  }

  get lineCount(): number {
    return this.p.table.count;
  }

  /** What pass one made of line `index` (0-based): its kind, its `LineFlag`s, its length and, for a line pi skips, what the salvage rule makes of it. */
  lineState(index: number): { kind: LineKind; flags: number; length: number; salvage: LineSalvage | undefined } {
    return { kind: KINDS[this.p.table.kind[index]!]!, flags: this.p.table.flags[index]!, length: this.lengthOf(index), salvage: this.p.salvage.get(index) };
  }

  static open(source: ByteSource, options: OpenOptions = {}): Session {
    const session = new Session(source);
    new PassOne(session, session.p).scan(options);
    return session;
  }

  close(): void {
    this.source.close();
  }

  /** The node of line `index` (0-based), or -1 (nodes are numbered in file order: a binary search). */
  nodeAtLine(index: number): number {
    return this.p.nodes.nodeAtLine(index);
  }

  private lengthOf(i: number): number {
    return this.p.table.lengthOf(i, !(this.p.table.flags[i]! & LineFlag.NO_NEWLINE));
  }

  /**
   * The record of line `index` (0-based). An entry's id and parent id are made into strings only
   * when asked for (`onRecord` hands every entry's record on, and most readers never ask).
   */
  record(index: number, node = this.nodeAtLine(index)): LineRecord {
    const t = this.p.table;
    if (node >= 0) {
      return new NodeRecord(this, { index, line: index + 1, offset: t.offsetOf(index), length: this.lengthOf(index), kind: KINDS[t.kind[index]!]!, flags: t.flags[index]!, time: this.p.nodes.timeOf(node), type: this.p.types.stringOf(t.type[index]!, index), role: this.p.roles.stringOf(t.role[index]!, index), node });
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
    const type = this.p.types.stringOf(t.type[index]!, index);
    if (type !== undefined) r.type = type;
    const role = this.p.roles.stringOf(t.role[index]!, index);
    if (role !== undefined) r.role = role;
    return r;
  }

  /** A node's `parentId` as the file has it (null, a string, or undefined for none or another value). */
  nodeParentId(node: number): string | null | undefined {
    return this.parentIdOf(node);
  }

  /** A node's `parentId` as the file has it (null, a string, or undefined for none or another value). */
  private parentIdOf(node: number): string | null | undefined {
    const flags = this.p.table.flags[this.p.nodes.lineOf(node)]!;
    if (!(flags & LineFlag.HAS_PARENT_KEY)) return undefined;
    if (flags & LineFlag.PARENT_NULL) return null;
    const p = this.tree ? this.tree.parent[node]! : this.p.nodes.parent[node]!;
    if (p >= 0) return this.p.nodes.ids.idOf(p);
    return this.tree?.missingParents.get(node) ?? this.p.cutParents.get(node) ?? (this.p.nodes.selfParents.includes(node) ? this.p.nodes.ids.idOf(node) : undefined);
  }

  /** Every line's record (materialised: for small files and tests). */
  get records(): LineRecord[] {
    return Array.from({ length: this.p.table.count }, (_, i) => this.record(i));
  }

  /** The line of the first record pi keeps (1-based), or undefined. */
  get firstRecordLine(): number | undefined {
    return this.p.firstRecordIndex >= 0 ? this.p.firstRecordIndex + 1 : undefined;
  }

  /** The full entry of a tree node (pass two), upgraded to the v3 shape. */
  entry(node: number, options: ReadOptions = {}): AnyEntry {
    const i = this.p.nodes.lineOf(node);
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
    const current = !this.p.v1Ids && this.version >= CURRENT_VERSION;
    for (const value of readLines(this.source, nodes.length, (j) => this.spanOf(this.p.nodes.lineOf(nodes[j]!)), options)) {
      const node = nodes[k++]!;
      yield { node, entry: current ? (value as AnyEntry) : this.upgrade(value, this.nodeRecord(node)) };
    }
  }

  /**
   * The lines of `nodes`, in order, as bytes read in large blocks (see `readLines`): each a view
   * valid until the next is asked for.
   */
  *linesInOrder(nodes: ArrayLike<number>): Generator<Buffer> {
    yield* readLineBytes(this.source, nodes.length, (j) => this.spanOf(this.p.nodes.lineOf(nodes[j]!)));
  }

  /** A node's entry from its line's bytes (from `linesInOrder`), upgraded to the v3 shape. */
  entryFromBytes(node: number, bytes: Buffer): AnyEntry {
    const i = this.p.nodes.lineOf(node);
    return this.upgrade(parseAt(this.source, this.spanOf(i), bytes), this.record(i, node));
  }

  private spanOf(i: number): LineSpan {
    const t = this.p.table;
    const long = t.long.get(i);
    return { line: i + 1, offset: t.offsetOf(i), length: this.lengthOf(i), longStart: long ? long.start : -1, longEnd: long ? long.end : -1, plain: (t.flags[i]! & LineFlag.PLAIN_TEXT) !== 0 };
  }

  nodeRecord(node: number): LineRecord {
    return this.record(this.p.nodes.lineOf(node), node);
  }

  /** Entry id of a node, without materialising its record. */
  nodeId(node: number): string | undefined {
    return this.p.nodes.ids.idOf(node);
  }

  /** Line number (1-based) of a node. */
  nodeLine(node: number): number {
    return this.p.nodes.lineOf(node) + 1;
  }

  nodeTime(node: number): number {
    return this.p.nodes.timeOf(node);
  }

  /** A node's `LineFlag`s, without materialising its record. */
  nodeFlags(node: number): number {
    return this.p.table.flags[this.p.nodes.lineOf(node)]!;
  }

  /** The entry type and message role of a node, without reading its line. */
  nodeKind(node: number): { type: string | undefined; role: string | undefined } {
    const i = this.p.nodes.lineOf(node);
    return { type: this.p.types.stringOf(this.p.table.type[i]!, i), role: this.p.roles.stringOf(this.p.table.role[i]!, i) };
  }

  /** Whether a node has an id (without making its string). */
  nodeHasId(node: number): boolean {
    return this.p.nodes.ids.has(node);
  }

  /** The entry type of a node, without reading its line. */
  nodeType(node: number): string | undefined {
    const i = this.p.nodes.lineOf(node);
    return this.p.types.stringOf(this.p.table.type[i]!, i);
  }

  /**
   * A number for a node's type and role together (equal numbers, equal type and role), or -1
   * for one of the rare types or roles kept by line (`OVERFLOW`).
   */
  nodeKindKey(node: number): number {
    const i = this.p.nodes.lineOf(node);
    const type = this.p.table.type[i]!;
    const role = this.p.table.role[i]!;
    return type === OVERFLOW || role === OVERFLOW ? -1 : (type << 8) | role;
  }

  /** The message role of a node, without reading its line. */
  nodeRole(node: number): string | undefined {
    const i = this.p.nodes.lineOf(node);
    return this.p.roles.stringOf(this.p.table.role[i]!, i);
  }

  /** Where a node's line starts in the file. */
  nodeOffset(node: number): number {
    return this.p.table.offsetOf(this.p.nodes.lineOf(node));
  }

  /** A node's line length in bytes (without its newline). */
  nodeLength(node: number): number {
    return this.lengthOf(this.p.nodes.lineOf(node));
  }

  /** The raw bytes of line `index` (0-based). */
  lineBytes(index: number): Buffer {
    return this.source.read(this.p.table.offsetOf(index), this.lengthOf(index));
  }

  /** Whether a node's line holds a long plain string (a base64 image, usually: `previewBytes` leaves most of it out). */
  nodeHasLong(node: number): boolean {
    return this.p.table.long.has(this.p.nodes.lineOf(node));
  }

  /** The raw bytes of a node's line, at most `max` of them (a preview needs only the start). */
  nodeBytes(node: number, max = Number.POSITIVE_INFINITY): Buffer {
    const i = this.p.nodes.lineOf(node);
    return this.source.read(this.p.table.offsetOf(i), Math.min(this.lengthOf(i), max));
  }

  /**
   * A node's line for a preview (`previewCut`): whole, except that its long string keeps only its
   * first KB; a line of megabytes costs a few KB.
   */
  previewBytes(node: number): Buffer {
    const i = this.p.nodes.lineOf(node);
    const offset = this.p.table.offsetOf(i);
    return previewCut(this.lengthOf(i), this.p.table.long.get(i), (start, end) => this.source.read(offset + start, end - start));
  }

  /** Whether `previewBytes` ends before the node's line does (they are then no JSON). */
  previewIsTruncated(node: number): boolean {
    const i = this.p.nodes.lineOf(node);
    return previewIsTruncated(this.lengthOf(i), this.p.table.long.get(i));
  }

  /**
   * The JSON bytes of a node's `message` object, when they can stand for the parsed message as is
   * (see `LineFlag.RAW_MESSAGE`); undefined otherwise. `line`: the node's line, if read already.
   */
  rawMessage(node: number, line?: Buffer): Buffer | undefined {
    const i = this.p.nodes.lineOf(node);
    const t = this.p.table;
    if (!(t.flags[i]! & LineFlag.RAW_MESSAGE)) return undefined;
    const bytes = line ?? this.source.read(t.offsetOf(i), this.lengthOf(i));
    return messageBytes(bytes, t.msgStart[i]!);
  }

  /** The node holding `id` (the last one, as pi resolves ids), or undefined. */
  nodeOf(id: string): number | undefined {
    if (typeof id !== "string") return undefined;
    const node = this.p.nodes.ids.findString(id);
    return node >= 0 ? node : undefined;
  }

  /** Ids held by more than one node, with those nodes in file order. */
  get duplicateIds(): ReadonlyMap<string, number[]> {
    return this.p.nodes.ids.duplicates;
  }

  /** Nodes whose id starts with `prefix`. */
  nodesWithPrefix(prefix: string): number[] {
    return this.p.nodes.ids.withPrefix(prefix);
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
    if (this.p.v1Ids && record.id !== undefined) {
      out = migrateEntryV1ToV2(out, {
        id: record.id,
        parentId: record.parentId ?? null,
        firstKeptEntryId: this.p.fkIndexByLine.get(record.line),
      });
    }
    if (this.version < CURRENT_VERSION) out = migrateEntryV2ToV3(out);
    return out as AnyEntry;
  }

  /**
   * pi's current leaf: the last entry of the file. In a harness file, a `leaf` entry moves it to
   * its `targetId` (null: before the first entry) until the next ordinary entry.
   */
  findLeaf(): number {
    const lastNode = this.p.nodes.count - 1;
    // pi resolves the leaf id through byId, so a duplicated id names its last holder.
    const resolve = (node: number) => this.p.nodes.ids.holderOf(node);
    const lastMove = this.p.leafMoves[this.p.leafMoves.length - 1];
    if (!lastMove) return lastNode >= 0 ? resolve(lastNode) : -1;
    // An ordinary entry after the last move wins.
    if (lastNode >= 0 && this.p.nodes.lineOf(lastNode) > lastMove.index) return resolve(lastNode);
    return lastMove.target === null ? -1 : this.p.nodes.ids.findString(lastMove.target);
  }
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

export type { OpenOptions } from "./options.js";
export type { LaterSession, LineSalvage } from "./parts.js";
