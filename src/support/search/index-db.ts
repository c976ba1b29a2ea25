import { createHash } from "node:crypto";
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { BUILD } from "../../build-info.js";
import type { IndexedEntry } from "../../format/search/read.js";
import { cacheFolder, sqliteModule, type SessionStamp } from "../../stores/index.js";
import { Directory } from "./directory.js";

/**
 * `search`'s index (docs/commands.md, "search"; ARCHITECTURE.md, "search"): one SQLite database in
 * the cache folder beside `ls`'s (`search-index-STAMP.sqlite`, one a build: `indexPath`), written with what Node ships
 * (`node:sqlite`, its FTS5). Per session: its stamp, how far it was read, its title and cwd; per
 * entry with text: where its line is, its role, time and the key of its id; per entry, its terms
 * (format/search/terms.ts) in a table of full-text search that keeps no text (`contentless`, only
 * which entries hold each term), and each word term once in a vocabulary, itself searchable by
 * trigrams, in which a part of a word is looked up.
 *
 * An entry's row number is its worth, then its time (format/search/score.ts): the index hands
 * candidates over best first. Two searches at once: the database is in WAL mode, readers never
 * wait, and a search that has to write waits for another's writing, however long (`begin`). A database that
 * is damaged, or made by another build (its rules, its Unicode), is thrown away and made again,
 * never an error (`SearchIndex.open`, `damaged`); a cache folder that cannot be written holds
 * none: the index is then made in memory for the run.
 */

/** The layout's version: a change to the tables or to what a row means makes every index again. */
const LAYOUT = 5;

/** What made an index: another build (other rules for reading a session) or another Unicode (other letters) makes it again. */
const MADE_BY = `${LAYOUT}:${BUILD.version}+${BUILD.rules}:unicode ${process.versions.unicode ?? "?"}`;

/** How long a statement waits for another search's lock (a read in WAL mode never does but while the log is folded). */
const BUSY_MS = 5000;

const SCHEMA = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  size REAL NOT NULL, mtime REAL NOT NULL, ino REAL NOT NULL,
  mode TEXT NOT NULL, kind TEXT NOT NULL, version INTEGER NOT NULL,
  read_to REAL NOT NULL, lines INTEGER NOT NULL, guard BLOB,
  header_id TEXT, cwd TEXT, created TEXT,
  name TEXT, first_user TEXT,
  skipped INTEGER NOT NULL
);
CREATE TABLE entries(
  row INTEGER PRIMARY KEY,
  session INTEGER NOT NULL,
  line INTEGER NOT NULL, offset INTEGER NOT NULL, length INTEGER NOT NULL,
  role TEXT NOT NULL, time INTEGER, key INTEGER NOT NULL, id TEXT
);
CREATE INDEX entries_by_session ON entries(session, key);
CREATE TABLE skipped(session INTEGER NOT NULL, line INTEGER NOT NULL, offset INTEGER NOT NULL, length INTEGER NOT NULL);
CREATE INDEX skipped_by_session ON skipped(session);
CREATE VIRTUAL TABLE words USING fts5(terms, tokenize = "ascii tokenchars '_'", detail = none, content = '', contentless_delete = 1);
CREATE TABLE vocabulary(id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE vocabulary_trigrams USING fts5(term, tokenize = "trigram case_sensitive 1", content = 'vocabulary', content_rowid = 'id');
CREATE VIRTUAL TABLE words_terms USING fts5vocab(words, row);
CREATE TABLE directory(id INTEGER PRIMARY KEY CHECK (id = 1), paths TEXT NOT NULL, kinds TEXT NOT NULL, numbers BLOB NOT NULL);
`;

/** A session as the index holds it. */
export interface IndexedSession {
  id: number;
  /** Absolute. */
  path: string;
  stamp: SessionStamp;
  mode: "lines" | "whole";
  kind: string;
  version: number;
  /** Where its last whole line read ends, and that line's number. */
  readTo: number;
  lines: number;
  headerId: string | null;
  cwd: string | null;
  created: string | null;
  name: string | null;
  firstUser: string | null;
  /** How many of its lines pi skips. */
  skipped: number;
}

/** A session to keep: all but its id (and `guard`: the hash of the bytes before `readTo`, which an append must leave as they were). */
export type SessionToKeep = Omit<IndexedSession, "id"> & { guard: Uint8Array | null };

/** An entry the index hands over as a candidate. */
export interface CandidateRow {
  row: number;
  session: number;
  line: number;
  offset: number;
  length: number;
  time: number | null;
  key: number;
  id: string | null;
}

/** Whether `error` says the database is damaged or is no database: it is made again. */
export function damaged(error: unknown): boolean {
  if (error instanceof DamagedIndex) return true;
  const e = error as { errcode?: number; message?: string };
  return e?.errcode === 11 || e?.errcode === 26 || /malformed|not a database|database disk image|fts5: corrupt|no such table|no such column/i.test(e?.message ?? "");
}

/**
 * Whether `error` is the file system's refusal (a cache folder that cannot be written, a disk
 * full, an I/O error, a database opened read-only): the index is then kept in memory.
 */
export function refused(error: unknown): boolean {
  const e = error as { errcode?: number; code?: string; message?: string };
  // (SQLite's primary codes, under its extended ones: CANTOPEN, READONLY, FULL, IOERR)
  const code = (e?.errcode ?? 0) & 0xff;
  return code === 14 || code === 8 || code === 13 || code === 10 || ["EACCES", "EROFS", "EPERM", "ENOSPC", "ENOTDIR", "EEXIST"].includes(e?.code ?? "") || /unable to open|readonly|read-only|disk is full|disk I\/O/i.test(e?.message ?? "");
}

/** How long an index another build made (another version, another Node's Unicode) is kept unused before a search removes it. */
const UNUSED_DAYS = 14;

/**
 * Where the index of a cache folder is: a file of each build (its stamp, `MADE_BY`, hashed into
 * the name), so that two builds used in turn (Node 22 and Node 24, whose Unicode differ) never
 * make each other's index again nor wait for each other's writing.
 */
function indexPath(env: NodeJS.ProcessEnv): string {
  return join(cacheFolder(env), `search-index-${createHash("sha256").update(MADE_BY).digest("hex").slice(0, 12)}.sqlite`);
}

/**
 * The index file (made now if it is new), or its folder (the tool's own cache folder), kept to its
 * owner alone: `mode`, where it is the user's and more is allowed (SQLite gives the index's log
 * and shared memory the file's mode).
 */
function ownOnly(path: string, mode: number): void {
  if (mode === 0o600) {
    try {
      closeSync(openSync(path, "wx", mode));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  for (const f of mode === 0o600 ? [path, `${path}-wal`, `${path}-shm`] : [path]) {
    const st = statSync(f, { throwIfNoEntry: false });
    if (st && (st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(f, mode);
  }
}

/** Other builds' indexes in `folder` (and the one of the name before builds had their own) unused for `UNUSED_DAYS`, removed (best effort). */
function pruneUnused(folder: string, current: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^search-index(-[0-9a-f]+)?\.sqlite$/.test(name) || join(folder, name) === current) continue;
    const file = join(folder, name);
    const used = Math.max(...[file, `${file}-wal`].map((f) => statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0));
    if (now - used > UNUSED_DAYS * 86_400_000) SearchIndex.discard(file);
  }
}

export class SearchIndex {
  private readonly statements = new Map<string, StatementSync>();
  /** Entries were removed in this run (a session rewritten, cut short or gone): the vocabulary is pruned (`pruneVocabulary`). */
  private removed = false;

  private constructor(
    private readonly db: DatabaseSync,
    /** Where it is kept (":memory:" where the cache folder cannot hold it). */
    readonly file: string,
  ) {}

  /**
   * The index of the cache folder `env` names, made if there is none, made again if it is damaged
   * or another build's. `onNote`: what is said of an index that cannot be kept (then made in memory).
   */
  static async open(env: NodeJS.ProcessEnv, onNote: (note: string) => void, begin: (index: SearchIndex) => Promise<void>): Promise<SearchIndex> {
    const file = indexPath(env);
    pruneUnused(join(file, ".."), file);
    for (let attempt = 0; ; attempt++) {
      try {
        // (a copy of every session's words: the folder, where this makes it, and the file the user's alone)
        mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
        ownOnly(join(file, ".."), 0o700);
        ownOnly(file, 0o600);
        return await SearchIndex.at(file, begin);
      } catch (error) {
        if (damaged(error) && attempt === 0) {
          SearchIndex.discard(file);
          continue;
        }
        if (refused(error)) {
          // (a cache that cannot be written but holds this build's index: read as it is; made in memory only if it must change)
          const kept = SearchIndex.readOnly(file);
          if (kept) return kept;
          onNote(`the search index cannot be kept in ${file} (${(error as Error).message}); this search makes it in memory`);
          return SearchIndex.inMemory();
        }
        throw error;
      }
    }
  }

  /**
   * This build's index at `file`, read-only, where its folder cannot be written (undefined: none, or
   * another build's, or its log holds what was not yet folded into it). Opened as a file nothing
   * changes (no lock, no log: a read-only folder has room for neither); an update that must write
   * to it fails as a refused write, and the search is then made in memory.
   */
  private static readOnly(file: string): SearchIndex | undefined {
    if (!statSync(file, { throwIfNoEntry: false })?.size || (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) return undefined;
    try {
      const { DatabaseSync } = sqliteModule();
      const index = new SearchIndex(new DatabaseSync(`${pathToFileURL(file).href}?immutable=1`, { readOnly: true }), file);
      if (index.madeBy() === MADE_BY) return index;
      index.close();
    } catch {
      // (not readable either: made in memory)
    }
    return undefined;
  }

  /** An index in memory, for this run (the cache folder's could not be written). */
  static async inMemory(): Promise<SearchIndex> {
    return SearchIndex.at(":memory:", async (index) => void index.tryBegin());
  }

  /**
   * The index at `file`, made there if it is new, made again if another build made it (`begin`:
   * the write lock taken first, waiting while another search writes).
   */
  private static async at(file: string, begin: (index: SearchIndex) => Promise<void>): Promise<SearchIndex> {
    const { DatabaseSync } = sqliteModule();
    const db = new DatabaseSync(file, { timeout: BUSY_MS });
    const index = new SearchIndex(db, file);
    try {
      if (file !== ":memory:") db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
      // (what is deleted, a session's terms after a redact, is overwritten, not left in free pages)
      db.exec("PRAGMA secure_delete = ON");
      const made = index.madeBy();
      if (made === MADE_BY) return index;
      // (a new file, or one made by a build of the same stamp another way: made afresh while no other search
      // writes, once the one that does is done, however long it takes)
      await begin(index);
      try {
        if (index.madeBy() !== MADE_BY) {
          // (the full-text tables first: each takes its own tables with it)
          const tables = (virtual: boolean) => (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql ${virtual ? "" : "NOT "}LIKE 'CREATE VIRTUAL TABLE%'`).all() as Array<{ name: string }>).map((r) => r.name);
          for (const name of [...tables(true), ...tables(false)]) db.exec(`DROP TABLE IF EXISTS ${quoted(name)}`);
          db.exec(SCHEMA);
          db.prepare("INSERT INTO meta(key, value) VALUES ('made by', ?)").run(MADE_BY);
        }
        index.commit();
      } catch (error) {
        index.rollback();
        throw error;
      }
      return index;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** The build that made the index, or undefined (a new file). */
  private madeBy(): string | undefined {
    if (!this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get()) return undefined;
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'made by'").get() as { value?: string } | undefined;
    return row?.value ?? "";
  }

  /** The index file and its log removed (damaged: made again). A search that has it open goes on with what it opened. */
  static discard(file: string): void {
    if (file === ":memory:") return;
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  }

  private statement(sql: string): StatementSync {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /** Every session the index holds, as a search first looks at them (`Directory`). */
  directory(): Directory {
    const row = this.statement("SELECT paths, kinds, numbers FROM directory WHERE id = 1").get() as { paths: string; kinds: string; numbers: Uint8Array } | undefined;
    if (!row) return new Directory([], [], new Float64Array(0));
    // (as JSON: a path may hold any character but NUL, a newline too)
    let paths: unknown, kinds: unknown;
    try {
      paths = JSON.parse(row.paths);
      kinds = JSON.parse(row.kinds);
    } catch {
      throw new DamagedIndex("its directory of sessions does not read back");
    }
    const numbers = new Float64Array(row.numbers.buffer.slice(row.numbers.byteOffset, row.numbers.byteOffset + row.numbers.byteLength));
    if (!Array.isArray(paths) || !Array.isArray(kinds) || kinds.length !== paths.length || numbers.length !== paths.length * Directory.FIELDS) throw new DamagedIndex("its directory of sessions does not read back");
    return new Directory(paths as string[], kinds as string[], numbers);
  }

  /** The directory kept (after the sessions' rows changed: `Directory.changed`). */
  keepDirectory(d: Directory): void {
    this.statement("INSERT OR REPLACE INTO directory(id, paths, kinds, numbers) VALUES (1, ?, ?, ?)").run(JSON.stringify(d.paths), JSON.stringify(d.kinds), d.bytes());
  }

  /** A session's row the directory names (none: the index does not read back as written, and is made again). */
  heldSession(id: number): IndexedSession {
    const s = this.session(id);
    if (!s) throw new DamagedIndex(`its directory names session ${id}, which it has no row for`);
    return s;
  }

  /** A session's row, by its id (undefined: gone). */
  session(id: number): IndexedSession | undefined {
    const r = this.statement("SELECT id, path, size, mtime, ino, mode, kind, version, read_to, lines, header_id, cwd, created, name, first_user, skipped FROM sessions WHERE id = ?").get(id) as Record<string, unknown> | undefined;
    return r && sessionOf(r);
  }

  /** The id of the session at `path` (one the directory does not hold: its row is taken up again, never a second made). */
  sessionAt(path: string): number | undefined {
    const r = this.statement("SELECT id FROM sessions WHERE path = ?").get(path) as { id?: number } | undefined;
    return r?.id;
  }

  /** The hash of the bytes before where a session was read to, as they were (what an append leaves alone). */
  guardOf(session: number): Uint8Array | undefined {
    const g = (this.statement("SELECT guard FROM sessions WHERE id = ?").get(session) as { guard?: Uint8Array | null } | undefined)?.guard;
    return g ?? undefined;
  }

  /** The write transaction begun, if no other search writes now (false: one does; try again later). */
  tryBegin(): boolean {
    this.db.exec("PRAGMA busy_timeout = 20");
    try {
      this.db.exec("BEGIN IMMEDIATE");
      return true;
    } catch (error) {
      if ((error as { errcode?: number }).errcode === 5 || /locked|busy/i.test((error as Error).message)) return false;
      throw error;
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${BUSY_MS}`);
    }
  }

  commit(): void {
    this.db.exec("COMMIT");
  }

  /** The write transaction rolled back, if one is open (best effort: a disk that failed a write may fail this too, and SQLite rolls back as the database closes). */
  rollback(): void {
    try {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
    } catch {
      // (closed with the transaction open: rolled back then)
    }
  }

  /** A session's entries, skipped lines and row, gone. */
  forget(session: number): void {
    this.cutAfter(session, 0);
    this.statement("DELETE FROM sessions WHERE id = ?").run(session);
  }

  /** A session's entries and skipped lines after line `lines`, gone (read again: a last line that was not whole, a file read afresh). */
  cutAfter(session: number, lines: number): void {
    this.statement("DELETE FROM words WHERE rowid IN (SELECT row FROM entries WHERE session = ? AND line > ?)").run(session, lines);
    if (this.statement("DELETE FROM entries WHERE session = ? AND line > ?").run(session, lines).changes > 0) this.removed = true;
    this.statement("DELETE FROM skipped WHERE session = ? AND line > ?").run(session, lines);
  }

  /** A session's row written (`id`: replacing that one's); its id. */
  keepSession(s: SessionToKeep, id?: number): number {
    const values = [s.path, s.stamp.size, s.stamp.mtimeMs, s.stamp.ino, s.mode, s.kind, s.version, s.readTo, s.lines, s.guard, s.headerId, s.cwd, s.created, s.name, s.firstUser, s.skipped] as const;
    if (id !== undefined) {
      this.statement("UPDATE sessions SET path = ?, size = ?, mtime = ?, ino = ?, mode = ?, kind = ?, version = ?, read_to = ?, lines = ?, guard = ?, header_id = ?, cwd = ?, created = ?, name = ?, first_user = ?, skipped = ? WHERE id = ?").run(...values, id);
      return id;
    }
    return Number(this.statement("INSERT INTO sessions(path, size, mtime, ino, mode, kind, version, read_to, lines, guard, header_id, cwd, created, name, first_user, skipped) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").run(...values).lastInsertRowid);
  }

  /** An entry kept under `row` (format/search/score.ts, `rowOf`); `id` kept where the reading gave it and the line does not (`whole` reads). */
  addEntry(session: number, row: number, e: IndexedEntry, keepId: boolean): void {
    this.statement("INSERT INTO entries(row, session, line, offset, length, role, time, key, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)").run(row, session, e.line, e.offset, e.length, e.role, Number.isFinite(e.time) ? e.time : null, e.key, keepId ? (e.id ?? null) : null);
    this.statement("INSERT INTO words(rowid, terms) VALUES (?, ?)").run(row, e.terms);
  }

  /** How many entries the index has read over its life (what the next entry's row counts from: `rowOf`). */
  get seq(): number {
    return Number((this.statement("SELECT value FROM meta WHERE key = 'seq'").get() as { value?: string } | undefined)?.value ?? 0);
  }

  set seq(n: number) {
    this.statement("INSERT OR REPLACE INTO meta(key, value) VALUES ('seq', ?)").run(String(n));
  }

  addSkipped(session: number, line: number, offset: number, length: number): void {
    this.statement("INSERT INTO skipped(session, line, offset, length) VALUES (?, ?, ?, ?)").run(session, line, offset, length);
  }

  /** Terms added to the vocabulary (those it holds already left as they are). */
  addTerms(terms: Iterable<string>): void {
    const insert = this.statement("INSERT OR IGNORE INTO vocabulary(term) VALUES (?)");
    const trigrams = this.statement("INSERT INTO vocabulary_trigrams(rowid, term) VALUES (?, ?)");
    for (const term of terms) {
      const r = insert.run(term);
      if (r.changes > 0) trigrams.run(r.lastInsertRowid, term);
    }
  }

  /**
   * The vocabulary's terms that no entry holds any longer removed, where entries were removed in
   * this run: a word redacted from a session, or of a session removed, is then gone from the index
   * (the full-text table keeps no text, only which entries hold a term; its pieces keep a deleted
   * entry's terms until they are merged: `tidy`, after a term is dropped).
   */
  pruneVocabulary(): { removed: boolean; dropped: number } {
    if (!this.removed) return { removed: false, dropped: 0 };
    this.removed = false;
    const gone = this.statement("SELECT id, term FROM vocabulary WHERE term NOT IN (SELECT term FROM words_terms)").all() as Array<{ id: number; term: string }>;
    const trigrams = this.statement("INSERT INTO vocabulary_trigrams(vocabulary_trigrams, rowid, term) VALUES ('delete', ?, ?)");
    const drop = this.statement("DELETE FROM vocabulary WHERE id = ?");
    for (const { id, term } of gone) {
      trigrams.run(id, term);
      drop.run(id);
    }
    return { removed: true, dropped: gone.length };
  }

  /** The log folded into the file (after entries were removed: their pages overwritten there too, not left as they were until SQLite folds it), best effort. */
  checkpoint(): void {
    try {
      if (this.file !== ":memory:") this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {
      // (busy: another search reads the index; the log is folded another time)
    }
  }

  /** Every term of the full-text index in the vocabulary (after a large write: one pass over its terms rather than a look-up of each entry's). */
  addAllTerms(): void {
    const last = Number((this.statement("SELECT max(id) AS id FROM vocabulary").get() as { id?: number | null }).id ?? 0);
    this.db.exec("INSERT OR IGNORE INTO vocabulary(term) SELECT term FROM words_terms");
    this.statement("INSERT INTO vocabulary_trigrams(rowid, term) SELECT id, term FROM vocabulary WHERE id > ?").run(last);
  }

  /** The vocabulary's terms that hold `part` (3 characters or more), at most `most` of them; undefined: more than that. */
  termsHolding(part: string, most: number): string[] | undefined {
    const rows = this.statement("SELECT term FROM vocabulary_trigrams WHERE vocabulary_trigrams MATCH ? LIMIT ?").all(quoted(part), most + 1) as Array<{ term: string }>;
    if (rows.length > most) return undefined;
    return rows.map((r) => r.term).filter((t) => t.includes(part));
  }

  /**
   * The candidates, best first (by row): entries holding what `match` asks (an FTS5 expression of
   * quoted terms; undefined: every entry), of these roles and times where given.
   */
  *candidates(match: string | undefined, where: { roles?: readonly string[]; from?: number; to?: number }): Generator<CandidateRow> {
    const filters: string[] = [];
    const params: Array<string | number> = [];
    if (match !== undefined) params.push(match);
    if (where.roles) {
      filters.push(`e.role IN (${where.roles.map(() => "?").join(", ")})`);
      params.push(...where.roles);
    }
    if (where.from !== undefined || where.to !== undefined) {
      filters.push("e.time BETWEEN ? AND ?");
      params.push(where.from ?? -8.64e15, where.to ?? 8.64e15);
    }
    const columns = "e.row AS row, e.session AS session, e.line AS line, e.offset AS offset, e.length AS length, e.time AS time, e.key AS key, e.id AS id";
    const sql =
      match === undefined
        ? `SELECT ${columns} FROM entries e${filters.length > 0 ? ` WHERE ${filters.join(" AND ")}` : ""} ORDER BY e.row DESC`
        : `SELECT ${columns} FROM words JOIN entries e ON e.row = words.rowid WHERE words MATCH ?${filters.map((f) => ` AND ${f}`).join("")} ORDER BY words.rowid DESC`;
    yield* this.statement(sql).iterate(...params) as IterableIterator<CandidateRow>;
  }

  /** A session's entries of one key (the same entry in a copy of it). */
  withKey(session: number, key: number): CandidateRow[] {
    return this.statement("SELECT row, session, line, offset, length, time, key, id FROM entries WHERE session = ? AND key = ?").all(session, key) as unknown as CandidateRow[];
  }

  /** A session's lines pi skips. */
  skippedOf(session: number): Array<{ line: number; offset: number; length: number }> {
    return this.statement("SELECT line, offset, length FROM skipped WHERE session = ? ORDER BY line").all(session) as Array<{ line: number; offset: number; length: number }>;
  }

  /** After a large write: the full-text index's pieces merged, and the log folded into the file (best effort: another search reading it keeps the log). */
  tidy(): void {
    try {
      this.db.exec("INSERT INTO words(words) VALUES ('optimize')");
      if (this.file !== ":memory:") this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {
      // (busy: another search reads the index; the log is folded another time)
    }
  }

  close(): void {
    for (const s of this.statements.values()) (s as { finalize?: () => void }).finalize?.();
    this.statements.clear();
    this.db.close();
  }
}

/** A session's row as the index holds it. */
function sessionOf(r: Record<string, unknown>): IndexedSession {
  return {
    id: Number(r.id),
    path: String(r.path),
    stamp: { size: Number(r.size), mtimeMs: Number(r.mtime), ino: Number(r.ino) },
    mode: r.mode === "whole" ? "whole" : "lines",
    kind: String(r.kind),
    version: Number(r.version),
    readTo: Number(r.read_to),
    lines: Number(r.lines),
    headerId: (r.header_id as string | null) ?? null,
    cwd: (r.cwd as string | null) ?? null,
    created: (r.created as string | null) ?? null,
    name: (r.name as string | null) ?? null,
    firstUser: (r.first_user as string | null) ?? null,
    skipped: Number(r.skipped),
  };
}

/** The index does not read back as it was written: it is made again. */
class DamagedIndex extends Error {}

/** A term as FTS5 reads it, never as its syntax: in double quotes (a quote in it doubled). */
export function quoted(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}
