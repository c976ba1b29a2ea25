import { finding, type Finding } from "./findings.js";
import { rootCauses } from "./causes.js";
import { idHash } from "../common/hash.js";
import { NodeNumbers, type LineRecord } from "../read/line-table.js";
import { LineFlag } from "../read/salvage.js";
import type { LineSalvage, OpenOptions, Session } from "../session/session.js";
import { plural } from "../common/units.js";
import { CURRENT_VERSION, KNOWN_ENTRY_TYPES, KNOWN_ROLES, missingHeaderFields, type AgentMessage, type AnyEntry } from "../schema/types.js";
import { PAIRING_WORDS, seekNode, turnOf, Turn, type EditEffect, type PairingFinding, type PairingInput } from "../context/pairing.js";
import { pairingFindings } from "../context/pairing-walk.js";
import { isSkippedTurn, toolCallsOf } from "../context/send.js";
import { editEffectOf } from "../context/context.js";
import type { TextClass } from "../read/salvage.js";

/**
 * Checks that need only pass one's line table, cheap enough for `ls` and `tree`: required fields,
 * unknown types and roles, and the harness's leaf targets. Every error code is found here or in
 * `treeFindings`, so a scan-only command reports the same errors as `check`.
 */
function recordFindings(session: Session): Finding[] {
  const out: Finding[] = [];
  const legacy = session.version < 2;
  // Read from the columns, not a record per node: most nodes have nothing to report, and this runs
  // for every session `ls` lists.
  const report = (node: number, code: Parameters<typeof finding>[0], message: string) => {
    const id = session.nodeId(node);
    out.push(finding(code, message, { line: session.nodeLine(node), ...(id !== undefined ? { entryId: id } : {}) }));
  };
  for (let node = 0; node < session.tree.size; node++) {
    const flags = session.nodeFlags(node);
    if (flags & LineFlag.NO_TYPE) continue; // reported as entry-no-type
    if (!legacy) {
      if (!session.nodeHasId(node)) report(node, "entry-missing-id", "the entry has no string `id`");
      if (!(flags & LineFlag.HAS_PARENT_KEY)) report(node, "entry-missing-parent", "the entry has no `parentId`");
    }
    if (!(flags & LineFlag.HAS_TIME)) report(node, "entry-missing-timestamp", "the entry has no `timestamp`");
    const type = session.nodeType(node);
    if (!KNOWN_ENTRY_TYPES.has(type!)) report(node, "entry-unknown-type", `unknown entry type \`${type}\``);
    if (type === "message") {
      const role = session.nodeKind(node).role;
      if (role === undefined) report(node, "message-invalid", "a message entry without `message.role`");
      else if (!KNOWN_ROLES.has(role)) report(node, "message-unknown-role", `unknown message role \`${role}\``);
    }
  }
  for (const move of session.leafMoves) {
    if (move.target !== null && session.nodeOf(move.target) === undefined) {
      out.push(finding("leaf-target-missing", `targetId \`${move.target}\` does not exist`, { line: move.line }));
    }
  }
  return out;
}

/** Line, record and tree findings: everything a scan-only read can say, in line order, each under its root cause (`rootCauses`). */
export function quickFindings(session: Session): Finding[] {
  const whole = notASession(session);
  if (whole) return [whole];
  return sortByLine(rootCauses(session, scanFindings(session)));
}

function scanFindings(session: Session): Finding[] {
  return [...lineFindings(session), ...recordFindings(session), ...treeFindings(session)];
}

/**
 * The one finding for a file that holds no session, or undefined: an empty file, pi's `--mode json`
 * event stream, another JSONL file (or no JSON at all). Nothing in it is a session's problem, so
 * nothing else is said of it.
 */
function notASession(session: Session): Finding | undefined {
  const count = session.lineCount;
  if (count === 0 || (count === 1 && session.lineState(0).length === 0)) return finding("file-empty", "the file is empty");
  switch (session.fileKind) {
    case "session":
      return undefined;
    case "event-stream":
      return finding("file-event-stream", `pi's --mode json event stream (${session.header ? "a session header and " : ""}${plural(session.eventCount, "event")}), not a session`, { line: 1 });
    case "other":
      return finding("file-not-session", "no session header, and no record is an entry with an id", { line: 1 });
  }
}

/**
 * Line findings: what each line is as pi reads it (a blank line, one pi skips and what the salvage
 * rule makes of it, JSON that is no object, a second header, a BOM, CR LF, invalid UTF-8), and the
 * header's own (missing, not first, its fields, its version).
 */
export function lineFindings(session: Session): Finding[] {
  const out: Finding[] = [];
  const count = session.lineCount;
  // (CR LF ends are said once, at the first, with how many: a Windows file has one on every line)
  const crlf: number[] = [];
  const later = new Map(session.laterSessions.map((s) => [s.line, s]));
  for (let i = 0; i < count; i++) {
    const { kind, flags, salvage } = session.lineState(i);
    const at = { line: i + 1 };
    if (flags & LineFlag.BOM) out.push(finding("line-bom", "the line starts with a UTF-8 byte-order mark", at));
    if (flags & LineFlag.CRLF) crlf.push(i + 1);
    if (flags & LineFlag.BAD_UTF8) out.push(finding("line-invalid-utf8", "the line is not valid UTF-8", at));
    switch (kind) {
      case "blank":
        if (salvage?.kind !== "joined-part") out.push(finding("line-blank", "blank line", at));
        break;
      case "invalid": {
        const f = invalidLineFinding(i + 1, flags, salvage);
        if (f) out.push(f);
        break;
      }
      case "not-object":
        out.push(finding("line-not-object", "the line is JSON but not an object", at));
        break;
      case "extra-header": {
        const next = later.get(i + 1);
        if (next) out.push(finding("session-concatenated", `another session begins here (id ${next.id}${next.timestamp ? `, started ${next.timestamp}` : ""}${next.cwd ? `, in ${next.cwd}` : ""}): two sessions are concatenated in this file`, at));
        else out.push(finding("header-duplicate", "a second session header", at));
        break;
      }
      case "entry":
        if (flags & LineFlag.NO_TYPE) out.push(finding("entry-no-type", "a record without `type`", at));
        break;
      case "header":
        break;
    }
  }
  if (crlf.length > 0) out.push(finding("line-crlf", crlf.length === 1 ? "the line ends with CR LF" : `${plural(crlf.length, "line")} end with CR LF (lines ${crlf.slice(0, 5).join(", ")}${crlf.length > 5 ? ", …" : ""})`, { line: crlf[0]! }));
  const last = session.lineState(count - 1);
  if (last.flags & LineFlag.NO_NEWLINE && last.kind !== "invalid" && last.kind !== "blank") out.push(finding("line-no-newline", "the last line has no newline", { line: count }));
  out.push(...headerFindings(session));
  return out;
}

/** The header missing, not on the first line, without its string fields, or of a version not read here. */
function headerFindings(session: Session): Finding[] {
  const h = session.header;
  if (!h) return [finding("header-missing", "no session header", { line: 1 })];
  const out: Finding[] = [];
  const at = { line: session.headerRecord!.line };
  const first = session.firstRecordLine;
  if (first !== undefined && first !== at.line) out.push(finding("header-not-first", `the header is on line ${at.line}, after another record`, at));
  const bad = missingHeaderFields(h);
  if (bad.length > 0) out.push(finding("header-invalid", `the header's ${bad.map((k) => `\`${k}\``).join(", ")} ${bad.length > 1 ? "are" : "is"} missing or not a string`, at));
  if (h.version !== undefined && typeof h.version !== "number") out.push(finding("version-invalid", "the header's `version` is not a number", at));
  else if (session.version > CURRENT_VERSION) out.push(finding("version-unsupported", `version ${session.version} is newer than the supported ${CURRENT_VERSION}`, at));
  else if (session.version < CURRENT_VERSION) out.push(finding("version-legacy", `a v${session.version} file (current: v${CURRENT_VERSION})`, at));
  return out;
}

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


function sortByLine(findings: Finding[]): Finding[] {
  return findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

type RefKind = "compaction" | "label" | "branch_summary" | "context_edit";

/**
 * The full validator. It sees every entry once, in pass one (`onRecord`; a skim is enough),
 * keeping only the little it needs for the checks that span entries: references (few), and the
 * tool calls, as hashes of their ids in typed arrays (sessions hold hundreds of thousands).
 * `findings` adds them to the quick findings.
 */
export class Validator {
  /**
   * `notes: false`: the conversation's notes (a call pi answers itself, a break no leaf sends) are
   * not worked out: they are information, so the errors and warnings, and their causes, are the
   * same; what they cost (each reads its entry again) is saved where only the error count is said
   * (`ls`).
   */
  constructor(private readonly options: { notes?: boolean } = {}) {}

  private readonly refs: Array<{ line: number; node: number | undefined; id: string | undefined; kind: RefKind; target: unknown }> = [];
  /** Each tool call declared (its node, the hash of its id), in file order. */
  private readonly calls = new NodeNumbers();
  /** Each toolResult with a call id (its node, the hash of the call id it answers). */
  private readonly results = new NodeNumbers();
  /** Messages pi does not send: errored and aborted assistant turns, bash runs kept out of the context, branch summaries without a summary. */
  private readonly unsent = new Set<number>();
  /** Each compaction's `firstKeptEntryId`. */
  private readonly compactions = new Map<number, unknown>();
  /** Each context edit's target id and what it does to the pairing rules. */
  private readonly edits = new Map<number, { target: string; omit: boolean; calls: number[] }>();

  readonly onRecord: NonNullable<OpenOptions["onRecord"]> = (value, record) => {
    if (record.kind === "entry") this.collect(value as AnyEntry, record);
  };

  private collect(entry: AnyEntry, record: LineRecord): void {
    const ref = (kind: RefKind, target: unknown): void => {
      this.refs.push({ line: record.line, node: record.node, id: record.id, kind, target });
    };
    switch (entry.type) {
      case "message": {
        const message = entry.message as { role?: unknown; content?: unknown; toolCallId?: unknown } | null | undefined;
        const node = record.node;
        if (!message || typeof message !== "object" || node === undefined) return;
        if (message.role === "assistant") {
          if (Array.isArray(message.content)) {
            for (const b of message.content as Array<{ type?: unknown; id?: unknown } | null>) {
              if (b && b.type === "toolCall" && typeof b.id === "string") this.calls.add(node, idHash(b.id));
            }
          }
          if (isSkippedTurn(message as AgentMessage)) this.unsent.add(node);
        }
        if (message.role === "bashExecution" && (message as AgentMessage).excludeFromContext) this.unsent.add(node);
        if (message.role === "toolResult" && typeof message.toolCallId === "string" && message.toolCallId !== "") this.results.add(node, idHash(message.toolCallId));
        return;
      }
      case "branch_summary":
        if (!entry.summary && record.node !== undefined) this.unsent.add(record.node);
        return ref("branch_summary", entry.fromId);
      case "compaction":
        if (record.node !== undefined) this.compactions.set(record.node, entry.firstKeptEntryId);
        return ref("compaction", entry.firstKeptEntryId);
      case "label":
        return ref("label", entry.targetId);
      case "context_edit": {
        const effect = editEffectOf(entry);
        if (effect && record.node !== undefined) this.edits.set(record.node, effect);
        return ref("context_edit", entry.targetId);
      }
    }
  }

  /** Every finding for the session, in line order (file-level findings first). */
  findings(session: Session): Finding[] {
    const whole = notASession(session);
    if (whole) return [whole];
    return sortByLine(rootCauses(session, [...scanFindings(session), ...this.referenceFindings(session), ...this.toolFindings(session)]));
  }

  private referenceFindings(session: Session): Finding[] {
    const out: Finding[] = [];
    for (const { line, node, id, kind, target } of this.refs) {
      const at = { line, ...(id !== undefined ? { entryId: id } : {}) };
      const holder = typeof target === "string" ? session.nodeOf(target) : undefined;
      const exists = holder !== undefined;
      switch (kind) {
        case "compaction": {
          if (!exists) {
            // A retain-none compaction names itself.
            if (target !== id) out.push(finding("compaction-target-missing", `firstKeptEntryId \`${String(target)}\` does not exist`, at));
            break;
          }
          if (node === undefined || target === id) break;
          // (any entry holding the id counts, as pi finds it by walking the branch)
          const holders = session.duplicateIds.get(target as string) ?? [holder];
          if (!holders.some((h) => session.tree.isAncestor(h, node))) out.push(finding("compaction-target-off-path", `firstKeptEntryId \`${target}\` is not on the compaction's branch`, at));
          break;
        }
        case "label":
          if (!exists) out.push(finding("label-target-missing", `targetId \`${String(target)}\` does not exist`, at));
          break;
        case "branch_summary":
          // (pi writes "root" for a summary of a branch left from before the first entry; agent-core, null)
          if (!exists && target !== "root" && target !== null) out.push(finding("branch-summary-from-missing", `fromId \`${String(target)}\` does not exist`, at));
          break;
        case "context_edit":
          if (!exists) out.push(finding("context-edit-target-missing", `targetId \`${String(target)}\` does not exist`, at));
          break;
      }
    }
    return out;
  }

  /**
   * The pairing rules (`pairingFindings`) over the whole tree, as findings at the entries that break
   * them: an error where some leaf sends the break, information (`pairing-not-sent`) where none does.
   * A result a context edit took the call from is said at the edit, once (`context-edit-drops-calls`),
   * each such result under it.
   */
  private toolFindings(session: Session): Finding[] {
    const input = new SessionPairing(session, this.calls, this.results, this.unsent, this.compactions, this.edits);
    if (!input.hasResults && this.calls.count === 0) return [];
    const notes = this.options.notes !== false;
    const found = pairingFindings(input, notes);
    const out: Finding[] = [];
    const byEdit = new Map<number, PairingFinding[]>();
    for (const p of found) {
      if (p.kind === "edited") {
        if (!p.sent) continue; // (no leaf below the edit holds the result: nothing breaks)
        const list = byEdit.get(p.cause);
        if (list?.some((q) => q.resultNode === p.resultNode)) continue;
        if (list) list.push(p);
        else byEdit.set(p.cause, [p]);
        continue;
      }
      if (p.kind === "unanswered" || p.sent) out.push(pairingFinding(session, p));
      else if (notes) out.push(notSent(session, p));
    }
    for (const [edit, results] of byEdit) out.push(...editFindings(session, edit, results));
    return out;
  }
}

/** The pairing walk's view of a session: kinds from the line table, calls and results from pass one. */
class SessionPairing implements PairingInput {
  readonly size: number;
  private readonly kinds: Uint8Array;
  /** The calls' nodes, in node order, and their ids' hashes. */
  private readonly callNodes: Int32Array;
  private readonly hashes: Float64Array;
  private readonly resultNodes: Int32Array;
  private readonly resultHashes: Float64Array;
  /** Where the last search of each ended (the walk asks in pre-order: mostly node order). */
  private callHint = 0;
  private resultHint = 0;
  hasResults = false;

  constructor(
    private readonly session: Session,
    calls: NodeNumbers,
    results: NodeNumbers,
    unsent: ReadonlySet<number>,
    private readonly compactions: ReadonlyMap<number, unknown>,
    private readonly edits: ReadonlyMap<number, { target: string; omit: boolean; calls: number[] }>,
  ) {
    const { tree } = session;
    this.size = tree.size;
    this.kinds = new Uint8Array(this.size);
    // (what a node is depends on its type and role alone, but for the few pi leaves out: worked out once a kind)
    const byKind = new Map<number, Turn>();
    for (let n = 0; n < this.size; n++) {
      const key = session.nodeKindKey(n);
      if (key < 0 || unsent.has(n)) {
        this.kinds[n] = turnOf(session.nodeType(n), session.nodeRole(n), unsent.has(n));
        continue;
      }
      let turn = byKind.get(key);
      if (turn === undefined) byKind.set(key, (turn = turnOf(session.nodeType(n), session.nodeRole(n), false)));
      this.kinds[n] = turn;
    }
    // (calls by node: pass one adds them in node order, so a node's are a run, found by a search;
    // a column a node saying where its run starts was 4 bytes an entry)
    this.callNodes = calls.node.subarray(0, calls.count);
    this.hashes = calls.number.subarray(0, calls.count);
    // (the results' nodes in order and their calls' hashes, searched: a column a node was 8 bytes
    // an entry where results are a few of the nodes, and only a result asks)
    this.resultNodes = results.node.subarray(0, results.count);
    this.resultHashes = results.number.subarray(0, results.count);
    for (let n = 0; n < this.size && !this.hasResults; n++) if (this.kinds[n] === Turn.Result) this.hasResults = true;
  }

  preorderWindows(): Iterable<ArrayLike<number>> {
    return this.session.tree.preorderWindows();
  }
  preorderIndex(node: number): number {
    return this.session.tree.preorderIndex(node);
  }
  subtreeSizeOf(node: number): number {
    return this.session.tree.subtreeSizeOf(node);
  }
  turn(node: number): Turn {
    return this.kinds[node]! as Turn;
  }
  callStart(node: number): number {
    return (this.callHint = seekNode(this.callNodes, node, this.callHint));
  }
  callHash(slot: number): number {
    return this.hashes[slot]!;
  }
  callNode(slot: number): number {
    return this.callNodes[slot]!;
  }
  resultHash(node: number): number {
    // (the last entry for the node: pass one adds them in node order)
    const at = (this.resultHint = seekNode(this.resultNodes, node + 1, this.resultHint)) - 1;
    return at >= 0 && this.resultNodes[at] === node ? this.resultHashes[at]! : NaN;
  }
  isLeaf(node: number): boolean {
    return this.session.tree.childCount(node) === 0 || node === this.session.leafNode;
  }
  edit(node: number): EditEffect | undefined {
    const e = this.edits.get(node);
    if (!e) return undefined;
    const holders = this.session.duplicateIds.get(e.target) ?? [this.session.nodeOf(e.target)];
    return { targets: holders.filter((h): h is number => h !== undefined), omit: e.omit, calls: e.calls };
  }
  keptFrom(node: number): number {
    const target = this.compactions.get(node);
    if (typeof target !== "string") return -1;
    // pi finds it on the path: the first entry above the compaction holding the id
    const holders = this.session.duplicateIds.get(target) ?? [this.session.nodeOf(target)];
    for (const h of holders) if (h !== undefined && h !== node && this.session.tree.isAncestor(h, node)) return h;
    return -1;
  }
}

/** The call id a result names, or the one a call holds, as its entry writes it. */
function callIdOf(session: Session, node: number, hash: number): string | undefined {
  const message = (session.entry(node) as { message?: AgentMessage }).message;
  if (!message) return undefined;
  if (message.role === "toolResult") return typeof message.toolCallId === "string" ? message.toolCallId : undefined;
  const call = toolCallsOf(message).find((c) => typeof c.id === "string" && idHash(c.id) === hash);
  return call?.id as string | undefined;
}

/** A pairing finding as data for people: the code, the call id, the entry and line. */
function pairingFinding(session: Session, p: PairingFinding): Finding {
  const f = pairingFindingOf(session, p);
  // (repair mends these once the file has ids)
  if (session.version < 2 && f.severity === "error") {
    f.message += "; a v1 file: `pi-session migrate` it before repair";
    f.next = "pi-session migrate FILE";
  }
  return f;
}

function pairingFindingOf(session: Session, p: PairingFinding): Finding {
  const f = pairingFindingText(session, p);
  const callId = p.resultNode >= 0 ? callIdOf(session, p.resultNode, p.hash) : p.callNode >= 0 ? callIdOf(session, p.callNode, p.hash) : undefined;
  if (callId !== undefined && p.kind !== "no-id") f.callId = callId;
  return f;
}

function pairingFindingText(session: Session, p: PairingFinding): Finding {
  const where = (node: number) => {
    const id = session.nodeId(node);
    return { line: session.nodeLine(node), ...(id !== undefined ? { entryId: id } : {}) };
  };
  const line = (node: number) => `line ${session.nodeLine(node)}`;
  const callId = p.resultNode >= 0 ? callIdOf(session, p.resultNode, p.hash) : p.callNode >= 0 ? callIdOf(session, p.callNode, p.hash) : undefined;
  const id = String(callId);
  const call = `\`${id}\``;
  switch (p.kind) {
    case "no-id":
      return finding("tool-result-no-id", PAIRING_WORDS.noId((session.entry(p.node) as { message?: AgentMessage }).message?.toolCallId), where(p.node));
    case "lost":
      return finding("tool-result-orphan", PAIRING_WORDS.lost(id), where(p.node));
    case "skipped-turn":
      return finding("tool-result-orphan", PAIRING_WORDS.skippedTurn(id, String((session.entry(p.callNode) as { message?: AgentMessage }).message?.stopReason), session.nodeLine(p.callNode)), where(p.node));
    case "displaced":
      return finding("tool-result-orphan", PAIRING_WORDS.displaced(id, session.nodeLine(p.callNode)), where(p.node));
    case "duplicate":
      return finding("tool-result-duplicate", PAIRING_WORDS.duplicate(id, session.nodeLine(p.callNode)), where(p.node));
    case "kept-result":
      return finding("compaction-keeps-result", `the compaction keeps from the result for ${call} (${line(p.resultNode)}) but not from its call`, where(p.node));
    case "edited":
      return finding("tool-result-orphan", `the result for ${call} answers a call the context edit on line ${session.nodeLine(p.cause)} takes away`, where(p.node));
    case "unanswered":
      return finding("tool-call-unanswered", PAIRING_WORDS.unanswered(id), where(p.node));
  }
}

/**
 * A context edit that takes calls away from results some leaf below it sends: the edit, and each
 * result under it (`causedBy`).
 */
function editFindings(session: Session, edit: number, results: readonly PairingFinding[]): Finding[] {
  const turn = results[0]!.callNode;
  const omits = (session.entry(edit) as { replacement?: unknown }).replacement === null;
  const id = session.nodeId(edit);
  const what = `${results.length === 1 ? "its result" : `their ${results.length} results`} (line${results.length === 1 ? "" : "s"} ${results.map((r) => session.nodeLine(r.resultNode)).join(", ")})`;
  const root = finding(
    "context-edit-drops-calls",
    omits ? `the edit omits the assistant turn on line ${session.nodeLine(turn)}, but not ${what}` : `the edit replaces the assistant turn on line ${session.nodeLine(turn)} without its calls, but keeps ${what}`,
    { line: session.nodeLine(edit), ...(id !== undefined ? { entryId: id } : {}) },
  );
  const cause = { code: root.code, line: root.line! };
  return [root, ...results.map((r) => ({ ...pairingFindingOf(session, r), causedBy: cause }))];
}

/** A break of a pairing rule no leaf sends: said, as information, with why pi never sends it. */
function notSent(session: Session, p: PairingFinding): Finding {
  const f = pairingFindingOf(session, p);
  const why =
    p.kind === "kept-result"
      ? "a later compaction stands on every branch through this one, so pi never starts a context from its kept part"
      : "no leaf's context holds the result (a later compaction or a context edit leaves it out of every branch through it)";
  return { ...finding("pairing-not-sent", `${f.message}; not sent: ${why}`, { line: f.line, ...(f.entryId !== undefined ? { entryId: f.entryId } : {}) }), ...(f.callId !== undefined ? { callId: f.callId } : {}) };
}

/** How many of a duplicated id's lines its findings name. */
const DUPLICATE_LINES_NAMED = 10;

/** Duplicate ids and broken parent links. */
function treeFindings(session: Session): Finding[] {
  const out: Finding[] = [];
  const { tree } = session;
  const where = (node: number) => {
    const id = session.nodeId(node);
    return { line: session.nodeLine(node), ...(id !== undefined ? { entryId: id } : {}) };
  };
  for (const [id, nodes] of session.duplicateIds) {
    // (the lines named once a finding, the first few: an id a replayed session reuses everywhere
    // would otherwise make every one of its findings as long as the file)
    const lines = nodes.slice(0, DUPLICATE_LINES_NAMED).map((n) => session.nodeLine(n));
    const message = `id \`${id}\` is used on ${nodes.length} lines (${lines.join(", ")}${nodes.length > lines.length ? ", …" : ""})`;
    for (const [k, n] of nodes.entries()) {
      if (k === 0) continue;
      // (a line written twice, byte for byte, as a retried append leaves it, said as what it is)
      const twin = nodes.slice(0, k).find((m) => session.nodeLength(m) === session.nodeLength(n) && session.nodeBytes(m).equals(session.nodeBytes(n)));
      out.push(finding("id-duplicate", twin === undefined ? message : `line ${session.nodeLine(n)} repeats line ${session.nodeLine(twin)} exactly (id \`${id}\`)`, where(n)));
    }
  }
  for (const { node, problem } of tree.problems) {
    const r = session.nodeRecord(node);
    const pid = String(r.parentId);
    switch (problem) {
      case "missing":
        out.push(finding("parent-missing", `parent \`${pid}\` does not exist; the entry is shown as a root`, where(node)));
        break;
      case "self":
        out.push(finding("parent-self", "the entry is its own parent", where(node)));
        break;
      case "forward": {
        out.push(finding("parent-forward", `parent \`${pid}\` comes later in the file (line ${session.nodeLine(session.nodeOf(pid)!)})`, where(node)));
        break;
      }
      case "cycle":
        out.push(finding("parent-cycle", `parent links from here form a cycle; broken at this entry`, where(node)));
        break;
    }
  }
  return out;
}

