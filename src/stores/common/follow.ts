import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";

/*
 * A session followed as it is written (`tail -f`; docs/commands.md, "tail"): what its store says
 * has come since it was last asked. A store is a source of lines here too: a follower hands on
 * whole lines as the store keeps them (a file's appended bytes, a database's new rows), and says
 * when what it follows is no longer what was read (rewritten, gone, replaced by another session).
 * It is asked (`poll`) when one of its `wakers` changes and now and then besides; a poll of a
 * session that has not changed costs a `stat`.
 */

/** How much of the session the reader has read already: its bytes (up to its last whole line) and its lines; -1 for both: none of it, and nothing before now is wanted (from its end on). */
export interface FollowFrom {
  bytes: number;
  lines: number;
  /** The inode of the file as it was before it was read (another file there now was put there since: a rewrite). */
  ino?: number;
}

export type FollowEvent =
  /** The whole lines that came since (none: nothing did), each without its newline. */
  | { kind: "lines"; lines: Buffer[] }
  /** It is no longer what was read (rewritten, cut short): read it again. `quiet`: nothing to say (a store that is always read whole). */
  | { kind: "changed"; why: string; quiet?: boolean }
  /** It is not there any more (renamed, deleted). */
  | { kind: "gone"; why: string }
  /** Another session took its place under its key (`by`: how that one is named). */
  | { kind: "replaced"; by: string; key: string };

export interface Follower {
  /** Files whose change may mean news: their folders are watched. */
  readonly wakers: readonly string[];
  poll(): FollowEvent;
  close(): void;
}

/** Bytes before the read's end kept to tell an append from a rewrite: they must still be there, as they were. */
const GUARD = 64;
/** Bytes read at most in one poll (a writer far ahead is caught up over the next polls). */
const READ_AT_MOST = 8 * 1024 * 1024;

const NOTHING: FollowEvent = { kind: "lines", lines: [] };

/**
 * A file appended to (pi's sessions, OpenClaw's JSONL transcripts): the bytes after what was read,
 * cut into whole lines; a last line not yet whole waits for its newline. The file is opened for
 * each read and closed again (a file renamed away is seen as gone, not followed under its new
 * name); another file in its place, or one shorter than what was read, or whose bytes before the
 * read's end differ, is `changed`.
 */
export class FileFollower implements Follower {
  readonly wakers: readonly string[];
  private ino: number | undefined;
  /** Where the next whole line starts. */
  private offset: number;
  /** The bytes of a line not yet whole, from `offset`. */
  private pending: Buffer = Buffer.alloc(0);
  /** The bytes before `offset` (at most `GUARD`) as they were read. */
  private guard: Buffer;
  private mtimeMs = 0;

  constructor(
    readonly path: string,
    from: FollowFrom,
  ) {
    this.wakers = [path];
    const st = statSync(path, { throwIfNoEntry: false });
    this.offset = from.bytes >= 0 ? from.bytes : st ? this.lastLineEnd(st.size) : 0;
    this.ino = from.ino ?? st?.ino;
    this.mtimeMs = st?.mtimeMs ?? 0;
    this.guard = st ? this.readAt(Math.max(0, this.offset - GUARD), Math.min(GUARD, this.offset)) : Buffer.alloc(0);
  }

  poll(): FollowEvent {
    let st;
    try {
      st = statSync(this.path, { throwIfNoEntry: false });
    } catch (error) {
      return { kind: "gone", why: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
    }
    if (!st) return { kind: "gone", why: "is no longer there (renamed or deleted)" };
    if (this.ino !== undefined && st.ino !== this.ino) return { kind: "changed", why: "was replaced by another file (rewritten)" };
    const end = this.offset + this.pending.length;
    if (st.size < end) return { kind: "changed", why: `was cut short (${st.size} bytes, ${end} read)` };
    if (st.size === end && st.mtimeMs === this.mtimeMs) return NOTHING;
    this.mtimeMs = st.mtimeMs;
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch (error) {
      return { kind: "gone", why: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
    }
    try {
      if (fstatSync(fd).ino !== this.ino && this.ino !== undefined) return { kind: "changed", why: "was replaced by another file (rewritten)" };
      if (this.guard.length > 0) {
        const now = Buffer.alloc(this.guard.length);
        readSync(fd, now, 0, now.length, this.offset - this.guard.length);
        if (!now.equals(this.guard)) return { kind: "changed", why: "was rewritten in place" };
      }
      const size = fstatSync(fd).size;
      const length = Math.min(READ_AT_MOST, size - end);
      if (length <= 0) return NOTHING;
      const chunk = Buffer.allocUnsafe(length);
      const n = readSync(fd, chunk, 0, length, end);
      return this.take(n === length ? chunk : chunk.subarray(0, n));
    } finally {
      closeSync(fd);
    }
  }

  /** The whole lines `pending` and `chunk` hold; the rest waits. */
  private take(chunk: Buffer): FollowEvent {
    const bytes = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    const lines: Buffer[] = [];
    let start = 0;
    for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
      lines.push(bytes.subarray(start, nl));
      start = nl + 1;
    }
    this.offset += start;
    // (a copy: the line waiting is kept, not the chunk it was read in)
    this.pending = Buffer.from(bytes.subarray(start));
    if (start > 0) this.guard = Buffer.from(bytes.subarray(Math.max(0, start - GUARD), start));
    return lines.length > 0 ? { kind: "lines", lines } : NOTHING;
  }

  /** Where the file's last whole line ends (its size, when it ends in a newline). */
  private lastLineEnd(size: number): number {
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - 65536);
      const chunk = this.readAt(start, end - start);
      const nl = chunk.lastIndexOf(10);
      if (nl !== -1) return start + nl + 1;
      end = start;
    }
    return 0;
  }

  private readAt(position: number, length: number): Buffer {
    if (length <= 0) return Buffer.alloc(0);
    const fd = openSync(this.path, "r");
    try {
      const out = Buffer.alloc(length);
      return out.subarray(0, readSync(fd, out, 0, length, position));
    } finally {
      closeSync(fd);
    }
  }

  close(): void {
    this.pending = Buffer.alloc(0);
  }
}

/**
 * A session a store reads whole whenever it is read (agent-core's format 4, whose lines are a
 * translation): followed by its stamp, and read again (`changed`, quietly) when the stamp moves.
 */
export class StampFollower implements Follower {
  /** The stamp seen last; none at first: the first poll reads the session again (it may have been written between the read and now). */
  private last: string | undefined;

  constructor(
    readonly wakers: readonly string[],
    private readonly stampOf: () => unknown,
  ) {}

  poll(): FollowEvent {
    const now = JSON.stringify(this.stampOf());
    if (now === undefined) return { kind: "gone", why: "is no longer there (renamed or deleted)" };
    if (now === this.last) return NOTHING;
    this.last = now;
    return { kind: "changed", why: "was written", quiet: true };
  }

  close(): void {}
}
