/**
 * pi-session's format library (docs/reference.md, "The library"): a typed library with no printing and no
 * `process.exit`. What it exports here is what that section documents; the rest of `src/format` is the
 * tool's own and may change.
 *
 *     import { openSession, contextAt } from "pi-session";
 *     const session = await openSession("session.jsonl");
 *     const context = contextAt(session, session.leafNode);
 */

// Reading: a session file (or bytes) as a compact index; entries parsed when asked for
export { Session, openSession, openSessionSync, openSessionBuffer, type OpenOptions } from "./session/session.js";
export { FileSource, BufferSource, type ByteSource } from "./read/source.js";
export { CURRENT_VERSION } from "./schema/types.js";
export type { SessionHeader, SessionEntry, AnyEntry, EntryType, MessageEntry, ModelChangeEntry, ThinkingLevelChangeEntry, UsageEntry, CompactionEntry, BranchSummaryEntry, CustomEntry, CustomMessageEntry, ContextEditEntry, LabelEntry, SessionInfoEntry, LeafEntry, ActiveToolsChangeEntry } from "./schema/types.js";
export type { AgentMessage, MessageRole, ContentBlock, TextContent, ImageContent, ThinkingContent, ToolCallContent, Usage, SessionContext, FileKind } from "./schema/types.js";

// The context pi builds at a leaf, and the messages it sends
export { contextAt, resolveEntry, EntryNotFoundError } from "./context/branch.js";
export type { BuiltContext } from "./context/context.js";
export { sentAt, type SentMessage, type TargetModel } from "./context/send.js";

// Checking: every finding `pi-session check` reports
export { Validator } from "./check/validate.js";
export { countBySeverity, FINDING_INFO, type Finding, type FindingCode, type StoreFindingCode, type Severity } from "./check/findings.js";

// Writing: a plan first, then the bytes (to any sink; the original is the caller's to keep)
export { planMigration, writeMigration, type MigrationPlan, type MigrationStatus } from "./write/migrate.js";
export { planRepair, writeRepair, REPAIR_CODES, type RepairPlan, type RepairAction, type RepairCode } from "./write/repair/index.js";
export { planSlim, writeSlim, type SlimPlan } from "./write/slim.js";
export type { RewriteResult } from "./write/rewrite.js";

// Usage and search, as `usage` and `grep` read a session
export { readFileUsage, type UsageRead } from "./usage/read.js";
export { compilePattern, type GrepPattern, type PatternOptions } from "./grep/pattern.js";
export { grepFile, type GrepFilter, type GrepHit, type GrepRead } from "./grep/read.js";
