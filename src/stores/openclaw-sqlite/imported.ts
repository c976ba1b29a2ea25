import { basename, dirname } from "node:path";
import { agentDatabasePath, IMPORTED, IMPORTED_CHECKPOINT, importedCopy, isTrajectory, names, SET_ASIDE } from "../common/openclaw-layout.js";
import { PI_FACTS, readKey, type StoreFacts } from "../common/store-facts.js";
import { databaseFacts } from "./transcripts.js";
import type { TranscriptRef } from "./ref.js";

/*
 * What OpenClaw's importer (`openclaw doctor --session-sqlite import`, 2026.8) leaves beside an
 * agent's database, in `session-sqlite-import-archive/`: its JSONL copy of each transcript it
 * imported, the checkpoints, and any transcript it did not import; and what the database says of a
 * transcript it holds.
 */

/**
 * The transcripts in the importer's folder: each imported one's copy
 * (`agent_<key>.<id>.jsonl.imported-<ms>`), checkpoints
 * (`archive-tier.<id>.checkpoint.<uuid>.jsonl.imported-<ms>`) and what it did not import
 * (`archive-tier.<id>.jsonl.imported-<ms>`); not the old `sessions.json`, not trajectories.
 */
export function importedTranscripts(dir: string): string[] {
  return names(dir)
    .filter((n) => IMPORTED.test(n) && !/\.trajectory\.jsonl\.imported-/.test(n))
    .map((n) => `${dir}/${n}`)
    .filter((p) => !isTrajectory(p));
}

/** A transcript in an agent's database: what `session_windows` and `session_nodes` say of it. */
export function databaseStoreFacts(ref: TranscriptRef): StoreFacts {
  const facts = databaseFacts(ref);
  const key = facts?.key ?? null;
  const read = key ? readKey(key) : { kind: null, channel: null, job: null };
  return {
    store: "openclaw",
    agent: basename(dirname(dirname(ref.database))),
    key,
    label: facts?.label ?? null,
    kind: read.kind,
    job: read.job,
    channel: facts?.channel ?? read.channel,
    spawnedBy: facts?.spawnedBy ?? null,
    archived: facts?.archived ?? null,
    copyOf: null,
    source: "sqlite",
    replaces: facts?.previous ?? null,
    notImported: false,
    besideDatabase: false,
    cold: facts?.cold ?? false,
  };
}

/** A file in the importer's folder: a copy of what it imported (its key in the name), or a transcript it set aside. */
export function importedFacts(path: string): StoreFacts {
  const name = basename(path);
  const agent = basename(dirname(dirname(path)));
  const base = { ...PI_FACTS, store: "openclaw" as const, agent, source: "jsonl" as const };
  const copy = importedCopy(name);
  if (copy) {
    // the key, its ':' written '_': the database's own key for that session is exact
    const id = copy.id;
    const db = agentDatabasePath(dirname(dirname(path)));
    const facts = db ? databaseFacts({ database: db, name: id }) : undefined;
    const key = facts?.key ?? `agent_${copy.key}`.replace(/_/g, ":");
    const read = readKey(key);
    return { ...base, key, label: facts?.label ?? null, kind: read.kind, job: read.job, channel: facts?.channel ?? read.channel, spawnedBy: facts?.spawnedBy ?? null, copyOf: id };
  }
  const checkpoint = IMPORTED_CHECKPOINT.exec(name);
  if (checkpoint) return { ...base, copyOf: checkpoint[1]! };
  const aside = SET_ASIDE.exec(name);
  return aside ? { ...base, notImported: true } : base;
}

