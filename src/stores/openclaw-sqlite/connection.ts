import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { DatabaseSync } from "node:sqlite";
import { DATABASE_NAME } from "../common/openclaw-layout.js";

/*
 * An agent's database opened to read (README, "OpenClaw's SQLite era"), and nothing under the store
 * changed: it is opened read-only; with no write-ahead log beside it (no gateway has it open) it is
 * opened `immutable`, as SQLite would otherwise create the `-wal` and `-shm` files; a log without
 * its index (`-shm`) is read from a copy of both. Its schema is checked for what is read here.
 */

/** The schema this reader was written against (OpenClaw 2026.9.6); a later one is read while it has the columns read here. */
const KNOWN_SCHEMA_VERSION = 23;

/** The columns read here, table by table: a database without one is refused, naming it. */
const NEEDED: Record<string, string[]> = {
  transcript_events: ["session_id", "seq", "event_json", "event_zstd", "event_utf8_bytes", "created_at"],
  session_windows: ["session_id", "session_key", "previous_session_id", "reason", "channel", "chat_type", "spawned_by", "display_name"],
  session_nodes: ["session_key", "current_session_id", "label", "display_name", "spawned_by"],
};

/** How long a read waits for a writer's lock before saying the database is busy. */
const BUSY_MS = 3000;

/** A database's files as they were when it was opened, or its facts read: what the facts cache keys them by. */
export interface DatabaseStamp {
  /** The database's size, modification time and inode. */
  db: [number, number, number];
  /** Its log's (`-wal`), or null where it has none. */
  wal: [number, number, number] | null;
}

/** The stamp of the database at `path` now; undefined when it cannot be stat'ed. */
export function databaseStamp(path: string): DatabaseStamp | undefined {
  const of = (p: string): [number, number, number] | null => {
    const st = statSync(p, { throwIfNoEntry: false });
    return st ? [st.size, st.mtimeMs, st.ino] : null;
  };
  try {
    const db = of(path);
    return db ? { db, wal: of(`${path}-wal`) } : undefined;
  } catch {
    return undefined;
  }
}

export const sameStamp = (a: DatabaseStamp, b: DatabaseStamp): boolean => a.db.every((v, i) => v === b.db[i]) && (a.wal === null ? b.wal === null : b.wal !== null && a.wal.every((v, i) => v === b.wal![i]));

/** A database open to read: its connection, and its files' stamp taken before it was opened. */
export interface Connection {
  db: DatabaseSync;
  stamp: DatabaseStamp | undefined;
}

export function hasTable(db: DatabaseSync, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
}

/** node:sqlite, loaded when a database is first read; Node 22 calls it experimental on stderr, which is not news for a reader of this tool. */
let sqlite: typeof import("node:sqlite") | undefined;
function sqliteModule(): typeof import("node:sqlite") {
  if (sqlite) return sqlite;
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    sqlite = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite");
  } finally {
    process.emitWarning = emit;
  }
  return sqlite;
}

/** A database that cannot be read: why, in one line naming it. */
export class DatabaseError extends Error {}

export function describe(error: unknown): string {
  const e = error as { code?: string; errcode?: number; errstr?: string; message?: string };
  const text = e.message ?? String(error);
  if (e.errcode === 5 || e.errcode === 6 || /database is locked|busy/i.test(text)) return `OpenClaw's database is locked by another process (${text}); try again when the gateway is idle`;
  if (e.errcode === 11 || e.errcode === 26 || /malformed|not a database/i.test(text)) return `not a readable SQLite database (${text}); it may be damaged: OpenClaw's \`openclaw doctor\` checks it`;
  if (e.code === "EACCES" || /unable to open/i.test(text)) return `cannot be opened for reading (${text}); check its permissions`;
  return text;
}

/** The database opened for reading, its schema checked, in one read transaction for the process; throws a `DatabaseError` saying why it cannot be. */
export function connect(path: string): Connection {
  try {
    return connectTo(path);
  } catch (error) {
    throw error instanceof DatabaseError ? error : new DatabaseError(`${path}: ${describe(error)}`);
  }
}

function connectTo(path: string): Connection {
  const { DatabaseSync } = sqliteModule();
  const stamp = databaseStamp(path);
  const wal = fileSize(`${path}-wal`);
  const shm = fileSize(`${path}-shm`);
  let copy: string | undefined;
  let url = pathToFileURL(path);
  if (wal === undefined || wal === 0) {
    // every committed page is in the file itself; `immutable` opens it without creating -wal and -shm
    url.searchParams.set("immutable", "1");
  } else if (shm === undefined) {
    // a log without its index: SQLite would write the index beside it; read a copy of both instead
    copy = mkdtempSync(join(tmpdir(), "pi-session-openclaw-"));
    copyFileSync(path, join(copy, DATABASE_NAME));
    copyFileSync(`${path}-wal`, join(copy, `${DATABASE_NAME}-wal`));
    url = pathToFileURL(join(copy, DATABASE_NAME));
  }
  const db = new DatabaseSync(url, { readOnly: true, timeout: BUSY_MS });
  try {
    // one read transaction for the process: every query sees the database as it was at the first
    // (a transcript's size and its rows, read in batches, agree), while a gateway goes on writing
    db.exec("BEGIN");
    const missing: string[] = [];
    for (const [table, columns] of Object.entries(NEEDED)) {
      const have = new Set(db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all().map((r) => String(r.name)));
      if (have.size === 0) missing.push(`table ${table}`);
      else for (const c of columns) if (!have.has(c)) missing.push(`${table}.${c}`);
    }
    if (missing.length > 0) {
      const version = hasTable(db, "schema_meta") ? ((db.prepare("SELECT max(schema_version) AS v FROM schema_meta").get()?.v as number | null) ?? null) : null;
      const lacks = `${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ", …" : ""}`;
      // (the version this reads, yet without what it reads: changed by hand or damaged, not newer)
      if (version !== null && version <= KNOWN_SCHEMA_VERSION) throw new DatabaseError(`${path}: an OpenClaw database of schema version ${version}, which should hold ${lacks} and does not; it may be damaged or changed by hand: OpenClaw's \`openclaw doctor\` checks it`);
      const which = version === null ? "no schema version" : `schema version ${version}`;
      throw new DatabaseError(`${path}: an OpenClaw database of ${which}, which pi-session does not know (it reads version ${KNOWN_SCHEMA_VERSION}): it lacks ${lacks}; \`pi-session\` may need updating`);
    }
    return { db, stamp };
  } catch (error) {
    db.close();
    throw error;
  } finally {
    // (the copy's files stay open, read as they were, until the process ends: none is left behind, even by an interrupted run)
    if (copy) rmSync(copy, { recursive: true, force: true });
  }
}

function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

