import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { decompressZstd, decompressZstdEach } from "./zstd.js";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { BufferSource, type ByteSource } from "../../format/read/source.js";

/*
 * OpenClaw's SQLite era (README, "OpenClaw's SQLite era"): since 2026.8.1 an agent's live
 * transcripts are rows of `agents/<agent>/agent/openclaw-agent.sqlite`, one row a line of the pi
 * session file (`transcript_events`: `event_json`, or where that is NULL `event_zstd`, the line
 * compressed), with `session_nodes` and `session_windows` for what `sessions.json` held. A
 * transcript in the database is named as a path is, `<database>#<session id>` (an archive kept in
 * the database only, `<database>#<archive name>`), and read as a source of bytes like a file:
 * after this module nothing knows where the lines came from.
 *
 * The database is only ever read, and nothing under the store changes: it is opened read-only;
 * with no write-ahead log beside it (no gateway has it open) it is opened `immutable`, as SQLite
 * would otherwise create the `-wal` and `-shm` files; a log without its index (`-shm`) is read
 * from a copy of both.
 */

/** The database's name in an agent's folder (`agents/<agent>/agent/`). */
export const DATABASE_NAME = "openclaw-agent.sqlite";

/** A transcript in a database: `<database>#<session id or archive name>`. */
const REF = /^(.*[/\\]openclaw-agent\.sqlite)#([^/\\#]+)$/;

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

export interface TranscriptRef {
  database: string;
  /** A session id (a live transcript) or an archive's name. */
  name: string;
}

/** The database and transcript a path names, or undefined for a file. */
export function transcriptRef(path: string): TranscriptRef | undefined {
  // (asked of every path a store-wide command reads: most hold no '#')
  if (!path.includes("#")) return undefined;
  // (and a database transcript's path is asked of several times a read: its stamp, its twin, its source)
  let ref = refs.get(path);
  if (ref === undefined) {
    const m = REF.exec(path);
    ref = m ? { database: m[1]!, name: m[2]! } : null;
    if (refs.size >= 1 << 16) refs.clear();
    refs.set(path, ref);
  }
  return ref ?? undefined;
}
const refs = new Map<string, TranscriptRef | null>();

function refPath(database: string, name: string): string {
  return `${database}#${name}`;
}

/** What `session_windows` and `session_nodes` say of one transcript. */
export interface WindowFacts {
  key: string | null;
  label: string | null;
  channel: string | null;
  chatType: string | null;
  spawnedBy: string | null;
  /** The session this one replaced (a reset's, a rollover's), and why. */
  previous: string | null;
  reason: string | null;
}

/** A transcript's rows at a glance: what the caches key it by. */
export interface Summary {
  rows: number;
  /** The lines' bytes, each with its newline. */
  bytes: number;
  lastCreated: number;
  /** The longest line's bytes: how many rows a batch of the transcript's own may hold. */
  largestRow: number;
}

export interface Archive {
  name: string;
  sessionId: string;
  reason: string;
  published: boolean;
}

/**
 * A transcript in cold storage (`session_transcript_cold_archives`, OpenClaw's
 * `session.maintenance.coldStorage`): its rows moved out of `transcript_events` into one zstd
 * archive, kept as `sessions/cold/<sha256>.jsonl.zst` (`storage` "file") or in the row itself
 * ("sqlite"). The archive is JSON lines of records: a `header`, then an `event` record a row
 * (`{seq, event_json, created_at}`), then the index rows OpenClaw rebuilds from (read here: none).
 */
export interface Cold {
  sessionId: string;
  name: string;
  storage: string;
  sha256: string;
  bytes: number;
  events: number;
  lastSeq: number;
}

/**
 * What a database says of its transcripts without their rows: all that listing them and the
 * caches' stamps take. Kept by `ls` and `usage` in the facts cache (`openclaw-facts.ts`), so that
 * a warm run over a store whose databases have not changed opens none of them.
 */
export interface DatabaseFacts {
  /** Each transcript with rows, in the rows' order (SQLite's order of their ids), then each in cold storage. */
  summaries: Map<string, Summary>;
  /** The archives the database keeps (`session_transcript_archives`), by name. */
  archives: Map<string, Archive>;
  /** Transcripts in cold storage, by session id (one with rows in `transcript_events` as well is read from those). */
  colds: Map<string, Cold>;
  /** What `session_windows` and `session_nodes` say of each session, once read (`usage` by day never asks). */
  windows: Map<string, WindowFacts> | undefined;
}

/** A database's files as they were when it was opened, or its facts read: what the facts cache keys them by. */
export interface DatabaseStamp {
  /** The database's size, modification time and inode. */
  db: [number, number, number];
  /** Its log's (`-wal`), or null where it has none. */
  wal: [number, number, number] | null;
}

/** The stamp of the database at `path` now; undefined when it cannot be stat'ed. */
function databaseStamp(path: string): DatabaseStamp | undefined {
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
interface Connection {
  db: DatabaseSync;
  stamp: DatabaseStamp | undefined;
}

/**
 * A database, with what every transcript of it needs. Its facts come from the database, or from
 * the facts cache where its files have not changed since; the database is opened when a row is
 * first asked for (and its facts then read again, in the one read transaction the rows are read in:
 * a transcript's size and its rows agree).
 */
class AgentDatabase implements DatabaseFacts {
  readonly summaries = new Map<string, Summary>();
  readonly archives = new Map<string, Archive>();
  readonly colds = new Map<string, Cold>();
  windows: Map<string, WindowFacts> | undefined;
  private connection: Connection | undefined;
  /** The rows' lengths from a seq on (`LENGTHS`): what a seek and a large transcript's batches are planned by. */
  private lengthsQuery: StatementSync | undefined;
  /** The rows' queries (`ROWS_FROM`, `ROWS_OF`), prepared when a transcript is first read. */
  private rowsFrom: StatementSync | undefined;
  private rowsOf: StatementSync | undefined;
  /** The batch of rows read last (`lines`). */
  private batch: Batch | undefined;
  /** The transcripts with rows, in the rows' order (SQLite's order of their ids), and where each stands in it. */
  private readonly order: string[] = [];
  private readonly position = new Map<string, number>();
  private archiveBlob: StatementSync | undefined;
  private coldBlob: StatementSync | undefined;

  constructor(
    readonly path: string,
    from: Connection | DatabaseFacts,
  ) {
    if ("db" in from) {
      this.connection = from;
      this.readFacts(from.db);
    } else {
      for (const [id, s] of from.summaries) this.summaries.set(id, s);
      for (const [name, a] of from.archives) this.archives.set(name, a);
      for (const [id, c] of from.colds) this.colds.set(id, c);
      this.windows = from.windows;
      this.ordered();
    }
  }

  /** Whether the facts were read from the database in this process (what the facts cache may keep), and the stamp its files had then. */
  get readHere(): DatabaseStamp | undefined {
    return this.connection?.stamp;
  }

  /** The database, opened for reading when first needed: its facts are then read again, in its read transaction. */
  private db(): DatabaseSync {
    if (this.connection) return this.connection.db;
    this.connection = connect(this.path);
    this.readFacts(this.connection.db);
    return this.connection.db;
  }

  private readFacts(db: DatabaseSync): void {
    this.summaries.clear();
    this.archives.clear();
    this.colds.clear();
    this.windows = undefined;
    this.batch = undefined;
    const summary = db.prepare("SELECT session_id, count(*), sum(coalesce(event_utf8_bytes, octet_length(event_json)) + 1), max(created_at), max(coalesce(event_utf8_bytes, octet_length(event_json))) FROM transcript_events GROUP BY session_id ORDER BY session_id");
    summary.setReturnArrays(true);
    for (const [id, rows, bytes, last, largest] of summary.all() as unknown as Array<[string, number, number | null, number | null, number | null]>) {
      this.summaries.set(id, { rows: Number(rows), bytes: Number(bytes ?? 0), lastCreated: Number(last ?? 0), largestRow: Number(largest ?? 0) });
    }
    if (hasTable(db, "session_transcript_archives")) {
      for (const r of db.prepare("SELECT session_id, reason, archive_name, published_at FROM session_transcript_archives ORDER BY archive_name").all()) {
        this.archives.set(String(r.archive_name), { name: String(r.archive_name), sessionId: String(r.session_id), reason: String(r.reason), published: r.published_at !== null });
      }
      this.archiveBlob = db.prepare("SELECT encoding, archive_blob FROM session_transcript_archives WHERE archive_name = ?");
    }
    if (hasTable(db, "session_transcript_cold_archives")) {
      const rows = db.prepare("SELECT session_id, archive_name, storage, archive_sha256, archive_bytes, event_count, raw_bytes, last_seq, archived_at FROM session_transcript_cold_archives ORDER BY session_id");
      for (const r of rows.all()) {
        const id = String(r.session_id);
        if (this.summaries.has(id)) continue;
        this.colds.set(id, { sessionId: id, name: String(r.archive_name), storage: String(r.storage), sha256: String(r.archive_sha256), bytes: Number(r.archive_bytes), events: Number(r.event_count), lastSeq: Number(r.last_seq) });
        // (raw_bytes is the lines joined by newlines; a source's lines each end in one; read from its archive, never in batches of rows)
        this.summaries.set(id, { rows: Number(r.event_count), bytes: Number(r.raw_bytes) + 1, lastCreated: Number(r.archived_at), largestRow: 0 });
      }
      this.coldBlob = db.prepare("SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = ?");
    }
    this.ordered();
  }

  /** The transcripts with rows (not those in cold storage), in order. */
  private ordered(): void {
    this.order.length = 0;
    this.position.clear();
    for (const id of this.summaries.keys()) {
      if (this.colds.has(id)) continue;
      this.position.set(id, this.order.length);
      this.order.push(id);
    }
  }

  private lengths(): StatementSync {
    if (!this.lengthsQuery) {
      this.lengthsQuery = this.db().prepare(LENGTHS);
      this.lengthsQuery.setReturnArrays(true);
    }
    return this.lengthsQuery;
  }

  /** What `session_windows` and `session_nodes` say of each session, read when first asked (`usage` by day never asks). */
  private windowsRead(): Map<string, WindowFacts> {
    if (this.windows) return this.windows;
    const db = this.db();
    const windows = new Map<string, WindowFacts>();
    const nodes = new Map<string, { key: string; label: string | null; spawnedBy: string | null }[]>();
    for (const r of db.prepare("SELECT session_key, current_session_id, label, display_name, spawned_by FROM session_nodes").all()) {
      const id = String(r.current_session_id);
      const list = nodes.get(id) ?? [];
      list.push({ key: String(r.session_key), label: str(r.label) ?? str(r.display_name), spawnedBy: str(r.spawned_by) });
      nodes.set(id, list);
    }
    for (const r of db.prepare("SELECT session_id, session_key, previous_session_id, reason, channel, chat_type, spawned_by, display_name FROM session_windows").all()) {
      const id = String(r.session_id);
      // (several keys name one session: a cron job's and its run's; the window's, else the longest, says the most)
      const named = (nodes.get(id) ?? []).slice().sort((a, b) => b.key.length - a.key.length);
      const key = str(r.session_key) ?? named[0]?.key ?? null;
      windows.set(id, {
        key,
        label: named.map((n) => n.label).find((l) => l !== null) ?? str(r.display_name),
        channel: str(r.channel),
        chatType: str(r.chat_type),
        spawnedBy: str(r.spawned_by) ?? named.find((n) => n.spawnedBy)?.spawnedBy ?? null,
        previous: str(r.previous_session_id),
        reason: str(r.reason),
      });
    }
    this.windows = windows;
    return windows;
  }

  facts(id: string): WindowFacts | undefined {
    return this.windowsRead().get(id);
  }

  /** Each row's seq and line length, in `seq` order: what reading at any offset needs (one query). */
  rowLengths(id: string): { seqs: number[]; lengths: number[] } {
    const seqs: number[] = [];
    const lengths: number[] = [];
    // (LIMIT -1: every row)
    for (const [seq, len] of this.lengths().iterate(id, Number.MIN_SAFE_INTEGER, -1) as Iterable<[number, number]>) {
      seqs.push(Number(seq));
      lengths.push(Number(len));
    }
    return { seqs, lengths };
  }

  /**
   * The rows from `fromSeq` on, decoded: each line's bytes (without its newline), read as they are
   * asked for. Rows are read in batches (`fetch`) that run on from one transcript into the next ones
   * in the rows' own order, which is the order the transcripts are listed and read in: a store's
   * small transcripts cost a query and a zstd call a batch, not a transcript and a row
   * (BENCHMARKS.md, "the SQLite era's rows"). A batch is kept until another is read, so the next
   * transcript takes its rows from it; several cursors may read at once, each from its own batch.
   */
  *lines(id: string, fromSeq: number, row?: { seq: number }): Generator<Buffer> {
    // (the rows are read with the facts of their own transaction, not those the cache held)
    this.db();
    let seq = fromSeq;
    // (read from its start, how many of its rows are still to come is known: its summary's, less those read)
    let left = fromSeq === Number.MIN_SAFE_INTEGER ? this.summaries.get(id)?.rows : undefined;
    for (;;) {
      let batch = this.batch;
      let at = batch ? startIn(batch, id, seq) : -1;
      if (at < 0) {
        batch = this.batch = this.fetch(id, seq, left);
        at = startIn(batch, id, seq);
        if (at < 0) return;
      }
      for (; at < batch!.ids.length; at++) {
        if (batch!.ids[at] !== id) return;
        const line = batch!.lines[at]!;
        if (line instanceof Error) throw line;
        if (row) row.seq = batch!.seqs[at]!;
        yield line;
        seq = batch!.seqs[at]! + 1;
        if (left !== undefined) left--;
      }
      if (!batch!.full || left === 0) return;
    }
  }

  /**
   * The rows from `(id, seq)` on, decoded. Read from a transcript's start, as many rows of it and
   * of the transcripts after it (in the order of the table's key) as the summaries say fit in
   * `BATCH_BYTES`, at most `ROWS_AT_ONCE`: a store's small transcripts come a batch of several at a
   * time. Otherwise (a read from inside a transcript, or one larger than a batch) its own rows only,
   * as many as fit by its longest row, or where those are few, by the rows' lengths. Memory stays
   * bounded as a file's reading is.
   */
  private fetch(id: string, seq: number, left: number | undefined): Batch {
    const ahead = left !== undefined ? this.rowsAhead(id, left) : undefined;
    const n = ahead ?? this.rowsFitting(id, seq);
    if (!this.rowsFrom) {
      this.rowsFrom = this.db().prepare(ROWS_FROM);
      this.rowsOf = this.db().prepare(ROWS_OF);
      // (rows as arrays, not objects with named keys: a third less of reading a store's many rows)
      this.rowsFrom.setReturnArrays(true);
      this.rowsOf.setReturnArrays(true);
    }
    const rows = (ahead !== undefined ? this.rowsFrom : this.rowsOf!).get(id, seq, n) as unknown as Rows;
    const count = Number(rows[0]);
    const seqs = integers(rows[2], count);
    const lengths = integers(rows[3], count);
    const packed = integers(rows[5], -1);
    if (seqs === undefined || lengths === undefined || packed === undefined) throw new DatabaseError(`${this.path}: transcript_events gave rows that do not add up (seqs and lengths); the database may be damaged: OpenClaw's \`openclaw doctor\` checks it`);
    // Whose each row is, from the summaries rather than a session id a row (a string each, a tenth of
    // the query's time): `left` rows of `id`, then each following transcript's rows, in key order,
    // all of one read transaction.
    const ids: string[] = new Array(count);
    const firstOf = new Map<string, number>([[id, 0]]);
    let k = 0;
    for (let until = ahead !== undefined ? left! : count; k < Math.min(until, count); k++) ids[k] = id;
    for (let next = this.position.get(id)! + 1; k < count && ahead !== undefined; next++) {
      const other = this.order[next];
      // (the rows and their counts are read in one transaction, from one index: only a damaged database disagrees)
      if (other === undefined) throw new DatabaseError(`${this.path}: transcript_events holds more rows than it counts; the database may be damaged: OpenClaw's \`openclaw doctor\` checks it`);
      firstOf.set(other, k);
      for (let until = k + this.summaries.get(other)!.rows; k < Math.min(until, count); k++) ids[k] = other;
    }
    return { from: { id, seq }, ids, firstOf, seqs, lines: this.decode(rows, seqs, lengths, packed, ids), full: count === n };
  }

  /** How many of `id`'s own rows from `seq` on a batch holds: as many as its longest row allows, else as many as the next rows' lengths allow. */
  private rowsFitting(id: string, seq: number): number {
    const largest = this.summaries.get(id)?.largestRow;
    const fit = largest === undefined ? 0 : Math.floor(BATCH_BYTES / (largest + 1));
    return fit >= ROWS_AT_ONCE ? ROWS_AT_ONCE : fit >= ROWS_AT_LEAST ? fit : this.rowsWithin(id, seq);
  }

  /** `left` rows of `id` (its bytes at most its summary's) and the rows of the transcripts after it, as many as fit in a batch; undefined when `id` alone may not. */
  private rowsAhead(id: string, left: number): number | undefined {
    const k = this.position.get(id);
    if (k === undefined || left <= 0) return undefined;
    let rows = left;
    let bytes = this.summaries.get(id)!.bytes;
    if (bytes > BATCH_BYTES) return undefined;
    // (only into the transcripts this thread reads next, where it shares the store with others)
    const within = coming && (coming.get(this.path) ?? NONE);
    for (let i = k + 1; i < this.order.length && rows < ROWS_AT_ONCE; i++) {
      if (within && !within.has(this.order[i]!)) break;
      const s = this.summaries.get(this.order[i]!)!;
      if (bytes + s.bytes > BATCH_BYTES) break;
      rows += s.rows;
      bytes += s.bytes;
    }
    return Math.min(rows, ROWS_AT_ONCE);
  }

  /** How many of `id`'s rows from `seq` on fit in `BATCH_BYTES`: at least one (a line is read whole), at most `ROWS_AT_ONCE`. */
  private rowsWithin(id: string, seq: number): number {
    let n = 0;
    let bytes = 0;
    for (const [, len] of this.lengths().all(id, seq, ROWS_AT_ONCE) as unknown as Array<[number, number]>) {
      bytes += Number(len) + 1;
      if (n > 0 && bytes > BATCH_BYTES) break;
      n++;
    }
    return Math.max(n, 1);
  }

  /**
   * A batch's lines: `event_json` as it is, `event_zstd` decompressed (together where zstd allows)
   * and held to `event_utf8_bytes`. Each line is a view of the batch's one buffer of lines, or of
   * the one its compressed rows decode to. A damaged row is its error, thrown to the reader of its
   * own transcript when it gets there, not to the reader whose batch ran into it.
   */
  private decode(rows: Rows, seqs: readonly number[], lengths: readonly number[], packed: readonly number[], ids: readonly string[]): Array<Buffer | Error> {
    const lines: Array<Buffer | Error> = new Array(lengths.length);
    const json = rows[1] ? asBuffer(rows[1]) : EMPTY;
    const zstd = rows[4] ? asBuffer(rows[4]) : EMPTY;
    const damaged = (i: number, why: string) => new Error(`${refPath(this.path, ids[i]!)}: row ${seqs[i]} of transcript_events ${why}; the database is damaged there`);
    const blobs: Buffer[] = [];
    const sizes: number[] = [];
    const rowOf: number[] = [];
    let at = 0;
    let zat = 0;
    for (let i = 0; i < lengths.length; i++) {
      const len = lengths[i]!;
      if (len >= 0) lines[i] = json.subarray(at, (at += len));
      else if (len === NEITHER) lines[i] = damaged(i, "holds neither event_json nor event_zstd");
      else {
        const k = blobs.length;
        blobs.push(zstd.subarray(zat, (zat += packed[2 * k] ?? 0)));
        sizes.push(packed[2 * k + 1] ?? -1);
        rowOf.push(i);
      }
    }
    if (at !== json.length || zat !== zstd.length || packed.length !== 2 * blobs.length) throw new DatabaseError(`${this.path}: transcript_events gave rows whose lengths do not add up; the database may be damaged: OpenClaw's \`openclaw doctor\` checks it`);
    if (blobs.length === 0) return lines;
    const decoded = decompressZstdEach(blobs, sizes, (k, decompress) => {
      const i = rowOf[k]!;
      let line: Buffer;
      try {
        line = decompress();
      } catch (error) {
        return damaged(i, `does not decompress (${(error as Error).message})`);
      }
      const len = sizes[k]!;
      return line.length === len ? line : damaged(i, `holds ${line.length} bytes where event_utf8_bytes says ${len < 0 ? "nothing" : len}`);
    });
    rowOf.forEach((i, k) => (lines[i] = decoded[k]!));
    return lines;
  }

  /** An archive kept in the database: its text. */
  archiveText(name: string): Buffer | undefined {
    this.db();
    const r = this.archiveBlob?.get(name);
    if (!r) return undefined;
    const blob = Buffer.from(r.archive_blob as Uint8Array);
    return r.encoding === "zstd" ? decompressZstd(blob) : blob;
  }

  /**
   * A transcript in cold storage: its lines, in `seq` order, each with its newline. The archive is
   * checked as OpenClaw checks it before a restore (its length and SHA-256 as the row records them,
   * its header's session, its events' count and last seq); one that fails is damaged, and said so.
   */
  coldText(cold: Cold): Buffer {
    const where = `${refPath(this.path, cold.sessionId)}: its cold-storage archive ${cold.name}`;
    let bytes: Buffer;
    if (cold.storage === "sqlite") {
      this.db();
      const blob = this.coldBlob?.get(cold.sessionId)?.archive_blob;
      bytes = Buffer.from((blob ?? new Uint8Array()) as Uint8Array);
    } else {
      const file = join(sessionsFolderOf(this.path), "cold", cold.name);
      try {
        bytes = readFileSync(file);
      } catch (error) {
        throw new DatabaseError(`${where} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message} at ${file}); restore it from a backup`);
      }
    }
    if (bytes.length !== cold.bytes || createHash("sha256").update(bytes).digest("hex") !== cold.sha256) {
      throw new DatabaseError(`${where} is not what the database recorded (${bytes.length} bytes, ${cold.bytes} recorded, or another SHA-256); it is damaged: restore it from a backup`);
    }
    const events: { seq: number; line: string }[] = [];
    let header: { sessionId?: unknown } | undefined;
    try {
      for (const text of decompressZstd(bytes).toString("utf8").split("\n")) {
        if (text === "") continue;
        const record = JSON.parse(text) as { kind?: string; sessionId?: unknown; row?: { seq?: unknown; event_json?: unknown } };
        if (record.kind === "header") header ??= record;
        else if (record.kind === "event" && typeof record.row?.seq === "number" && typeof record.row.event_json === "string") events.push({ seq: record.row.seq, line: record.row.event_json });
      }
    } catch (error) {
      throw new DatabaseError(`${where} does not decode (${(error as Error).message}); it is damaged: restore it from a backup`);
    }
    events.sort((a, b) => a.seq - b.seq);
    if (header?.sessionId !== cold.sessionId || events.length !== cold.events || events.at(-1)?.seq !== cold.lastSeq) {
      throw new DatabaseError(`${where} does not hold the ${cold.events} rows the database recorded for it; it is damaged: restore it from a backup`);
    }
    return Buffer.from(events.map((e) => `${e.line}\n`).join(""), "utf8");
  }
}

/**
 * A batch's rows as one result row (a JavaScript value a row, and a buffer a line, cost more than
 * SQLite's reading them: BENCHMARKS.md, "a batch as one row"): each aggregate takes the rows in the
 * subquery's order, one row at a time, so their lists agree. `lengths` has a line's bytes for each
 * row, `COMPRESSED` for a compressed one (its compressed and its line's length in `packed`), or
 * `NEITHER`; `json` is the lines of the uncompressed rows, `zstd` the compressed rows' frames, each
 * run together.
 */
const BATCH = (rows: string) =>
  `SELECT count(*), CAST(group_concat(coalesce(event_json, ''), '') AS BLOB), group_concat(seq), group_concat(CASE WHEN event_json IS NOT NULL THEN octet_length(event_json) WHEN event_zstd IS NOT NULL THEN ${COMPRESSED} ELSE ${NEITHER} END), CAST(group_concat(CASE WHEN event_json IS NULL THEN event_zstd END, '') AS BLOB), group_concat(CASE WHEN event_json IS NULL AND event_zstd IS NOT NULL THEN octet_length(event_zstd) || ',' || coalesce(event_utf8_bytes, -1) END) FROM (${rows})`;
const COMPRESSED = -1;
const NEITHER = -2;
/** Rows from a key on, across transcripts. */
const ROWS_FROM = BATCH("SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE (session_id, seq) >= (?, ?) ORDER BY session_id, seq LIMIT ?");
/** A transcript's own rows from a seq on. */
const ROWS_OF = BATCH("SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?");

/** `BATCH`'s row: how many rows, the lines, the seqs, the lengths, the frames, the frames' and their lines' lengths. */
type Rows = [number, Uint8Array | null, string | null, string | null, Uint8Array | null, string | null];

/** A list of integers `group_concat` made (`,` between), or undefined when it does not hold `count` of them (-1: any number). */
function integers(text: string | null, count: number): number[] | undefined {
  const out: number[] = [];
  if (text !== null && text !== "") {
    let v = 0;
    let sign = 1;
    let digits = 0;
    for (let i = 0; i <= text.length; i++) {
      const c = i < text.length ? text.charCodeAt(i) : 44;
      if (c === 44) {
        if (digits === 0) return undefined;
        out.push(sign * v);
        v = 0;
        sign = 1;
        digits = 0;
      } else if (c === 45 && digits === 0 && sign === 1) sign = -1;
      else if (c >= 48 && c <= 57) {
        v = v * 10 + (c - 48);
        digits++;
      } else return undefined;
    }
  }
  return count < 0 || out.length === count ? out : undefined;
}

const EMPTY = Buffer.alloc(0);

/** Rows read in one query (`ROWS_FROM` or `ROWS_OF`), from `from` on in the table's key order: their sessions, seqs and lines (a damaged row's error). */
interface Batch {
  from: { id: string; seq: number };
  ids: string[];
  seqs: number[];
  lines: Array<Buffer | Error>;
  /** As many rows as were asked for: more may follow. */
  full: boolean;
  /** Where each transcript's rows start in it. */
  firstOf: Map<string, number>;
}

/**
 * Where `batch` holds the rows of `id` from `seq` on: the index of the first (or of the row after
 * them, or the batch's end when it ends first and nothing can follow), or -1 when it cannot say (it
 * holds none of `id`'s rows, or may have started after some of them: another batch is read).
 */
function startIn(batch: Batch, id: string, seq: number): number {
  const first = batch.firstOf.get(id);
  if (first === undefined) return -1;
  // (rows of id at the batch's start may follow rows of id it started after, unless it started at or before seq)
  if (first === 0 && batch.from.id === id && batch.from.seq > seq) return -1;
  let at = first;
  while (at < batch.ids.length && batch.ids[at] === id && batch.seqs[at]! < seq) at++;
  return at === batch.ids.length && batch.full ? -1 : at;
}

/** The seqs and line lengths of a transcript's rows from a seq on, at most so many (-1: all). */
const LENGTHS = "SELECT seq, coalesce(event_utf8_bytes, octet_length(event_json)) AS len FROM transcript_events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?";

/** Rows a query reads at most: a call for several of a store's small transcripts (512 against 128: 4 % less of a cold `usage` of the benchmark's store). */
const ROWS_AT_ONCE = 512;

/** Below this many rows a batch by the longest row, the rows' lengths are asked for instead (a transcript of a few very long lines among many short ones). */
const ROWS_AT_LEAST = 16;

/** The bytes a batch of a large transcript's rows holds at most (or one row, when a line is larger): memory stays bounded as a file's reading is. */
const BATCH_BYTES = 8 * 1024 * 1024;

/** A blob's bytes as a Buffer, not copied. */
const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** The `sessions/` folder of a database's agent (`agents/<agent>/sessions`): its archives, and cold storage's files. */
const sessionsFolderOf = (database: string): string => join(dirname(dirname(database)), "sessions");

function hasTable(db: DatabaseSync, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

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

/** Each database opened once per process (a store of thousands of transcripts reads one). */
const opened = new Map<string, AgentDatabase | DatabaseError>();

/**
 * The facts cache (`openclaw-facts.ts`), where `ls` and `usage` use it (not with `--no-cache`): the
 * facts of a database whose files are as they were, read without opening it.
 */
let factsCache: FactsCache | undefined;
export interface FactsCache {
  load(path: string, stamp: DatabaseStamp): DatabaseFacts | undefined;
  save(path: string, stamp: DatabaseStamp, facts: DatabaseFacts): void;
}
export function useFactsCache(cache: FactsCache | undefined): void {
  factsCache = cache;
}

/** The database at `path`, its facts read (from the facts cache where its files are as they were); throws a `DatabaseError` saying why it cannot be read. */
export function agentDatabase(path: string): AgentDatabase {
  let db = opened.get(path);
  if (!db) {
    const stamp = factsCache && databaseStamp(path);
    const facts = stamp && factsCache!.load(path, stamp);
    try {
      db = new AgentDatabase(path, facts ?? connect(path));
    } catch (error) {
      db = error instanceof DatabaseError ? error : new DatabaseError(`${path}: ${describe(error)}`);
    }
    opened.set(path, db);
  }
  if (db instanceof DatabaseError) throw db;
  return db;
}

/**
 * Which database transcripts this thread reads next: a batch of rows runs on into those and no
 * others. Threads that share a store take it a chunk at a time, so rows read ahead past a chunk's
 * last transcript are the other thread's, read twice: a third more rows, zstd and all, with two
 * threads on the benchmark's 10,000-session store (BENCHMARKS.md). Undefined: every transcript
 * that follows (one thread reads them all).
 */
export function readAheadWithin(paths: readonly string[] | undefined): void {
  if (paths === undefined) {
    coming = undefined;
    return;
  }
  coming = new Map();
  for (const path of paths) {
    const ref = transcriptRef(path);
    if (!ref) continue;
    let ids = coming.get(ref.database);
    if (!ids) coming.set(ref.database, (ids = new Set()));
    ids.add(ref.name);
  }
}
/** Database -> the transcripts of it this thread reads next (`readAheadWithin`). */
let coming: Map<string, Set<string>> | undefined;
const NONE: ReadonlySet<string> = new Set();

/** How long a database's files must have been still for its facts to be kept: a gateway may be in the middle of a commit. */
const QUIET_MS = 2000;

/**
 * Keeps in the facts cache the facts of each database read in this process whose files have not
 * changed since it was opened, and had not for `QUIET_MS` before: what was read is what the stamp
 * says. `ls` and `usage` call it when they are done.
 */
export function saveDatabaseFacts(now = Date.now()): void {
  if (!factsCache) return;
  for (const [path, db] of opened) {
    if (db instanceof DatabaseError) continue;
    const then = db.readHere;
    const stamp = then && databaseStamp(path);
    if (!stamp || !sameStamp(then!, stamp) || now - Math.max(stamp.db[1], stamp.wal?.[1] ?? 0) < QUIET_MS) continue;
    factsCache.save(path, stamp, db);
  }
}

function describe(error: unknown): string {
  const e = error as { code?: string; errcode?: number; errstr?: string; message?: string };
  const text = e.message ?? String(error);
  if (e.errcode === 5 || e.errcode === 6 || /database is locked|busy/i.test(text)) return `OpenClaw's database is locked by another process (${text}); try again when the gateway is idle`;
  if (e.errcode === 11 || e.errcode === 26 || /malformed|not a database/i.test(text)) return `not a readable SQLite database (${text}); it may be damaged: OpenClaw's \`openclaw doctor\` checks it`;
  if (e.code === "EACCES" || /unable to open/i.test(text)) return `cannot be opened for reading (${text}); check its permissions`;
  return text;
}

/** The database opened for reading, its schema checked, in one read transaction for the process; throws a `DatabaseError` saying why it cannot be. */
function connect(path: string): Connection {
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
  const live = [...db.summaries.keys()].map((id) => refPath(path, id));
  if (!archives) return live;
  const sessions = sessionsFolderOf(path);
  const files = new Set(safeNames(sessions));
  const kept = [...db.archives.values()].filter((a) => !a.published || !files.has(a.name)).map((a) => refPath(path, a.name));
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

/** Whether a database names this transcript (a live one, or an archive it keeps). */
export function databaseHas(ref: TranscriptRef): boolean {
  try {
    const db = agentDatabase(ref.database);
    return db.summaries.has(ref.name) || db.archives.has(ref.name);
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
    const w = db.facts(id) ?? { key: null, label: null, channel: null, chatType: null, spawnedBy: null, previous: null, reason: null };
    return { ...w, sessionId: id, archived: archive ? (archive.reason === "deleted" ? "deleted" : "reset") : null, cold: db.colds.has(id) && !archive };
  } catch {
    return undefined;
  }
}

/** The live transcripts of a database whose id starts with `prefix`, or whose key is `key`. */
export function databaseTranscriptsNamed(path: string, query: string): string[] {
  try {
    const db = agentDatabase(path);
    const ids = [...db.summaries.keys()];
    const hits = query.startsWith("agent:") ? ids.filter((id) => db.facts(id)?.key === query) : ids.filter((id) => id.startsWith(query));
    return hits.map((id) => refPath(path, id));
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

/**
 * A database transcript's lines as bytes, each with its newline. Read from the start on, as most
 * commands read, it is one cursor over the rows, each decoded once; a read elsewhere (the index's
 * tail, a seek) first learns each row's offset (one query over their lengths) and opens a cursor
 * at the row that holds it.
 */
class TranscriptSource implements ByteSource {
  readonly size: number;
  /** The byte offset each row's line starts at (one more: the end), once a read has needed them. */
  private starts: Float64Array | undefined;
  private seqs: number[] | undefined;
  private cursor: Generator<Buffer> | undefined;
  /** The seq of the row the cursor gave last. */
  private readonly row = { seq: 0 };
  /** The row the cursor gave last, and the offset its line starts at. */
  private held: { start: number; bytes: Buffer } | undefined;
  /** The offset the cursor's next row starts at. */
  private next = 0;
  /**
   * Each row's offset and seq as a read from the start passes them, so that a later read elsewhere
   * (a command's second pass) needs no query of the rows' lengths; kept for a transcript of at most
   * `RECORDED_ROWS` rows (a larger one asks, when it is read elsewhere at all).
   */
  private recording: { starts: number[]; seqs: number[] } | undefined;

  constructor(
    readonly name: string,
    private readonly db: AgentDatabase,
    private readonly id: string,
    size: number,
    private readonly rows: number,
  ) {
    this.size = size;
  }

  read(offset: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(Math.max(0, Math.min(length, this.size - offset)));
    const n = this.readInto(out, offset);
    return n === out.length ? out : out.subarray(0, n);
  }

  readInto(target: Buffer, offset: number): number {
    if (offset >= this.size || target.length === 0) return 0;
    let done = 0;
    /** Copies what the held row has from `offset + done`; false when the target is full first. */
    const take = (): boolean => {
      const { start, bytes } = this.held!;
      const at = offset + done - start;
      const n = Math.min(bytes.length + 1 - at, target.length - done);
      const fromLine = Math.max(0, Math.min(n, bytes.length - at));
      if (fromLine > 0) bytes.copy(target, done, at, at + fromLine);
      if (n > fromLine) target[done + fromLine] = 10;
      done += n;
      return done < target.length;
    };
    const held = this.held;
    if (!(held && offset >= held.start && offset < held.start + held.bytes.length + 1) && offset !== this.next) this.seek(offset);
    else if (!this.cursor) {
      this.cursor = this.db.lines(this.id, Number.MIN_SAFE_INTEGER, this.row);
      if (!this.starts && this.next === 0 && this.rows <= RECORDED_ROWS) this.recording = { starts: [], seqs: [] };
    }
    if (this.held && offset >= this.held.start && offset < this.next && !take()) return done;
    for (let r = this.cursor!.next(); !r.done; r = this.cursor!.next()) {
      this.held = { start: this.next, bytes: r.value };
      this.next += r.value.length + 1;
      if (this.recording) this.record(this.held.start);
      if (!take()) break;
    }
    return done;
  }

  /** Whether the rows' lines, each with its newline, are `bytes`: each row compared where it lies, none copied. */
  sameAs(bytes: Buffer): boolean {
    if (bytes.length !== this.size) return false;
    let at = 0;
    for (const line of this.db.lines(this.id, Number.MIN_SAFE_INTEGER)) {
      const end = at + line.length;
      if (end >= bytes.length || bytes[end] !== 10 || bytes.compare(line, 0, line.length, at, end) !== 0) return false;
      at = end + 1;
    }
    return at === bytes.length;
  }

  /** A row passed from the start on: its offset and seq; at the end, what a seek needs. */
  private record(start: number): void {
    const recording = this.recording!;
    recording.starts.push(start);
    recording.seqs.push(this.row.seq);
    if (this.next < this.size) return;
    recording.starts.push(this.next);
    this.starts = Float64Array.from(recording.starts);
    this.seqs = recording.seqs;
    this.recording = undefined;
  }

  /** A cursor at the row whose line (or newline) holds byte `offset`. */
  private seek(offset: number): void {
    this.recording = undefined;
    if (!this.starts) {
      const { seqs, lengths } = this.db.rowLengths(this.id);
      this.seqs = seqs;
      this.starts = new Float64Array(lengths.length + 1);
      for (let i = 0; i < lengths.length; i++) this.starts[i + 1] = this.starts[i]! + lengths[i]! + 1;
    }
    const starts = this.starts;
    let lo = 0;
    let hi = this.seqs!.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    this.cursor?.return(undefined);
    this.cursor = this.db.lines(this.id, this.seqs![lo]!, this.row);
    this.held = undefined;
    this.next = starts[lo]!;
  }

  /** The database stays open for the process's other transcripts; a cursor left open ends. */
  close(): void {
    this.cursor?.return(undefined);
    this.cursor = undefined;
    this.held = undefined;
    this.next = 0;
    this.recording = undefined;
  }
}

/** Rows a transcript may have for a read from its start to keep where each one is (16 bytes a row). */
const RECORDED_ROWS = 65536;

/** A transcript in a database, as bytes; throws a `DatabaseError` when it cannot be read or is not there. */
export function openTranscript(ref: TranscriptRef, name: string): ByteSource {
  const db = agentDatabase(ref.database);
  const cold = db.colds.get(ref.name);
  if (cold) return new BufferSource(name, db.coldText(cold));
  const summary = db.summaries.get(ref.name);
  if (summary) return new TranscriptSource(name, db, ref.name, summary.bytes, summary.rows);
  const text = db.archiveText(ref.name);
  if (text) return new BufferSource(name, text);
  throw new DatabaseError(`${name}: no transcript ${ref.name} in ${ref.database}; run \`pi-session ls ${dirname(dirname(ref.database))}\` to see its transcripts`);
}

/** The database of an agent's folder, when it has one. */
export function agentDatabasePath(agentDir: string): string | undefined {
  if (databasesFound.has(agentDir)) return databasesFound.get(agentDir);
  const path = join(agentDir, "agent", DATABASE_NAME);
  const found = existsSync(path) ? path : undefined;
  databasesFound.set(agentDir, found);
  return found;
}

/** Agents' folders asked whether they have a database, and the answer (each transcript and copy asks of its agent's). */
const databasesFound = new Map<string, string | undefined>();

/** Whether `path` is an agent's database file itself. */
export function isDatabaseFile(path: string): boolean {
  return basename(path) === DATABASE_NAME && basename(dirname(path)) === "agent";
}
