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
  /** Each tool call declared (its node, the hash of its id), in file order. */
  private readonly calls = new NodeHashes();
  /** Each toolResult (its node, the hash of the call id it answers). */
  private readonly results = new NodeHashes();

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
            if (b && b.type === "toolCall" && typeof b.id === "string") this.calls.add(node, hashId(b.id));
          }
        }
        if (message.role === "toolResult" && typeof message.toolCallId === "string") this.results.add(node, hashId(message.toolCallId));
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
          if (!holders.some((h) => session.tree.isAncestor(h, node))) out.push(finding("compaction-target-off-path", `firstKeptEntryId \`${target}\` is not on the compaction's branch`, at));
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

  /**
   * toolResults whose toolCallId no assistant message above them on their branch declared. One
   * walk of the tree in pre-order, keeping how many calls of each id the path from the root holds:
   * a call counts from its node to the end of its subtree (a run in pre-order). Ids repeat (a
   * model that numbers its calls afresh each turn, a session replayed), so a result must not look
   * through every call with its id.
   */
  private toolFindings(session: Session): Finding[] {
    if (this.results.count === 0) return [];
    const { tree } = session;
    const calls = this.calls.byPreorder(tree);
    const results = this.results.byPreorder(tree);
    const onPath = new Map<number, number>();
    const open: Array<{ end: number; hash: number }> = [];
    const unmatched: number[] = [];
    for (let at = 0; at < tree.size; at++) {
      if (calls.head[at] === -1 && results.head[at] === -1) continue;
      while (open.length > 0 && open[open.length - 1]!.end < at) {
        const { hash } = open.pop()!;
        onPath.set(hash, onPath.get(hash)! - 1);
      }
      for (let k = results.head[at]!; k !== -1; k = results.next[k]!) {
        if (!(onPath.get(this.results.hash[k]!)! > 0)) unmatched.push(this.results.node[k]!);
      }
      for (let k = calls.head[at]!; k !== -1; k = calls.next[k]!) {
        const hash = this.calls.hash[k]!;
        open.push({ end: at + tree.subtreeSizeOf(this.calls.node[k]!) - 1, hash });
        onPath.set(hash, (onPath.get(hash) ?? 0) + 1);
      }
    }
    return unmatched.map((node) => {
      const id = session.nodeId(node);
      const callId = (session.entry(node).message as { toolCallId?: unknown } | undefined)?.toolCallId;
      return finding("tool-result-unmatched", `toolResult for \`${String(callId)}\` has no matching toolCall on its branch`, { line: session.nodeLine(node), ...(id ? { entryId: id } : {}) });
    });
  }
}

/** Pairs of a node and a hash, in typed arrays that grow (sessions hold hundreds of thousands). */
class NodeHashes {
  node = new Int32Array(256);
  hash = new Float64Array(256);
  count = 0;

  add(node: number, hash: number): void {
    if (this.count === this.node.length) {
      const nodes = new Int32Array(this.count * 2);
      nodes.set(this.node);
      this.node = nodes;
      const hashes = new Float64Array(this.count * 2);
      hashes.set(this.hash);
      this.hash = hashes;
    }
    this.node[this.count] = node;
    this.hash[this.count++] = hash;
  }

  /** The pairs listed by their node's place in pre-order: `head[at]`, then `next[k]` until -1. */
  byPreorder(tree: Session["tree"]): { head: Int32Array; next: Int32Array } {
    const head = new Int32Array(tree.size).fill(-1);
    const next = new Int32Array(this.count);
    for (let k = this.count - 1; k >= 0; k--) {
      const at = tree.preorderIndex(this.node[k]!);
      next[k] = head[at]!;
      head[at] = k;
    }
    return { head, next };
  }
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

/** How many of a duplicated id's lines its findings name. */
const DUPLICATE_LINES_NAMED = 10;

/** Duplicate ids and broken parent links. */
export function treeFindings(session: Session): Finding[] {
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
    for (const n of nodes.slice(1)) out.push(finding("id-duplicate", message, where(n)));
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

