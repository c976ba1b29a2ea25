import { finding, type Finding } from "./findings.js";
import type { LineRecord } from "./line-table.js";
import { LineFlag } from "./salvage.js";
import type { OpenOptions, Session } from "./session.js";
import { KNOWN_ENTRY_TYPES, KNOWN_ROLES, type AnyEntry } from "./types.js";

/**
 * Checks that need only pass one's line table, cheap enough for `ls` and `tree`: required fields,
 * unknown types and roles, and the harness's leaf targets. Every error code is found here or in
 * `treeFindings`, so a scan-only command reports the same errors as `check`.
 */
export function recordFindings(session: Session): Finding[] {
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

/** Line, record and tree findings: everything a scan-only read can say, in line order. */
export function quickFindings(session: Session): Finding[] {
  return sortByLine([...session.lineFindings, ...recordFindings(session), ...treeFindings(session)]);
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
  private readonly refs: Array<{ line: number; node: number | undefined; id: string | undefined; kind: RefKind; target: unknown }> = [];
  /** The node that declares each tool call id (by hash; ids declared again in `moreCalls`). */
  private readonly calls = new HashToNode();
  private readonly moreCalls = new Map<number, number[]>();
  /** Each toolResult node, and the hash of the call id it answers. */
  private resultNode = new Int32Array(256);
  private resultHash = new Float64Array(256);
  private results = 0;

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
        if (message.role === "assistant" && Array.isArray(message.content)) {
          for (const b of message.content as Array<{ type?: unknown; id?: unknown } | null>) {
            if (b && b.type === "toolCall" && typeof b.id === "string") this.declare(hashId(b.id), node);
          }
        }
        if (message.role === "toolResult" && typeof message.toolCallId === "string") this.answer(node, hashId(message.toolCallId));
        return;
      }
      case "compaction":
        return ref("compaction", entry.firstKeptEntryId);
      case "label":
        return ref("label", entry.targetId);
      case "branch_summary":
        return ref("branch_summary", entry.fromId);
      case "context_edit":
        return ref("context_edit", entry.targetId);
    }
  }

  private declare(hash: number, node: number): void {
    const first = this.calls.get(hash);
    if (first < 0) this.calls.set(hash, node);
    else if (first !== node) (this.moreCalls.get(hash) ?? this.moreCalls.set(hash, []).get(hash)!).push(node);
  }

  private answer(node: number, hash: number): void {
    if (this.results === this.resultNode.length) {
      const n = new Int32Array(this.results * 2);
      n.set(this.resultNode);
      this.resultNode = n;
      const h = new Float64Array(this.results * 2);
      h.set(this.resultHash);
      this.resultHash = h;
    }
    this.resultNode[this.results] = node;
    this.resultHash[this.results++] = hash;
  }

  /** Every finding for the session, in line order (file-level findings first). */
  findings(session: Session): Finding[] {
    return sortByLine([...quickFindings(session), ...this.referenceFindings(session), ...this.toolFindings(session)]);
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
          if (!holders.some((h) => isAncestor(session, h, node))) out.push(finding("compaction-target-off-path", `firstKeptEntryId \`${target}\` is not on the compaction's branch`, at));
          break;
        }
        case "label":
          if (!exists) out.push(finding("label-target-missing", `targetId \`${String(target)}\` does not exist`, at));
          break;
        case "branch_summary":
          if (!exists && target !== "root") out.push(finding("branch-summary-from-missing", `fromId \`${String(target)}\` does not exist`, at));
          break;
        case "context_edit":
          if (!exists) out.push(finding("context-edit-target-missing", `targetId \`${String(target)}\` does not exist`, at));
          break;
      }
    }
    return out;
  }

  /** toolResults whose toolCallId no assistant message above them on their branch declared. */
  private toolFindings(session: Session): Finding[] {
    const out: Finding[] = [];
    for (let k = 0; k < this.results; k++) {
      const node = this.resultNode[k]!;
      const hash = this.resultHash[k]!;
      const first = this.calls.get(hash);
      const declared = first >= 0 && first !== node && (isAncestor(session, first, node) || (this.moreCalls.get(hash) ?? []).some((d) => d !== node && isAncestor(session, d, node)));
      if (declared) continue;
      const id = session.nodeId(node);
      const callId = (session.entry(node).message as { toolCallId?: unknown } | undefined)?.toolCallId;
      out.push(finding("tool-result-unmatched", `toolResult for \`${String(callId)}\` has no matching toolCall on its branch`, { line: session.nodeLine(node), ...(id ? { entryId: id } : {}) }));
    }
    return out;
  }
}

/**
 * Whether `ancestor` lies on the path from the root to `node` (itself included): climbing the
 * difference in depth from `node` lands on it. A tool call or a compaction's kept entry is a few
 * steps up, so this is a short walk where it counts.
 */
function isAncestor(session: Session, ancestor: number, node: number): boolean {
  const { tree } = session;
  let steps = tree.depth(node) - tree.depth(ancestor);
  if (steps < 0) return false;
  let cur = node;
  while (steps-- > 0) cur = tree.parent[cur]!;
  return cur === ancestor;
}

/** A 53-bit hash of an id (two 32-bit FNV-1a hashes): for matching tool calls without keeping their strings. */
function hashId(id: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let k = 0; k < id.length; k++) {
    const c = id.charCodeAt(k);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 11) & 0x1fffff);
}

/** An open-addressing table from 53-bit hashes to nodes (-1: absent), in typed arrays. */
class HashToNode {
  private keys = new Float64Array(1024);
  private values = new Int32Array(1024).fill(-1);
  private used = 0;

  get(key: number): number {
    const mask = this.keys.length - 1;
    for (let at = this.slot(key, mask); ; at = (at + 1) & mask) {
      if (this.values[at] === -1) return -1;
      if (this.keys[at] === key) return this.values[at]!;
    }
  }

  set(key: number, value: number): void {
    if ((this.used + 1) * 4 > this.keys.length * 3) this.grow();
    const mask = this.keys.length - 1;
    let at = this.slot(key, mask);
    while (this.values[at] !== -1 && this.keys[at] !== key) at = (at + 1) & mask;
    if (this.values[at] === -1) this.used++;
    this.keys[at] = key;
    this.values[at] = value;
  }

  private slot(key: number, mask: number): number {
    return (Math.imul(key | 0, 0x9e3779b1) ^ Math.floor(key / 0x100000000)) & mask;
  }

  private grow(): void {
    const keys = this.keys;
    const values = this.values;
    this.keys = new Float64Array(keys.length * 2);
    this.values = new Int32Array(keys.length * 2).fill(-1);
    this.used = 0;
    for (let k = 0; k < keys.length; k++) if (values[k] !== -1) this.set(keys[k]!, values[k]!);
  }
}

/** Duplicate ids and broken parent links. */
export function treeFindings(session: Session): Finding[] {
  const out: Finding[] = [];
  const { tree } = session;
  const where = (node: number) => {
    const id = session.nodeId(node);
    return { line: session.nodeLine(node), ...(id !== undefined ? { entryId: id } : {}) };
  };
  for (const [id, nodes] of session.duplicateIds) {
    const lines = nodes.map((n) => session.nodeLine(n));
    for (const n of nodes.slice(1)) {
      out.push(finding("id-duplicate", `id \`${id}\` is used on ${lines.length} lines (${lines.join(", ")})`, where(n)));
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

