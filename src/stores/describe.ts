import type { Finding } from "../format/check/findings.js";
import { withTwinKeys as twinKeysOf, sessionGroup as groupOf } from "./openclaw-sqlite/twins.js";
import { databaseLacks } from "./openclaw-sqlite/lacks.js";
import { lockOf as jsonlLock } from "./openclaw-jsonl/index.js";
import { openclawSessionIds, transcriptFacts as openclawFacts } from "./openclaw/index.js";
import type { StoreFacts } from "./common/store-facts.js";
import type { StoreRun } from "./common/run.js";
import { databases, databasesIn } from "./openclaw-sqlite/run.js";
import { factsCachePath, FactsFolder } from "./openclaw-sqlite/facts-cache.js";

/*
 * What a session is to its store, beyond its lines (README, "Stores"): the facts a row carries
 * (agent, key, label, kind, lineage), a writer's lock, what the store holds that the session lacks,
 * which sessions may be one another's bytes again, and what a run of a store-wide command keeps.
 */

export type { StoreFacts };

/**
 * What a session file is to its owner: pi's (`store` "pi"), or an OpenClaw transcript with what its
 * store says (for one its index does not name, what its first user message says: a cron run's
 * `[cron:<job> <name>]`; `firstText` is that message where the caller has it).
 */
export function transcriptFacts(path: string, firstText?: string | null): StoreFacts {
  return openclawFacts(path, firstText);
}

/**
 * The process a session's lock names (an OpenClaw gateway writing it), and whether that process
 * runs on this machine now; undefined: no lock, or one that names no pid.
 */
export function lockOf(path: string): { lock: string; pid: number; live: boolean } | undefined {
  return jsonlLock(path);
}

/**
 * What a session's store says of it beyond its lines, as findings (the store's own codes): an
 * OpenClaw live JSONL holding entries its database transcript lacks, a database transcript whose
 * live JSONL holds more, a transcript the importer set aside. `ids` are the session's entry ids
 * with their lines; `idsOf` reads another session's ids (undefined: it cannot be read).
 */
export function storeFindings(path: string, ids: Iterable<{ id: string; line: number }>, idsOf: (path: string) => Set<string> | undefined): Finding[] {
  const lacks = databaseLacks(path, ids, idsOf);
  return lacks ? [lacks] : [];
}

/**
 * Jobs with what their likely byte-for-byte copies share (a transcript in OpenClaw's database, the
 * importer's copy of it, a live JSONL beside them): the store-wide readers compare such files'
 * bytes and read them once when they are the same. None when no job is a database transcript.
 */
export function withTwinKeys<T extends { path: string; stamp: { size: number } | undefined }>(jobs: T[]): Array<T & { twin?: string }> {
  return twinKeysOf(jobs);
}

/** The session a database transcript, the importer's copy of it, or a live JSONL beside it holds (what `grep` reports each match of once). */
export function sessionGroup(path: string): string | undefined {
  return groupOf(path);
}

/** The ids of the sessions every store found keeps, beyond pi's session directory (what completion offers). */
export function storeSessionIds(env: NodeJS.ProcessEnv): string[] {
  return openclawSessionIds(env);
}

/**
 * A store-wide command's run keeps what OpenClaw's databases say of their transcripts (`ls`,
 * `usage`; not with `--no-cache`: `env` undefined), so that a warm run over databases whose files
 * are as they were opens none of them.
 */
export function keepDatabaseFacts(run: StoreRun, env: NodeJS.ProcessEnv | undefined): void {
  databasesIn(run).factsCache = env ? new FactsFolder(factsCachePath(env)) : undefined;
}

/** What the run read of each database, kept where its files were still (`keepDatabaseFacts`). */
export function saveDatabaseFacts(run: StoreRun): void {
  databasesIn(run).saveFacts();
}

/** Which sessions this thread reads next (a worker's chunk): rows read ahead stop at them (undefined: all that follow). */
export function readAheadWithin(paths: readonly string[] | undefined): void {
  databases().readAheadWithin(paths);
}
