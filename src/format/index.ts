/**
 * pi-session's format core: a typed library with no printing and no `process.exit`.
 *
 *     import { openSession, contextAt } from "pi-session";
 *     const session = await openSession("session.jsonl");
 *     const context = contextAt(session, session.leafNode);
 */
export * from "./types.js";
export * from "./findings.js";
export { Session, openSession, openSessionSync, openSessionBuffer, type OpenOptions } from "./session.js";
export { type LineKind, type LineRecord } from "./line-table.js";
export { IMAGE_DATA_LENGTH, imageBytes, PLAIN_TEXT, type ReadOptions } from "./pass-two.js";
export { parseLine, LineFlag, salvagePieces, classifyText, normalizeLine, BrokenRun, type BrokenOutcome, type Pieces, type Piece } from "./salvage.js";
export { applyLabel, sessionName } from "./labels.js";
export { TreeIndex, type ParentProblem, type TreeProblem } from "./tree.js";
export { buildContext, compactionSelection, contextEntries, projectContext, projectEntry, toLlmMessages, bashExecutionText, type BuiltContext, type ProjectedEntry } from "./context.js";
export { Validator, lineFindings, quickFindings, recordFindings, treeFindings } from "./validate.js";
export { scanLine, emptyFields, Verdict, type ScanFields } from "./scanner.js";
export { StatsCollector, messageText, type SessionStats } from "./stats.js";
export { migrateEntryV1ToV2, migrateEntryV2ToV3, migrateHeader, V1IdAllocator } from "./migrations.js";
export { contextAt, contextMessages, contextParts, RawMessage, contextSettingsAt, resolveEntry, EntryNotFoundError } from "./branch.js";
export { FileSource, BufferSource, forEachLine, type ByteSource } from "./source.js";
export { planMigration, writeMigration, type MigrationPlan, type MigrationStatus } from "./migrate.js";
export { rewriteLines, formatDiff, type LineDecision, type RewriteResult } from "./rewrite.js";
export { replaceFile, createFile, cleanLeftovers, backupPathFor, stampOf, ConcurrentWriteError, TargetExistsError, type FileStamp, type Producer } from "./write.js";
export { planRepair, writeRepair, synthesizeHeader, REPAIR_CODES, type RepairAction, type RepairCode, type RepairPlan } from "./repair.js";
export { planSlim, writeSlim, liveNodes, placeholder, DEFAULT_MIN_SIZE, SLIM_KINDS, type SlimPlan, type SlimResult, type SlimKind } from "./slim.js";
export { formatBytes, formatCount, plural } from "./units.js";
export { idHash } from "./hash.js";
export { entrySummary, kindName, nodeSummary, summaryFromBytes, summaryWindow, partialEntry, SummaryReader, SUMMARY_WINDOW, withSummaries, type Line } from "./summary.js";
export { planFork, sessionFolderName, sessionFileName, sessionPathFor, type ForkOptions, type ForkPlan } from "./fork.js";
export { entryUsage, totalTokens, usageAmounts, sharedRecords, forEachRecord, UsageCollector, UsageTotals, TOOLS_AND_SUMMARIES, ENTRY_STRIDE, AMOUNT_STRIDE, BLOCK_STRIDE, BLOCK_MS, blocksOf, forEachBlock, messageUsageKey, type UsageBlockView, type EntryUsage, type FileUsage, type SessionUsage, type SkippedUsage, type UsageAmounts, type UsageRecordView } from "./usage.js";
export { usageReport, USAGE_GROUPS, NO_DATE, type UsageGroup, type UsageReport, type UsageReportOptions, type UsageRow, type UsageSums, type ModelSums, type AttributedSession } from "./usage-report.js";
export { Calendar, isTimeZone, localTimeZone, dayKey, weekKey, monthKey, parseDay, addMonths } from "./calendar.js";
export { readFileUsage, referenceUsage, type UsageRead } from "./usage-read.js";
export { compilePattern, entryRole, firstMatch, requiredLiteral, searchableTexts, PatternError, type GrepPattern, type PatternOptions, type TextMatch } from "./grep.js";
export { grepFile, referenceGrep, type GrepFilter, type GrepHit, type GrepRead } from "./grep-read.js";
