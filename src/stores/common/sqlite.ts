import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { DatabaseSync } from "node:sqlite";

/*
 * A SQLite database opened to read and nothing beside it changed, whoever keeps sessions in one
 * (OpenClaw's databases, agent-core's SQLite backend): it is opened read-only; with no write-ahead
 * log beside it (no writer has it open) it is opened `immutable`, as SQLite would otherwise create
 * the `-wal` and `-shm` files; a log without its index (`-shm`) is read from a copy of both.
 */

/** How long a read waits for a writer's lock before saying the database is busy. */
const BUSY_MS = 3000;

/** A database's files as they were when it was opened, or its facts read: what caches key them by. */
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

export function hasTable(db: DatabaseSync, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
}

/** node:sqlite, loaded when a database is first read; Node 22 calls it experimental on stderr, which is not news for a reader of this tool. */
let sqlite: typeof import("node:sqlite") | undefined;
export function sqliteModule(): typeof import("node:sqlite") {
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

/** Why a database cannot be read, in words (`owner`: whose it is, as a lock names who holds it). */
export function describeSqliteError(error: unknown, owner: string, checker: string, idle = "its writer is idle"): string {
  const e = error as { code?: string; errcode?: number; message?: string };
  const text = e.message ?? String(error);
  if (e.errcode === 5 || e.errcode === 6 || /database is locked|busy/i.test(text)) return `${owner} is locked by another process (${text}); try again when ${idle}`;
  if (e.errcode === 11 || e.errcode === 26 || /malformed|not a database/i.test(text)) return `not a readable SQLite database (${text}); it may be damaged: ${checker} checks it`;
  if (e.code === "EACCES" || /unable to open/i.test(text)) return `cannot be opened for reading (${text}); check its permissions`;
  return text;
}

/**
 * The database at `path` opened read-only, with its files' stamp taken first; nothing is left
 * beside it that was not there (see the top of this file). One read transaction is begun: every
 * query after sees the database as it was at the first, whatever a writer commits meanwhile.
 */
export function openReadOnly(path: string): { db: DatabaseSync; stamp: DatabaseStamp | undefined } {
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
    copy = mkdtempSync(join(tmpdir(), "pi-session-sqlite-"));
    copyFileSync(path, join(copy, basename(path)));
    copyFileSync(`${path}-wal`, join(copy, `${basename(path)}-wal`));
    url = pathToFileURL(join(copy, basename(path)));
  }
  try {
    const db = new DatabaseSync(url, { readOnly: true, timeout: BUSY_MS });
    try {
      db.exec("BEGIN");
      // (a first read opens the log, and with it the read's snapshot: a copy removed below is read as it was)
      db.prepare("SELECT count(*) FROM sqlite_master").get();
    } catch (error) {
      db.close();
      throw error;
    }
    return { db, stamp };
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
