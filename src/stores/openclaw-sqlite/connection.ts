import type { DatabaseSync } from "node:sqlite";
import { describeSqliteError, hasTable, openReadOnly, type DatabaseStamp } from "../common/sqlite.js";

/*
 * An agent's database opened to read (docs/stores.md, "OpenClaw's SQLite era"), and nothing under the store
 * changed (`openReadOnly`, common/sqlite.ts); its schema is checked for what is read here.
 */

/** The schema this reader was written against (OpenClaw 2026.9.6); a later one is read while it has the columns read here. */
const KNOWN_SCHEMA_VERSION = 23;

/** The columns read here, table by table: a database without one is refused, naming it. */
const NEEDED: Record<string, string[]> = {
  transcript_events: ["session_id", "seq", "event_json", "event_zstd", "event_utf8_bytes", "created_at"],
  session_windows: ["session_id", "session_key", "previous_session_id", "reason", "channel", "chat_type", "spawned_by", "display_name"],
  session_nodes: ["session_key", "current_session_id", "label", "display_name", "spawned_by"],
};

export { databaseStamp, sameStamp, hasTable, type DatabaseStamp } from "../common/sqlite.js";

/** A database open to read: its connection, and its files' stamp taken before it was opened. */
export interface Connection {
  db: DatabaseSync;
  stamp: DatabaseStamp | undefined;
}

/** A database that cannot be read: why, in one line naming it. */
export class DatabaseError extends Error {}

export function describe(error: unknown): string {
  return describeSqliteError(error, "OpenClaw's database", "OpenClaw's `openclaw doctor`", "the gateway is idle");
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
  const { db, stamp } = openReadOnly(path);
  try {
    // (one read transaction for the process, begun at opening: a transcript's size and its rows,
    // read in batches, agree while a gateway goes on writing)
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
  }
}

