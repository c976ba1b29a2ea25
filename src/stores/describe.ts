import type { Finding } from "../format/check/findings.js";
import { PI_FACTS, type StoreFacts } from "./common/store-facts.js";
import type { StoreRun } from "./common/run.js";
import type { Keeper, StoredRequest } from "./common/store.js";
import { STORES } from "./registry.js";

/*
 * What a session is to its store, beyond its lines (docs/stores.md, "Stores"): the facts a row carries
 * (agent, key, label, kind, lineage), a writer's lock, what the store holds that the session lacks,
 * which sessions may be one another's bytes again, and what a run of a store-wide command keeps.
 * Each is asked of the stores in turn (`STORES`).
 */

export type { StoreFacts, StoredRequest, Keeper };

/**
 * What a session file is to its owner: pi's (`store` "pi"), or an OpenClaw transcript with what its
 * store says (for one its index does not name, what its first user message says: a cron run's
 * `[cron:<job> <name>]`; `firstText` is that message where the caller has it).
 */
export function transcriptFacts(path: string, firstText?: string | null): StoreFacts {
  for (const store of STORES) {
    const facts = store.facts?.(path, firstText);
    if (facts) return facts;
  }
  return PI_FACTS;
}

/**
 * The process a session's lock names (an OpenClaw gateway writing it), and whether that process
 * runs on this machine now; undefined: no lock, or one that names no pid.
 */
export function lockOf(path: string): { lock: string; pid: number; live: boolean } | undefined {
  for (const store of STORES) {
    const lock = store.lock?.(path);
    if (lock) return lock;
  }
  return undefined;
}

/** The stores that say more of a session than its lines. */
const ASKED = STORES.filter((s) => s.findings);

/**
 * What a session's store says of it beyond its lines, as findings (the store's own codes): an
 * OpenClaw live JSONL holding entries its database transcript lacks, a database transcript whose
 * live JSONL holds more, a transcript the importer set aside. `ids` are the session's entry ids
 * with their lines; `idsOf` reads another session's ids (undefined: it cannot be read).
 */
export function storeFindings(path: string, ids: Iterable<{ id: string; line: number }>, idsOf: (path: string) => Set<string> | undefined): Finding[] {
  // (the ids read only if a store needs them, and then once for all)
  let read: Array<{ id: string; line: number }> | undefined;
  const given: Iterable<{ id: string; line: number }> = { [Symbol.iterator]: () => (read ??= [...ids])[Symbol.iterator]() };
  return ASKED.flatMap((s) => s.findings!(path, given, idsOf));
}

/**
 * Jobs with what their likely byte-for-byte copies share (a transcript in OpenClaw's database, the
 * importer's copy of it, a live JSONL beside them): the store-wide readers compare such files'
 * bytes and read them once when they are the same. None when no store keeps copies among them.
 */
export function withTwinKeys<T extends { path: string; stamp: { size: number } | undefined; twin?: string }>(jobs: T[]): T[] {
  return STORES.reduce((out, s) => s.withTwinKeys?.(out) ?? out, jobs);
}

/** The session a database transcript, the importer's copy of it, or a live JSONL beside it holds (what `grep` reports each match of once). */
export function sessionGroup(path: string): string | undefined {
  for (const store of STORES) {
    const group = store.group?.(path);
    if (group !== undefined) return group;
  }
  return undefined;
}

/** The ids of the sessions the stores found keep (what completion offers). */
export function storeSessionIds(piDir: string, env: NodeJS.ProcessEnv): string[] {
  return [...new Set(STORES.flatMap((s) => s.sessionIds?.({ piDir, env }) ?? []))];
}

/**
 * A store-wide command's run keeps what the stores cache between runs (OpenClaw's databases'
 * facts: `ls`, `usage`; not with `--no-cache`: `env` undefined), so that a warm run over databases
 * whose files are as they were opens none of them.
 */
export function keepStoreFacts(run: StoreRun, env: NodeJS.ProcessEnv | undefined): void {
  for (const store of STORES) store.keep?.(run, env);
}

/** What the run kept, saved (`keepStoreFacts`). */
export function saveStoreFacts(run: StoreRun): void {
  for (const store of STORES) store.save?.(run);
}

/** Which sessions this thread reads next (a worker's chunk): rows read ahead stop at them (undefined: all that follow). */
export function readAheadWithin(paths: readonly string[] | undefined): void {
  for (const store of STORES) store.readAheadWithin?.(paths);
}

/** The format version a session is stored in where pi cannot read it as it is (agent-core's 4), else undefined. */
export function storedVersion(path: string): number | undefined {
  for (const store of STORES) {
    const v = store.storedVersion?.(path);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** Who alone may move or remove the session at `path`, where that is not this tool (`archive` leaves it), else undefined. */
export function keeperOf(path: string): Keeper | undefined {
  for (const store of STORES) {
    const keeper = store.keeper?.(path);
    if (keeper) return keeper;
  }
  return undefined;
}

/**
 * A session pi cannot open as stored (agent-core's format 4): its v3 copy as `migrate` writes it
 * (at `file`; default: beside it, by its name), and whether that file holds exactly its lines as
 * pi's (migrated); undefined for a session pi opens as it is. What `migrate`, `ls`, `show` and
 * `check` say of whether it is migrated.
 */
export function v3Copy(path: string, file?: string): { path: string; current: boolean; continued: boolean } | undefined {
  for (const store of STORES) {
    const copy = store.v3Copy?.(path, file);
    if (copy !== undefined) return copy;
  }
  return undefined;
}

/**
 * A session pi cannot open as stored (agent-core's format 4): its own size, as `ls` gives it (a
 * file's, a database's), and its own lines (a file's; null for a database's session, which has no
 * lines of its own); undefined for a session pi opens as it is, whose lines are those read.
 */
export function storedExtent(path: string): { size: number; lines: number | null } | undefined {
  for (const store of STORES) {
    const extent = store.extent?.(path);
    if (extent !== undefined) return extent;
  }
  return undefined;
}

/** Why `command` may not write the session at `path`, in one line naming it (its store's word), else undefined. */
export function writeRefusal(path: string, command: string): string | undefined {
  for (const store of STORES) {
    const why = store.refusal?.(path, command);
    if (why !== undefined) return why;
  }
  return undefined;
}

/** The session's usage as its store keeps it (agent-core's ledger), where that, not its messages', is what counts; else undefined. */
export function storedUsage(path: string): StoredRequest[] | undefined {
  for (const store of STORES) {
    const u = store.usage?.(path);
    if (u !== undefined) return u;
  }
  return undefined;
}

/** Where a session's lines as read come from, where not its file's (agent-core's format 4): read line -> its file's line (0: none); else undefined. */
export function storedLines(path: string): ((line: number) => number) | undefined {
  for (const store of STORES) {
    const map = store.lines?.(path);
    if (map) return map;
  }
  return undefined;
}
