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
      if (session.nodeId(node) === undefined) report(node, "entry-missing-id", "the entry has no string `id`");
      if (!(flags & LineFlag.HAS_PARENT_KEY)) report(node, "entry-missing-parent", "the entry has no `parentId`");
    }
    if (!(flags & LineFlag.HAS_TIME)) report(node, "entry-missing-timestamp", "the entry has no `timestamp`");
    const { type, role } = session.nodeKind(node);
    if (!KNOWN_ENTRY_TYPES.has(type!)) report(node, "entry-unknown-type", `unknown entry type \`${type}\``);
    if (type === "message") {
      if (role === undefined) report(node, "message-invalid", "a message entry without `message.role`");
      else if (!KNOWN_ROLES.has(role)) report(node, "message-unknown-role", `unknown message role \`${role}\``);
    }
  }
  for (const move of session.leafMoves) {
    if (move.target !== null && !session.tree.byId.has(move.target)) {
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
 * The full validator. It sees every entry once, in pass one (`onRecord`), keeping only the little
 * it needs for the checks that span entries (references, tool calls); `findings` adds them to the
 * quick findings.
 */
export class Validator {
  private readonly refs: Array<{ line: number; node: number | undefined; id: string | undefined; kind: RefKind; target: unknown }> = [];
  /** Tool call ids each assistant node declares; tool call id each toolResult node answers. */
  private readonly toolCalls = new Map<number, string[]>();
  private readonly toolResults = new Map<number, string>();

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
        if (!message || typeof message !== "object" || record.node === undefined) return;
        if (message.role === "assistant" && Array.isArray(message.content)) {
          const ids = message.content.filter((b) => b && b.type === "toolCall" && typeof b.id === "string").map((b) => b.id as string);
          if (ids.length > 0) this.toolCalls.set(record.node, ids);
        }
        if (message.role === "toolResult" && typeof message.toolCallId === "string") this.toolResults.set(record.node, message.toolCallId);
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
    const { tree } = session;
    for (const { line, node, id, kind, target } of this.refs) {
      const at = { line, ...(id !== undefined ? { entryId: id } : {}) };
      const exists = typeof target === "string" && tree.byId.has(target);
      switch (kind) {
        case "compaction": {
          if (!exists) {
            // A retain-none compaction names itself.
            if (target !== id) out.push(finding("compaction-target-missing", `firstKeptEntryId \`${String(target)}\` does not exist`, at));
            break;
          }
          if (node === undefined || target === id) break;
          const onPath = tree.pathTo(node).some((n) => session.nodeId(n) === target);
          if (!onPath) out.push(finding("compaction-target-off-path", `firstKeptEntryId \`${target}\` is not on the compaction's branch`, at));
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

  /** toolResults whose toolCallId no assistant message on their branch declared. */
  private toolFindings(session: Session): Finding[] {
    if (this.toolResults.size === 0) return [];
    const out: Finding[] = [];
    const { tree } = session;
    const inScope = new Map<string, number>();
    const enter = (node: number, delta: number) => {
      const ids = this.toolCalls.get(node);
      if (ids) for (const id of ids) inScope.set(id, (inScope.get(id) ?? 0) + delta);
    };
    // Depth-first with explicit enter/exit events, so the scope is the branch above each node.
    const stack: Array<{ node: number; exit: boolean }> = [...tree.roots].reverse().map((node) => ({ node, exit: false }));
    while (stack.length > 0) {
      const { node, exit } = stack.pop()!;
      if (exit) {
        enter(node, -1);
        continue;
      }
      const callId = this.toolResults.get(node);
      if (callId !== undefined && !(inScope.get(callId)! > 0)) {
        const id = session.nodeId(node);
        out.push(finding("tool-result-unmatched", `toolResult for \`${callId}\` has no matching toolCall on its branch`, { line: session.nodeLine(node), ...(id ? { entryId: id } : {}) }));
      }
      enter(node, +1);
      stack.push({ node, exit: true });
      const kids = tree.children(node);
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i]!, exit: false });
    }
    return out;
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
  for (const [id, nodes] of tree.duplicates) {
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
        out.push(finding("parent-forward", `parent \`${pid}\` comes later in the file (line ${session.nodeLine(tree.byId.get(pid)!)})`, where(node)));
        break;
      }
      case "cycle":
        out.push(finding("parent-cycle", `parent links from here form a cycle; broken at this entry`, where(node)));
        break;
    }
  }
  return out;
}

