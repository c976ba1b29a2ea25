/**
 * pi-session's format core: a typed library with no printing and no `process.exit`.
 *
 *     import { openSession, contextAt } from "pi-session";
 *     const session = await openSession("session.jsonl");
 *     const context = contextAt(session, session.leafNode);
 */
export * from "./schema/types.js";
export * from "./check/findings.js";
export { Session, openSession, openSessionSync, openSessionBuffer, type OpenOptions } from "./session/session.js";
export { type LineKind, type LineRecord } from "./read/line-table.js";
export { IMAGE_DATA_LENGTH, imageBytes, PLAIN_TEXT, type ReadOptions } from "./read/pass-two.js";
export { parseLine, LineFlag, salvagePieces, classifyText, normalizeLine, BrokenRun, type BrokenOutcome, type Pieces, type Piece } from "./read/salvage.js";
export { applyLabel, messageGist, sessionName } from "./session/labels.js";
export { compareSessions, forkOf, type ChangedEntry, type EntryAt, type SessionComparison } from "./session/compare.js";
export { lineDiff } from "./common/line-diff.js";
export { TreeIndex, type ParentProblem, type TreeProblem } from "./session/tree.js";
export { buildContext, compactionSelection, contextEntries, projectContext, projectEntry, toLlmMessages, bashExecutionText, type BuiltContext, type ProjectedEntry } from "./context/context.js";
export { Validator, lineFindings, quickFindings, recordFindings, treeFindings } from "./check/validate.js";
export { scanLine, emptyFields, Verdict, type ScanFields } from "./read/scanner.js";
export { StatsCollector, type SessionStats } from "./usage/stats.js";
export { migrateEntryV1ToV2, migrateEntryV2ToV3, migrateHeader, V1IdAllocator } from "./schema/migrations.js";
export { contextAt, contextMessages, contextParts, tracedMessages, targetModelAt, RawMessage, contextSettingsAt, resolveEntry, EntryNotFoundError } from "./context/branch.js";
export { sentAt, sendSequence, llmMessages, pairingProblems, PairingCheck, toolCallsOf, isSkippedTurn, NO_RESULT_TEXT, type SentMessage, type TargetModel, type TracedMessage, type PairingProblem } from "./context/send.js";
export { FileSource, BufferSource, SliceSource, forEachLine, readHead, type ByteSource } from "./read/source.js";
export { planMigration, writeMigration, type MigrationPlan, type MigrationStatus } from "./write/migrate.js";
export { rewriteLines, formatDiff, type LineDecision, type RewriteResult } from "./write/rewrite.js";
export { replaceFile, createFile, cleanLeftovers, backupPathFor, stampOf, ConcurrentWriteError, TargetExistsError, type FileStamp, type Producer } from "./write/atomic.js";
export { planRepair, writeRepair, synthesizeHeader, REPAIR_CODES, type RepairAction, type RepairCode, type RepairPlan, type SessionStart } from "./write/repair/index.js";
export { splitSessions, type SessionPart } from "./write/split.js";
export { planSlim, writeSlim, liveNodes, placeholder, DEFAULT_MIN_SIZE, SLIM_KINDS, type SlimPlan, type SlimResult, type SlimKind } from "./write/slim.js";
export { formatBytes, formatCount, plural } from "./common/units.js";
export { idHash } from "./common/hash.js";
export { entrySummary, kindName, nodeSummary, summaryFromBytes, summaryWindow, partialEntry, SummaryReader, SUMMARY_WINDOW, withSummaries, type Line } from "./session/summary.js";
export { planFork, sessionFolderName, sessionFileName, sessionPathFor, type ForkOptions, type ForkPlan } from "./write/fork.js";
export { entryUsage, totalTokens, usageAmounts, sharedRecords, forEachRecord, UsageCollector, UsageTotals, TOOLS_AND_SUMMARIES, ENTRY_STRIDE, AMOUNT_STRIDE, BLOCK_STRIDE, BLOCK_MS, blocksOf, forEachBlock, messageUsageKey, type UsageBlockView, type EntryUsage, type FileUsage, type SessionUsage, type SkippedUsage, type UsageAmounts, type UsageRecordView } from "./usage/records.js";
export { usageReport, USAGE_GROUPS, NO_DATE, type UsageGroup, type UsageReport, type UsageReportOptions, type UsageRow, type UsageSums, type ModelSums, type AttributedSession } from "./usage/report.js";
export { Calendar, isTimeZone, localTimeZone, dayKey, weekKey, monthKey, parseDay, addMonths } from "./usage/calendar.js";
export { readFileUsage, referenceUsage, type UsageRead } from "./usage/read.js";
export { compilePattern, entryRole, firstMatch, requiredLiteral, searchableTexts, PatternError, type GrepPattern, type PatternOptions, type TextMatch } from "./grep/pattern.js";
export { grepFile, referenceGrep, type GrepFilter, type GrepHit, type GrepRead } from "./grep/read.js";
