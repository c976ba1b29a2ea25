import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { borrowChunk, returnChunk } from "./wasm/simd.js";

/**
 * Random-access bytes of a session: a file read through one descriptor, or a buffer (stdin).
 * Reading is synchronous on purpose: a command works on one file at a time, and sync reads of large
 * chunks are the fastest way Node offers to walk a file.
 */
export interface ByteSource {
  /** The path (or `<stdin>`) used in diagnostics. */
  readonly name: string;
  readonly size: number;
  /** Reads `length` bytes at `offset` into a fresh buffer. */
  read(offset: number, length: number): Buffer;
  /** Reads into `target`, returning how many bytes were read (0 at the end). */
  readInto(target: Buffer, offset: number): number;
  /** Whether its bytes are `bytes`, byte for byte: where a source can say so without copying them out (a database transcript's rows). */
  sameAs?(bytes: Buffer): boolean;
  close(): void;
}

export class FileSource implements ByteSource {
  readonly size: number;
  private fd: number;

  constructor(readonly name: string) {
    this.fd = openSync(name, "r");
    this.size = fstatSync(this.fd).size;
  }

  read(offset: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, out, done, length - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    return done === length ? out : out.subarray(0, done);
  }

  readInto(target: Buffer, offset: number): number {
    return readSync(this.fd, target, 0, target.length, offset);
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

export class BufferSource implements ByteSource {
  readonly size: number;

  constructor(
    readonly name: string,
    private readonly bytes: Buffer,
  ) {
    this.size = bytes.length;
  }

  read(offset: number, length: number): Buffer {
    return this.bytes.subarray(offset, offset + length);
  }

  readInto(target: Buffer, offset: number): number {
    return this.bytes.copy(target, 0, offset, Math.min(this.bytes.length, offset + target.length));
  }

  close(): void {}
}

/** How many bytes two sources hold alike from their start (read 4 MB at a time): `diff`'s common start, and whether two files are the same bytes. */
export function commonPrefix(a: ByteSource, b: ByteSource): number {
  const chunk = 4 << 20;
  const end = Math.min(a.size, b.size);
  const bx = Buffer.allocUnsafe(Math.min(chunk, end));
  const by = Buffer.allocUnsafe(Math.min(chunk, end));
  for (let at = 0; at < end; at += chunk) {
    const n = Math.min(chunk, end - at);
    const x = bx.subarray(0, a.readInto(bx.subarray(0, n), at));
    const y = by.subarray(0, b.readInto(by.subarray(0, n), at));
    if (x.length < n || y.length < n) return at + Math.min(x.length, y.length);
    if (x.equals(y)) continue;
    let k = 0;
    while (k < n && x[k] === y[k]) k++;
    return at + k;
  }
  return end;
}

/**
 * A file's first `length` bytes (fewer when it is shorter), read with one call: what a look at a
 * header or a first line needs, without opening the file as a source. Throws as `openSync` does.
 */
export function readHead(path: string, length: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.allocUnsafe(length);
    return head.subarray(0, readSync(fd, head, 0, length, 0));
  } finally {
    closeSync(fd);
  }
}

/** Bytes `[start, end)` of another source, read as a file of their own (a session cut out of a concatenated file). */
export class SliceSource implements ByteSource {
  readonly size: number;

  constructor(
    private readonly whole: ByteSource,
    private readonly start: number,
    end: number,
  ) {
    this.size = end - start;
  }

  get name(): string {
    return this.whole.name;
  }

  read(offset: number, length: number): Buffer {
    return this.whole.read(this.start + offset, Math.max(0, Math.min(length, this.size - offset)));
  }

  readInto(target: Buffer, offset: number): number {
    const room = Math.max(0, Math.min(target.length, this.size - offset));
    return room === 0 ? 0 : this.whole.readInto(target.subarray(0, room), this.start + offset);
  }

  /** The whole source is closed by its owner. */
  close(): void {}
}

const CHUNK_SIZE = 16 * 1024 * 1024;
/** How much one read takes in: the chunk's further pages are touched only by a line too long for this. */
const READ_SIZE = 4 * 1024 * 1024;

/**
 * Calls `onLine` for every `\n`-terminated line of `source` (and a final unterminated one), with
 * the line's bytes as `buffer[start..end)` (without the `\n`), its 1-based number, its byte offset
 * and whether a newline ended it. The bytes are only valid during the call: they are a reused read
 * buffer, handed on with the line's bounds rather than as a new view each (a million lines would
 * make a million objects).
 *
 * Splits on the byte 0x0A only, never on U+2028/U+2029 and never after decoding, so invalid UTF-8
 * reaches the classifier intact. Lines may be larger than the chunk size.
 */
export function forEachLine(
  source: ByteSource,
  onLine: (buffer: Buffer, start: number, end: number, line: number, offset: number, terminated: boolean) => void,
  chunkSize = CHUNK_SIZE,
): void {
  // A small file gets a small buffer: `ls` opens thousands of them. The buffer is the SIMD
  // module's memory when free, so that the scanner classifies lines where they lie; to keep them
  // there, a line cut by the end of a read moves to the front of the buffer and the next read
  // lands after it (only a line longer than the whole buffer is pieced together elsewhere).
  const size = Math.max(1, Math.min(chunkSize, source.size > 0 ? source.size : chunkSize));
  const chunk = borrowChunk(size) ?? Buffer.allocUnsafe(size);
  // Reads fill the chunk up to `window`, which doubles (to the chunk's size) for a line longer than
  // it: the pages of the chunk a read never reaches are never touched, so they never count in
  // the process's memory (a session of short lines uses a quarter of the chunk).
  let window = Math.min(size, READ_SIZE);
  let carry: Buffer[] = [];
  let carryLength = 0;
  /** Bytes at the front of the chunk that hold the start of an unfinished line. */
  let have = 0;
  /** The file offset of the chunk's first byte (carried bytes come just before it). */
  let base = 0;
  let line = 1;
  try {
    for (;;) {
      const n = source.readInto(chunk.subarray(have, window), base + have);
      if (n === 0) break;
      const end = have + n;
      // (searched only where this read left bytes: what lies past them is stale, or never touched)
      const filled = chunk.subarray(0, end);
      let pos = 0;
      for (;;) {
        const nl = filled.indexOf(10, pos);
        if (nl === -1) break;
        if (carryLength === 0) onLine(chunk, pos, nl, line, base + pos, true);
        else {
          const bytes = Buffer.concat([...carry, chunk.subarray(pos, nl)], carryLength + nl - pos);
          onLine(bytes, 0, bytes.length, line, base + pos - carryLength, true);
          carry = [];
          carryLength = 0;
        }
        line++;
        pos = nl + 1;
      }
      have = end - pos;
      // (a read that reached the size the file had when opened is the last: a small file's second
      // read, which would find nothing, is a system call for each of the thousands `ls` opens)
      const last = source.size > 0 && base + end >= source.size;
      if (pos > 0) {
        chunk.copyWithin(0, pos, end);
        base += pos;
      } else if (!last && have === window && window < chunk.length) {
        window = Math.min(chunk.length, window * 2);
      } else if (!last && have === chunk.length) {
        // A line longer than the chunk: keep a copy of this part (the chunk is read into again).
        carry.push(Buffer.from(chunk));
        carryLength += have;
        base += have;
        have = 0;
      }
      if (last) break;
    }
    if (carryLength + have > 0) {
      if (carryLength === 0) onLine(chunk, 0, have, line, base, false);
      else {
        const bytes = Buffer.concat([...carry, chunk.subarray(0, have)], carryLength + have);
        onLine(bytes, 0, bytes.length, line, base - carryLength, false);
      }
    }
  } finally {
    returnChunk(chunk);
  }
}

/**
 * How many rows a table filled line by line should grow to: what the bytes read so far (`at` of
 * `size`) say the whole file will need for `count` rows so far, and a little over.
 */
export function growthFor(count: number, at: number, size: number): number {
  return Math.ceil(((count * Math.max(size, at + 1)) / Math.max(at, 1)) * 1.02) + 256;
}
