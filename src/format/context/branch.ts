import { activeToolNames, buildContext, compactionSelection, contextSettings, projectEntry, type BuiltContext, type PathView } from "./context.js";
import type { Session } from "../session/session.js";
import type { AgentMessage, AnyEntry, ContextEditEntry, ModelRef } from "../schema/types.js";

/** The context pi would rebuild with `node` as the leaf (`-1`: the empty context before any entry). */
export function contextAt(session: Session, node: number): BuiltContext {
  if (node === -1) return buildContext([]);
  const { thinkingLevel, model, activeToolNames } = contextSettingsAt(session, node);
  return { messages: [...contextMessages(session, node)], thinkingLevel, model, activeToolNames };
}

/** The last node on `path` whose type (and role) matches, without reading any line. */
function lastOfKind(session: Session, path: ArrayLike<number>, match: (type: string | undefined, role: string | undefined) => boolean): number | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const { type, role } = session.nodeKind(path[i]!);
    if (match(type, role)) return path[i];
  }
  return undefined;
}

/** Thinking level, model and active tools at `node`: only the last entry of each kind is read. */
export function contextSettingsAt(session: Session, node: number): { thinkingLevel: string; model: ModelRef | null; activeToolNames: string[] | null } {
  const path = session.tree.pathTo(node);
  const thinking = lastOfKind(session, path, (t) => t === "thinking_level_change");
  const model = lastOfKind(session, path, (t, r) => t === "model_change" || (t === "message" && r === "assistant"));
  const tools = lastOfKind(session, path, (t) => t === "active_tools_change");
  const read = (n: number | undefined) => (n === undefined ? [] : [session.entry(n)]);
  const settings = contextSettings([...read(thinking), ...read(model)]);
  return { ...settings, activeToolNames: activeToolNames(read(tools)) };
}

/**
 * The model the leaf `node`'s context is sent to (pi's transform compares each turn with it): the
 * leaf's model, with the api of the turn that chose it when an assistant turn did (a
 * `model_change` names no api, and the file does not hold pi's model registry).
 */
export function targetModelAt(session: Session, node: number): { provider: string | undefined; api: string | undefined; id: string | undefined } {
  if (node === -1) return { provider: undefined, api: undefined, id: undefined };
  const path = session.tree.pathTo(node);
  const at = lastOfKind(session, path, (t, r) => t === "model_change" || (t === "message" && r === "assistant"));
  if (at === undefined) return { provider: undefined, api: undefined, id: undefined };
  const entry = session.entry(at);
  const { model } = contextSettings([entry]);
  const api = entry.type === "message" ? (entry as { message?: { api?: unknown } }).message?.api : undefined;
  return { provider: model?.provider, api: typeof api === "string" ? api : undefined, id: model?.modelId };
}

/** A message as the JSON bytes of its line, standing for the parsed message (for output). */
export class RawMessage {
  constructor(
    readonly bytes: Buffer,
    readonly role: string,
  ) {}
}

/**
 * The context's messages for the leaf `node`, one entry at a time (pi's `buildSessionContext`
 * order), so that a branch of a gigabyte session is never held in memory at once.
 */
export function* contextMessages(session: Session, node: number): Generator<AgentMessage> {
  for (const m of contextParts(session, node, false)) yield m as AgentMessage;
}

/**
 * As `contextMessages`, but with `raw`, a message entry that pi passes through unchanged comes as
 * its line's bytes (`RawMessage`): writing it as JSON then needs no parse and no stringify.
 */
export function* contextParts(session: Session, node: number, raw = true): Generator<AgentMessage | RawMessage> {
  for (const piece of tracedParts(session, node, raw)) yield piece.part;
}

/** The context's messages for the leaf `node`, each with the node (entry) it came from: a compaction's summary from the compaction. */
export function* tracedMessages(session: Session, node: number): Generator<{ message: AgentMessage; node: number }> {
  for (const { part, node: from } of tracedParts(session, node, false)) yield { message: part as AgentMessage, node: from };
}

function* tracedParts(session: Session, node: number, raw: boolean): Generator<{ part: AgentMessage | RawMessage; node: number }> {
  if (node === -1) return;
  const path = session.tree.pathTo(node);
  const view: PathView = { length: path.length, id: (i) => session.nodeId(path[i]!), type: (i) => session.nodeKind(path[i]!).type, role: (i) => session.nodeKind(path[i]!).role };
  let compaction: AnyEntry | undefined;
  const { compaction: at, selected: positions } = compactionSelection(view, (i) => (compaction = session.entry(path[i]!)));
  const selected = positions.map((i) => path[i]!);
  // The latest edit of each target among the selected entries (edits are small; read them first).
  const edits = new Map<unknown, ContextEditEntry>();
  for (const n of selected) {
    if (session.nodeKind(n).type === "context_edit") {
      const edit = session.entry(n) as ContextEditEntry;
      edits.set(edit.targetId, edit);
    }
  }
  if (at >= 0) for (const part of projectEntry(compaction!, edits.get(compaction!.id))) yield { part, node: path[at]! };
  // Only these entry types become messages (an older compaction inside the kept range does not),
  // so no other line is even read; the rest are read in large blocks, in order.
  const read = selected.filter((n) => {
    const type = session.nodeType(n);
    return type === "message" || type === "custom_message" || type === "branch_summary";
  });
  let k = 0;
  for (const line of session.linesInOrder(read)) {
    const n = read[k++]!;
    if (raw && session.nodeType(n) === "message" && !edits.has(session.nodeId(n))) {
      const bytes = session.rawMessage(n, line);
      if (bytes) {
        // (a copy: the line is a view of a block that the next read overwrites)
        yield { part: new RawMessage(Buffer.from(bytes), session.nodeRole(n)!), node: n };
        continue;
      }
    }
    const entry = session.entryFromBytes(n, line);
    for (const part of projectEntry(entry, edits.get(entry.id))) yield { part, node: n };
  }
}

export class EntryNotFoundError extends Error {
  constructor(
    readonly query: string,
    readonly candidates: string[] = [],
  ) {
    super(candidates.length > 1 ? `entry id prefix \`${query}\` is ambiguous: ${candidates.slice(0, 5).join(", ")}${candidates.length > 5 ? ", …" : ""}` : `no entry \`${query}\``);
  }
}

/** The node an entry id (or unique id prefix) names. */
export function resolveEntry(session: Session, query: string): number {
  const exact = session.nodeOf(query);
  if (exact !== undefined) return exact;
  const matches = session.nodesWithPrefix(query);
  if (matches.length === 1) return matches[0]!;
  throw new EntryNotFoundError(query, matches.map((n) => session.nodeId(n)!));
}
