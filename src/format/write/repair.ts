import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { IdIndex } from "../read/ids.js";
import { grown, NodeNumbers } from "../read/line-table.js";
import { LineSalvager, normalizeLine, type SessionRecord } from "../read/salvage.js";
import { beginsSession, emptyFields, fieldsOf, hexString, scanLine, unsentMessage, Verdict, type ScanFields } from "../read/scanner.js";
import { idHash } from "../common/hash.js";
import { plural } from "../common/units.js";
import { isSkippedTurn, toolCallsOf } from "../context/send.js";
import { planConversation, type ConversationFix } from "./conversation.js";
import { Turn, turnOf } from "../context/pairing.js";
import { editEffectOf } from "../context/context.js";
import { rewriteLines, type RewriteOptions, type RewriteResult } from "./rewrite.js";
import { forEachLine, growthFor, readHead, type ByteSource } from "../read/source.js";
import { CURRENT_VERSION, fileKindOf, messageText, missingHeaderFields, PI_EVENT_TYPES, type AgentMessage, type AnyEntry, type FileKind } from "../schema/types.js";

/**
 * Repair (README, `repair`): every input line ends up in the repaired file, changed as little as possible,
 * or in the report as dropped, with its line number and a stable code. Pass one decides (line
 * level, then the tree); pass two writes through the shared rewriter, so the result (or its diff)
 * streams out and the original is never held whole.
 */

export type RepairCode =
  | "bom-removed"
  | "crlf-normalized"
  | "nul-removed"
  | "blank-dropped"
  | "newline-added"
  | "torn-dropped"
  | "fused-split"
  | "fragment-dropped"
  | "lines-joined"
  | "invalid-dropped"
  | "invalid-utf8-replaced"
  | "not-object-dropped"
  | "no-type-dropped"
  | "header-synthesized"
  | "header-completed"
  | "header-moved"
  | "header-duplicate-dropped"
  | "id-assigned"
  | "duplicate-dropped"
  | "id-renamed"
  | "parent-reattached"
  | "entry-dropped"
  | "reference-missing"
  | "result-removed"
  | "result-moved"
  | "compaction-kept-moved"
  | "result-omitted"
  | "conversation-left"
  | "session-split";

export interface RepairAction {
  code: RepairCode;
  /** 1-based input line. */
  line: number;
  message: string;
  /** true when the line's content is gone from the result. */
  dropped: boolean;
}

export const REPAIR_CODES: Record<RepairCode, { dropped: boolean }> = {
  "bom-removed": { dropped: false },
  "crlf-normalized": { dropped: false },
  "nul-removed": { dropped: false },
  "blank-dropped": { dropped: true },
  "newline-added": { dropped: false },
  "torn-dropped": { dropped: true },
  "fused-split": { dropped: false },
  "fragment-dropped": { dropped: true },
  "lines-joined": { dropped: false },
  "invalid-dropped": { dropped: true },
  "invalid-utf8-replaced": { dropped: false },
  "not-object-dropped": { dropped: true },
  "no-type-dropped": { dropped: true },
  "header-synthesized": { dropped: false },
  "header-completed": { dropped: false },
  "header-moved": { dropped: false },
  "header-duplicate-dropped": { dropped: true },
  "id-assigned": { dropped: false },
  "duplicate-dropped": { dropped: true },
  "id-renamed": { dropped: false },
  "parent-reattached": { dropped: false },
  "entry-dropped": { dropped: true },
  "reference-missing": { dropped: false },
  "result-removed": { dropped: true },
  "result-moved": { dropped: false },
  "compaction-kept-moved": { dropped: false },
  "result-omitted": { dropped: false },
  "conversation-left": { dropped: false },
  "session-split": { dropped: false },
};

/** A record of the result, as the writer makes it: the line's own text (or `text`), with `patch` applied. */
interface OutPiece {
  text?: string;
  patch?: Patch;
}

/** Fixes to a kept record: its id, its parent, a compaction's first kept entry. */
interface Patch {
  id?: string;
  parentId?: string | null;
  firstKeptEntryId?: string;
}

type Decision = { kind: "drop" } | { kind: "normalize" } | { kind: "pieces"; pieces: OutPiece[] };

export interface RepairPlan {
  actions: RepairAction[];
  /** Lines written before the first input line (a moved or synthesized header). */
  headerLines: string[];
  decisions: Map<number, Decision>;
  /** Whether the result differs from the input at all. */
  changed: boolean;
  keptRecords: number;
  /** What the file is (`fileKindOf`): repair mends sessions only. */
  fileKind: FileKind;
  /**
   * Later sessions concatenated into the file (`cat a.jsonl b.jsonl`), where each begins: a
   * repair that keeps them writes each to a file of its own (`splitSessions`); this plan is of the
   * whole file, as one.
   */
  laterSessions: SessionStart[];
}

/** Where a session concatenated after another begins: its header's line and byte offset, its id and time. */
export interface SessionStart {
  line: number;
  offset: number;
  id: string;
  timestamp: string | undefined;
}

/**
 * The records the result will hold, in columns (a gigabyte file has hundreds of thousands; their
 * values are not kept, the writer re-reads the lines): where each came from and the few fields
 * the tree pass needs. Ids live in an `IdIndex` whose node numbers are the candidates' numbers.
 */
class Candidates {
  count = 0;
  /** 0-based first input line. */
  index = new Int32Array(1024);
  /** Where a whole-line record lies in the file (-1 for a split or joined one, whose text is in `texts`). */
  offset = new Float64Array(1024);
  length = new Int32Array(1024);
  /** `ScanFields.parentKind` (1: a hex id, in `parentHex`; OTHER_PARENT: another string, in `parentOthers`). */
  parentKind = new Uint8Array(1024);
  parentHex = new Uint32Array(1024);
  flags = new Uint8Array(1024);
  readonly ids = new IdIndex(1024);
  readonly parentOthers = new Map<number, string>();
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
  readonly resultHashes = new Map<number, number>();
  /** Each kept record's parent record, as the id phase settles it (-1: a root). */
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

  add(index: number, offset: number, length: number, text: string | undefined, f: { idHex: number; id: string | undefined; parentKind: number; parentHex: number; parentId: string | undefined }, flags: number): number {
    if (this.count === this.index.length) this.grow(Math.max(this.count + 1024, this.estimate()));
    const k = this.count++;
    this.index[k] = index;
    this.offset[k] = offset;
    this.length[k] = length;
    const other = f.parentKind === 1 && f.parentHex < 0;
    this.parentKind[k] = other ? OTHER_PARENT : f.parentKind;
    this.parentHex[k] = other ? 0 : f.parentHex;
    if (other && f.parentId !== undefined) this.parentOthers.set(k, f.parentId);
    this.flags[k] = flags;
    this.ids.add(f.idHex, f.id);
    if (text !== undefined) this.texts.set(k, text);
    return k;
  }

  /** The parent id as written (a string), or undefined for none, null or another value. */
  parentId(k: number): string | undefined {
    const kind = this.parentKind[k];
    return kind === 1 ? hexString(this.parentHex[k]!) : kind === OTHER_PARENT ? this.parentOthers.get(k) : undefined;
  }

  /** Whether the parent id is a string (hex or not). */
  parentIsString(k: number): boolean {
    return this.parentKind[k] === 1 || this.parentKind[k] === OTHER_PARENT;
  }

  private grow(n: number): void {
    this.index = grown(this.index, n, this.count);
    this.offset = grown(this.offset, n, this.count);
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

/** `Candidates.flags` bits. */
const C_NORMALIZED = 1;
const C_DROPPED = 2;
/** A message whose `message.role` is not a string (pi's loader crashes on it). */
const C_BAD_MESSAGE = 4;
const C_HEADER = 8;

function refOf(v: Record<string, unknown>): string | undefined {
  const r = v.type === "compaction" ? v.firstKeptEntryId : v.type === "label" ? v.targetId : v.type === "branch_summary" ? v.fromId : undefined;
  return typeof r === "string" ? r : undefined;
}

/** A parsed record as a candidate. */
function addRecord(c: Candidates, v: SessionRecord, index: number, text: string | undefined, normalized: boolean, offset = -1, length = -1): number {
  const f = emptyFields();
  fieldsOf(v, f);
  const m = v.message as { role?: unknown } | null | undefined;
  const badMessage = v.type === "message" && !(!!m && typeof m === "object" && typeof m.role === "string");
  const k = c.add(index, offset, length, text, f, (normalized ? C_NORMALIZED : 0) | (badMessage ? C_BAD_MESSAGE : 0) | (v.type === "session" ? C_HEADER : 0));
  const ref = refOf(v);
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
  if (role === "toolResult" && typeof m!.toolCallId === "string" && m!.toolCallId !== "") c.resultHashes.set(k, idHash(m!.toolCallId));
  if (v.type === "context_edit") {
    const effect = editEffectOf(v as AnyEntry);
    if (effect) c.edits.set(k, effect);
  }
}

/** A scanned line's part in the conversation, from the scanner's fields (the line parsed only where they do not say). */
function noteScannedTurn(c: Candidates, k: number, buffer: Buffer, start: number, end: number, f: ScanFields): void {
  if (f.type !== "message") {
    c.turn[k] = turnOf(f.type, undefined, false);
    return;
  }
  if (f.role === "assistant" && f.calls < 0) return noteTurn(c, k, JSON.parse(buffer.toString("utf8", start, end)) as Record<string, unknown>);
  const unsent = unsentMessage(buffer, start, f);
  c.turn[k] = turnOf(f.type, f.role, unsent);
  if (f.role === "assistant") for (let j = 0; j < f.calls; j++) c.callHashes.add(k, idHash(JSON.parse(buffer.toString("utf8", start + f.callOpen[j]! - 1, start + f.callClose[j]! + 1)) as string));
  if (f.role === "toolResult" && f.toolCallId !== undefined && f.toolCallId !== "") c.resultHashes.set(k, idHash(f.toolCallId));
}

/** Types whose lines repair parses in full (few, and it needs their references or value). */
const PARSED_TYPES = new Set(["compaction", "label", "branch_summary", "context_edit", "session"]);

function shortHash(...parts: Array<string | number>): string {
  return createHash("sha256").update(parts.join(":")).digest("hex");
}

/** A synthesized header's values, and where each came from (said in the report). */
interface HeaderSources {
  id: string;
  timestamp: string;
  cwd: string;
  from: { id: string; timestamp: string; cwd: string };
}

/** How many sessions beside a file are read for the cwd they say. */
const SIBLINGS_READ = 64;

/**
 * The cwd the other sessions in `path`'s folder say (the most common), and how many say it: pi
 * keeps one project's sessions in one folder, whose name encodes the cwd lossily (`-` stands for
 * `/`, `\\` and `:`), so what the sessions themselves say is the better source.
 */
function siblingCwd(path: string): { cwd: string; count: number } | undefined {
  let names: string[];
  try {
    names = readdirSync(dirname(path)).filter((n) => n.endsWith(".jsonl") && n !== basename(path)).sort().slice(0, SIBLINGS_READ);
  } catch {
    return undefined;
  }
  const counts = new Map<string, number>();
  for (const name of names) {
    try {
      const head = readHead(join(dirname(path), name), 16 * 1024);
      const end = head.indexOf(0x0a);
      const value = JSON.parse(head.toString("utf8", 0, end < 0 ? head.length : end)) as { type?: unknown; cwd?: unknown };
      if (value.type === "session" && typeof value.cwd === "string") counts.set(value.cwd, (counts.get(value.cwd) ?? 0) + 1);
    } catch {
      // not a session, or its header longer than the read: it says nothing
    }
  }
  let best: { cwd: string; count: number } | undefined;
  for (const [cwd, count] of counts) if (!best || count > best.count) best = { cwd, count };
  return best;
}

/**
 * Where a synthesized header's fields come from: id and time from pi's file naming, else the
 * first entry (the id a hash of the file's name and that entry); the cwd from the other sessions
 * in the same folder, else the first entry, else the folder's name as pi encodes it, else the
 * folder itself.
 */
function headerSources(path: string, firstEntry: Record<string, unknown> | undefined, fallbackTime: number): HeaderSources {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z_(.+)\.jsonl$/.exec(basename(path));
  const encoded = /^--(.+)--$/.exec(basename(dirname(path)));
  const siblings = siblingCwd(path);
  const [cwd, cwdFrom] = siblings
    ? [siblings.cwd, `the ${plural(siblings.count, "other session")} in its folder`]
    : firstEntry && typeof firstEntry.cwd === "string"
      ? [firstEntry.cwd, "the first entry"]
      : encoded
        ? [`/${encoded[1]!.replace(/-/g, "/")}`, "the folder's name (pi's encoding of it is lossy)"]
        : [dirname(path), "the file's folder"];
  const h = shortHash(basename(path), JSON.stringify(firstEntry ?? null));
  const id = m ? m[6]! : `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  const [timestamp, timeFrom] = m ? [`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`, "the file name"] : typeof firstEntry?.timestamp === "string" ? [firstEntry.timestamp, "the first entry"] : [new Date(fallbackTime).toISOString(), "the file's modification time"];
  return { id, timestamp, cwd, from: { id: m ? "the file name" : "a hash of the file's name and first entry", timestamp: timeFrom, cwd: cwdFrom } };
}

/** The header to write when none can be found (see `headerSources`). */
export function synthesizeHeader(path: string, firstEntry: Record<string, unknown> | undefined, hasIds: boolean, fallbackTime: number): Record<string, unknown> {
  return synthesized(path, firstEntry, hasIds, fallbackTime).header;
}

function synthesized(path: string, firstEntry: Record<string, unknown> | undefined, hasIds: boolean, fallbackTime: number): { header: Record<string, unknown>; sources: HeaderSources } {
  const header: Record<string, unknown> = { type: "session" };
  if (hasIds) header.version = CURRENT_VERSION;
  const sources = headerSources(path, firstEntry, fallbackTime);
  return { header: Object.assign(header, { id: sources.id, timestamp: sources.timestamp, cwd: sources.cwd }), sources };
}

/** What planning a repair builds up, shared by its phases. */
class RepairWork {
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
    return c.texts.get(k) ?? normalizeLine(this.source.read(c.offset[k]!, c.length[k]!), c.index[k] === 0).bytes.toString("utf8");
  }
}

/** What the header phase settles: the header candidate (-1: none), what goes on line 1, and the ids it decides. */
interface HeaderOutcome {
  header: number;
  hv: Record<string, unknown> | undefined;
  headerLines: string[];
  /** A v1 file (ids and parents are not repaired). */
  legacy: boolean;
  sessionId: string;
  anyId: boolean;
}

/**
 * Plans the repair of `source` (no index of the session is built first: a line's own scan tells
 * all repair needs), in phases: every line made records or dropped by the salvage rule
 * (`readCandidates`), the header (`settleHeader`), entries pi's loader would crash on dropped,
 * ids, duplicates and parents (`settleIds`), then what each input line becomes (`decideLines`).
 * `mtimeMs` dates a synthesized header as a last resort.
 */
export function planRepair(source: ByteSource, mtimeMs = Date.now()): RepairPlan {
  const work = new RepairWork(source);
  readCandidates(work);
  const head = settleHeader(work, mtimeMs);
  const c = work.c;
  // Entries pi's loader would crash on go, whatever the version.
  for (let k = 0; k < c.count; k++) {
    if (c.flags[k]! & C_BAD_MESSAGE) {
      work.act("entry-dropped", c.index[k]! + 1, "a message entry without `message.role` (pi's loader crashes on it)");
      c.flags[k]! |= C_DROPPED;
    }
  }
  // Entries (v2/v3): ids, duplicates, parents; v1 files are repaired at line level only.
  if (!head.legacy) settleIds(work, head.sessionId);
  settleConversation(work, head.legacy);
  const keptRecords = decideLines(work, head);
  work.actions.sort((a, b) => a.line - b.line);
  foldCrlf(work.actions);
  const fileKind = fileKindOf({ header: head.hv !== undefined, entryWithId: head.anyId, events: work.events });
  return { actions: work.actions, headerLines: head.headerLines, decisions: work.decisions, changed: head.headerLines.length > 0 || work.decisions.size > 0, keptRecords, fileKind, laterSessions: laterSessions(work, head.header) };
}

/**
 * The sessions that begin after the first: a later header on a line of its own that `beginsSession`
 * (the rule `check` applies). A later header followed by an entry with a parent continues the session.
 */
function laterSessions(work: RepairWork, header: number): SessionStart[] {
  const { c } = work;
  const out: SessionStart[] = [];
  if (header < 0) return out;
  let last = c.headers.get(header)!.id;
  for (let k = header + 1; k + 1 < c.count; k++) {
    if (!(c.flags[k]! & C_HEADER) || c.offset[k]! < 0) continue;
    const v = c.headers.get(k)!;
    const next = k + 1;
    if (c.flags[next]! & C_HEADER || !beginsSession(v.id, last, c.parentKind[next]!)) continue;
    out.push({ line: c.index[k]! + 1, offset: c.offset[k]!, id: v.id, timestamp: typeof v.timestamp === "string" ? v.timestamp : undefined });
    last = v.id;
  }
  return out;
}

/** CR LF ends made LF, said once (at the first line, with how many): a Windows file has one on every line. */
function foldCrlf(actions: RepairAction[]): void {
  const lines = actions.filter((a) => a.code === "crlf-normalized").map((a) => a.line);
  if (lines.length < 2) return;
  const first = actions.findIndex((a) => a.code === "crlf-normalized");
  const message = `CRLF line ends made LF on ${lines.length} lines (lines ${lines.slice(0, 5).join(", ")}${lines.length > 5 ? ", …" : ""})`;
  const rest = actions.filter((a, i) => i === first || a.code !== "crlf-normalized");
  rest[rest.indexOf(actions[first]!)] = { ...actions[first]!, message };
  actions.splice(0, actions.length, ...rest);
}

/** Phase one, line by line: every line becomes records (candidates) or is dropped, by the salvage rule. */
function readCandidates(work: RepairWork): void {
  const { source } = work;
  const act = work.act.bind(work);
  const drop = work.drop.bind(work);
  let at = 0;
  const c = (work.c = new Candidates((): number => growthFor(c.count, at, source.size)));
  const fields = emptyFields();
  const salvager = new LineSalvager((o) => {
    switch (o.kind) {
      case "joined": {
        act("lines-joined", o.first + 1, `lines ${o.first + 1}-${o.last + 1} were one record split by a raw newline`);
        for (let i = o.first + 1; i <= o.last; i++) drop(i);
        const k = addRecord(c, o.value, o.first, o.text, false);
        c.spans.set(k, o.last - o.first);
        return;
      }
      case "blank":
        drop(o.index);
        act("blank-dropped", o.index + 1, "a blank line");
        return;
      case "pieces": {
        const line = o.index + 1;
        if (o.records.length === 0) {
          drop(o.index);
          if (!o.terminated) act("torn-dropped", line, "the last line was cut off mid-record");
          else act("invalid-dropped", line, "not JSON, and no record could be recovered from it");
          return;
        }
        const kept = o.records.length;
        act("fused-split", line, kept === 1 ? "kept the record that follows a torn write, on a line of its own" : `${kept} records on one line, each put on a line of its own`);
        for (const f of o.fragments) act("fragment-dropped", line, `dropped a torn fragment (${f.length} characters) from the line`);
        for (const r of o.records) addRecord(c, r.value, o.index, r.text, false);
        return;
      }
    }
  });
  forEachLine(source, (buffer, start, end, line, offset, terminated) => {
    const index = line - 1;
    at = offset;
    work.lastIndex = index;
    work.lastTerminated = terminated;
    const length = end - start;
    // Most lines: the validating scanner reads the few fields needed, no JSON.parse, no copy. (A
    // trailing CR is whitespace to it; a BOM or a NUL makes it say no, and the line is normalised.)
    const bomHere = index === 0 && length >= 3 && buffer[start] === 0xef && buffer[start + 1] === 0xbb && buffer[start + 2] === 0xbf;
    if (!bomHere && scanLine(buffer, fields, start, end) === Verdict.Valid && fields.object && fields.type !== undefined && !PARSED_TYPES.has(fields.type)) {
      const cr = length > 0 && buffer[end - 1] === 13;
      const badUtf8 = !fields.ascii && !isUtf8(buffer.subarray(start, cr ? end - 1 : end));
      if (cr) act("crlf-normalized", line, "CRLF line end made LF");
      salvager.flush();
      if (PI_EVENT_TYPES.has(fields.type)) work.events++;
      const bad = fields.type === "message" && fields.role === undefined;
      const k = c.add(index, offset, length, undefined, fields, (cr || badUtf8 ? C_NORMALIZED : 0) | (bad ? C_BAD_MESSAGE : 0));
      noteScannedTurn(c, k, buffer, start, end, fields);
      if (badUtf8) act("invalid-utf8-replaced", line, "bytes that are not UTF-8 written as U+FFFD, as pi reads them");
      return;
    }
    const { normalized: n, cls, held } = salvager.classify(index, buffer.subarray(start, end), index === 0, terminated);
    if (n.bom) act("bom-removed", line, "removed the UTF-8 byte-order mark");
    if (n.cr) act("crlf-normalized", line, "CRLF line end made LF");
    if (n.nul) act("nul-removed", line, "removed NUL bytes");
    if (held) return; // a broken line, or a blank one inside a run: its fate is the run's
    if (cls?.kind === "blank") {
      drop(index);
      act("blank-dropped", line, n.nul ? "a line of NUL bytes" : "a blank line");
      return;
    }
    if (cls?.kind !== "record") {
      drop(index);
      if (cls === undefined) act("invalid-dropped", line, "the line is too long to read as text");
      else if (cls.kind === "not-object") act("not-object-dropped", line, "JSON that is not an object");
      else act("no-type-dropped", line, "an object without `type`");
      return;
    }
    const badUtf8 = !isUtf8(n.bytes);
    if (PI_EVENT_TYPES.has(cls.value.type)) work.events++;
    addRecord(c, cls.value, index, undefined, n.bom || n.cr || n.nul || badUtf8, offset, length);
    if (badUtf8) act("invalid-utf8-replaced", line, "bytes that are not UTF-8 written as U+FFFD, as pi reads them");
  });
  salvager.flush();
}

/**
 * Phase two: the header. The first one goes to line 1 (completed if it lacks a string id,
 * timestamp or cwd), later ones are dropped; none: one is synthesized from the file's name and
 * folder, else from the entries.
 */
function settleHeader(work: RepairWork, mtimeMs: number): HeaderOutcome {
  const { c, source } = work;
  const isHeader = (k: number) => (c.flags[k]! & C_HEADER) !== 0;
  let header = -1;
  let firstEntry = -1;
  let anyId = false;
  for (let k = 0; k < c.count; k++) {
    if (isHeader(k)) {
      if (header < 0) header = k;
      else {
        c.flags[k]! |= C_DROPPED;
        work.act("header-duplicate-dropped", c.index[k]! + 1, "a second session header");
      }
      continue;
    }
    if (firstEntry < 0) firstEntry = k;
    if (c.ids.has(k)) anyId = true;
  }
  const hv = header >= 0 ? c.headers.get(header)! : undefined;
  const legacy = hv ? typeof hv.version !== "number" || (hv.version as number) < 2 : !anyId;
  const headerLines: string[] = [];
  const firstValue = () => (firstEntry >= 0 ? (JSON.parse(work.textOf(firstEntry)) as Record<string, unknown>) : undefined);
  let sessionId = typeof hv?.id === "string" ? hv.id : "";
  if (!hv) {
    const { header: made, sources } = synthesized(source.name, firstValue(), !legacy, mtimeMs);
    sessionId = String(made.id);
    headerLines.push(JSON.stringify(made));
    work.act("header-synthesized", 1, `no header: synthesized one (id ${sources.id} from ${sources.from.id}, timestamp ${sources.timestamp} from ${sources.from.timestamp}, cwd ${sources.cwd} from ${sources.from.cwd})`);
  } else {
    const missing = missingHeaderFields(hv);
    if (header !== 0 || c.texts.has(header) || missing.length > 0) {
      let text = work.textOf(header);
      if (missing.length > 0) {
        // Assigning keeps a key where it was; a new key goes last.
        const value = JSON.parse(text) as Record<string, unknown>;
        const sources = headerSources(source.name, firstValue(), mtimeMs);
        for (const k of missing) value[k] = sources[k];
        sessionId = String(value.id);
        text = JSON.stringify(value);
        work.act("header-completed", c.index[header]! + 1, `the header had no string ${missing.map((k) => `\`${k}\``).join(", ")}: ${missing.map((k) => `${k} ${sources[k]} from ${sources.from[k]}`).join(", ")}`);
      }
      headerLines.push(text);
      c.flags[header]! |= C_DROPPED; // written at the top instead
      if (header !== 0) work.act("header-moved", c.index[header]! + 1, "the header moved to line 1");
    }
  }
  return { header, hv, headerLines, legacy, sessionId, anyId };
}

/**
 * Phase three (v2 and v3 files): every kept entry gets an id of its own (a missing one assigned, a
 * duplicate of a different entry renamed, an exact repeat dropped) and a parent that an
 * append-only writer could have written (an earlier kept entry; else the entry before). Then
 * references that point nowhere are reported (they are kept).
 */
function settleIds(work: RepairWork, sessionId: string): void {
  const { c } = work;
  const act = work.act.bind(work);
  const isHeader = (k: number) => (c.flags[k]! & C_HEADER) !== 0;
  c.ids.seal();
  // What each candidate holds once it is kept: its own id (HOLDS), or a fresh one (`freshHolder`).
  const holds = new Uint8Array(c.count);
  const freshHolder = new Map<string, number>();
  /** The last kept candidate before `k` that holds `id`, or -1. */
  const holderBefore = (id: string, k: number): number => {
    const fresh = freshHolder.get(id);
    if (fresh !== undefined) return fresh < k ? fresh : -1;
    const holders = c.ids.duplicates.get(id) ?? [c.ids.findString(id)];
    for (let j = holders.length - 1; j >= 0; j--) {
      const h = holders[j]!;
      if (h >= 0 && h < k && holds[h]) return h;
    }
    return -1;
  };
  const renamed = new Map<string, string>();
  const taken = new Set<string>(); // ids handed out here
  const known = (id: string) => c.ids.findString(id) >= 0 || taken.has(id);
  // The entry kept last (its candidate, and its id if it was given a fresh one): its id string
  // is made only when a message or a patch needs it.
  let prevKept = -1;
  let prevFresh: string | undefined;
  let prevId: string | null = null;
  let prevIdStale = false;
  const previousId = (): string | null => {
    if (prevIdStale) {
      prevId = prevFresh ?? c.ids.idOf(prevKept) ?? null;
      prevIdStale = false;
    }
    return prevId;
  };
  const noDuplicates = c.ids.duplicates.size === 0;
  const fresh = (line: number, k: number) => {
    for (let attempt = 0; ; attempt++) {
      const id = shortHash(sessionId, line, k, attempt).slice(0, 8);
      if (!known(id)) {
        taken.add(id);
        return id;
      }
    }
  };
  work.freshId = fresh;
  const parentK = (c.parentK = new Int32Array(c.count).fill(-1));
  let entryNumber = -1;
  for (let k = 0; k < c.count; k++) {
    if (isHeader(k)) continue;
    entryNumber++;
    if (c.flags[k]! & C_DROPPED) continue;
    // Most entries: a hex id held by no other, and the entry kept before as parent. Nothing to
    // fix, and nothing to make a string of.
    const hex = c.ids.hexAt(k);
    if (noDuplicates && hex >= 0 && c.parentKind[k] === 1 && prevKept >= 0 && prevFresh === undefined && c.ids.hexAt(prevKept) === c.parentHex[k]) {
      holds[k] = 1;
      parentK[k] = prevKept;
      prevKept = k;
      prevIdStale = true;
      continue;
    }
    const prevId = previousId();
    const line = c.index[k]! + 1;
    const patch: { id?: string; parentId?: string | null } = {};
    let id = c.ids.idOf(k);
    let parentId: string | null | undefined = c.parentKind[k] === 2 ? null : c.parentId(k);
    let own = true;
    if (id === undefined) {
      id = patch.id = fresh(line, entryNumber);
      own = false;
      if (typeof parentId !== "string") parentId = patch.parentId = prevId;
      act("id-assigned", line, `no id: given ${id}, parent ${String(parentId)}`);
    } else if (c.ids.duplicates.has(id) || freshHolder.has(id)) {
      const holder = holderBefore(id, k);
      if (holder >= 0) {
        // The same id again: an exact repeat goes; a different entry gets an id of its own.
        if (work.textOf(holder) === work.textOf(k)) {
          act("duplicate-dropped", line, `an exact repeat of entry ${id}`);
          c.flags[k]! |= C_DROPPED;
          continue;
        }
        const old = id;
        id = patch.id = fresh(line, entryNumber);
        own = false;
        renamed.set(old, id);
        act("id-renamed", line, `id ${old} was already used by another entry: now ${id}`);
      }
    }
    if (parentId !== null) {
      const target: string | undefined = typeof parentId === "string" ? (renamed.get(parentId) ?? parentId) : undefined;
      // (the entry before, most often: held, without looking)
      if (target === undefined || target === id || (target !== prevId && holderBefore(target, k) < 0)) {
        const why = target === undefined ? "no parentId" : target === id ? "it was its own parent" : known(target) ? `parent ${target} comes later in the file` : `parent ${target} does not exist`;
        patch.parentId = prevId;
        parentK[k] = prevKept;
        act("parent-reattached", line, `${why}: re-attached to ${prevId === null ? "nothing (a root)" : prevId}`);
      } else {
        if (target !== parentId) patch.parentId = target;
        parentK[k] = target === prevId ? prevKept : holderBefore(target, k);
      }
    }
    if (patch.id !== undefined || "parentId" in patch) c.patches.set(k, patch);
    if (own) holds[k] = 1;
    else freshHolder.set(id, k);
    prevKept = k;
    prevFresh = own ? undefined : id;
    prevIdStale = true;
  }
  // References that point nowhere stay, reported.
  for (const [k, { type, ref }] of c.refs) {
    if (!(c.flags[k]! & C_DROPPED) && holderBefore(ref, c.count) < 0 && ref !== "root" && ref !== (c.patches.get(k)?.id ?? c.ids.idOf(k))) {
      act("reference-missing", c.index[k]! + 1, `${type} points to ${ref}, which does not exist (kept)`);
    }
  }
}

/**
 * Phase four (v2 and v3 files): the conversation (`planConversation`), on the tree phase three
 * leaves: results a provider refuses removed or moved back under their call, compactions made to
 * keep whole turns. Each fix is an action of the report, with the call id and the result's text.
 */
function settleConversation(work: RepairWork, legacy: boolean): void {
  const { c } = work;
  const records: number[] = [];
  const recordOf = new Int32Array(c.count).fill(-1);
  let results = 0;
  for (let k = 0; k < c.count; k++) {
    if (c.flags[k]! & (C_DROPPED | C_HEADER)) continue;
    recordOf[k] = records.length;
    records.push(k);
    if (c.turn[k] === Turn.Result) results++;
  }
  if (results === 0) return;
  // (a v1 file is one branch: each record's parent is the one before)
  const parent = new Int32Array(records.length);
  for (let r = 0; r < records.length; r++) {
    const p = legacy ? -2 : c.parentK[records[r]!]!;
    parent[r] = p === -2 ? r - 1 : p >= 0 ? recordOf[p]! : -1;
  }
  // calls by record (candidates add them in candidate order; a dropped candidate's are left out)
  const callStart = new Int32Array(records.length + 1);
  for (let j = 0; j < c.callHashes.count; j++) {
    const r = recordOf[c.callHashes.node[j]!]!;
    if (r >= 0) callStart[r + 1]!++;
  }
  for (let r = 0; r < records.length; r++) callStart[r + 1]! += callStart[r]!;
  const hashes = new Float64Array(callStart[records.length]!);
  for (let j = 0, at = 0; j < c.callHashes.count; j++) if (recordOf[c.callHashes.node[j]!]! >= 0) hashes[at++] = c.callHashes.number[j]!;
  const idOf = (k: number): string | undefined => c.patches.get(k)?.id ?? c.ids.idOf(k);
  /** The records holding `id` under it (a renamed one holds its new id). */
  const holdersOf = (id: string): number[] => {
    const holders = c.ids.duplicates.get(id) ?? [c.ids.findString(id)];
    return holders.filter((h) => h >= 0 && recordOf[h]! >= 0 && c.patches.get(h)?.id === undefined).map((h) => recordOf[h]!);
  };
  const plan = planConversation({
    size: records.length,
    parent,
    turn: (r) => c.turn[records[r]!]! as Turn,
    callStart: (r) => callStart[r]!,
    callHash: (slot) => hashes[slot]!,
    resultHash: (r) => c.resultHashes.get(records[r]!) ?? NaN,
    keptFrom: (r) => {
      const k = records[r]!;
      if (legacy) return -1; // (a v1 compaction keeps by index: what migrate turns into an id)
      const ref = c.refs.get(k);
      if (!ref || ref.type !== "compaction") return -1;
      const holders = c.ids.duplicates.get(ref.ref) ?? [c.ids.findString(ref.ref)];
      for (let j = holders.length - 1; j >= 0; j--) {
        const h = holders[j]!;
        if (h >= 0 && h < k && recordOf[h]! >= 0 && c.patches.get(h)?.id === undefined) return recordOf[h]!;
      }
      return -1;
    },
    edit: (r) => {
      const e = c.edits.get(records[r]!);
      return e && !legacy ? { targets: holdersOf(e.target), omit: e.omit, calls: e.calls } : undefined;
    },
  });
  if (legacy) {
    // v1 entries have no ids to re-attach by: said, to be mended once the file is migrated
    for (const fix of plan.fixes) reportFix(work, { ...fix, action: "left" }, records, idOf, "a v1 file: run `pi-session migrate FILE`, then repair it");
    return;
  }
  const patch = (k: number): Patch => {
    let p = c.patches.get(k);
    if (!p) c.patches.set(k, (p = {}));
    return p;
  };
  // (each edit added: an omission as pi's appendContextEdit writes it, timed as the edit it follows)
  const addedIds = plan.added.map((a, j) => work.freshId(c.index[records[a.after]!]! + 1, -1 - j));
  const recordId = (p: number): string | null => (p < 0 ? null : p >= records.length ? addedIds[p - records.length]! : (idOf(records[p]!) ?? null));
  for (const [r, p] of plan.parents) patch(records[r]!).parentId = recordId(p);
  for (const [r, list] of plan.after) {
    c.after.set(records[r]!, list.map((m) => records[m]!));
    for (const m of list) c.moved.add(records[m]!);
  }
  for (const [r, to] of plan.keptFrom) patch(records[r]!).firstKeptEntryId = idOf(records[to < 0 ? r : to]!);
  for (const [e, o] of plan.omissions) {
    const k = records[e]!;
    const timestamp = (JSON.parse(work.textOf(k)) as { timestamp?: unknown }).timestamp;
    let parentId = idOf(k) ?? null;
    const texts: string[] = [];
    for (const [j, a] of plan.added.entries()) {
      if (a.after !== e) continue;
      texts.push(JSON.stringify({ type: "context_edit", id: addedIds[j], parentId, timestamp, targetId: idOf(records[a.target]!), replacement: null }));
      parentId = addedIds[j]!;
    }
    c.inserted.set(k, texts);
    for (const ch of o.children) patch(records[ch]!).parentId = parentId;
  }
  for (const fix of plan.fixes) reportFix(work, fix, records, idOf, "moving it would change the session's current leaf");
  for (const r of plan.removed) c.flags[records[r]!]! |= C_DROPPED;
}

/** A conversation fix as an action of the report: the line, the entry, the call id, the start of the result's text. */
function reportFix(work: RepairWork, fix: ConversationFix, records: readonly number[], idOf: (k: number) => string | undefined, whyLeft: string): void {
  const { c } = work;
  const f = fix.finding;
  const result = f.resultNode >= 0 ? records[f.resultNode]! : -1;
  const value = result >= 0 ? (JSON.parse(work.textOf(result)) as { message?: AgentMessage }).message : undefined;
  const callId = value && typeof value.toolCallId === "string" ? value.toolCallId : undefined;
  const text = value ? messageText(value).replace(/\s+/g, " ").trim() : "";
  const quoted = text.length > 0 ? `, "${text.length > 48 ? `${text.slice(0, 47)}…` : text}"` : "";
  const what = result >= 0 ? `the result for \`${callId ?? ""}\` (entry ${idOf(result) ?? "without id"}${quoted})` : "";
  const lineOf = (r: number) => c.index[records[r]!]! + 1;
  const line = fix.action === "kept-from" ? lineOf(f.node) : result >= 0 ? c.index[result]! + 1 : lineOf(f.node);
  const why: Record<typeof f.kind, string> = {
    lost: "no call for it above it on its branch",
    "skipped-turn": `its call is in an assistant turn pi does not send (line ${f.callNode >= 0 ? lineOf(f.callNode) : "?"})`,
    duplicate: `its call (line ${f.callNode >= 0 ? lineOf(f.callNode) : "?"}) was already answered`,
    "no-id": `its toolCallId is ${callId === undefined ? "missing or not a string" : "empty"}`,
    displaced: "a message stood between them",
    edited: `the context edit on line ${f.cause >= 0 ? lineOf(f.cause) : "?"} takes its call away`,
    "kept-result": "",
    unanswered: "",
  };
  switch (fix.action) {
    case "removed":
      work.act("result-removed", line, `removed ${what}: ${why[f.kind]}`);
      break;
    case "moved":
      work.act("result-moved", line, `moved ${what} back under its call (line ${lineOf(f.callNode)}), after line ${lineOf(fix.to)}: ${why[f.kind]}`);
      break;
    case "kept-from": {
      const to = fix.to < 0 ? f.node : fix.to;
      work.act("compaction-kept-moved", line, `the compaction kept from ${what}, without its call: it now keeps from entry ${idOf(records[to]!) ?? "?"} (line ${lineOf(to)})${fix.to >= 0 && f.callNode === fix.to ? ", the turn holding the call" : ""}`);
      break;
    }
    case "omitted":
      work.act("result-omitted", lineOf(fix.to), `added an edit omitting ${what} right after this edit: ${f.cause === fix.to ? "it" : `the edit on line ${lineOf(f.cause)}`} takes away its call (line ${lineOf(f.callNode)}), and pi then sends neither on any branch below`);
      break;
    case "left":
      work.act("conversation-left", line, `left ${what || "the compaction"} as it is (${why[f.kind] || "its kept part starts at a result"}): ${whyLeft}`);
      break;
  }
}

/**
 * Phase five: what each input line becomes (candidates come in line order): kept as it is,
 * normalised, dropped, or the records it holds written again (split, joined, patched). Returns how
 * many records the result holds.
 */
function decideLines(work: RepairWork, head: HeaderOutcome): number {
  const { c, decisions } = work;
  let keptRecords = head.hv || head.headerLines.length > 0 ? 1 : 0;
  // Lines that keep a record, marked only when a joined record's other lines need the answer (a
  // byte a line: a set of a million numbers would hold ~40 bytes each).
  const linesWithRecords = c.spans.size > 0 ? new Uint8Array(work.lastIndex + 1) : undefined;
  for (let k = 0; k < c.count; ) {
    const index = c.index[k]!;
    let end = k + 1;
    while (end < c.count && c.index[end] === index) end++;
    // (most lines hold one candidate, kept as it is: decided without an array)
    if (end === k + 1 && !(c.flags[k]! & C_DROPPED) && !c.texts.has(k) && !c.patches.has(k) && !c.moved.has(k) && !c.after.has(k) && !c.inserted.has(k)) {
      if (k !== head.header) keptRecords++;
      if (linesWithRecords) linesWithRecords[index] = 1;
      if (c.flags[k]! & C_NORMALIZED) decisions.set(index, { kind: "normalize" });
      k = end;
      continue;
    }
    // (a record moved elsewhere is written after its new parent's line instead; records moved
    // after one of this line's are written with it)
    const kept: number[] = [];
    for (let j = k; j < end; j++) {
      if (c.flags[j]! & C_DROPPED || c.moved.has(j)) continue;
      kept.push(j);
      for (const m of c.after.get(j) ?? []) kept.push(m);
    }
    keptRecords += kept.filter((j) => j !== head.header).length;
    if (kept.length === 0) work.drop(index); // none kept: dropped entries, a header moved up, fused lines of dropped records
    else {
      if (linesWithRecords) linesWithRecords[index] = 1;
      const pieces: OutPiece[] = [];
      for (const j of kept) {
        pieces.push({ ...(c.texts.has(j) ? { text: c.texts.get(j)! } : c.moved.has(j) ? { text: work.textOf(j) } : {}), ...(c.patches.has(j) ? { patch: c.patches.get(j)! } : {}) });
        for (const text of c.inserted.get(j) ?? []) {
          pieces.push({ text });
          keptRecords++;
        }
      }
      decisions.set(index, { kind: "pieces", pieces });
    }
    k = end;
  }
  // a joined record's other lines
  for (const [k, span] of c.spans) for (let extra = 1; extra <= span; extra++) if (!linesWithRecords![c.index[k]! + extra]) work.drop(c.index[k]! + extra);
  // A valid last line without its newline gets one.
  const last = work.lastIndex;
  if (last >= 0 && !work.lastTerminated && !decisions.has(last)) {
    decisions.set(last, { kind: "normalize" });
    work.act("newline-added", last + 1, "added the missing final newline");
  } else if (last >= 0 && !work.lastTerminated && decisions.get(last)?.kind !== "drop") {
    work.act("newline-added", last + 1, "added the missing final newline");
  }
  return keptRecords;
}

/** Writes the repaired file (or only its diff) in one pass over the input. */
export function writeRepair(source: ByteSource, plan: RepairPlan, write: ((chunk: string | Uint8Array) => void) | undefined, options: Pick<RewriteOptions, "diff"> = {}): RewriteResult {
  return rewriteLines(
    source,
    (index, bytes) => {
      const d = plan.decisions.get(index);
      if (!d) return null;
      if (d.kind === "drop") return [];
      const own = () => normalizeLine(bytes, index === 0).bytes.toString("utf8");
      if (d.kind === "normalize") return [own()];
      return d.pieces.map((p) => {
        const text = p.text ?? own();
        if (!p.patch) return text;
        // Assigning keeps a key where it was; a new key goes last (as pi's own mutations leave it).
        const value = JSON.parse(text) as Record<string, unknown>;
        if ("id" in p.patch) value.id = p.patch.id;
        if ("parentId" in p.patch) value.parentId = p.patch.parentId;
        if (p.patch.firstKeptEntryId !== undefined) value.firstKeptEntryId = p.patch.firstKeptEntryId;
        return JSON.stringify(value);
      });
    },
    write,
    { ...options, before: (index) => (index === 0 ? plan.headerLines : []) },
  );
}
