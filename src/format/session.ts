import { isUtf8 } from "node:buffer";
import { finding, type Finding } from "./findings.js";
import { KIND_CODE, KINDS, Interner, LineTable, NodeTable, type LineKind, type LineRecord } from "./line-table.js";
import { migrateEntryV1ToV2, migrateEntryV2ToV3, V1IdAllocator } from "./migrations.js";
import { parseSkimmed, readLines, type LineSpan, type ReadOptions } from "./pass-two.js";
import { BrokenRun, classifyText, decodeLine, LineFlag, normalizeLine, parseLine, type BrokenOutcome, type TextClass } from "./salvage.js";
import { emptyFields, LONG_STRING, scanLine, Verdict } from "./scanner.js";
import { BufferSource, FileSource, forEachLine, type ByteSource } from "./source.js";
import { TreeIndex } from "./tree.js";
import { CURRENT_VERSION, type AnyEntry, type SessionHeader } from "./types.js";

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
  /** What the salvage rule makes of each line pi skips, by line index (such lines are few). */
  private readonly salvage = new Map<number, LineSalvage>();
  /** Harness `leaf` entries (line, table index, target), in file order. */
  readonly leafMoves: Array<{ line: number; index: number; target: string | null }> = [];

  private constructor(readonly source: ByteSource) {
    // Sized for a line per 512 bytes (pi's lines are longer; the tables double when short), capped
    // so that a big file does not reserve more than it may need: growing copies every column, which
    // shows when listing thousands of small sessions (BENCHMARKS.md, "the line table").
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
   * Whether the file is a pi session at all: it has a session header, or an entry (a record with
   * a string `type`) with a string id. Another JSONL file (an event stream, a log) is not, and
   * nothing reads or repairs it as one (`repair` decides by the same rule from its own records).
   */
  get isSessionLike(): boolean {
    if (this.header) return true;
    for (let node = 0; node < this.nodes.count; node++) if (this.nodes.ids[node] !== undefined && this.table.type[this.nodes.line[node]!] !== 0) return true;
    return false;
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
    // Lines pi skips are described by the salvage rule `repair` follows (what it would keep).
    const broken = new BrokenRun((outcome) => this.noteSalvage(outcome));
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
        if (parsed.blank) {
          kind = "blank";
          broken.blank(i);
        } else if (value === undefined) {
          kind = "invalid";
          const text = decodeLine(normalizeLine(bytes, line === 1).bytes);
          const normalized = text === undefined ? undefined : classifyText(text);
          if (text === undefined || normalized === undefined) {
            broken.flush(); // too long for a string: no rule reads it
          } else if (normalized.kind === "broken") {
            flags |= LineFlag.BROKEN;
            broken.add(i, text, terminated);
          } else {
            broken.flush();
            this.salvage.set(i, { kind: "normalized", to: normalized.kind });
          }
        } else {
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
      if (kind !== "blank" && kind !== "invalid" && broken.active) broken.flush();
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
    broken.flush();
    this.tree = new TreeIndex(this.nodes.ids, this.nodes.parentIds, this.nodes.time.subarray(0, this.nodes.count));
    this.leafNode = this.findLeaf();
    this.collectLineFindings();
  }

  private noteSalvage(outcome: BrokenOutcome): void {
    switch (outcome.kind) {
      case "joined":
        this.salvage.set(outcome.first, { kind: "joined", last: outcome.last });
        for (let i = outcome.first + 1; i <= outcome.last; i++) this.salvage.set(i, { kind: "joined-part" });
        return;
      case "pieces":
        this.salvage.set(outcome.index, { kind: "pieces", records: outcome.records.length, fragments: outcome.fragments.length, terminated: outcome.terminated });
        return;
      case "blank":
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
          if (this.salvage.get(i)?.kind !== "joined-part") out.push(finding("line-blank", "blank line", at));
          break;
        case "invalid": {
          const f = invalidLineFinding(i + 1, flags, this.salvage.get(i));
          if (f) out.push(f);
          break;
        }
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
      if (this.isSessionLike) out.push(finding("header-missing", "no session header", { line: 1 }));
      else out.push(finding("file-not-session", "no session header, and no record is an entry with an id", { line: 1 }));
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
        out.push(finding("version-invalid", "the header's `version` is not a number", at));
      } else if (this.version > CURRENT_VERSION) {
        out.push(finding("version-unsupported", `version ${this.version} is newer than the supported ${CURRENT_VERSION}`, at));
      } else if (this.version < CURRENT_VERSION) {
        out.push(finding("version-legacy", `a v${this.version} file (current: v${CURRENT_VERSION})`, at));
      }
    }
  }
}

/** What the salvage rule makes of a line pi skips (`BrokenOutcome`, kept small: counts, not text). */
type LineSalvage =
  | { kind: "joined"; last: number }
  | { kind: "joined-part" }
  | { kind: "pieces"; records: number; fragments: number; terminated: boolean }
  /** The line once normalised (its NULs removed) is this. */
  | { kind: "normalized"; to: Exclude<TextClass["kind"], "broken"> };

const NORMALIZED_NUL: Record<Exclude<TextClass["kind"], "broken">, string> = {
  record: "NUL bytes in a record that is otherwise whole",
  blank: "a line of NUL bytes",
  "no-type": "NUL bytes in an object without `type`",
  "not-object": "NUL bytes in JSON that is not an object",
};

function fusedMessage(records: number, fragments: number): string {
  const torn = fragments === 0 ? "" : ` and ${fragments === 1 ? "a torn fragment" : `${fragments} torn fragments`}`;
  return `${records === 1 ? "a record" : `${records} records`}${torn} on one line`;
}

/** The finding for a line pi skips, saying what `repair` makes of it; none for the later lines of a joined record. */
function invalidLineFinding(line: number, flags: number, salvage: LineSalvage | undefined): Finding | undefined {
  const at = { line };
  switch (salvage?.kind) {
    case "joined-part":
      return undefined;
    case "joined":
      return finding("line-split", `lines ${line}-${salvage.last + 1} are one record split by a raw newline`, { ...at, records: 1 });
    case "normalized":
      return finding("line-nul", NORMALIZED_NUL[salvage.to], { ...at, records: salvage.to === "record" ? 1 : 0 });
    case "pieces": {
      const { records, fragments } = salvage;
      if (records > 0) {
        return finding("line-fused", fusedMessage(records, fragments), { ...at, records });
      }
      if (!salvage.terminated) return finding("line-torn", "the last line is cut off (no newline, not JSON)", { ...at, records: 0 });
      if (flags & LineFlag.NUL) return finding("line-nul", "NUL bytes in a line that is not JSON and holds no record", { ...at, records: 0 });
      return finding("line-invalid-json", "the line is not valid JSON and holds no record", { ...at, records: 0 });
    }
    default:
      // Too long to decode as a string at all.
      return finding("line-invalid-json", "the line is too long to read as text", { ...at, records: 0 });
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
