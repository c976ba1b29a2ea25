import { decompressZstdEach } from "../common/zstd.js";
import { transcriptPath } from "./ref.js";
import { DatabaseError } from "./connection.js";

/*
 * A transcript's rows read in batches (docs/stores.md, "OpenClaw's SQLite era"; BENCHMARKS.md, "the SQLite
 * era's rows"): the queries, what a batch holds, and its rows decoded into lines.
 */

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
export const ROWS_FROM = BATCH("SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE (session_id, seq) >= (?, ?) ORDER BY session_id, seq LIMIT ?");
/** A transcript's own rows from a seq on. */
export const ROWS_OF = BATCH("SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?");

/** `BATCH`'s row: how many rows, the lines, the seqs, the lengths, the frames, the frames' and their lines' lengths. */
export type Rows = [number, Uint8Array | null, string | null, string | null, Uint8Array | null, string | null];

/** A list of integers `group_concat` made (`,` between), or undefined when it does not hold `count` of them (-1: any number). */
export function integers(text: string | null, count: number): number[] | undefined {
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
export interface Batch {
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
export function startIn(batch: Batch, id: string, seq: number): number {
  const first = batch.firstOf.get(id);
  if (first === undefined) return -1;
  // (rows of id at the batch's start may follow rows of id it started after, unless it started at or before seq)
  if (first === 0 && batch.from.id === id && batch.from.seq > seq) return -1;
  let at = first;
  while (at < batch.ids.length && batch.ids[at] === id && batch.seqs[at]! < seq) at++;
  return at === batch.ids.length && batch.full ? -1 : at;
}

/** The seqs and line lengths of a transcript's rows from a seq on, at most so many (-1: all). */
export const LENGTHS = "SELECT seq, coalesce(event_utf8_bytes, octet_length(event_json)) AS len FROM transcript_events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?";

/** Rows a query reads at most: a call for several of a store's small transcripts (512 against 128: 4 % less of a cold `usage` of the benchmark's store). */
export const ROWS_AT_ONCE = 512;

/** Below this many rows a batch by the longest row, the rows' lengths are asked for instead (a transcript of a few very long lines among many short ones). */
export const ROWS_AT_LEAST = 16;

/** The bytes a batch of a large transcript's rows holds at most (or one row, when a line is larger): memory stays bounded as a file's reading is. */
export const BATCH_BYTES = 8 * 1024 * 1024;

/** A blob's bytes as a Buffer, not copied. */
const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/**
 * A batch's lines: `event_json` as it is, `event_zstd` decompressed (together where zstd allows)
 * and held to `event_utf8_bytes`. Each line is a view of the batch's one buffer of lines, or of
 * the one its compressed rows decode to. A damaged row is its error, thrown to the reader of its
 * own transcript when it gets there, not to the reader whose batch ran into it.
 */
export function decodeRows(database: string, rows: Rows, seqs: readonly number[], lengths: readonly number[], packed: readonly number[], ids: readonly string[]): Array<Buffer | Error> {
  const lines: Array<Buffer | Error> = new Array(lengths.length);
  const json = rows[1] ? asBuffer(rows[1]) : EMPTY;
  const zstd = rows[4] ? asBuffer(rows[4]) : EMPTY;
  const damaged = (i: number, why: string) => new Error(`${transcriptPath(database, ids[i]!)}: row ${seqs[i]} of transcript_events ${why}; the database is damaged there`);
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
  if (at !== json.length || zat !== zstd.length || packed.length !== 2 * blobs.length) throw new DatabaseError(`${database}: transcript_events gave rows whose lengths do not add up; the database may be damaged: OpenClaw's \`openclaw doctor\` checks it`);
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

