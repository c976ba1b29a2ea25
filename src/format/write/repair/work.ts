import { crypto } from "../../common/builtins.js";
import { IdIndex } from "../../read/ids.js";
import { grown, IncreasingRuns } from "../../read/columns.js";
import { NodeNumbers, type NodeIds } from "../../read/line-table.js";
import { normalizeLine, type SessionRecord } from "../../read/salvage.js";
import { fieldsOf, emptyFields, unsentMessage, type ScanFields } from "../../read/scanner.js";
import { hexString } from "../../read/scan-values.js";
import { idHash } from "../../common/hash.js";
import { isSkippedTurn, toolCallsOf } from "../../context/send.js";
import { turnOf } from "../../context/pairing.js";
import { editEffectOf } from "../../context/context.js";
import type { ByteSource } from "../../read/source.js";
import type { AgentMessage, AnyEntry } from "../../schema/types.js";
import { REPAIR_CODES, type Decision, type Patch, type RepairAction, type RepairCode } from "./plan.js";

/*
 * What planning a repair builds up, shared by its phases: the records the result will hold
 * (`Candidates`), the actions said and the decisions made (`RepairWork`).
 */

/**
 * The records the result will hold, in columns (a gigabyte file has hundreds of thousands; their
 * values are not kept, the writer re-reads the lines): where each came from and the few fields
 * the tree pass needs. Ids live in an `IdIndex` whose node numbers are the candidates' numbers.
 */
export class Candidates {
  count = 0;
  /**
   * Each one's 0-based first input line, as runs (a record a line in most files; a column was 4
   * bytes a record: BENCHMARKS.md, "Memory an entry"): `lineOf`.
   */
  private readonly lines = new IncreasingRuns(1024);
  /**
   * Where a whole-line record lies in the file (`offsetOf`): the low 32 bits of its offset, and the
   * first candidate past each 4 GiB (they come in file order), where a column of 8-byte numbers was
   * 4 bytes a record more; and its length.
   */
  private offsetLow = new Uint32Array(1024);
  private readonly highFrom: number[] = [];
  length = new Int32Array(1024);
  /** `ScanFields.parentKind` (1: a hex id, its number in `parentHex`; OTHER_PARENT: another string, its reference in `ids` there). */
  parentKind = new Uint8Array(1024);
  parentHex = new Uint32Array(1024);
  flags = new Uint8Array(1024);
  readonly ids = new IdIndex(1024);
  /** The text of a split or joined record. */
  readonly texts = new Map<number, string>();
  /** Lines a joined record spans beyond its first. */
  readonly spans = new Map<number, number>();
  /** compaction firstKeptEntryId, label targetId, branch_summary fromId, with the entry's type. */
  readonly refs = new Map<number, { type: string; ref: string }>();
  /** Header candidates' values. */
  readonly headers = new Map<number, Record<string, unknown>>();
  /** Fixes to a kept record's id and parent. */
  readonly patches = new Map<number, Patch>();
  /** What each record is to the pairing rules (`Turn`), its calls' id hashes, a result's call id hash (none: no string id). */
  turn = new Uint8Array(1024);
  readonly callHashes = new NodeNumbers();
  /** Results' call id hashes by candidate, in candidate order (a map was some 40 bytes a result of V8's heap). */
  readonly resultHashes = new NodeNumbers();
  /** Each kept record's parent record, as the id phase settles it (-1: a root; the conversation phase takes it for its own). */
  parentK = new Int32Array(0);
  /** Records written after another record's line (a result moved back under its call): record -> records. */
  readonly after = new Map<number, number[]>();
  /** Records written in another place (`after`), not at their own line. */
  readonly moved = new Set<number>();
  /** Context edits (their target id, and what they do to the pairing rules). */
  readonly edits = new Map<number, { target: string; omit: boolean; calls: number[] }>();
  /** New records written right after a record's line (edits omitting results a context edit took the call from): record -> their text. */
  readonly inserted = new Map<number, string[]>();

  /** `estimate`: how many candidates the file will likely hold, asked when the columns are full. */
  constructor(private readonly estimate: () => number) {}

  add(index: number, offset: number, length: number, text: string | undefined, f: NodeIds, flags: number): number {
    if (this.count === this.length.length) this.grow(Math.max(this.count + 1024, this.estimate()));
    const k = this.count++;
    this.lines.push(index);
    if (offset >= 0) {
      while (offset >= (this.highFrom.length + 1) * 2 ** 32) this.highFrom.push(k);
      this.offsetLow[k] = offset % 2 ** 32;
    } else flags |= C_TEXT;
    this.length[k] = length;
    const other = f.parentKind === 1 && f.parentHex < 0;
    this.parentKind[k] = other ? OTHER_PARENT : f.parentKind;
    this.parentHex[k] = !other ? f.parentHex : f.parentIsUuid ? this.ids.refOf(undefined, f.parentWords) : f.parentId !== undefined ? this.ids.refOf(f.parentId) : NO_REF;
    this.flags[k] = flags;
    this.ids.add(f.idHex, f.id, f.idIsUuid ? f.idWords : undefined);
    if (text !== undefined) this.texts.set(k, text);
    return k;
  }

  /** The parent id as written (a string), or undefined for none, null or another value. */
  parentId(k: number): string | undefined {
    const kind = this.parentKind[k];
    return kind === 1 ? hexString(this.parentHex[k]!) : kind === OTHER_PARENT && this.parentHex[k] !== NO_REF ? this.ids.refString(this.parentHex[k]!) : undefined;
  }

  /**
   * Whether `k`'s parent id, as written, is candidate `p`'s own id, told by their numbers (a hex
   * id's, a UUID's slot) without making a string: false where that cannot tell (another id, a UUID
   * in another slot).
   */
  parentIsIdOf(k: number, p: number): boolean {
    const kind = this.parentKind[k];
    if (kind === 1) return this.ids.hexAt(p) === this.parentHex[k];
    const ref = this.parentHex[k]!;
    return kind === OTHER_PARENT && ref !== NO_REF && (ref & 1) === 0 && this.ids.uuidSlotAt(p) === ref >>> 1;
  }

  /** Whether the parent id is a string (hex or not). */
  parentIsString(k: number): boolean {
    return this.parentKind[k] === 1 || this.parentKind[k] === OTHER_PARENT;
  }

  /** Where whole-line record `k` lies in the file; -1 for a split or joined one, whose text is in `texts`. */
  offsetOf(k: number): number {
    if (this.flags[k]! & C_TEXT) return -1;
    let high = 0;
    while (high < this.highFrom.length && this.highFrom[high]! <= k) high++;
    return high * 2 ** 32 + this.offsetLow[k]!;
  }

  /** Candidate `k`'s 0-based first input line. */
  lineOf(k: number): number {
    return this.lines.at(k);
  }

  private grow(n: number): void {
    this.lines.reserve(n);
    this.offsetLow = grown(this.offsetLow, n, this.count);
    this.length = grown(this.length, n, this.count);
    this.parentKind = grown(this.parentKind, n, this.count);
    this.parentHex = grown(this.parentHex, n, this.count);
    this.flags = grown(this.flags, n, this.count);
    this.turn = grown(this.turn, n, this.count);
    this.ids.reserve(n);
  }
}

/** `Candidates.parentKind` of a parent id that is a string but not pi's hex. */
const OTHER_PARENT = 4;

/** `Candidates.parentHex` of an OTHER_PARENT whose string was not read. */
const NO_REF = 0xffffffff;

/** `Candidates.flags` bits. */
export const C_NORMALIZED = 1;

export const C_DROPPED = 2;

/** A message whose `message.role` is not a string (pi's loader crashes on it). */
export const C_BAD_MESSAGE = 4;

export const C_HEADER = 8;

/** A record split from a line or joined from several: its text is its own (`Candidates.texts`), it has no offset. */
const C_TEXT = 16;

function referenceOf(v: Record<string, unknown>): string | undefined {
  const r = v.type === "compaction" ? v.firstKeptEntryId : v.type === "label" ? v.targetId : v.type === "branch_summary" ? v.fromId : undefined;
  return typeof r === "string" ? r : undefined;
}

/** A parsed record as a candidate. */
export function addRecord(c: Candidates, v: SessionRecord, index: number, text: string | undefined, normalized: boolean, offset = -1, length = -1): number {
  const f = emptyFields();
  fieldsOf(v, f);
  const m = v.message as { role?: unknown } | null | undefined;
  const badMessage = v.type === "message" && !(!!m && typeof m === "object" && typeof m.role === "string");
  const k = c.add(index, offset, length, text, f, (normalized ? C_NORMALIZED : 0) | (badMessage ? C_BAD_MESSAGE : 0) | (v.type === "session" ? C_HEADER : 0));
  const ref = referenceOf(v);
  if (ref !== undefined) c.refs.set(k, { type: v.type, ref });
  noteTurn(c, k, v);
  if (v.type === "session") c.headers.set(k, v);
  return k;
}

/** A parsed record's part in the conversation (`Candidates.turn` and its hashes). */
function noteTurn(c: Candidates, k: number, v: Record<string, unknown>): void {
  const m = v.message as AgentMessage | null | undefined;
  const role = m && typeof m === "object" ? m.role : undefined;
  const unsent = v.type === "message" ? (role === "assistant" ? isSkippedTurn(m!) : role === "bashExecution" && !!m!.excludeFromContext) : v.type === "branch_summary" && !v.summary;
  c.turn[k] = turnOf(v.type as string, typeof role === "string" ? role : undefined, unsent);
  if (role === "assistant") for (const call of toolCallsOf(m!)) if (typeof call.id === "string") c.callHashes.add(k, idHash(call.id));
  if (role === "toolResult" && typeof m!.toolCallId === "string" && m!.toolCallId !== "") noteResult(c, k, idHash(m!.toolCallId));
  if (v.type === "context_edit") {
    const effect = editEffectOf(v as AnyEntry);
    if (effect) c.edits.set(k, effect);
  }
}

/** A scanned line's part in the conversation, from the scanner's fields (the line parsed only where they do not say). */
export function noteScannedTurn(c: Candidates, k: number, buffer: Buffer, start: number, end: number, f: ScanFields): void {
  if (f.type !== "message") {
    c.turn[k] = turnOf(f.type, undefined, false);
    return;
  }
  if (f.role === "assistant" && f.calls < 0) return noteTurn(c, k, JSON.parse(buffer.toString("utf8", start, end)) as Record<string, unknown>);
  const unsent = unsentMessage(buffer, start, f);
  c.turn[k] = turnOf(f.type, f.role, unsent);
  if (f.role === "assistant") for (let j = 0; j < f.calls; j++) c.callHashes.add(k, idHash(JSON.parse(buffer.toString("utf8", start + f.callOpen[j]! - 1, start + f.callClose[j]! + 1)) as string));
  if (f.role === "toolResult" && f.toolCallId !== undefined && f.toolCallId !== "") noteResult(c, k, idHash(f.toolCallId));
}

/** Candidate `k`'s result call id hash (candidates come in order; a candidate noted again keeps the last). */
function noteResult(c: Candidates, k: number, hash: number): void {
  const r = c.resultHashes;
  if (r.count > 0 && r.node[r.count - 1] === k) r.number[r.count - 1] = hash;
  else r.add(k, hash);
}

/** Types whose lines repair parses in full (few, and it needs their references or value). */
export const PARSED_TYPES = new Set(["compaction", "label", "branch_summary", "context_edit", "session"]);

export function shortHash(...parts: Array<string | number>): string {
  return crypto().createHash("sha256").update(parts.join(":")).digest("hex");
}

/** What planning a repair builds up, shared by its phases. */
export class RepairWork {
  readonly actions: RepairAction[] = [];
  readonly decisions = new Map<number, Decision>();
  /** The records the result will hold, in input order. */
  c!: Candidates;
  /** Records whose type is a pi `--mode json` event (`fileKindOf`). */
  events = 0;
  /** The last input line (0-based), and whether it ended with a newline. */
  lastIndex = -1;
  lastTerminated = true;
  /** A fresh id for a record added at `line` (unique in the file; set by the id phase). */
  freshId: (line: number, salt: number) => string = () => {
    throw new Error("no ids before the id phase");
  };

  constructor(readonly source: ByteSource) {}

  act(code: RepairCode, line: number, message: string): void {
    this.actions.push({ code, line, message, dropped: REPAIR_CODES[code].dropped });
  }

  drop(index: number): void {
    this.decisions.set(index, { kind: "drop" });
  }

  /** A candidate's own text, normalised: its `text`, else its line read again. */
  textOf(k: number): string {
    const c = this.c;
    return c.texts.get(k) ?? normalizeLine(this.source.read(c.offsetOf(k), c.length[k]!), c.lineOf(k) === 0).bytes.toString("utf8");
  }
}

/** What the header phase settles: the header candidate (-1: none), what goes on line 1, and the ids it decides. */
export interface HeaderOutcome {
  header: number;
  hv: Record<string, unknown> | undefined;
  headerLines: string[];
  /** A v1 file (ids and parents are not repaired). */
  legacy: boolean;
  sessionId: string;
  anyId: boolean;
}

