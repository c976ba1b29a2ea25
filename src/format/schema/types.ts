/**
 * The pi session file format, as written by pi 1.6 (`@earendil-works/pi-coding-agent`) and by the
 * agent-core harness. One JSON object per line; line 1 is the header, every other line an entry.
 * Entries link to their parent by `parentId` and form a tree; the file is append-only, so a parent
 * always comes before its children.
 */

/** The newest format version this tool reads and writes. */
export const CURRENT_VERSION = 3;

export interface SessionHeader {
  type: "session";
  /** Missing in v1 files. */
  version?: number;
  id: string;
  timestamp: string;
  cwd: string;
  /** Absolute path of the session this one was forked from. */
  parentSession?: string;
  /** v1 headers only. */
  provider?: string;
  modelId?: string;
  thinkingLevel?: string;
  /** Very old v1 forks. */
  branchedFrom?: string;
  [key: string]: unknown;
}

/** The header fields pi needs as strings (a header without one is invalid; repair fills them in). */
export const HEADER_FIELDS = ["id", "timestamp", "cwd"] as const;

/** Which of `HEADER_FIELDS` a header lacks (missing, or not a string). */
export function missingHeaderFields(header: Record<string, unknown>): Array<(typeof HEADER_FIELDS)[number]> {
  return HEADER_FIELDS.filter((k) => typeof header[k] !== "string");
}

export interface TextContent {
  type: "text";
  text: string;
  [key: string]: unknown;
}
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
  [key: string]: unknown;
}
export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  [key: string]: unknown;
}
export interface ToolCallContent {
  type: "toolCall";
  id: string;
  name: string;
  arguments: unknown;
  [key: string]: unknown;
}
export type ContentBlock = TextContent | ImageContent | ThinkingContent | ToolCallContent | { type: string; [key: string]: unknown };

export interface Usage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  totalTokens?: number;
  cost?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; total?: number };
}

/**
 * An `AgentMessage`: the stored message of a `message` entry. `hookMessage` exists only in v2 files
 * (renamed `custom` in v3). Unknown roles are kept and shown.
 */
export type MessageRole =
  | "user"
  | "assistant"
  | "toolResult"
  | "system"
  | "bashExecution"
  | "custom"
  | "hookMessage"
  | "branchSummary"
  | "compactionSummary";

export interface AgentMessage {
  role: MessageRole | string;
  content?: string | ContentBlock[] | null;
  timestamp?: number;
  /** assistant */
  provider?: string;
  model?: string;
  api?: string;
  usage?: Usage;
  stopReason?: string;
  errorMessage?: string;
  /** toolResult */
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
  /** bashExecution */
  command?: string;
  output?: string;
  exitCode?: number | null;
  cancelled?: boolean;
  truncated?: boolean;
  fullOutputPath?: string;
  excludeFromContext?: boolean;
  /** custom */
  customType?: string;
  display?: boolean;
  details?: unknown;
  [key: string]: unknown;
}

interface EntryBase {
  id: string;
  /** `null` for a root. */
  parentId: string | null;
  /** ISO 8601. */
  timestamp: string;
  [key: string]: unknown;
}

export interface MessageEntry extends EntryBase {
  type: "message";
  message: AgentMessage;
}
export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}
export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}
/** Model usage outside the conversation (e.g. cache warming); counts toward totals only. */
export interface UsageEntry extends EntryBase {
  type: "usage";
  kind: string;
  provider: string;
  model: string;
  usage: Usage;
}
/**
 * Replaces the path before `firstKeptEntryId` with `summary` when the context is rebuilt.
 * v1 files use `firstKeptEntryIndex`, an index into the file's parsed records (header = 0).
 */
export interface CompactionEntry extends EntryBase {
  type: "compaction";
  summary: string;
  firstKeptEntryId: string;
  firstKeptEntryIndex?: number;
  tokensBefore: number;
  systemMessage?: AgentMessage;
  usage?: Usage;
  details?: unknown;
  fromHook?: boolean;
}
/** A summary of the branch abandoned at `fromId` ("root" when there was none). */
export interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  fromId: string;
  summary: string;
  usage?: Usage;
  details?: unknown;
  fromHook?: boolean;
}
/** Extension state; not part of the context. */
export interface CustomEntry extends EntryBase {
  type: "custom";
  customType: string;
  data?: unknown;
}
/** An extension message that is part of the context (as role `custom`). */
export interface CustomMessageEntry extends EntryBase {
  type: "custom_message";
  customType: string;
  content: string | ContentBlock[];
  display?: boolean;
  details?: unknown;
}
/** Replaces (or with `replacement: null`, drops) the content of `targetId` in later contexts. */
export interface ContextEditEntry extends EntryBase {
  type: "context_edit";
  targetId: string;
  replacement: { content: string | ContentBlock[] } | null;
}
/** Sets (or with an empty `label`, clears) a bookmark on `targetId`. */
export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  label?: string;
}
/** Session display name. */
export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  name?: string;
}
/** Agent-core harness: moves the current leaf to `targetId` (`null`: before the first entry). */
export interface LeafEntry extends EntryBase {
  type: "leaf";
  targetId: string | null;
}
/** Agent-core harness: the tools active from here on. */
export interface ActiveToolsChangeEntry extends EntryBase {
  type: "active_tools_change";
  activeToolNames: string[];
}

export type SessionEntry =
  | MessageEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | UsageEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | ContextEditEntry
  | LabelEntry
  | SessionInfoEntry
  | LeafEntry
  | ActiveToolsChangeEntry;

export type EntryType = SessionEntry["type"];

/** Every entry type this tool knows; anything else is kept and shown as unknown. */
export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set<EntryType>([
  "message",
  "model_change",
  "thinking_level_change",
  "usage",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "context_edit",
  "label",
  "session_info",
  "leaf",
  "active_tools_change",
]);

export const KNOWN_ROLES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "toolResult",
  "system",
  "bashExecution",
  "custom",
  "hookMessage",
]);

/** An entry as found in a file: known fields typed, anything else kept. */
export type AnyEntry = SessionEntry | (EntryBase & { type: string });

export interface ModelRef {
  provider: string;
  modelId: string;
}

/** What pi's `buildSessionContext` returns, plus the harness's active tools. */
export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  model: ModelRef | null;
}

/**
 * The event types of pi's `--mode json` output (`pi --mode json "prompt"` prints its session's
 * header, then one of these a line), which people save beside their sessions.
 */
export const PI_EVENT_TYPES: ReadonlySet<string> = new Set([
  "agent_start",
  "agent_end",
  "agent_settled",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "compaction_start",
  "compaction_end",
  "compaction_cost",
  "auto_retry_start",
  "auto_retry_end",
  "queue_update",
]);

/**
 * What a JSONL file is: a session (a session header, or an entry with an id); pi's `--mode json`
 * event stream (events and no entry with an id, with or without the header pi prints first); or
 * another file altogether. One rule, for the reader and for repair, which count the facts each
 * their own way.
 */
export type FileKind = "session" | "event-stream" | "other";

export function fileKindOf(facts: { header: boolean; entryWithId: boolean; events: number }): FileKind {
  if (!facts.entryWithId && facts.events > 0) return "event-stream";
  return facts.header || facts.entryWithId ? "session" : "other";
}

/** The text blocks of a message joined by spaces (as pi's session list shows them). */
export function messageText(m: AgentMessage): string {
  const c = m.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c
    .filter((b): b is ContentBlock & { text: string } => !!b && b.type === "text" && typeof (b as { text?: unknown }).text === "string")
    .map((b) => b.text)
    .join(" ");
}
