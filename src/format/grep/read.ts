import { resolve } from "node:path";
import { idHash } from "../common/hash.js";
import { escapesNeedle, findRun, firstMatch, type ClassRun, type GrepPattern, type TextMatch } from "./pattern.js";
import { admits, type EntryFilter } from "./filter.js";
import { migrateEntryV2ToV3 } from "../schema/migrations.js";
import { parseLine } from "../read/salvage.js";
import { Session } from "../session/session.js";
import { ChunkSearch } from "../read/chunk-search.js";
import { forEachLine, type ByteSource } from "../read/source.js";
import { SessionTitle } from "../session/labels.js";
import { CURRENT_VERSION, type FileKind, type SessionHeader } from "../schema/types.js";
import { simdFindNeedle } from "../read/wasm/simd.js";
import { emptyFields, scanShape, Verdict } from "../read/scanner.js";
import { RawCount, RawVerdict } from "./raw-count.js";

/**
 * One file searched (`grep`), as every read-only command reads it: the entries of the lines pi
 * parses, each searched in its decoded texts (grep/pattern.ts).
 *
 * Two ways, one answer, as for usage (usage/read.ts). The reference is `Session` (every
 * entry parsed whole; v1 ids given in memory; the current branch known). The fast way decodes only
 * the lines whose raw bytes can hold a match: those that hold the pattern's needle as it is (found
 * by the scanner's SIMD search over the read chunk, not line by line) or, for a pattern without
 * one, a run of the characters every match holds in a row (`[0-9a-f]{40}`), or a `\uXXXX` escape of
 * one of their characters; a needle inside an image's base64 data is passed over without decoding. It
 * stands aside for the reference when line 1 is not a v2/v3 header, when the record after it is
 * not an entry with an id (what the file is then takes every line), and for `--branch current`.
 * A count of a fixed string (`-c`, `-l`) takes an entry's verdict from its line's raw bytes where
 * they tell it (grep/raw-count.ts), and decodes the line only where they do not.
 * Tests hold the two equal on every fixture, corpus file and corruption.
 */

/** What an entry must be to be searched (`EntryFilter`), and how many matches a file gives at most. */
export interface GrepFilter extends EntryFilter {
  /** At most this many matching entries. */
  max?: number;
  /** Only the entries on the session's current branch (the reference reads the tree). */
  currentBranch?: boolean;
  /** Only a session whose header's cwd is this (resolved) path: another is not read past its header. */
  cwd?: string;
  /** Find the session's title (its name, else its first user message) for a file with matches. */
  title?: boolean;
  /**
   * Only how many entries match, not the matches: a file can hold millions (`-c` of a word every
   * heartbeat says), a few hundred bytes each. With `keyed`, a key of each (`GrepRead.keys`).
   */
  countOnly?: boolean;
  keyed?: boolean;
}

export interface GrepHit extends TextMatch {
  line: number;
  id: string | undefined;
  type: string;
  role: string;
  timestamp: string | undefined;
}

export interface GrepRead {
  header: SessionHeader | null;
  kind: FileKind;
  /** The matches (none kept with `countOnly`), and how many there are. */
  hits: GrepHit[];
  count: number;
  /** With `countOnly` and `keyed`: each match's `hitKey`, to tell a match a copy repeats without keeping it. */
  keys: number[];
  /** Lines pi skips whose bytes hold the pattern's needle or run (every such line, without either): their text is not searched. */
  skipped: number[];
  /** The session's name, else its first user message, when the file has hits. */
  title: string | undefined;
}

type Json = Record<string, unknown>;

export function grepFile(source: ByteSource, pattern: GrepPattern, filter: GrepFilter = {}): GrepRead {
  // (where the fast way stands aside, a v1 file whose bytes may hold a match or a damaged file, the
  // session's reading with only the lines whose bytes may hold a match parsed)
  return (filter.currentBranch ? undefined : fastGrep(source, pattern, filter)) ?? sessionGrep(source, pattern, filter, sifts(pattern));
}

/** An entry searched: the hit it gives, if it passes the filter and matches. */
function search(entry: Json, line: number, id: string | undefined, pattern: GrepPattern, filter: GrepFilter): GrepHit | undefined {
  const admitted = admits(entry, filter);
  if (!admitted) return undefined;
  const { role, timestamp } = admitted;
  const m = firstMatch(entry, pattern, filter.tool);
  return m && { ...m, line, id, type: typeof entry.type === "string" ? entry.type : "(none)", role, timestamp };
}

/** What a file's search keeps of each match found. */
class Found {
  readonly hits: GrepHit[] = [];
  readonly keys: number[] = [];
  count = 0;

  constructor(private readonly filter: GrepFilter) {}

  add(hit: GrepHit): void {
    this.count++;
    if (!this.filter.countOnly) this.hits.push(hit);
    else if (this.filter.keyed) this.keys.push(hitKey(hit));
  }

  /** A match told without its hit (grep/raw-count.ts: only where nothing of it is kept). */
  addUnseen(): void {
    this.count++;
  }

  get full(): boolean {
    return this.filter.max !== undefined && this.count >= this.filter.max;
  }
}

/**
 * A match's entry and what matched, as a number (`idHash` of its fields): two matches with one key
 * are the same match in two copies of a transcript (grep's `withoutRepeats`).
 */
export function hitKey(h: GrepHit): number {
  return idHash([h.id ?? `#${h.line}`, h.type, h.role, h.timestamp ?? "", h.field, h.start, h.end, h.match, h.before, h.after].join("\u0000"));
}

/** The reference: the session reader, every entry whole. */
export function referenceGrep(source: ByteSource, pattern: GrepPattern, filter: GrepFilter = {}): GrepRead {
  return sessionGrep(source, pattern, filter, false);
}

/**
 * The session reader's search. `sifted`: only the entries whose lines' bytes may hold a match (the
 * needle or run, or an escape that may spell it; `mayHold`), and the title's lines (a name, a user
 * message), are parsed and searched, the rest read by the scanner alone: the same answer, since an
 * entry whose bytes cannot hold a match has no match.
 */
function sessionGrep(source: ByteSource, pattern: GrepPattern, filter: GrepFilter, sifted: boolean): GrepRead {
  const found = new Found(filter);
  const title = new SessionTitle();
  const entries: Array<{ entry: Json; line: number; id: string | undefined; node: number | undefined }> = [];
  const session = Session.open(source, {
    onRecord: (value, record) => {
      if (record.kind !== "entry") return;
      title.see(value as Json);
      entries.push({ entry: value as Json, line: record.line, id: record.id, node: record.node });
    },
    ...(sifted ? { lines: lineSieve(pattern, title) } : {}),
  });
  if (!sameCwd(session.header, filter.cwd)) return { header: session.header, kind: session.size === 0 ? "other" : session.fileKind, hits: [], count: 0, keys: [], skipped: [], title: undefined };
  let branch: Set<number> | undefined;
  if (filter.currentBranch && session.leafNode >= 0) branch = new Set(session.tree.pathTo(session.leafNode));
  for (const { entry, line, id, node } of entries) {
    if (found.full) break;
    if (branch && (node === undefined || !branch.has(node))) continue;
    const hit = search(entry, line, id, pattern, filter);
    if (hit) found.add(hit);
  }
  const skipped: number[] = [];
  for (let i = 0; i < session.lineCount; i++) {
    if (session.lineState(i).kind !== "invalid") continue;
    if (mayHoldMatch(session.lineBytes(i), pattern)) skipped.push(i + 1);
  }
  return { header: session.header, kind: session.size === 0 ? "other" : session.fileKind, hits: found.hits, count: found.count, keys: found.keys, skipped, title: found.count > 0 ? title.title : undefined };
}

/**
 * Whether a line's bytes may hold a match, or are the title's (a session name; a user message
 * until the first with text is seen), found by their bytes as pi writes them: lines asked for in
 * order, each entry seen by `title` before the next line is asked about.
 */
function lineSieve(pattern: GrepPattern, title: SessionTitle): (chunk: Buffer, start: number, end: number) => boolean {
  const sifter = sieve(pattern);
  const escapes = needleSearch(ESCAPE_U);
  const names = needleSearch(SESSION_INFO);
  const users = needleSearch(USER_ROLE);
  return (chunk, start, end) =>
    sifter.within(chunk, start, end) ||
    (escapes.within(chunk, start, end) && escapesNeedle(chunk, escapes.hit, end, pattern.needleUnits)) ||
    names.within(chunk, start, end) ||
    (!title.hasFirstUser && users.within(chunk, start, end));
}

const STAND_ASIDE = Symbol("stand aside");

/** What `scanShape` leaves of a line for the raw count: one for every file (a line's, read at once). */
const SHAPE = emptyFields();

/** The fast way (see above); undefined to stand aside for the reference. */
function fastGrep(source: ByteSource, pattern: GrepPattern, filter: GrepFilter): GrepRead | undefined {
  if (source.size === 0) return undefined;
  const found = new Found(filter);
  const skipped: number[] = [];
  const title = new SessionTitle();
  const sifter = sifts(pattern) ? sieve(pattern) : undefined;
  const escapes = needleSearch(ESCAPE_U);
  const names = filter.title ? needleSearch(SESSION_INFO) : undefined;
  const users = filter.title ? needleSearch(USER_ROLE) : undefined;
  // (a count: an entry's verdict from its line's raw bytes where they tell it)
  const raw = filter.countOnly && !filter.keyed && filter.tool === undefined && filter.when === undefined ? new RawCount(pattern, filter.roles) : undefined;
  let header: SessionHeader | undefined;
  let version = CURRENT_VERSION;
  let done = false;
  let elsewhere = false;
  let checked = true;
  /**
   * A v1 file (its entries' ids made by migration, the reference's work): read here only to see
   * that no line's bytes can hold a match (the reference is asked at the first that can). Its
   * first entry is a message (a session, not pi's event stream).
   */
  let v1 = false;
  const read = (chunk: Buffer, start: number, end: number) => lineEntry(chunk.subarray(start, end), version);
  try {
    forEachLine(source, (chunk, start, end, line) => {
      if (done) return;
      if (line === 1) {
        const h = lineHeader(chunk.subarray(start, end), sifter !== undefined);
        if (!h) throw STAND_ASIDE;
        version = typeof h.version === "number" ? h.version : 1;
        v1 = version < 2;
        header = h;
        checked = false;
        if (!sameCwd(h, filter.cwd)) {
          done = true;
          elsewhere = true;
        }
        return;
      }
      // What the file is (`fileKindOf`) takes an entry with an id: the first record after the
      // header is one in a session; in pi's --mode json output, an event (the reference says what).
      if (v1) {
        if (!checked) {
          const { value, blank } = parseLine(chunk.subarray(start, end));
          if (value === undefined && blank) return;
          const first = value as Json | undefined;
          if (!first || typeof first !== "object" || first.type !== "message" || typeof (first.message as Json | undefined)?.role !== "string") throw STAND_ASIDE;
          checked = true;
        }
        if (sifter!.within(chunk, start, end) || (escapes.within(chunk, start, end) && escapesNeedle(chunk, escapes.hit, end, pattern.needleUnits))) throw STAND_ASIDE;
        return;
      }
      if (!checked) {
        const first = read(chunk, start, end);
        if (first === undefined && parseLine(chunk.subarray(start, end)).blank) return;
        if (!entryWithId(first)) throw STAND_ASIDE;
        checked = true;
      }
      // (the title's lines: a name, or the first user message, found by their bytes as pi writes them)
      const named = names !== undefined && names.within(chunk, start, end);
      const user = users !== undefined && title.title === undefined && users.within(chunk, start, end);
      // (a line with a `\u` escape is looked at closer: it may spell a character of the needle or run so)
      const candidate = sifter === undefined || sifter.within(chunk, start, end) || (escapes.within(chunk, start, end) && escapesNeedle(chunk, escapes.hit, end, pattern.needleUnits));
      if (!candidate && !named && !user) return;
      if (raw !== undefined && !named && !user && version >= CURRENT_VERSION && scanShape(chunk, SHAPE, start, end) === Verdict.Valid) {
        const verdict = raw.judge(chunk, start, end, SHAPE);
        if (verdict === RawVerdict.Match) {
          found.addUnseen();
          if (found.full) done = true;
          return;
        }
        if (verdict === RawVerdict.NoMatch) return;
      }
      const entry = read(chunk, start, end);
      if (entry === "skipped") {
        if (candidate) skipped.push(line);
        return;
      }
      if (!entry) return;
      if (named || user) title.see(entry);
      if (!candidate) return;
      const hit = search(entry, line, typeof entry.id === "string" ? entry.id : undefined, pattern, filter);
      if (!hit) return;
      found.add(hit);
      if (found.full) done = true;
    });
  } catch (error) {
    if (error === STAND_ASIDE) return undefined;
    throw error;
  }
  if (!checked) return undefined;
  if (elsewhere) return { header: header!, kind: "session", hits: [], count: 0, keys: [], skipped: [], title: undefined };
  return { header: header!, kind: "session", hits: found.hits, count: found.count, keys: found.keys, skipped, title: found.count > 0 ? title.title : undefined };
}

/**
 * Line 1 as the line-by-line read takes it: a session header of version 2 or later (what pi reads
 * line by line, each line as it is but for the v2 role rename); else undefined, and the reference
 * reads the file.
 */
export function lineHeader(bytes: Buffer, v1 = false): SessionHeader | undefined {
  const { value } = parseLine(bytes, true);
  const h = value as SessionHeader | undefined;
  if (!h || typeof h !== "object" || h.type !== "session" || typeof h.id !== "string") return undefined;
  // (a header without a number for its version is v1's: taken only where asked)
  return (typeof h.version === "number" && h.version >= 2) || (v1 && typeof h.version !== "number") ? h : undefined;
}

/** A line's entry (upgraded from `version`), or "skipped" for a line pi skips, or undefined for no entry (blank, a header, JSON that is no object). */
export function lineEntry(bytes: Buffer, version: number): Json | "skipped" | undefined {
  const { value, blank } = parseLine(bytes);
  if (value === undefined) return blank ? undefined : "skipped";
  if (!value || typeof value !== "object" || Array.isArray(value) || (value as Json).type === "session") return undefined;
  return version < 3 ? migrateEntryV2ToV3(value as Json) : (value as Json);
}

/** Whether the first record after the header lets the line-by-line read stand: an entry with an id and a type (else what the file is takes the reference). */
export function entryWithId(first: Json | "skipped" | undefined): first is Json {
  return !!first && first !== "skipped" && typeof first.id === "string" && typeof first.type === "string";
}

/** Whether the session's header names `cwd` (any session, without one). */
function sameCwd(header: SessionHeader | null, cwd: string | undefined): boolean {
  return cwd === undefined || (typeof header?.cwd === "string" && resolve(header.cwd) === cwd);
}

/*
 * The title's lines, by their bytes: the values alone (`"session_info"`, `"user"`), so that JSON
 * written with a space after each colon (Python's json.dumps, an editor's) is found as pi's is; a
 * line they find that is no name or user message costs its parse, and the entry says what it is.
 */
const SESSION_INFO = { needle: Buffer.from('"session_info"'), fold: false } as const;
const ESCAPE_U = { needle: Buffer.from("\\u"), fold: false } as const;
const USER_ROLE = { needle: Buffer.from('"user"'), fold: false } as const;

/** Whether a line pi skips could hold a match (grep says it did not search it): its bytes hold what every match holds, or the pattern has nothing to sift by. */
export function mayHoldMatch(bytes: Buffer, pattern: GrepPattern): boolean {
  return !sifts(pattern) || mayHold(bytes, 0, bytes.length, pattern);
}

/** Whether `bytes[start..end)` holds the needle or run (outside an image's data) or an escape that may spell it. */
function mayHold(bytes: Buffer, start: number, end: number, pattern: GrepPattern): boolean {
  const copy = Buffer.from(bytes.subarray(start, end));
  return sieve(pattern).within(copy, 0, copy.length) || escapesNeedle(copy, 0, copy.length, pattern.needleUnits);
}

/** Whether the pattern has what a line's raw bytes can be sifted by: a needle, or a run of a class. */
function sifts(pattern: GrepPattern): boolean {
  return pattern.needle !== undefined || pattern.run !== undefined;
}

/** The search for what every line that can match holds: the needle, else the run. */
function sieve(pattern: GrepPattern): ChunkSearch {
  return pattern.needle !== undefined ? needleSearch(pattern) : runSearch(pattern.run!);
}

/** Where a run of `run.length` members next starts (`ChunkSearch`, with the image data passed over as for a needle): `findRun`. */
function runSearch(run: ClassRun): ChunkSearch {
  return new ChunkSearch((chunk, from, limit) => findRun(chunk, from, limit, chunk.length, run), () => run.length, imageDataEnd);
}

/** Bytes an image block's data follows, as pi writes it. */
const IMAGE_DATA = Buffer.from('{"type":"image","data":"');

/**
 * Where a needle next lies (`ChunkSearch`): by the scanner's SIMD search where the chunk is its
 * memory, else by `Buffer.indexOf`; a hit inside an image's base64 data is passed over (the search
 * goes on from the data's end) without decoding the line.
 */
function needleSearch(pattern: { needle?: Uint8Array; fold: boolean }): ChunkSearch {
  const needle = pattern.needle!;
  const find = (chunk: Buffer, from: number, limit: number): number => {
    const fast = simdFindNeedle(chunk, from, limit, needle, pattern.fold);
    if (fast !== -2) return fast;
    // (outside the module's memory: Buffer.indexOf, bounded)
    const view = chunk.subarray(from, Math.min(chunk.length, limit + needle.length - 1));
    const k = pattern.fold ? foldedIndexOf(view, needle) : view.indexOf(needle);
    return k >= 0 && k < limit - from ? from + k : -1;
  };
  return new ChunkSearch(find, () => needle.length, imageDataEnd);
}

/** Where `needle` (lower-case letters match either case) first starts in `hay`, or -1. */
function foldedIndexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let k = 0; k < needle.length; k++) {
      const n = needle[k]!;
      const h = hay[i + k]!;
      if (h !== n && !(n >= 0x61 && n <= 0x7a && (h | 0x20) === n)) continue outer;
    }
    return i;
  }
  return -1;
}

const BASE64 = new Uint8Array(256);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") BASE64[c.charCodeAt(0)] = 1;

/**
 * When `at` lies in an image's base64 data (a run of base64 characters right after
 * `{"type":"image","data":"`), the position after the run; else `at`.
 */
function imageDataEnd(chunk: Buffer, lineStart: number, at: number, end: number): number {
  let s = at;
  while (s > lineStart && BASE64[chunk[s - 1]!]) s--;
  if (s - lineStart < IMAGE_DATA.length || chunk[s] === undefined) return at;
  for (let k = 0; k < IMAGE_DATA.length; k++) if (chunk[s - IMAGE_DATA.length + k] !== IMAGE_DATA[k]) return at;
  let e = at;
  while (e < end && BASE64[chunk[e]!]) e++;
  return chunk[e] === 0x22 ? e : at;
}
