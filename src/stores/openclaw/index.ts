import { basename, dirname, join } from "node:path";
import { agentDatabasePath, agentDirs, DATABASE_NAME, databasesOf, IMPORT_FOLDER, isAgentDir, isDir, liveName, openclawRoots, sessionIdOf } from "../common/openclaw-layout.js";
import { PI_FACTS, readKey, withCronFacts, type StoreFacts } from "../common/store-facts.js";
import { jsonlFacts, jsonlSessionIds, jsonlTranscriptsNamed, transcriptsIn } from "../openclaw-jsonl/index.js";
import { databaseStoreFacts, importedFacts, importedTranscripts } from "../openclaw-sqlite/imported.js";
import { transcriptRef } from "../openclaw-sqlite/ref.js";
import { agentDatabase, databaseFamilyKey, databaseHolds, databaseSessionIds, databaseTranscripts, databaseTranscriptsNamed } from "../openclaw-sqlite/transcripts.js";

/*
 * OpenClaw's stores (docs/stores.md, "OpenClaw's stores"): one family, two eras. A root's agents keep
 * their transcripts as files in `sessions/` (the JSONL era, `openclaw-jsonl/`) and, since 2026.8,
 * as rows of a database per agent with what the importer left beside it (the SQLite era,
 * `openclaw-sqlite/`). This is the family as the stores layer sees it: its roots, its transcripts
 * listed agent by agent, found by id or key, and described; each era says its own part.
 */

export { openclawRoots };

/**
 * The transcripts of the OpenClaw layout that `dir` is or is inside, sorted by agent (a root, its
 * `agents/`, one agent's folder: its database's, its `sessions/` folder's and its importer folder's;
 * a `sessions/`, `agent/` or importer folder itself: what that holds), or undefined when `dir` is
 * none of these. `archives`: with archives and copies (a writer leaves them, and the database,
 * alone unless named).
 */
export function openclawTranscripts(dir: string, archives = true): string[] | undefined {
  if (isDir(join(dir, "agents"))) return agentDirs(join(dir, "agents")).flatMap((a) => agentTranscripts(a, archives));
  const name = basename(dir);
  const parent = basename(dirname(dir));
  if (name === "agents") {
    const found = agentDirs(dir);
    return found.length > 0 ? found.flatMap((a) => agentTranscripts(a, archives)) : undefined;
  }
  if (parent === "agents" && isAgentDir(dir)) return agentTranscripts(dir, archives);
  if (basename(dirname(dirname(dir))) !== "agents") return undefined;
  if (name === "sessions") return transcriptsIn(dir, archives);
  if (name === "agent" && agentDatabasePath(dirname(dir))) return archives ? databaseTranscripts(join(dir, DATABASE_NAME)) : [];
  if (name === IMPORT_FOLDER) return archives ? importedTranscripts(dir) : [];
  return undefined;
}

/** One agent's transcripts: its database's live ones (and archives kept there only), then its `sessions/` folder's, then the importer's copies and what it set aside. */
function agentTranscripts(agentDir: string, archives: boolean): string[] {
  const db = agentDatabasePath(agentDir);
  return [
    ...(db && archives ? databaseTranscripts(db) : []),
    ...transcriptsIn(join(agentDir, "sessions"), archives),
    ...(archives ? importedTranscripts(join(agentDir, IMPORT_FOLDER)) : []),
  ];
}

/**
 * The transcripts of every OpenClaw root found that a FILE argument names: a session key
 * (`agent:main:main`), else a session id or the start of one. The database holds the live
 * transcript: a JSONL of the same session beside it is older, and named only where no database
 * names the session.
 */
export function openclawTranscriptsNamed(query: string, env: NodeJS.ProcessEnv): string[] {
  const inDatabase = databasesOf(env).flatMap((db) => databaseTranscriptsNamed(db, query));
  return inDatabase.length > 0 ? inDatabase : jsonlTranscriptsNamed(query, env);
}

/** The session ids of every live transcript in the OpenClaw roots found (what completion offers). */
export function openclawSessionIds(env: NodeJS.ProcessEnv): string[] {
  return [...new Set([...databasesOf(env).flatMap(databaseSessionIds), ...jsonlSessionIds(env)])];
}

/** Why each agent database of the OpenClaw roots found cannot be read, a line each: what a search by id or key could not look in. */
export function unreadableDatabases(env: NodeJS.ProcessEnv): string[] {
  return databasesOf(env).flatMap((db) => {
    try {
      agentDatabase(db);
      return [];
    } catch (error) {
      return [(error as Error).message];
    }
  });
}

/** What a file is: pi's (`store` "pi"), or an OpenClaw transcript, as the era that keeps it says. */
function storeFacts(path: string): StoreFacts {
  const ref = transcriptRef(path);
  if (ref) return databaseStoreFacts(ref);
  const dir = dirname(path);
  if (basename(dir) === IMPORT_FOLDER && basename(dirname(dirname(dir))) === "agents") return importedFacts(path);
  if (basename(dir) !== "sessions" || basename(dirname(dirname(dir))) !== "agents") return PI_FACTS;
  const facts = jsonlFacts(path);
  if (!liveName(basename(path))) {
    // (an archive the JSONL era left: the key it had, where its agent's database records it)
    const database = facts.key === null ? agentDatabasePath(dirname(dir)) : undefined;
    const key = database ? databaseFamilyKey(database, sessionIdOf(basename(path))) : undefined;
    if (key === undefined) return facts;
    const read = readKey(key);
    return { ...facts, key, kind: read.kind, job: read.job, channel: facts.channel ?? read.channel };
  }
  // (a live transcript its agent's database holds too: that session, as the database names it)
  const db = agentDatabasePath(dirname(dir));
  if (!db || !databaseHolds(db, sessionIdOf(basename(path)))) return facts;
  const named = databaseStoreFacts({ database: db, name: sessionIdOf(basename(path)) });
  return { ...named, archived: null, source: "jsonl", cold: false, besideDatabase: true };
}

/**
 * `storeFacts`, and for an OpenClaw transcript its index does not name (an archive), what its
 * first user message says: a cron run's `[cron:<job> <name>]`. `firstText` is that message where
 * the caller has it; else the file's first 64 KB are read for it.
 */
export function transcriptFacts(path: string, firstText?: string | null): StoreFacts {
  return withCronFacts(storeFacts(path), path, firstText);
}
