import type { DatabaseSync } from "node:sqlite";
import type { Follower, FollowEvent, FollowFrom } from "../common/follow.js";
import { databaseStamp, openReadOnly, sameStamp, type DatabaseStamp } from "../common/sqlite.js";
import { decompressZstd } from "../common/zstd.js";
import { describe } from "./connection.js";
import { transcriptPath, type TranscriptRef } from "./ref.js";

/*
 * A transcript in an agent's database followed as the gateway writes it (docs/stores.md, "OpenClaw's
 * SQLite era"): its rows after the last one read, asked for whenever the database's files (its
 * `-wal` first) have changed, in a read transaction of its own that ends at once, so that the
 * reader never holds back the gateway's checkpoints. Opened read-only, as every read of the store
 * is: the database and its log are never written (beside a live writer, SQLite's shared memory,
 * `-shm`, is used as every reader uses it). The key whose current session it is, where one is, is
 * watched too: when the key moves on to another session (a reset), the follower says which.
 *
 * Followers of one database (`tail --all` follows every transcript of a gateway) share what it says
 * when its files change (`Tick`): which transcripts have rows newer than the last time it was
 * asked (by `rowid`, in one query), and each key's current session; a follower whose transcript
 * and key are as they were reads nothing.
 */

/** Rows read at most in one poll (a writer far ahead is caught up over the next polls). */
const ROWS_AT_MOST = 4096;

const NOTHING: FollowEvent = { kind: "lines", lines: [] };

const ROWS = "SELECT seq, event_json, event_zstd FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?";

/** What a database says when its files have changed, shared by the followers of its transcripts. */
class Tick {
  private stamp: DatabaseStamp | undefined;
  /** How many times its files were seen changed. */
  generation = 0;
  private lastRow = 0;
  /** The generation a transcript's rows (or a key's current session) last changed in. */
  private readonly touched = new Map<string, number>();
  private keys = new Map<string, string>();
  users = 0;

  constructor(private readonly database: string) {}

  /** Whether `id`'s rows, or `key`'s current session, changed after generation `since` (asking the database when its files have changed). */
  changed(id: string, key: string | undefined, since: number): boolean | "gone" {
    const now = databaseStamp(this.database);
    if (!now) return "gone";
    if (!this.stamp || !sameStamp(now, this.stamp)) {
      const { db } = openReadOnly(this.database);
      try {
        const last = Number(db.prepare("SELECT max(rowid) AS r FROM transcript_events").get()?.r ?? 0);
        const g = ++this.generation;
        // (fewer rows than before, or renumbered by a vacuum: every transcript is asked again)
        if (last < this.lastRow) this.touched.clear();
        const from = last < this.lastRow ? 0 : this.lastRow;
        for (const r of db.prepare("SELECT DISTINCT session_id FROM transcript_events WHERE rowid > ?").all(from)) this.touched.set(String(r.session_id), g);
        if (last < this.lastRow) this.touched.set("", g);
        this.lastRow = last;
        const keys = new Map<string, string>();
        for (const r of db.prepare("SELECT session_key, current_session_id FROM session_nodes").all()) {
          const k = String(r.session_key);
          keys.set(k, String(r.current_session_id));
          if (this.keys.get(k) !== keys.get(k)) this.touched.set(`key:${k}`, g);
        }
        this.keys = keys;
        this.stamp = now;
      } finally {
        db.close();
      }
    }
    const at = Math.max(this.touched.get(id) ?? 0, this.touched.get("") ?? 0, key !== undefined ? (this.touched.get(`key:${key}`) ?? 0) : 0);
    return at > since;
  }
}

const ticks = new Map<string, Tick>();

export class TranscriptFollower implements Follower {
  readonly wakers: readonly string[];
  /** The generation of the database's `Tick` read last (-1: none yet: the first poll reads). */
  private seen = -1;
  private readonly tick: Tick;
  /** The seq of the last row read. */
  private seq = Number.MIN_SAFE_INTEGER;
  /** The key whose current session this is (undefined: none). */
  private key: string | undefined;

  private constructor(
    private readonly ref: TranscriptRef,
  ) {
    this.wakers = [ref.database, `${ref.database}-wal`];
    let tick = ticks.get(ref.database);
    if (!tick) ticks.set(ref.database, (tick = new Tick(ref.database)));
    tick.users++;
    this.tick = tick;
  }

  /** A follower from row `from.lines` on; null where the transcript has no rows (an archive, cold storage): nothing more is written to it. */
  static start(ref: TranscriptRef, from: FollowFrom): TranscriptFollower | null {
    const f = new TranscriptFollower(ref);
    const started = f.read((db) => {
      if (db.prepare("SELECT 1 FROM transcript_events WHERE session_id = ? LIMIT 1").get(ref.name) === undefined) return null;
      if (from.lines < 0) f.seq = Number(db.prepare("SELECT max(seq) AS seq FROM transcript_events WHERE session_id = ?").get(ref.name)?.seq ?? Number.MIN_SAFE_INTEGER);
      else if (from.lines > 0) {
        const row = db.prepare("SELECT seq FROM transcript_events WHERE session_id = ? ORDER BY seq LIMIT 1 OFFSET ?").get(ref.name, from.lines - 1);
        f.seq = row ? Number(row.seq) : Number.MAX_SAFE_INTEGER;
      }
      f.key = (db.prepare("SELECT session_key FROM session_nodes WHERE current_session_id = ? LIMIT 1").get(ref.name)?.session_key as string | undefined) ?? undefined;
      return f;
    });
    if (!started) f.close();
    return started;
  }

  poll(): FollowEvent {
    try {
      const changed = this.seen < 0 || this.tick.changed(this.ref.name, this.key, this.seen);
      if (changed === "gone") return { kind: "gone", why: "is no longer there (its database was moved or deleted)" };
      if (!changed) return NOTHING;
      const generation = this.tick.generation;
      return this.read((db) => {
        const rows = db.prepare(ROWS).all(this.ref.name, this.seq, ROWS_AT_MOST);
        if (rows.length === 0) {
          const last = db.prepare("SELECT max(seq) AS seq FROM transcript_events WHERE session_id = ?").get(this.ref.name)?.seq;
          if (last === null || last === undefined) return { kind: "gone", why: "has no rows any more (deleted, or archived by OpenClaw)" };
          if (Number(last) < this.seq) return { kind: "changed", why: `holds fewer rows than were read (its last is ${String(last)}, ${this.seq} was read)` };
        }
        const lines = rows.map((r) => {
          this.seq = Number(r.seq);
          if (typeof r.event_json === "string") return Buffer.from(r.event_json);
          if (r.event_zstd instanceof Uint8Array) return decompressZstd(Buffer.from(r.event_zstd.buffer, r.event_zstd.byteOffset, r.event_zstd.byteLength));
          return Buffer.from("");
        });
        // (more rows than a poll reads: the next poll reads on)
        if (rows.length < ROWS_AT_MOST) this.seen = generation;
        if (lines.length > 0) return { kind: "lines", lines };
        if (this.key !== undefined) {
          const current = db.prepare("SELECT current_session_id FROM session_nodes WHERE session_key = ?").get(this.key)?.current_session_id;
          if (typeof current === "string" && current !== this.ref.name) return { kind: "replaced", by: transcriptPath(this.ref.database, current), key: this.key };
        }
        return NOTHING;
      });
    } catch (error) {
      // (a writer holding its lock longer than a read waits: asked again at the next poll)
      if (/locked|busy/i.test((error as Error).message ?? "")) return NOTHING;
      return { kind: "gone", why: `cannot be read (${describe(error)})` };
    }
  }

  /** `fn` over the database opened read-only, closed at once after. */
  private read<T>(fn: (db: DatabaseSync) => T): T {
    const { db } = openReadOnly(this.ref.database);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  close(): void {
    if (--this.tick.users === 0) ticks.delete(this.ref.database);
  }
}
