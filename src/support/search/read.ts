import { createHash, type Hash } from "node:crypto";
import type { ByteSource } from "../../format/read/source.js";
import type { FileKind } from "../../format/schema/types.js";
import { readForIndex, type IndexedEntry, type IndexRead } from "../../format/search/read.js";
import { SessionTitle } from "../../format/session/labels.js";
import { idFromFileName } from "../../stores/index.js";
import { openSource, unreadableReason } from "../inputs/input.js";

/**
 * A session read for `search`'s index (format/search/read.ts), on a worker thread or this one:
 * whole, or on from where the index stopped (what was appended), and packed to be handed over
 * (typed arrays, not an object an entry).
 */

/** Where the index stopped reading a session, to read on from (`IndexFrom`, as it can be handed to a worker). */
export interface AppendPoint {
  bytes: number;
  lines: number;
  version: number;
  /** The hash of every byte before `bytes` (`prefixHash`): an append leaves them as they were (else the session was rewritten, and is read whole). */
  guard: Uint8Array;
  name: string | null;
  firstUser: string | null;
}

/** What `index` asks of each file: where to read on from, by path (none: read it whole). */
export interface IndexSettings {
  from: Record<string, AppendPoint>;
}

/**
 * A session's entries, packed as few objects as can be: a column of numbers each, and every
 * entry's terms in one buffer (UTF-8), where `terms` says each one's end. A large session's
 * entries are then a few buffers, not a string and an object each that live until it is written.
 */
export interface PackedEntries {
  count: number;
  /** Line, offset, length, time (NaN: none), worth, key, role (its place in `roles`), end of its terms in `text`: `FIELDS` numbers an entry. */
  numbers: Float64Array;
  roles: string[];
  /** Each entry's id, where the reading gives one the line does not (`whole` reads); else empty. */
  ids: Array<string | null>;
  text: Uint8Array;
}

const FIELDS = 8;

/** Bytes of terms a read hands over in one part, where it is read in parts (a large session: `readIndexFile`'s `onPart`). */
const PART_BYTES = 8 * 1024 * 1024;

/** The entries as they are read, into growing buffers (handed over `PART_BYTES` at a time, where `onPart` takes them). */
class Packer {
  private count = 0;
  private numbers = new Float64Array(FIELDS * 64);
  private text = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  private roles: string[] = [];
  private ids: Array<string | null> = [];

  constructor(private readonly onPart?: (part: PackedEntries) => void) {}

  add(e: IndexedEntry, keepId: boolean): void {
    if ((this.count + 1) * FIELDS > this.numbers.length) {
      const grown = new Float64Array(this.numbers.length * 2);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    const room = this.used + e.terms.length * 3;
    if (room > this.text.length) {
      const grown = Buffer.allocUnsafe(Math.max(room, this.text.length * 2));
      this.text.copy(grown, 0, 0, this.used);
      this.text = grown;
    }
    this.used += this.text.write(e.terms, this.used, "utf8");
    let role = this.roles.indexOf(e.role);
    if (role < 0) role = this.roles.push(e.role) - 1;
    const at = this.count * FIELDS;
    const n = this.numbers;
    n[at] = e.line;
    n[at + 1] = e.offset;
    n[at + 2] = e.length;
    n[at + 3] = e.time;
    n[at + 4] = e.worth;
    n[at + 5] = e.key;
    n[at + 6] = role;
    n[at + 7] = this.used;
    if (keepId) this.ids[this.count] = e.id ?? null;
    this.count++;
    if (this.onPart && this.used >= PART_BYTES) this.onPart(this.packed());
  }

  /** The entries packed since the last call. */
  packed(): PackedEntries {
    // (each in a buffer of its own, which a worker hands over whole)
    const text = new Uint8Array(this.used);
    text.set(this.text.subarray(0, this.used));
    const out = { count: this.count, numbers: this.numbers.slice(0, this.count * FIELDS), roles: this.roles, ids: this.ids, text };
    this.count = 0;
    this.used = 0;
    this.roles = [];
    this.ids = [];
    return out;
  }
}

/** Entry `k` of packed entries. */
export function unpack(p: PackedEntries, k: number): IndexedEntry {
  const n = p.numbers;
  const at = k * FIELDS;
  const start = k === 0 ? 0 : n[at - 1]!;
  return { line: n[at]!, offset: n[at + 1]!, length: n[at + 2]!, time: n[at + 3]!, worth: n[at + 4]!, key: n[at + 5]!, role: p.roles[n[at + 6]!]!, id: p.ids[k] ?? undefined, terms: Buffer.from(p.text.buffer, p.text.byteOffset, p.text.byteLength).toString("utf8", start, n[at + 7]!) };
}

/** Where the last of packed entries lies in its session (bytes; 0 for none): how far a read in parts has come. */
export function readUpTo(p: PackedEntries): number {
  return p.count === 0 ? 0 : p.numbers[(p.count - 1) * FIELDS + 1]! + p.numbers[(p.count - 1) * FIELDS + 2]!;
}

/** The worth of entry `k` and the length of its terms: what a batch is ordered and sized by. */
export function worthAndSize(p: PackedEntries, k: number): { worth: number; size: number } {
  const at = k * FIELDS;
  return { worth: p.numbers[at + 4]!, size: p.numbers[at + 7]! - (k === 0 ? 0 : p.numbers[at - 1]!) };
}

/** What a read found: the session's facts and entries, or why it could not be read. */
export interface IndexFile {
  path: string;
  kind: FileKind | "unreadable";
  error?: string;
  /** Read on from its append point (else whole). */
  appended: boolean;
  mode: "lines" | "whole";
  version: number;
  readTo: number;
  lines: number;
  guard: Uint8Array | null;
  /** The header's (a read on from an append point has none: the index keeps what it had). */
  header?: { id: string | null; cwd: string | null; created: string | null };
  name: string | null;
  firstUser: string | null;
  skipped: Array<{ line: number; offset: number; length: number }>;
  entries: PackedEntries;
}

/** Bytes hashed at a time (`hashed`). */
const HASH_CHUNK = 4 * 1024 * 1024;

/**
 * Reads `path` for the index: on from `from` where that still holds, else whole; a file that
 * cannot be read says why. `onPart`: its entries handed over as they are read, a part at a time
 * (`appended`: read on from `from`), and those left in what it returns (a large session: its
 * entries are never all held at once).
 */
export function readIndexFile(path: string, from: AppendPoint | undefined, onPart?: (part: PackedEntries, appended: boolean) => void): IndexFile {
  let source: ByteSource;
  try {
    source = openSource(path);
  } catch (error) {
    return unreadable(path, error);
  }
  try {
    if (from && source.size >= from.bytes) {
      // (every byte before the append point as it was: a byte edited anywhere in it makes the read whole)
      const prefix = hashed(createHash("sha256"), source, 0, from.bytes);
      if (Buffer.compare(prefix.copy().digest(), from.guard) === 0) {
        const packer = new Packer(onPart && ((part) => onPart(part, true)));
        const read = readForIndex(source, { bytes: from.bytes, lines: from.lines, version: from.version, title: new SessionTitle(from.name ?? undefined, from.firstUser ?? undefined) }, (e, whole) => packer.add(e, whole));
        if (read) return described(path, read, packer.packed(), true, hashed(prefix, source, from.bytes, read.end).digest());
      }
    }
    const packer = new Packer(onPart && ((part) => onPart(part, false)));
    const read = readForIndex(source, undefined, (e, whole) => packer.add(e, whole))!;
    return described(path, read, packer.packed(), false, hashed(createHash("sha256"), source, 0, read.end).digest());
  } catch (error) {
    return unreadable(path, error);
  } finally {
    source.close();
  }
}

/**
 * `hash` fed the bytes of `source` from `start` to `end`: what tells an append from a rewrite is
 * the hash of every byte before the append point (an edit anywhere before it, of any size, makes
 * another; BENCHMARKS.md, "search", says what it costs).
 */
function hashed(hash: Hash, source: ByteSource, start: number, end: number): Hash {
  for (let at = start; at < end; at += HASH_CHUNK) hash.update(source.read(at, Math.min(HASH_CHUNK, end - at)));
  return hash;
}

function described(path: string, read: IndexRead, entries: PackedEntries, appended: boolean, digest: Buffer): IndexFile {
  const h = read.header;
  const guard = Uint8Array.from(digest);
  return {
    path,
    kind: read.kind,
    appended,
    mode: read.mode,
    version: read.version,
    readTo: read.end,
    lines: read.lines,
    guard,
    ...(appended ? {} : { header: { id: typeof h?.id === "string" ? h.id : (idFromFileName(path) ?? null), cwd: typeof h?.cwd === "string" ? h.cwd : null, created: typeof h?.timestamp === "string" ? h.timestamp : null } }),
    name: read.title.name ?? null,
    firstUser: read.title.firstUser ?? null,
    skipped: read.skipped,
    entries,
  };
}

function unreadable(path: string, error: unknown): IndexFile {
  return { path, kind: "unreadable", error: unreadableReason(path, error), appended: false, mode: "whole", version: 0, readTo: 0, lines: 0, guard: null, name: null, firstUser: null, skipped: [], entries: new Packer().packed() };
}
