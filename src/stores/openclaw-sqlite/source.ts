import { dirname } from "node:path";
import { BufferSource, type ByteSource } from "../../format/read/source.js";
import { DatabaseError } from "./connection.js";
import type { AgentDatabase } from "./database.js";
import type { TranscriptRef } from "./ref.js";

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
export function openTranscript(db: AgentDatabase, ref: TranscriptRef, name: string): ByteSource {
  const cold = db.colds.get(ref.name);
  if (cold) return new BufferSource(name, db.coldText(cold));
  const summary = db.summaries.get(ref.name);
  if (summary) return new TranscriptSource(name, db, ref.name, summary.bytes, summary.rows);
  const text = db.archiveText(ref.name);
  if (text) return new BufferSource(name, text);
  throw new DatabaseError(`${name}: no transcript ${ref.name} in ${ref.database}; run \`pi-session ls ${dirname(dirname(ref.database))}\` to see its transcripts`);
}

