import { finding, type Finding, type Severity } from "./findings.js";
import { formatCount } from "../common/units.js";
import type { Session } from "../session/session.js";

/**
 * Root causes (docs/commands.md, "One verdict"): one damage is said once, where it is, and what it brings
 * about is said under it (`causedBy`), so that a count is of what is wrong, and the advice is what
 * mends it. The causes, first found first:
 *
 * - lines that repeat earlier lines exactly, in a run (`lines-repeated`: a session appended to its
 *   own file again by a sync tool, a copy concatenated): what any line of the run, or an entry whose
 *   id the run holds again, is found to break;
 * - a line pi skips (torn, fused, not JSON): the entry whose parent, and the result whose call, the
 *   line held (its bytes name their ids), and a call whose result it held;
 * - a broken link in the tree (a parent that is missing, later in the file, the entry itself, a
 *   cycle, or an id several entries hold): a result below it with no call above it;
 * - a context edit that takes calls away (set where it is found: `context-edit-drops-calls`);
 * - a result cut off from its call by a message, or written twice: the call it leaves unanswered.
 *
 * A cause is given the highest severity of what it causes: a lost line whose results every request
 * now fails on is an error, whatever a missing parent alone would be.
 */
export function rootCauses(session: Session, findings: Finding[]): Finding[] {
  if (findings.length === 0) return findings;
  const out = [...repeats(session, findings), ...findings];
  // (the skipped lines first: a missing parent they explain is then no root of its own)
  for (const causeOf of [skippedIds(session, out), duplicateParents(session, out), treeBreaks(session, out), answeredElsewhere(out)]) {
    if (!causeOf) continue;
    for (const f of out) {
      if (f.causedBy || f.line === undefined) continue;
      const cause = causeOf(f);
      if (cause && cause !== f) f.causedBy = { code: cause.code, line: cause.line! };
    }
  }
  return out.some((f) => f.causedBy) ? escalate(toRoots(out)) : out;
}

/** Each `causedBy` made to name the root: a cause that has a cause of its own hands over to it. */
function toRoots(findings: Finding[]): Finding[] {
  const byKey = new Map<string, Finding>();
  for (const f of findings) if (f.line !== undefined) byKey.set(`${f.code}:${f.line}`, f);
  for (const f of findings) {
    let cause = f.causedBy;
    for (let hops = 0; cause && hops < 8; hops++) {
      const next = byKey.get(`${cause.code}:${cause.line}`)?.causedBy;
      if (!next || (next.code === f.code && next.line === f.line)) break;
      cause = next;
    }
    if (cause) f.causedBy = cause;
  }
  return findings;
}

/** Line-level findings of a line pi skips: it holds records pi does not read. */
const SKIPPED = new Set<string>(["line-invalid-json", "line-fused", "line-torn", "line-nul", "line-not-object", "line-split", "entry-no-type"]);

/** Findings about what an entry or a call needs of another entry. */
const NEEDS_PARENT = new Set<string>(["parent-missing"]);
const NEEDS_CALL = new Set<string>(["tool-result-orphan", "tool-call-unanswered"]);

/** How many bytes of a skipped line are searched for the ids it held (a torn record's are near its start). */
const SKIPPED_BYTES = 4 << 20;

/** An entry id or a call id as JSON writes it: `"id":"…"`, `"toolCallId":"…"`. */
const ID_PATTERN = /"(?:id|toolCallId)":"((?:[^"\\]|\\.)*)"/g;

/** For a finding: the skipped line that held its parent or its call (undefined: none, or no line is skipped). */
function skippedIds(session: Session, findings: readonly Finding[]): ((f: Finding) => Finding | undefined) | undefined {
  const lines = findings.filter((f) => SKIPPED.has(f.code) && f.line !== undefined);
  if (lines.length === 0) return undefined;
  const holder = new Map<string, Finding>();
  for (const f of lines) {
    const bytes = session.lineBytes(f.line! - 1);
    const text = bytes.subarray(0, Math.min(bytes.length, SKIPPED_BYTES)).toString("utf8");
    for (const m of text.matchAll(ID_PATTERN)) if (!holder.has(m[1]!)) holder.set(m[1]!, f);
  }
  return (f) => {
    if (NEEDS_CALL.has(f.code)) return f.callId === undefined ? undefined : holder.get(f.callId);
    if (!NEEDS_PARENT.has(f.code)) return undefined;
    const node = session.nodeAtLine(f.line! - 1);
    const parentId = node >= 0 ? session.nodeRecord(node).parentId : undefined;
    return typeof parentId === "string" ? holder.get(parentId) : undefined;
  };
}

/**
 * For a parent later in the file, or a cycle: the id several entries hold, when an entry before
 * this one holds its parent's id (pi takes the last holder, which put the link forward); and for a
 * parent later in the file at the entry where a cycle is broken, the cycle.
 */
function duplicateParents(session: Session, findings: readonly Finding[]): ((f: Finding) => Finding | undefined) | undefined {
  if (session.duplicateIds.size === 0 && !findings.some((f) => f.code === "parent-cycle")) return undefined;
  const duplicates = new Map<number, Finding>();
  for (const f of findings) if (f.code === "id-duplicate" && f.line !== undefined) duplicates.set(f.line, f);
  const cycles = new Map<number, Finding>();
  for (const f of findings) if (f.code === "parent-cycle" && f.line !== undefined) cycles.set(f.line, f);
  return (f) => {
    if (f.code !== "parent-forward" && f.code !== "parent-cycle") return undefined;
    // (a parent later in the file that closes a cycle: said under the cycle)
    if (f.code === "parent-forward" && cycles.has(f.line!)) return cycles.get(f.line!);
    const node = session.nodeAtLine(f.line! - 1);
    const parentId = node >= 0 ? session.nodeRecord(node).parentId : undefined;
    const holders = typeof parentId === "string" ? session.duplicateIds.get(parentId) : undefined;
    if (!holders || session.nodeLine(holders[0]!) >= f.line!) return undefined;
    for (let k = holders.length - 1; k >= 1; k--) {
      const cause = duplicates.get(session.nodeLine(holders[k]!));
      if (cause) return cause;
    }
    return undefined;
  };
}

/** Tree findings that break the link from an entry up to its parent. */
const LINK_CODES = new Set<string>(["parent-missing", "parent-forward", "parent-self", "parent-cycle"]);

/**
 * For a result with no call (or a second one): the nearest broken link above it in the tree, as
 * the finding that says so (a missing parent's own cause, if it has one). Worked out for every
 * node at once in pre-order, and only when both kinds of finding are there.
 */
function treeBreaks(session: Session, findings: readonly Finding[]): ((f: Finding) => Finding | undefined) | undefined {
  if (!findings.some((f) => f.code === "tool-result-orphan" || f.code === "tool-result-duplicate")) return undefined;
  const { tree } = session;
  if (tree.problems.length === 0 && session.duplicateIds.size === 0) return undefined;
  const atLine = new Map<number, Finding>();
  for (const f of findings) if (f.line !== undefined && (LINK_CODES.has(f.code) || f.code === "id-duplicate") && !atLine.has(f.line)) atLine.set(f.line, f);
  /** The finding for a node whose link up is broken (undefined: it is whole). */
  const linkFinding = (node: number): Finding | undefined => {
    const own = atLine.get(session.nodeLine(node));
    if (own && LINK_CODES.has(own.code)) return own;
    // a parent id several entries hold: said at the holders after the first
    const parentId = session.nodeRecord(node).parentId;
    const holders = typeof parentId === "string" ? session.duplicateIds.get(parentId) : undefined;
    if (!holders) return undefined;
    for (let k = holders.length - 1; k >= 1; k--) {
      const f = atLine.get(session.nodeLine(holders[k]!));
      if (f) return f;
    }
    return undefined;
  };
  const order = tree.preorder();
  const broken = new Int32Array(tree.size).fill(-1);
  const causes: Finding[] = [];
  for (let i = 0; i < order.length; i++) {
    const n = order[i]!;
    const f = linkFinding(n);
    if (f) {
      broken[n] = causes.length;
      causes.push(f);
      continue;
    }
    const p = tree.parent[n]!;
    if (p >= 0) broken[n] = broken[p]!;
  }
  return (f) => {
    if (f.code !== "tool-result-orphan" && f.code !== "tool-result-duplicate") return undefined;
    const node = session.nodeAtLine(f.line! - 1);
    if (node < 0 || broken[node]! < 0) return undefined;
    const cause = causes[broken[node]!]!;
    return cause.causedBy ? findings.find((g) => g.code === cause.causedBy!.code && g.line === cause.causedBy!.line) : cause;
  };
}

/**
 * For a call left unanswered: the result for it that a message cut off from it (or that answers it
 * twice): moved back under its call, it answers it.
 */
function answeredElsewhere(findings: readonly Finding[]): ((f: Finding) => Finding | undefined) | undefined {
  const results = new Map<string, Finding>();
  // (a result a context edit took the call from is said under the edit: its call is not unanswered)
  for (const f of findings) if ((f.code === "tool-result-orphan" || f.code === "tool-result-duplicate") && !f.causedBy && f.callId !== undefined && !results.has(f.callId)) results.set(f.callId, f);
  if (results.size === 0) return undefined;
  return (f) => (f.code === "tool-call-unanswered" && f.callId !== undefined ? results.get(f.callId) : undefined);
}

/** Runs shorter than this are said line by line (`id-duplicate`: a line written twice). */
const RUN_LINES = 2;

/**
 * Lines that repeat earlier lines exactly, in runs at one distance (each line the same bytes as
 * the line that distance above it: an entry as the previous entry holding its id, a header as the
 * previous header): one `lines-repeated` finding a run, and every finding about a line of the run,
 * or about an entry whose id it holds again, under it.
 */
function repeats(session: Session, findings: Finding[]): Finding[] {
  if (session.duplicateIds.size === 0) return [];
  const source = new Map<number, number>(); // line index -> the index of the line it repeats
  for (const nodes of session.duplicateIds.values()) {
    for (let k = 1; k < nodes.length; k++) {
      const n = nodes[k]!;
      const m = nodes[k - 1]!;
      if (session.nodeLength(m) === session.nodeLength(n) && session.nodeBytes(m).equals(session.nodeBytes(n))) source.set(session.nodeLine(n) - 1, session.nodeLine(m) - 1);
    }
  }
  if (source.size < RUN_LINES) return [];
  let previousHeader = session.headerRecord ? session.headerRecord.line - 1 : -1;
  for (let i = 0; i < session.lineCount && previousHeader >= 0; i++) {
    if (session.lineState(i).kind !== "extra-header") continue;
    const a = session.lineBytes(previousHeader);
    if (a.equals(session.lineBytes(i))) source.set(i, previousHeader);
    previousHeader = i;
  }
  const lines = [...source.keys()].sort((a, b) => a - b);
  const runs: Array<{ first: number; last: number; distance: number }> = [];
  for (const i of lines) {
    const distance = i - source.get(i)!;
    const run = runs[runs.length - 1];
    if (run && run.last === i - 1 && run.distance === distance) run.last = i;
    else runs.push({ first: i, last: i, distance });
  }
  const roots: Finding[] = [];
  const runOfLine: Array<{ first: number; last: number; root: Finding }> = [];
  const runOfId = new Map<string, Finding>();
  for (const run of runs) {
    if (run.last - run.first + 1 < RUN_LINES) continue;
    const root = finding("lines-repeated", repeatMessage(run.first + 1, run.last + 1, run.distance), { line: run.first + 1 });
    roots.push(root);
    runOfLine.push({ first: run.first + 1, last: run.last + 1, root });
    for (let i = run.first; i <= run.last; i++) {
      const node = session.nodeAtLine(i);
      const id = node >= 0 ? session.nodeId(node) : undefined;
      if (id !== undefined && !runOfId.has(id)) runOfId.set(id, root);
    }
  }
  if (roots.length === 0) return [];
  for (const f of findings) {
    if (f.causedBy) continue;
    const run = f.line === undefined ? undefined : runOfLine.find((r) => f.line! >= r.first && f.line! <= r.last)?.root;
    const root = run ?? (f.entryId !== undefined ? runOfId.get(f.entryId) : undefined);
    if (root) f.causedBy = { code: root.code, line: root.line! };
  }
  return roots;
}

function repeatMessage(first: number, last: number, distance: number): string {
  const lines = (a: number, b: number) => `lines ${formatCount(a)}-${formatCount(b)}`;
  const length = last - first + 1;
  if (length < distance) return `${lines(first, last)} repeat ${lines(first - distance, last - distance)} exactly`;
  const copies = length / distance;
  if (first - distance === 1 && Number.isInteger(copies)) return `${lines(first, last)} repeat ${lines(1, first - 1)}: the session is in this file ${formatCount(copies + 1)} times`;
  return `${lines(first, last)} repeat ${lines(first - distance, first - 1)} exactly, ${Number.isInteger(copies) ? formatCount(copies) : `${copies.toFixed(1)}`} times over`;
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** A cause takes the highest severity of what it causes. */
function escalate(findings: Finding[]): Finding[] {
  const byKey = new Map<string, Finding>();
  for (const f of findings) if (!f.causedBy) byKey.set(`${f.code}:${f.line}`, f);
  for (const f of findings) {
    if (!f.causedBy) continue;
    const root = byKey.get(`${f.causedBy.code}:${f.causedBy.line}`);
    if (root && RANK[f.severity] < RANK[root.severity]) root.severity = f.severity;
  }
  return findings;
}
