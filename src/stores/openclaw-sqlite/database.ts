import { crypto } from "../../format/common/builtins.js";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { decompressZstd } from "../common/zstd.js";
import { transcriptPath } from "./ref.js";
import { connect, DatabaseError, hasTable, type Connection, type DatabaseStamp } from "./connection.js";
import { BATCH_BYTES, decodeRows, integers, LENGTHS, ROWS_AT_LEAST, ROWS_AT_ONCE, ROWS_FROM, ROWS_OF, startIn, type Batch, type Rows } from "./rows.js";
import { str } from "../common/store-facts.js";

/*
 * An agent's database (docs/stores.md, "OpenClaw's SQLite era"): since 2026.8.1 an agent's live
 * transcripts are rows of `agents/<agent>/agent/openclaw-agent.sqlite`, one row a line of the pi
 * session file (`transcript_events`: `event_json`, or where that is NULL `event_zstd`, the line
 * compressed), with `session_nodes` and `session_windows` for what `sessions.json` held, the
 * archives it keeps and the transcripts in its cold storage.
 */

/** What `session_windows` and `session_nodes` say of one transcript. */
export interface WindowFacts {
  key: string | null;
  label: string | null;
  channel: string | null;
  chatType: string | null;
  spawnedBy: string | null;
  /** The session this one replaced (a reset's, a rollover's), and why. */
  previous: string | null;
  /** Its key's current session (`session_nodes`): a key's older windows (before a reset) are not. */
  current: boolean;
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

/**
 * A database, with what every transcript of it needs. Its facts come from the database, or from
 * the facts cache where its files have not changed since; the database is opened when a row is
 * first asked for (and its facts then read again, in the one read transaction the rows are read in:
 * a transcript's size and its rows agree).
 */
export class AgentDatabase implements DatabaseFacts {
  readonly summaries = new Map<string, Summary>();
  readonly archives = new Map<string, Archive>();
  readonly colds = new Map<string, Cold>();
  windows: Map<string, WindowFacts> | undefined;
  /** `familyKey`'s map, once read. */
  private families: Map<string, string> | undefined;
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
    /** The transcripts of it this thread reads next, where it shares the store with others (undefined: every one that follows). */
    private readonly readingNext: () => ReadonlySet<string> | undefined = () => undefined,
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

  /** The connection closed (the run is over; a row asked for later opens it again). */
  close(): void {
    const c = this.connection;
    this.connection = undefined;
    this.lengthsQuery = this.rowsFrom = this.rowsOf = this.archiveBlob = this.coldBlob = undefined;
    this.batch = undefined;
    if (c) {
      try {
        c.db.close();
      } catch {
        // closed already
      }
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
    this.families = undefined;
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
        current: key !== null && named.some((n) => n.key === key),
      });
    }
    this.windows = windows;
    return windows;
  }

  facts(id: string): WindowFacts | undefined {
    return this.windowsRead().get(id);
  }

  /**
   * The key a session belonged to before a reset or a rotation, where the database records it:
   * a key's entry names its usage family and the session before (`usageFamilySessionIds`,
   * `previousSessionId`, since 2026.9), a window the session it replaced (`previous_session_id`).
   * What `sessions.json` said, for the archives the JSONL era left in `sessions/` (read once).
   */
  familyKey(id: string): string | undefined {
    if (!this.families) {
      const families = new Map<string, string>();
      const db = this.db();
      for (const r of db.prepare("SELECT session_key, current_session_id, json_extract(entry_json, '$.usageFamilySessionIds') AS family, json_extract(entry_json, '$.previousSessionId') AS previous FROM session_nodes WHERE json_valid(entry_json)").all()) {
        const key = str(r.session_key);
        if (key === null) continue;
        let family: unknown = [];
        try {
          family = typeof r.family === "string" ? JSON.parse(r.family) : [];
        } catch {
          // not a list: nothing to add
        }
        for (const old of [...(Array.isArray(family) ? family : []), r.previous]) if (typeof old === "string" && old !== r.current_session_id && !families.has(old)) families.set(old, key);
      }
      for (const [id, w] of this.windowsRead()) if (w.previous !== null && w.key !== null && w.previous !== id && !families.has(w.previous)) families.set(w.previous, w.key);
      this.families = families;
    }
    return this.families.get(id);
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
    return { from: { id, seq }, ids, firstOf, seqs, lines: decodeRows(this.path, rows, seqs, lengths, packed, ids), full: count === n };
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
    const within = this.readingNext();
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
    const where = `${transcriptPath(this.path, cold.sessionId)}: its cold-storage archive ${cold.name}`;
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
    if (bytes.length !== cold.bytes || crypto().createHash("sha256").update(bytes).digest("hex") !== cold.sha256) {
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

/** The `sessions/` folder of a database's agent (`agents/<agent>/sessions`): its archives, and cold storage's files. */
export const sessionsFolderOf = (database: string): string => join(dirname(dirname(database)), "sessions");

