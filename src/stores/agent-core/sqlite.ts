import type { DatabaseSync } from "node:sqlite";
import { databaseStamp, describeSqliteError, hasTable, openReadOnly, type DatabaseStamp } from "../common/sqlite.js";
import { Replay, type Format4Session } from "./format4.js";

/*
 * agent-core's SQLite backend (`@earendil-works/pi-session-backend-sqlite-node` 0.87, schema
 * `001_initial.sql`): a database holds one session by default (`<id>.sqlite`) or several in a
 * shared container, every row scoped by `session_id`. What a reader needs is in `sessions`,
 * `entries`, `scalar_values` and `usage_ledger`; `list_values` and the `branch_*` tables are
 * operation state and the backend's own indexes.
 */

/** The tables and columns read here: a database without them is not agent-core's (or not a version read here). */
const NEEDED: Record<string, string[]> = {
  sessions: ["id", "created_at", "parent_session_id", "metadata"],
  entries: ["session_id", "id", "parent_id", "seq", "type", "custom_type", "timestamp", "payload"],
  scalar_values: ["session_id", "namespace", "key", "value"],
  usage_ledger: ["session_id", "id", "seq", "entry_id", "adjustment", "usage", "details"],
};

/** The values a reader needs (agent-core's `values.js`): tips, labels, the name, and operations in progress. */
const READ_NAMESPACES = ["pi.branch.tip", "pi.entry.label", "pi.session.name", "pi.op.meta", "pi.op.state"];

export class ContainerError extends Error {}

/** Whether `db` has agent-core's tables (and the columns read here). */
function isContainer(db: DatabaseSync): boolean {
  for (const [table, columns] of Object.entries(NEEDED)) {
    if (!hasTable(db, table)) return false;
    const have = new Set(db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all().map((r) => String(r.name)));
    if (!columns.every((c) => have.has(c))) return false;
  }
  return true;
}

/** A container open to read, with what it holds. */
export interface Container {
  path: string;
  stamp: DatabaseStamp | undefined;
  /** Its sessions, oldest first. */
  sessions: Array<{ id: string; createdAt: number }>;
  read(id: string): Format4Session;
  close(): void;
}

/**
 * The database at `path` as agent-core's container, opened to read (nothing beside it changed:
 * `openReadOnly`); undefined when it is a database of something else; throws a `ContainerError`
 * saying why it cannot be read.
 */
export function openContainer(path: string): Container | undefined {
  let db: DatabaseSync;
  let stamp: DatabaseStamp | undefined;
  try {
    ({ db, stamp } = openReadOnly(path));
  } catch (error) {
    throw new ContainerError(`${path}: ${describeSqliteError(error, "agent-core's session database", "`sqlite3 FILE 'PRAGMA integrity_check'`")}`);
  }
  try {
    if (!isContainer(db)) {
      db.close();
      return undefined;
    }
  } catch (error) {
    db.close();
    throw new ContainerError(`${path}: ${describeSqliteError(error, "agent-core's session database", "`sqlite3 FILE 'PRAGMA integrity_check'`")}`);
  }
  const sessions = db
    .prepare("SELECT id, created_at FROM sessions ORDER BY created_at, id")
    .all()
    .map((r) => ({ id: String(r.id), createdAt: Number(r.created_at) }));
  return {
    path,
    stamp,
    sessions,
    read: (id) => readSession(db, path, id),
    close: () => db.close(),
  };
}

const json = (text: unknown, what: string): unknown => {
  try {
    return JSON.parse(String(text));
  } catch {
    throw new Error(`${what} is not JSON`);
  }
};

/** Session `id` of the container, replayed as a JSONL file's is (`Replay`): entries by sequence, then the current values, then the ledger. */
function readSession(db: DatabaseSync, path: string, id: string): Format4Session {
  const row = db.prepare("SELECT id, created_at, parent_session_id, metadata FROM sessions WHERE id = ?").get(id);
  if (!row) throw new ContainerError(`${path}: holds no session ${id}`);
  const replay = new Replay();
  const damaged: Format4Session["damaged"] = [];
  // (an entry's row number in sequence order stands for its line: a database has none)
  let n = 0;
  for (const e of db.prepare("SELECT id, parent_id, seq, type, custom_type, timestamp, payload FROM entries WHERE session_id = ? ORDER BY seq").iterate(id)) {
    n++;
    try {
      const payload = json(e.payload, `entry ${String(e.id)}'s payload`) as Record<string, unknown>;
      replay.apply({ kind: "entry", id: e.id, parentId: e.parent_id ?? null, type: e.type, ...(e.custom_type !== null ? { customType: e.custom_type } : {}), ...payload, seq: Number(e.seq), timestamp: Number(e.timestamp) });
    } catch (error) {
      damaged.push({ line: n, reason: (error as Error).message });
    }
  }
  const values = db.prepare(`SELECT namespace, key, value FROM scalar_values WHERE session_id = ? AND namespace IN (${READ_NAMESPACES.map(() => "?").join(", ")}) ORDER BY seq`).all(id, ...READ_NAMESPACES);
  // (the op's meta before its state: an operation is open where its meta is)
  values.sort((a, b) => Number(a.namespace === "pi.op.state") - Number(b.namespace === "pi.op.state"));
  for (const v of values) {
    try {
      replay.setValue(String(v.namespace), String(v.key), json(v.value, `value ${String(v.namespace)}/${String(v.key)}`));
    } catch (error) {
      damaged.push({ line: 0, reason: (error as Error).message });
    }
  }
  for (const u of db.prepare("SELECT id, seq, entry_id, adjustment, usage, details FROM usage_ledger WHERE session_id = ? ORDER BY seq").iterate(id)) {
    try {
      replay.apply({ kind: "usage", id: u.id, seq: Number(u.seq), usage: json(u.usage, `usage row ${String(u.id)}`), ...(u.entry_id !== null ? { entryId: u.entry_id } : {}), adjustment: Number(u.adjustment) !== 0, ...(u.details !== null ? { details: json(u.details, `usage row ${String(u.id)}'s details`) } : {}) });
    } catch (error) {
      damaged.push({ line: 0, reason: (error as Error).message });
    }
  }
  let metadata: unknown = null;
  try {
    metadata = row.metadata === null ? null : JSON.parse(String(row.metadata));
  } catch {
    // metadata the backend's caller gave, not read
  }
  const cwd = metadata && typeof metadata === "object" && typeof (metadata as { cwd?: unknown }).cwd === "string" ? (metadata as { cwd: string }).cwd : null;
  return replay.session({
    id,
    createdAt: Number(row.created_at),
    cwd,
    parentSessionId: row.parent_session_id === null ? null : String(row.parent_session_id),
    legacyParentSessionPath: null,
    damaged,
    torn: false,
  });
}

/** A container's stamp: its file's and its log's together (a writer's commits go to the log first). */
export function containerStamp(path: string): { size: number; mtimeMs: number; ino: number } | undefined {
  const s = databaseStamp(path);
  if (!s) return undefined;
  return { size: s.db[0] + (s.wal?.[0] ?? 0), mtimeMs: Math.max(s.db[1], s.wal?.[1] ?? 0), ino: s.db[2] };
}
