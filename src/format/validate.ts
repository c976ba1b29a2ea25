import { finding, type Finding } from "./findings.js";
import type { LineRecord, OpenOptions, Session } from "./reader.js";
import { KNOWN_ENTRY_TYPES, KNOWN_ROLES, type AnyEntry, type SessionHeader } from "./types.js";

/**
 * The validator. It sees every entry once, in pass one (`onRecord`), keeping only the little it
 * needs for the checks that span entries (references, tool calls), then checks the tree.
 */
export class Validator {
  private readonly entryFindings: Finding[] = [];
  private readonly refs: Array<{ record: LineRecord; kind: "compaction" | "label" | "branch_summary" | "context_edit"; target: unknown }> = [];
  /** Tool call ids each assistant node declares; tool call id each toolResult node answers. */
  private readonly toolCalls = new Map<LineRecord, string[]>();
  private readonly toolResults = new Map<LineRecord, string>();
  private legacy = false;

  readonly onRecord: NonNullable<OpenOptions["onRecord"]> = (value, record) => {
    if (record.kind === "header") {
      this.legacy = typeof (value as SessionHeader).version !== "number" || ((value as SessionHeader).version as number) < 2;
      return;
    }
    this.checkEntry(value as AnyEntry, record);
  };

  private checkEntry(entry: AnyEntry, record: LineRecord): void {
    const at = { line: record.line, ...(record.id !== undefined ? { entryId: record.id } : {}) };
    const out = this.entryFindings;
    if (!this.legacy) {
      if (typeof entry.id !== "string") out.push(finding("entry-missing-id", "the entry has no string `id`", at));
      if (!("parentId" in entry)) out.push(finding("entry-missing-parent", "the entry has no `parentId`", at));
    }
    if (typeof entry.timestamp !== "string") out.push(finding("entry-missing-timestamp", "the entry has no `timestamp`", at));
    const type = entry.type;
    if (type === undefined) return;
    if (!KNOWN_ENTRY_TYPES.has(type)) out.push(finding("entry-unknown-type", `unknown entry type \`${type}\``, at));
    switch (type) {
      case "message": {
        const message = entry.message as { role?: unknown; content?: unknown; toolCallId?: unknown } | null | undefined;
        if (!message || typeof message !== "object" || typeof message.role !== "string") {
          out.push(finding("message-invalid", "a message entry without `message.role`", at));
          return;
        }
        if (!KNOWN_ROLES.has(message.role)) out.push(finding("message-unknown-role", `unknown message role \`${message.role}\``, at));
        if (message.role === "assistant" && Array.isArray(message.content)) {
          const ids = message.content.filter((b) => b && b.type === "toolCall" && typeof b.id === "string").map((b) => b.id as string);
          if (ids.length > 0) this.toolCalls.set(record, ids);
        }
        if (message.role === "toolResult" && typeof message.toolCallId === "string") this.toolResults.set(record, message.toolCallId);
        return;
      }
      case "compaction":
        this.refs.push({ record, kind: "compaction", target: entry.firstKeptEntryId });
        return;
      case "label":
        this.refs.push({ record, kind: "label", target: entry.targetId });
        return;
      case "branch_summary":
        this.refs.push({ record, kind: "branch_summary", target: entry.fromId });
        return;
      case "context_edit":
        this.refs.push({ record, kind: "context_edit", target: entry.targetId });
        return;
      case "leaf":
        if (typeof entry.targetId === "string") this.refs.push({ record, kind: "label", target: entry.targetId });
        return;
    }
  }

  /** Every finding for the session, in line order (file-level findings first). */
  findings(session: Session): Finding[] {
    const all = [...session.lineFindings, ...this.entryFindings, ...treeFindings(session), ...this.referenceFindings(session), ...this.toolFindings(session)];
    return all.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  }

  private referenceFindings(session: Session): Finding[] {
    const out: Finding[] = [];
    const { tree } = session;
    for (const { record, kind, target } of this.refs) {
      const at = { line: record.line, ...(record.id !== undefined ? { entryId: record.id } : {}) };
      const exists = typeof target === "string" && tree.byId.has(target);
      switch (kind) {
        case "compaction": {
          if (!exists) {
            // A retain-none compaction names itself.
            if (target !== record.id) out.push(finding("compaction-target-missing", `firstKeptEntryId \`${String(target)}\` does not exist`, at));
            break;
          }
          if (record.node === undefined || target === record.id) break;
          const onPath = tree.pathTo(record.node).some((n) => session.nodeRecord(n).id === target);
          if (!onPath) out.push(finding("compaction-target-off-path", `firstKeptEntryId \`${target}\` is not on the compaction's branch`, at));
          break;
        }
        case "label":
          if (!exists) {
            const what = record.type === "leaf" ? "leaf-target-missing" : "label-target-missing";
            out.push(finding(what, `targetId \`${String(target)}\` does not exist`, at));
          }
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
      const ids = this.toolCalls.get(session.nodeRecord(node));
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
      const record = session.nodeRecord(node);
      const callId = this.toolResults.get(record);
      if (callId !== undefined && !(inScope.get(callId)! > 0)) {
        out.push(finding("tool-result-unmatched", `toolResult for \`${callId}\` has no matching toolCall on its branch`, { line: record.line, ...(record.id ? { entryId: record.id } : {}) }));
      }
      enter(node, +1);
      stack.push({ node, exit: true });
      const kids = tree.children[node]!;
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
    const r = session.nodeRecord(node);
    return { line: r.line, ...(r.id !== undefined ? { entryId: r.id } : {}) };
  };
  for (const [id, nodes] of tree.duplicates) {
    const lines = nodes.map((n) => session.nodeRecord(n).line);
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
        const p = session.nodeRecord(tree.byId.get(pid)!);
        out.push(finding("parent-forward", `parent \`${pid}\` comes later in the file (line ${p.line})`, where(node)));
        break;
      }
      case "cycle":
        out.push(finding("parent-cycle", `parent links from here form a cycle; broken at this entry`, where(node)));
        break;
    }
  }
  return out;
}

/** Opens and validates a session in one pass; the caller closes the session. */
export function validate(open: (options: OpenOptions) => Session): { session: Session; findings: Finding[] } {
  const validator = new Validator();
  const session = open({ onRecord: validator.onRecord });
  return { session, findings: validator.findings(session) };
}
