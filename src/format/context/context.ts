import type {
  AgentMessage,
  AnyEntry,
  CompactionEntry,
  ContentBlock,
  ContextEditEntry,
  MessageEntry,
  ModelRef,
  SessionContext,
} from "../schema/types.js";
import { idHash } from "../common/hash.js";

/**
 * The context pi rebuilds for a leaf, from the entries on the root -> leaf path. Follows pi 1.6's
 * `buildSessionContext` rule for rule (compaction ranges, system checkpoints, context edits, null
 * content), and adds the harness's `activeToolNames`.
 */

export interface BuiltContext extends SessionContext {
  /** The harness's active tools at the leaf; `null` when the path sets none. */
  activeToolNames: string[] | null;
}

/** The last thinking level and model set on the path. */
export function contextSettings(path: readonly AnyEntry[]): { thinkingLevel: string; model: ModelRef | null } {
  let thinkingLevel = "off";
  let model: ModelRef | null = null;
  for (const entry of path) {
    if (entry.type === "thinking_level_change") {
      thinkingLevel = entry.thinkingLevel as string;
    } else if (entry.type === "model_change") {
      model = { provider: entry.provider as string, modelId: entry.modelId as string };
    } else if (entry.type === "message") {
      const message = (entry as MessageEntry).message;
      if (message?.role === "assistant") model = { provider: message.provider as string, modelId: message.model as string };
    }
  }
  return { thinkingLevel, model };
}

/** A root -> leaf path as the compaction rule reads it: ids, types and roles by position. */
export interface PathView {
  readonly length: number;
  id(i: number): string | undefined;
  type(i: number): string | undefined;
  role(i: number): string | undefined;
}

/**
 * pi's compaction rule, in one place. On a branch whose newest compaction is `c`: the context
 * starts with `c`'s summary; pi finds `c` on the path by its id, so where it stands (`anchor`) is
 * the first entry on the path holding that id (`c` itself, unless a duplicated id puts another
 * above it); the kept range starts at the first entry on the path, above the anchor, holding
 * `firstKeptEntryId` (`keptFrom`; none: nothing is kept); then come the kept range's non-system
 * entries up to the anchor, then every entry after the anchor.
 *
 * `firstOnPath(id, below, inclusive)` is the first entry from the root holding `id` on the path
 * down to `below` (`inclusive`: `below` itself counts): a scan of one branch's path
 * (`compactionSelection`), or the tree's ancestry for every branch at once (slim's live set).
 */
export function compactionBounds<N>(c: N, entry: { id: unknown; firstKeptEntryId?: unknown }, firstOnPath: (id: unknown, below: N, inclusive: boolean) => N | undefined): { anchor: N; keptFrom: N | undefined } {
  const anchor = firstOnPath(entry.id, c, true) ?? c;
  return { anchor, keptFrom: firstOnPath(entry.firstKeptEntryId, anchor, false) };
}

/**
 * `compactionBounds` along one branch's path: the newest compaction's position (-1: none), where
 * it stands (`anchor`), and the positions of the entries after it in the context, in order.
 * `compactionAt` reads the compaction entry at a position.
 */
export function compactionSelection(path: PathView, compactionAt: (i: number) => { id: unknown; firstKeptEntryId?: unknown }): { compaction: number; selected: Int32Array } {
  let last = -1;
  for (let i = path.length - 1; i >= 0 && last < 0; i--) if (path.type(i) === "compaction") last = i;
  if (last < 0) return { compaction: -1, selected: Int32Array.from({ length: path.length }, (_, i) => i) };
  const firstOnPath = (id: unknown, below: number, inclusive: boolean) => {
    for (let i = 0; i < below + (inclusive ? 1 : 0); i++) if (path.id(i) === id) return i;
    return undefined;
  };
  const { anchor: at, keptFrom } = compactionBounds(last, compactionAt(last), firstOnPath);
  const from = keptFrom ?? -1;
  // the kept range, first counted (a branch can be a million entries: 4 bytes each, no growing)
  const kept = (i: number) => !(path.type(i) === "message" && path.role(i) === "system");
  let count = path.length - at - 1;
  if (from >= 0) for (let i = from; i < at; i++) if (kept(i)) count++;
  const selected = new Int32Array(count);
  let k = 0;
  if (from >= 0) for (let i = from; i < at; i++) if (kept(i)) selected[k++] = i;
  for (let i = at + 1; i < path.length; i++) selected[k++] = i;
  return { compaction: last, selected };
}

/** The entries the context is made of (see `compactionSelection`), the compaction first. */
function contextEntries(path: readonly AnyEntry[]): AnyEntry[] {
  const view: PathView = {
    length: path.length,
    id: (i) => path[i]!.id,
    type: (i) => path[i]!.type,
    role: (i) => (path[i]!.type === "message" ? (path[i] as MessageEntry).message?.role : undefined),
  };
  const { compaction, selected } = compactionSelection(view, (i) => path[i] as CompactionEntry);
  return [...(compaction >= 0 ? [path[compaction]!] : []), ...Array.from(selected, (i) => path[i]!)];
}

/** The messages one entry contributes to the context (before context edits). */
function entryMessages(entry: AnyEntry): AgentMessage[] {
  switch (entry.type) {
    case "message": {
      const message = (entry as MessageEntry).message;
      if (!message || typeof message !== "object") return [];
      // Old, forked or hand-edited files can hold null content.
      if (message.role === "system" && message.content == null) return [{ ...message, content: "" }];
      if ((message.role === "user" || message.role === "assistant" || message.role === "toolResult") && message.content == null) {
        return [{ ...message, content: [] }];
      }
      return [message];
    }
    case "custom_message":
      return [
        {
          role: "custom",
          customType: entry.customType as string,
          content: (entry.content as AgentMessage["content"]) ?? [],
          display: entry.display as boolean | undefined,
          details: entry.details,
          timestamp: new Date(entry.timestamp).getTime(),
        },
      ];
    case "branch_summary":
      if (!entry.summary) return [];
      return [{ role: "branchSummary", summary: entry.summary, fromId: entry.fromId, timestamp: new Date(entry.timestamp).getTime() }];
    case "compaction": {
      const c = entry as CompactionEntry;
      const summary: AgentMessage = {
        role: "compactionSummary",
        summary: c.summary,
        tokensBefore: c.tokensBefore,
        timestamp: new Date(c.timestamp).getTime(),
      };
      return c.systemMessage ? [c.systemMessage, summary] : [summary];
    }
    default:
      return [];
  }
}

const EDITABLE_ROLES = new Set(["user", "assistant", "toolResult", "custom"]);

/** One entry's messages with its latest context edit applied. */
export function projectEntry(entry: AnyEntry, edit: ContextEditEntry | undefined): AgentMessage[] {
  const messages = entryMessages(entry);
  if (!edit) return messages;
  const replacement = edit.replacement;
  if (replacement === null) return [];
  return messages.map((message) => {
    if (!EDITABLE_ROLES.has(message.role)) return message;
    const raw = (replacement as { content?: unknown } | undefined)?.content;
    const content =
      (message.role === "assistant" || message.role === "toolResult") && typeof raw === "string"
        ? [{ type: "text", text: raw } as ContentBlock]
        : (raw as AgentMessage["content"]);
    return { ...message, content };
  });
}

/**
 * What a context edit does to the conversation's shape (the pairing rules): the id it targets, and
 * whether it omits it (`replacement: null`) or, for an assistant turn, which calls the replacement
 * leaves it (their ids' hashes: none for text). Undefined for an edit without a string target or
 * whose replacement is not an object (pi cannot apply it).
 */
export function editEffectOf(entry: AnyEntry): { target: string; omit: boolean; calls: number[] } | undefined {
  if (entry.type !== "context_edit" || typeof entry.targetId !== "string") return undefined;
  const replacement = entry.replacement as { content?: unknown } | null | undefined;
  if (replacement === null) return { target: entry.targetId, omit: true, calls: [] };
  if (typeof replacement !== "object" || replacement === undefined) return undefined;
  const calls: number[] = [];
  if (Array.isArray(replacement.content)) {
    for (const b of replacement.content as Array<{ type?: unknown; id?: unknown } | null>) if (b && b.type === "toolCall" && typeof b.id === "string") calls.push(idHash(b.id));
  }
  return { target: entry.targetId, omit: false, calls };
}

interface ProjectedEntry {
  entry: AnyEntry;
  messages: AgentMessage[];
  /** The context edit applied to this entry, if any. */
  edit?: ContextEditEntry;
}

/** The context entries with the messages each contributes. */
function projectContext(path: readonly AnyEntry[]): ProjectedEntry[] {
  const selected = contextEntries(path);
  const edits = new Map<unknown, ContextEditEntry>();
  for (const entry of selected) if (entry.type === "context_edit") edits.set(entry.targetId, entry as ContextEditEntry);
  return selected.map((entry, index) => {
    const edit = edits.get(entry.id);
    // Only the newest compaction (first) contributes; an older one can sit in the kept range.
    const messages = entry.type === "compaction" && index > 0 ? [] : projectEntry(entry, edit);
    return edit ? { entry, messages, edit } : { entry, messages };
  });
}

export function activeToolNames(path: readonly AnyEntry[]): string[] | null {
  let names: string[] | null = null;
  for (const entry of path) {
    if (entry.type === "active_tools_change" && Array.isArray(entry.activeToolNames)) names = entry.activeToolNames as string[];
  }
  return names;
}

/** pi's `buildSessionContext` for the given root -> leaf path, plus `activeToolNames`. */
export function buildContext(path: readonly AnyEntry[]): BuiltContext {
  const { thinkingLevel, model } = contextSettings(path);
  const messages = projectContext(path).flatMap((p) => p.messages);
  return { messages, thinkingLevel, model, activeToolNames: activeToolNames(path) };
}

const COMPACTION_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const COMPACTION_SUFFIX = "\n</summary>";
const BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const BRANCH_SUFFIX = "</summary>";

/** pi's rendering of a bash execution for the model. */
function bashExecutionText(m: AgentMessage): string {
  let text = `Ran \`${m.command}\`\n`;
  text += m.output ? `\`\`\`\n${m.output}\n\`\`\`` : "(no output)";
  if (m.cancelled) text += "\n\n(command cancelled)";
  else if (m.exitCode !== null && m.exitCode !== undefined && m.exitCode !== 0) text += `\n\nCommand exited with code ${m.exitCode}`;
  if (m.truncated && m.fullOutputPath) text += `\n\n[Output truncated. Full output: ${m.fullOutputPath}]`;
  return text;
}

/** The provider-facing messages, by pi's `convertToLlm` rules. Unknown roles are dropped, as pi does. */
export function toLlmMessages(messages: readonly AgentMessage[]): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "bashExecution":
        if (!m.excludeFromContext) out.push({ role: "user", content: [{ type: "text", text: bashExecutionText(m) }], timestamp: m.timestamp });
        break;
      case "custom":
        out.push({ role: "user", content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content, timestamp: m.timestamp });
        break;
      case "branchSummary":
        out.push({ role: "user", content: [{ type: "text", text: BRANCH_PREFIX + String(m.summary) + BRANCH_SUFFIX }], timestamp: m.timestamp });
        break;
      case "compactionSummary":
        out.push({ role: "user", content: [{ type: "text", text: COMPACTION_PREFIX + String(m.summary) + COMPACTION_SUFFIX }], timestamp: m.timestamp });
        break;
      case "system":
      case "user":
      case "assistant":
      case "toolResult":
        out.push(m);
        break;
      default:
        break;
    }
  }
  return out;
}
