import { readdirSync, statSync } from "node:fs";
import type { ByteSource } from "../../format/read/source.js";
import { sessionsFolderOf, type AgentDatabase, type WindowFacts } from "./database.js";
import { transcriptPath, type TranscriptRef } from "./ref.js";
import { databases } from "./run.js";
import { openTranscript } from "./source.js";

/*
 * The transcripts an agent's database holds, as the stores layer asks for them: listed, found by
 * id or key, stamped for the caches, described, opened as bytes. Each asks this thread's run for
 * the database (`databases()`), opened once a run.
 */

/** The database at `path`, its facts read; throws a `DatabaseError` saying why it cannot be read. */
export function agentDatabase(path: string): AgentDatabase {
  return databases().database(path);
}

/** A transcript in a database, as bytes; throws a `DatabaseError` when it cannot be read or is not there. */
export function openDatabaseTranscript(ref: TranscriptRef, name: string): ByteSource {
  return openTranscript(agentDatabase(ref.database), ref, name);
}

/**
 * The transcripts a database holds, as paths: each live one (`#<session id>`), and each archive
 * that was never published to a file in `sessions/` (`#<archive name>`; a published one is read
 * from its file). A database that cannot be read is listed as itself, so that the command says why.
 */
export function databaseTranscripts(path: string, archives = true): string[] {
  let db: AgentDatabase;
  try {
    db = agentDatabase(path);
  } catch {
    return [path];
  }
  const live = [...db.summaries.keys()].map((id) => transcriptPath(path, id));
  if (!archives) return live;
  const sessions = sessionsFolderOf(path);
  const files = new Set(safeNames(sessions));
  const kept = [...db.archives.values()].filter((a) => !a.published || !files.has(a.name)).map((a) => transcriptPath(path, a.name));
  return [...live, ...kept];
}

function safeNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** What the caches key a database transcript by: its lines' bytes, its rows and the newest row's time. */
export function transcriptStamp(ref: TranscriptRef): { size: number; mtimeMs: number; ino: number } | undefined {
  try {
    const db = agentDatabase(ref.database);
    const s = db.summaries.get(ref.name);
    if (s) return { size: s.bytes, mtimeMs: s.lastCreated, ino: s.rows };
    const archive = db.archives.get(ref.name);
    return archive ? { size: -1, mtimeMs: statSync(ref.database).mtimeMs, ino: 0 } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a database holds a live transcript of this session (false: not, or it cannot be read). */
export function databaseHolds(database: string, id: string): boolean {
  try {
    return agentDatabase(database).summaries.has(id);
  } catch {
    return false;
  }
}

/** What the database says of a transcript: its window's facts, and the archive it is, if it is one. */
export function databaseFacts(ref: TranscriptRef): (WindowFacts & { archived: "reset" | "deleted" | null; sessionId: string; cold: boolean }) | undefined {
  try {
    const db = agentDatabase(ref.database);
    const archive = db.archives.get(ref.name);
    const id = archive?.sessionId ?? ref.name;
    const w = db.facts(id) ?? { key: null, label: null, channel: null, chatType: null, spawnedBy: null, previous: null, reason: null, current: false };
    return { ...w, sessionId: id, archived: archive ? (archive.reason === "deleted" ? "deleted" : "reset") : null, cold: db.colds.has(id) && !archive };
  } catch {
    return undefined;
  }
}

/** The key a session belonged to before a reset, as the database records it (`AgentDatabase.familyKey`), if it does. */
export function databaseFamilyKey(database: string, id: string): string | undefined {
  try {
    return agentDatabase(database).familyKey(id);
  } catch {
    return undefined;
  }
}

/** The live transcripts of a database whose id starts with `prefix`, or whose key is `key`. */
export function databaseTranscriptsNamed(path: string, query: string): string[] {
  try {
    const db = agentDatabase(path);
    const ids = [...db.summaries.keys()];
    if (!query.startsWith("agent:")) return ids.filter((id) => id.startsWith(query)).map((id) => transcriptPath(path, id));
    // (a key names its current session: the windows it had before a reset are its past)
    const hits = ids.filter((id) => db.facts(id)?.key === query);
    const current = hits.filter((id) => db.facts(id)!.current);
    return (current.length > 0 ? current : hits).map((id) => transcriptPath(path, id));
  } catch {
    return [];
  }
}

/** Every live session id a database holds (completion offers them). */
export function databaseSessionIds(path: string): string[] {
  try {
    return [...agentDatabase(path).summaries.keys()];
  } catch {
    return [];
  }
}

