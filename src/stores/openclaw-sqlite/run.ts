import { currentRun, type StoreRun } from "../common/run.js";
import { databaseStamp, DatabaseError, describe, connect, sameStamp, type DatabaseStamp } from "./connection.js";
import { AgentDatabase, type DatabaseFacts } from "./database.js";
import { transcriptRef } from "./ref.js";

/**
 * What a command's run holds of OpenClaw's databases (`StoreRun`): each database opened once (a
 * store of thousands of transcripts reads one), the facts cache where the command keeps one, and
 * the transcripts this thread reads next. Closed with the run.
 */
export class DatabaseRun {
  /** Each database opened, or why it cannot be. */
  readonly opened = new Map<string, AgentDatabase | DatabaseError>();
  /**
   * The facts cache (`facts-cache.ts`), where `ls` and `usage` keep it (not with `--no-cache`): the
   * facts of a database whose files are as they were, read without opening it.
   */
  factsCache: FactsCache | undefined;
  /** Database -> the transcripts of it this thread reads next (`readAheadWithin`). */
  private coming: Map<string, Set<string>> | undefined;

  /** The database at `path`, its facts read (from the facts cache where its files are as they were); throws a `DatabaseError` saying why it cannot be read. */
  database(path: string): AgentDatabase {
    let db = this.opened.get(path);
    if (!db) {
      const cache = this.factsCache;
      const stamp = cache && databaseStamp(path);
      const facts = stamp && cache!.load(path, stamp);
      try {
        db = new AgentDatabase(path, facts ?? connect(path), () => (this.coming ? (this.coming.get(path) ?? NONE) : undefined));
      } catch (error) {
        db = error instanceof DatabaseError ? error : new DatabaseError(`${path}: ${describe(error)}`);
      }
      this.opened.set(path, db);
    }
    if (db instanceof DatabaseError) throw db;
    return db;
  }

  /**
   * Which database transcripts this thread reads next: a batch of rows runs on into those and no
   * others. Threads that share a store take it a chunk at a time, so rows read ahead past a chunk's
   * last transcript are the other thread's, read twice: a third more rows, zstd and all, with two
   * threads on the benchmark's 10,000-session store (BENCHMARKS.md, "rows read ahead"). Undefined: every transcript
   * that follows (one thread reads them all).
   */
  readAheadWithin(paths: readonly string[] | undefined): void {
    if (paths === undefined) {
      this.coming = undefined;
      return;
    }
    const coming = (this.coming = new Map());
    for (const path of paths) {
      const ref = transcriptRef(path);
      if (!ref) continue;
      let ids = coming.get(ref.database);
      if (!ids) coming.set(ref.database, (ids = new Set()));
      ids.add(ref.name);
    }
  }

  /**
   * Keeps in the facts cache the facts of each database read in this run whose files have not
   * changed since it was opened, and had not for `QUIET_MS` before: what was read is what the stamp
   * says. `ls` and `usage` call it when they are done.
   */
  saveFacts(now = Date.now()): void {
    const cache = this.factsCache;
    if (!cache) return;
    for (const [path, db] of this.opened) {
      if (db instanceof DatabaseError) continue;
      const then = db.readHere;
      const stamp = then && databaseStamp(path);
      if (!stamp || !sameStamp(then!, stamp) || now - Math.max(stamp.db[1], stamp.wal?.[1] ?? 0) < QUIET_MS) continue;
      cache.save(path, stamp, db);
    }
  }

  close(): void {
    for (const db of this.opened.values()) if (!(db instanceof DatabaseError)) db.close();
    this.opened.clear();
  }
}

const NONE: ReadonlySet<string> = new Set();

/** How long a database's files must have been still for its facts to be kept: a gateway may be in the middle of a commit. */
const QUIET_MS = 2000;

export interface FactsCache {
  load(path: string, stamp: DatabaseStamp): DatabaseFacts | undefined;
  save(path: string, stamp: DatabaseStamp, facts: DatabaseFacts): void;
}

/** A run's databases. */
export function databasesIn(run: StoreRun): DatabaseRun {
  return run.of("openclaw-sqlite", () => new DatabaseRun());
}

/** This thread's run's databases. */
export function databases(): DatabaseRun {
  return databasesIn(currentRun());
}
