import { isUtf8 } from "node:buffer";
import { finding, type Finding } from "./findings.js";
import { migrateEntryV1ToV2, migrateEntryV2ToV3, V1IdAllocator } from "./migrations.js";
import { BufferSource, FileSource, forEachLine, type ByteSource } from "./source.js";
import { TreeIndex, type TreeNodeInput } from "./tree.js";
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

export const LineFlag = {
  BOM: 1,
  CRLF: 2,
  NUL: 4,
  BAD_UTF8: 8,
  NO_NEWLINE: 16,
  FUSED: 32,
  NO_TYPE: 64,
  /** Whitespace around the JSON other than a trailing CR. */
  PADDED: 128,
} as const;

export interface LineRecord {
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
  timestamp?: string;
  /** `message.role` for message entries (after the v2 -> v3 rename). */
  role?: string;
  /** Node index in the tree, for entries. */
  node?: number;
}

export interface OpenOptions {
  /**
   * Called in pass one with every entry (upgraded to v3 shape) and the header, for commands that
   * need to see every entry anyway (`show`, `check`): they gather what they need without a second
   * read.
   */
  onRecord?: (value: AnyEntry | SessionHeader, record: LineRecord) => void;
}

export class Session {
  readonly records: LineRecord[] = [];
  /** Line-level findings from pass one. */
  readonly lineFindings: Finding[] = [];
  header: SessionHeader | null = null;
  headerRecord: LineRecord | null = null;
  /** Record index of each tree node. */
  readonly nodeRecords: number[] = [];
  tree!: TreeIndex;
  /** The current leaf's node index; -1 when there is none (no entries, or a harness leaf of null). */
  leafNode = -1;
  /** Whether the file uses agent-core harness `leaf` entries. */
  isHarness = false;
  private v1Ids: V1IdAllocator | undefined;
  /** ids by ordinal, for v1 `firstKeptEntryIndex`. */
  private idsByOrdinal: Array<string | undefined> = [];
  private fkIndexByLine = new Map<number, string | undefined>();

  private constructor(readonly source: ByteSource) {}

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
    return this.records.length;
  }

  static open(source: ByteSource, options: OpenOptions = {}): Session {
    const session = new Session(source);
    session.scan(options);
    return session;
  }

  close(): void {
    this.source.close();
  }

  /** The full entry of a tree node (pass two), upgraded to the v3 shape. */
  entry(node: number): AnyEntry {
    const record = this.records[this.nodeRecords[node]!]!;
    return this.loadRecord(record) as AnyEntry;
  }

  entries(nodes: readonly number[]): AnyEntry[] {
    return nodes.map((n) => this.entry(n));
  }

  nodeRecord(node: number): LineRecord {
    return this.records[this.nodeRecords[node]!]!;
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
    const parsed = parseLine(bytes);
    if (parsed.value === undefined || typeof parsed.value !== "object" || parsed.value === null) {
      throw new Error(`${this.name}:${record.line}: line changed since it was read`);
    }
    return this.upgrade(parsed.value as Record<string, unknown>, record);
  }

  private upgrade(value: Record<string, unknown>, record: LineRecord): AnyEntry {
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
    let ordinal = 0;
    let prevV1Id: string | null = null;
    const nodes: TreeNodeInput[] = [];
    forEachLine(this.source, (bytes, line, offset, terminated) => {
      const record: LineRecord = { line, offset, length: bytes.length, kind: "blank", flags: 0, ordinal: -1 };
      if (!terminated) record.flags |= LineFlag.NO_NEWLINE;
      this.records.push(record);
      const parsed = parseLine(bytes, line === 1);
      record.flags |= parsed.flags;
      if (parsed.blank) {
        record.kind = "blank";
        return;
      }
      if (parsed.value === undefined) {
        record.kind = "invalid";
        return;
      }
      // pi keeps every truthy JSON value it parses.
      if (parsed.value) record.ordinal = ordinal++;
      const value = parsed.value;
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        record.kind = "not-object";
        return;
      }
      const obj = value as Record<string, unknown>;
      const type = typeof obj.type === "string" ? obj.type : undefined;
      if (type === undefined) record.flags |= LineFlag.NO_TYPE;
      else record.type = type;
      if (type === "session") {
        if (this.header) {
          record.kind = "extra-header";
          return;
        }
        record.kind = "header";
        this.header = obj as SessionHeader;
        this.headerRecord = record;
        if (this.version < 2) this.v1Ids = new V1IdAllocator(String(obj.id ?? ""));
        options.onRecord?.(this.header, record);
        return;
      }
      record.kind = "entry";
      if (this.v1Ids) {
        record.id = this.v1Ids.next(line);
        record.parentId = prevV1Id;
        prevV1Id = record.id;
        if (type === "compaction" && typeof obj.firstKeptEntryIndex === "number") {
          const target = this.idsByOrdinal[obj.firstKeptEntryIndex];
          this.fkIndexByLine.set(line, target);
        }
      } else {
        if (typeof obj.id === "string") record.id = obj.id;
        if (typeof obj.parentId === "string" || obj.parentId === null) record.parentId = obj.parentId;
      }
      if (record.ordinal >= 0) this.idsByOrdinal[record.ordinal] = record.id;
      if (typeof obj.timestamp === "string") record.timestamp = obj.timestamp;
      if (type === "message") {
        const role = (obj.message as { role?: unknown } | null | undefined)?.role;
        if (typeof role === "string") record.role = role === "hookMessage" && this.version < 3 ? "custom" : role;
      }
      if (type === "leaf") {
        this.isHarness = true;
      } else {
        record.node = nodes.length;
        this.nodeRecords.push(this.records.length - 1);
        nodes.push({ id: record.id, parentId: record.parentId, time: Date.parse(record.timestamp ?? "") });
      }
      if (options.onRecord) options.onRecord(this.upgrade(obj, record), record);
    });
    this.tree = new TreeIndex(nodes);
    this.leafNode = this.findLeaf();
    this.collectLineFindings();
  }

  /**
   * pi's current leaf: the last entry of the file. In a harness file, a `leaf` entry moves it to
   * its `targetId` (null: before the first entry) until the next ordinary entry.
   */
  private findLeaf(): number {
    let leaf = -1;
    for (const record of this.records) {
      if (record.kind !== "entry") continue;
      if (record.type === "leaf") {
        const target = this.loadRecord(record) as { targetId?: unknown };
        leaf = typeof target.targetId === "string" ? (this.tree.byId.get(target.targetId) ?? -1) : -1;
      } else if (record.node !== undefined) {
        // pi resolves the leaf id through byId, so a duplicated id names its last holder.
        leaf = record.id !== undefined ? (this.tree.byId.get(record.id) ?? record.node) : record.node;
      }
    }
    return leaf;
  }

  private collectLineFindings(): void {
    const out = this.lineFindings;
    const records = this.records;
    if (records.length === 0 || (records.length === 1 && records[0]!.length === 0)) {
      out.push(finding("file-empty", "the file is empty"));
      return;
    }
    let firstParsed: LineRecord | undefined;
    for (const r of records) {
      const at = { line: r.line };
      if (r.flags & LineFlag.BOM) out.push(finding("line-bom", "the line starts with a UTF-8 byte-order mark", at));
      if (r.flags & LineFlag.CRLF) out.push(finding("line-crlf", "the line ends with CR LF", at));
      if (r.flags & LineFlag.BAD_UTF8) out.push(finding("line-invalid-utf8", "the line is not valid UTF-8", at));
      if (r.ordinal === 0) firstParsed = r;
      switch (r.kind) {
        case "blank":
          out.push(finding("line-blank", "blank line", at));
          break;
        case "invalid":
          out.push(this.invalidLineFinding(r));
          break;
        case "not-object":
          out.push(finding("line-not-object", "the line is JSON but not an object", at));
          break;
        case "extra-header":
          out.push(finding("header-duplicate", "a second session header", at));
          break;
        case "entry":
          if (r.flags & LineFlag.NO_TYPE) out.push(finding("entry-no-type", "a record without `type`", at));
          break;
        case "header":
          break;
      }
    }
    const last = records[records.length - 1]!;
    if (last.flags & LineFlag.NO_NEWLINE && last.kind !== "invalid" && last.kind !== "blank") {
      out.push(finding("line-no-newline", "the last line has no newline", { line: last.line }));
    }
    if (!this.header) {
      out.push(finding("header-missing", "no session header", { line: 1 }));
    } else {
      const h = this.header;
      if (firstParsed && firstParsed !== this.headerRecord) {
        out.push(finding("header-not-first", `the header is on line ${this.headerRecord!.line}, after another record`, { line: this.headerRecord!.line }));
      }
      const bad = ["id", "timestamp", "cwd"].filter((k) => typeof h[k] !== "string");
      if (bad.length > 0) {
        out.push(finding("header-invalid", `the header's ${bad.map((k) => `\`${k}\``).join(", ")} ${bad.length > 1 ? "are" : "is"} missing or not a string`, { line: this.headerRecord!.line }));
      }
      if (h.version !== undefined && typeof h.version !== "number") {
        out.push(finding("header-invalid", "the header's `version` is not a number", { line: this.headerRecord!.line }));
      } else if (this.version > CURRENT_VERSION) {
        out.push(finding("version-unsupported", `version ${this.version} is newer than the supported ${CURRENT_VERSION}`, { line: this.headerRecord!.line }));
      } else if (this.version < CURRENT_VERSION) {
        out.push(finding("version-legacy", `a v${this.version} file (current: v${CURRENT_VERSION})`, { line: this.headerRecord!.line }));
      }
    }
  }

  private invalidLineFinding(r: LineRecord) {
    const at = { line: r.line };
    if (r.flags & LineFlag.NUL) return finding("line-nul", "NUL bytes in the line", at);
    if (r.flags & LineFlag.FUSED) return finding("line-fused", "two JSON records fused on one line", at);
    if (r.flags & LineFlag.NO_NEWLINE) return finding("line-torn", "the last line is cut off (no newline, not JSON)", at);
    return finding("line-invalid-json", "the line is not valid JSON", at);
  }
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
