import { isUtf8 } from "node:buffer";
import { KIND_CODE, type LineKind } from "../read/line-table.js";
import { LineFlag, LineSalvager, parseLine, type BrokenOutcome } from "../read/salvage.js";
import { beginsSession, emptyFields, fieldsOf, lendFields, LONG_STRING, scanLine, scanShape, unsentMessage, Verdict, type ScanFields } from "../read/scanner.js";
import { hexOf } from "../read/scan-values.js";
import { parseSkimmed, previewCut, previewIsTruncated, previewPosition } from "../read/pass-two.js";
import { forEachLine, growthFor } from "../read/source.js";
import { V1IdAllocator } from "../schema/migrations.js";
import { CURRENT_VERSION, type SessionHeader } from "../schema/types.js";
import { TreeIndex } from "./tree.js";
import type { OpenOptions, PreviewLine } from "./options.js";
import type { SessionParts } from "./parts.js";
import type { ByteSource } from "../read/source.js";
import type { AnyEntry, SessionHeader as Header } from "../schema/types.js";
import type { LineRecord, NodeIds } from "../read/line-table.js";

/** What pass one asks of the session it fills in (a `Session`: named here, not imported, as it imports this). */
interface Filled {
  readonly source: ByteSource;
  readonly version: number;
  tree: TreeIndex;
  leafNode: number;
  record(index: number, node?: number): LineRecord;
  upgrade(value: Record<string, unknown>, record: LineRecord): AnyEntry | Header;
  nodeBytes(node: number): Buffer;
  findLeaf(): number;
}

/*
 * Pass one (docs/reference.md, "Large sessions"): every line of a session read once, in order, classified and
 * recorded in its tables (`SessionParts`); what a caller asked to see of each entry handed to it
 * (`OpenOptions`); then the tree and the current leaf.
 */

/** What pass one carries from line to line (`Session.scan`). */
interface ScanState {
  /** The scanner's fields of the current line (one object, refilled). */
  fields: ScanFields;
  /** Whether the scanner read the current line (else `JSON.parse` did, and `fields` hold no positions). */
  scanned: boolean;
  onRecord: OpenOptions["onRecord"];
  /** Whether `onPreviewLine` wants the entries' preview bytes (it stops wanting them). */
  previews: boolean;
  onPreviewLine: PreviewLine;
  only: OpenOptions["only"];
  lines: OpenOptions["lines"];
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

/** A session's pass one: its tables filled in from its bytes. */
export class PassOne {
  /**
   * A v1 entry's id and parent, as pi gives them in memory (hex), for the node table; the scanner's
   * fields of a line `JSON.parse` read, for its preview (`previewLine`), and of the bytes
   * `previewCut` gives of a line. Each made when first needed: most sessions need none of them
   * (BENCHMARKS.md, "a scan's fields").
   */
  private v1Fields: NodeIds | undefined;
  private previewFields: ScanFields | undefined;
  private cutFields: ScanFields | undefined;

  constructor(
    private readonly session: Filled,
    private readonly p: SessionParts,
  ) {}

  /**
   * Pass one: every line read once, in order (`forEachLine`), classified and recorded in the line
   * table (`readRecordLine` for the lines the scanner accepts, `readOtherLine` for the rest), each
   * entry registered as a node (`addRecord`); then the tree, the current leaf and the line findings.
   */
  scan(options: OpenOptions): void {
    lendFields((fields) => this.readLines(options, fields));
    const t = this.p.table;
    const nodes = this.p.nodes;
    this.session.tree = new TreeIndex(nodes);
    for (const { node, problem } of this.session.tree.problems) {
      if (problem !== "cycle") continue;
      // the link the tree cut: its id, for the entry's record
      const flags = t.flags[nodes.lineOf(node)]!;
      if (flags & LineFlag.HAS_PARENT_KEY && !(flags & LineFlag.PARENT_NULL)) this.p.cutParents.set(node, this.cutParentId(node));
    }
    this.session.leafNode = this.session.findLeaf();
  }

  /** Every line read, in order, into the tables (`scan`), with the scanner's fields given. */
  private readLines(options: OpenOptions, fields: ScanFields): void {
    const t = this.p.table;
    const nodes = this.p.nodes;
    const size = this.session.source.size;
    const { onRecord, only, lines } = options;
    const skim = onRecord !== undefined && options.skim === true && only === undefined && lines === undefined;
    const whole = onRecord !== undefined && !skim && only === undefined && lines === undefined;
    const previews = options.previewLines?.(size);
    const state: ScanState = {
      fields,
      scanned: false,
      onRecord,
      previews: previews !== undefined,
      onPreviewLine: previews ?? (() => false),
      only,
      lines,
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
    forEachLine(this.session.source, (buffer, start, end, line, offset, terminated) => {
      state.at = offset;
      // (the line's own view is made only where it is needed: most lines need none)
      const i = t.add(offset, growLines);
      const flags = terminated ? 0 : LineFlag.NO_NEWLINE;
      // The scanner validates the line and keeps the fields pass one needs. Line 1 (a header,
      // maybe behind a BOM) and anything it defers or rejects (NULs, invalid JSON to classify,
      // a line outside its memory) take the JSON.parse path.
      const verdict = line === 1 || (whole && !(state.skimImages && end - start >= LONG_STRING)) ? Verdict.Defer : scanLine(buffer, state.fields, start, end, skim, state.previews);
      state.scanned = verdict === Verdict.Valid;
      if (verdict === Verdict.Valid && state.fields.object) {
        this.addRecord(state, i, line, this.readRecordLine(state, buffer, start, end, i), flags | this.recordFlags(state.fields, buffer, start, end, i), buffer, start, end);
        return;
      }
      this.readOtherLine(state, buffer, start, end, i, line, terminated, flags);
    });
    t.end = this.session.source.size;
    state.salvager.flush();
  }

  /** The flags of a line the scanner accepted (its fields in `f`), and its message's place when it can be copied as it is. */
  private recordFlags(f: ScanFields, buffer: Buffer, start: number, end: number, i: number): number {
    const t = this.p.table;
    let flags = 0;
    if (end > start && buffer[end - 1] === 13) flags |= LineFlag.CRLF;
    if (!f.ascii && !isUtf8(buffer.subarray(start, end))) flags |= LineFlag.BAD_UTF8;
    if (f.plainText) flags |= LineFlag.PLAIN_TEXT;
    if (f.longPlain) t.long.set(i, { start: f.longStart, end: f.longEnd });
    if (f.messageStart >= 0 && f.messageStart < 65536 && endsWithMessage(buffer, start + f.messageEnd, end)) {
      t.msgStart[i] = f.messageStart;
      const role = f.role;
      const nullable = role === "system" || role === "user" || role === "assistant" || role === "toolResult";
      if (role !== undefined && (!nullable || f.contentKind === 2) && !(flags & LineFlag.BAD_UTF8) && this.session.version >= CURRENT_VERSION) flags |= LineFlag.RAW_MESSAGE;
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
    if (this.p.firstRecordIndex < 0) this.p.firstRecordIndex = i;
    state.ordinal++;
    const type = f.type;
    const wanted = (state.only !== undefined && type !== undefined && state.only.has(type)) || (state.lines !== undefined && state.onRecord !== undefined && state.lines(buffer, start, end));
    const own = type === "session" || type === "leaf" || (this.p.v1Ids && type === "compaction");
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
    const t = this.p.table;
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
      else if (cls !== undefined && !held) this.p.salvage.set(i, { kind: "normalized", to: cls.kind });
    } else {
      state.salvager.flush();
      // pi keeps every truthy JSON value it parses.
      if (value) {
        if (this.p.firstRecordIndex < 0) this.p.firstRecordIndex = i;
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
    state.scanned = false;
    this.addRecord(state, i, line, obj, flags, buffer, start, end);
  }

  /**
   * A record (its fields in `state.fields`, its value in `obj` if it was parsed) as the session
   * holds it: the header, a harness leaf move, or an entry, a node of the tree (v1 entries given
   * their deterministic ids); the caller's `onRecord` hears it.
   */
  private addRecord(state: ScanState, i: number, line: number, obj: Record<string, unknown> | undefined, lineFlags: number, buffer: Buffer, start: number, end: number): void {
    const t = this.p.table;
    const f = state.fields;
    let flags = lineFlags;
    const type = f.type;
    if (type === undefined) flags |= LineFlag.NO_TYPE;
    t.type[i] = this.p.types.codeFor(type, i);
    if (type === "session") {
      obj ??= JSON.parse(buffer.toString("utf8", start, end)) as Record<string, unknown>;
      t.flags[i] = flags;
      if (this.p.header) {
        t.kind[i] = KIND_CODE["extra-header"];
        this.p.pendingSession = { line, id: obj.id, timestamp: stringOr(obj.timestamp), cwd: stringOr(obj.cwd) };
        return;
      }
      t.kind[i] = KIND_CODE.header;
      this.p.header = obj as SessionHeader;
      if (this.session.version < 2) this.p.v1Ids = new V1IdAllocator(String(obj.id ?? ""));
      this.p.headerRecord = this.session.record(i, -1);
      state.onRecord?.(this.p.header, this.p.headerRecord);
      return;
    }
    t.kind[i] = KIND_CODE.entry;
    const role = type === "message" && f.role === "hookMessage" && this.session.version < 3 ? "custom" : f.role;
    if (type === "message" && role !== undefined) t.role[i] = this.p.roles.codeFor(role, i);
    if (f.hasTimestamp) flags |= LineFlag.HAS_TIME;
    if (type === "leaf") {
      if (f.parentKind !== 0) flags |= LineFlag.HAS_PARENT_KEY;
      t.flags[i] = flags;
      this.p.isHarness = true;
      const target = (obj as { targetId?: unknown }).targetId;
      this.p.leafMoves.push({ line, index: i, target: typeof target === "string" ? target : null });
      return;
    }
    const pending = this.p.pendingSession;
    if (pending) {
      if (beginsSession(pending.id, this.p.laterSessions.at(-1)?.id ?? this.p.header?.id, f.parentKind)) this.p.laterSessions.push({ ...pending, id: pending.id });
      this.p.pendingSession = undefined;
    }
    const nodes = this.p.nodes;
    let node: number;
    if (this.p.v1Ids) {
      const id = this.p.v1Ids.next(line);
      const prev = state.prevV1Id;
      flags |= LineFlag.HAS_PARENT_KEY | (prev === null ? LineFlag.PARENT_NULL : 0);
      const v1 = (this.v1Fields ??= emptyFields());
      v1.idHex = hexOf(id);
      v1.parentKind = prev === null ? 2 : 1;
      v1.parentHex = prev === null ? -1 : hexOf(prev);
      node = nodes.add(i, f.time, v1, state.growNodes);
      state.prevV1Id = id;
      // Before resolving the index: a compaction may name itself (pi has given it its id by then).
      this.p.idsByOrdinal[state.ordinal - 1] = id;
      if (type === "compaction" && obj && typeof obj.firstKeptEntryIndex === "number") this.p.fkIndexByLine.set(line, this.p.idsByOrdinal[obj.firstKeptEntryIndex]);
    } else {
      if (f.parentKind !== 0) flags |= LineFlag.HAS_PARENT_KEY;
      if (f.parentKind === 2) flags |= LineFlag.PARENT_NULL;
      node = nodes.add(i, f.time, f, state.growNodes);
    }
    t.flags[i] = flags;
    const only = state.only;
    if (state.onRecord && obj && (only === undefined || (type !== undefined && only.has(type)))) {
      const record = this.session.record(i, node);
      state.onRecord(this.session.upgrade(obj, record), record);
    }
    if (state.previews) this.previewLine(state, node, i, type, role, buffer, start, end);
  }

  /** A caller's preview of an entry, made from the line in hand (`OpenOptions.previewLines`), until it wants no more. */
  private previewLine(state: ScanState, node: number, i: number, type: string | undefined, role: string | undefined, buffer: Buffer, start: number, end: number): void {
    const long = this.p.table.long.get(i);
    const bytes = previewCut(end - start, long, (from, to) => buffer.subarray(start + from, start + to));
    const truncated = previewIsTruncated(end - start, long);
    // (a message's preview reads the scanner's fields of its line: a line `JSON.parse` read, line 1
    // or any line when every entry is parsed whole, is scanned for them here, in place, as pass two
    // scans its copy; a line with a long string, as the bytes `previewCut` gives)
    let fields = state.scanned ? state.fields : undefined;
    if (type === "message" && !truncated) {
      if (!fields) {
        const own = (this.previewFields ??= emptyFields());
        if (scanShape(buffer, own, start, end) === Verdict.Valid && own.object) fields = own;
      }
      if (fields && long) fields = cutFields(fields, long, (this.cutFields ??= emptyFields()));
    }
    const follows = node === 0 || this.p.nodes.parent[node] === node - 1;
    state.previews = state.onPreviewLine(node, bytes, type, type === "message" ? role : undefined, truncated, fields, follows);
  }

  /** The parent id of a node whose link was cut to break a cycle, read again from its line. */
  private cutParentId(node: number): string {
    const value = JSON.parse(this.session.nodeBytes(node).toString("utf8")) as { parentId?: unknown };
    return String(value.parentId);
  }

  private noteSalvage(outcome: BrokenOutcome, onSkipped: OpenOptions["onSkipped"]): void {
    switch (outcome.kind) {
      case "joined":
        this.p.salvage.set(outcome.first, { kind: "joined", last: outcome.last });
        for (let i = outcome.first + 1; i <= outcome.last; i++) this.p.salvage.set(i, { kind: "joined-part" });
        onSkipped?.(outcome.value, outcome.first + 1);
        return;
      case "pieces":
        this.p.salvage.set(outcome.index, { kind: "pieces", records: outcome.records.length, fragments: outcome.fragments.length, terminated: outcome.terminated });
        for (const r of outcome.records) onSkipped?.(r.value, outcome.index + 1);
        return;
      case "blank":
        // a blank line held in a run that did not join (a line of NULs, once normalised)
        this.p.salvage.set(outcome.index, { kind: "normalized", to: "blank" });
        return;
    }
  }

}

/** What a preview reads of a line's fields `f` (its content's start and texts), at their places in the bytes `previewCut` gives of it, in `out`. */
function cutFields(f: ScanFields, long: { start: number; end: number }, out: ScanFields): ScanFields {
  out.object = f.object;
  out.contentStart = f.contentStart < 0 ? -1 : previewPosition(f.contentStart, long);
  out.texts = f.texts;
  for (let k = 0; k < f.texts; k++) {
    out.textOpen[k] = previewPosition(f.textOpen[k]!, long);
    out.textClose[k] = f.textClose[k]! < 0 ? -1 : previewPosition(f.textClose[k]!, long);
    out.textKind[k] = f.textKind[k]!;
  }
  return out;
}

function stringOr(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** Whether nothing but whitespace and the line's closing brace follow the `message` object (it is the last key): `bytes[messageEnd..end)`. */
function endsWithMessage(bytes: Buffer, messageEnd: number, end: number): boolean {
  let k = messageEnd;
  while (k < end && (bytes[k] === 0x20 || bytes[k] === 0x09)) k++;
  if (k >= end || bytes[k] !== 0x7d) return false;
  for (k++; k < end; k++) if (bytes[k] !== 0x20 && bytes[k] !== 0x09 && bytes[k] !== 0x0d) return false;
  return true;
}

/** The `message` object's bytes of a line whose last key it is (`endsWithMessage`), from where it starts. */
export function messageBytes(line: Buffer, start: number): Buffer {
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

