import { idHash } from "../../format/common/hash.js";
import type { ByteSource } from "../../format/read/source.js";
import { admits, type EntryFilter } from "../../format/grep/filter.js";
import { hitKey, mayHoldMatch, type GrepHit } from "../../format/grep/read.js";
import type { TextMatch } from "../../format/grep/pattern.js";
import { parseLine } from "../../format/read/salvage.js";
import { migrateEntryV2ToV3 } from "../../format/schema/migrations.js";
import { matchEntry } from "../../format/search/match.js";
import type { SearchQuery } from "../../format/search/query.js";
import { score, worthOf } from "../../format/search/score.js";
import { GIANT_TERM, type Lookup } from "../../format/search/terms.js";
import { Session } from "../../format/session/session.js";
import { refOf, sessionGroup, storedLines } from "../../stores/index.js";
import { openSource } from "../inputs/input.js";
import { quoted, type CandidateRow, type IndexedSession, type SearchIndex } from "./index-db.js";

/**
 * A search run over the index (docs/commands.md, "search"): what the query asks of the index (its
 * lookups as one FTS5 expression of quoted terms, never the user's text), the candidates it gives
 * best first, each read again from its session and matched as `grep` matches it
 * (format/search/match.ts), filtered as `grep` filters, each match once where a copy of a
 * transcript repeats it (as `grep` reports it once), and, with a limit, read only until no
 * candidate left could rank among the best.
 */

/** A session searched: where it is, and what the index holds of it (its row read when first asked for). */
export class ScopeSession {
  private row: IndexedSession | undefined;

  constructor(
    /** Its index row. */
    readonly id: number,
    /** As the listing gives it (what output names), and absolute (what it is opened by). */
    readonly path: string,
    readonly abs: string,
    /** Whether it has lines pi skips. */
    readonly skips: boolean,
    private readonly index: SearchIndex,
  ) {}

  /** What the index holds of it (none: the index is damaged, and made again: `heldSession`). */
  get held(): IndexedSession {
    return (this.row ??= this.index.heldSession(this.id));
  }

  get headerId(): string | null {
    return this.held.headerId;
  }
  get cwd(): string | null {
    return this.held.cwd;
  }
  get created(): string | null {
    return this.held.created;
  }
  get title(): string | null {
    return this.held.name ?? this.held.firstUser;
  }
  get mode(): "lines" | "whole" {
    return this.held.mode;
  }
  get version(): number {
    return this.held.version;
  }
}

/** What narrows the matches (as `grep`'s filters: support/inputs/filters.ts). */
export interface SearchFilter {
  entry: EntryFilter;
  /** Only entries on each session's current branch. */
  currentBranch?: boolean;
  /** What the index can narrow the candidates by first: the roles, and times (ms) a little wider than the days asked for. */
  roles?: readonly string[];
  from?: number;
  to?: number;
}

export interface SearchHit extends GrepHit {
  session: ScopeSession;
  /** The entry's line in what was read (a translated session's line, not its file's: `line` is that). */
  sourceLine: number;
  score: number;
  /** Its time (ms), null for none. */
  time: number | null;
  row: number;
}

export interface SearchFound {
  /** Best first. */
  hits: SearchHit[];
  /** Whether every match was found (else only the best, as many as asked: there may be more). */
  complete: boolean;
  /** Lines pi skips that could hold a match, by session. */
  skipped: Array<{ session: ScopeSession; lines: number[] }>;
}

/** Terms a part of a word may stand for at most; more, and it narrows nothing (any entry may hold it). */
const MOST_TERMS = 256;

/**
 * The matches of `query` in the sessions of `scope`, best first: at most `limit` (and whether
 * there may be more), or all of them.
 */
export function findHits(index: SearchIndex, query: SearchQuery, scope: readonly ScopeSession[], filter: SearchFilter, limit: number | undefined): SearchFound {
  const bySession = new Map(scope.map((s) => [s.id, s]));
  const reader = new EntryReader(query, filter);
  try {
    const skipped = skippedLines(index, query, scope, reader);
    const match = matchOf(index, query);
    if (match === null) return { hits: [], complete: true, skipped };
    const twins = new Twins(index, scope, reader);
    const best: SearchHit[] = [];
    let complete = true;
    for (const row of index.candidates(match, { roles: filter.roles, from: filter.from, to: filter.to })) {
      const session = bySession.get(row.session);
      if (!session) continue;
      if (limit !== undefined && best.length >= limit) {
        // (no candidate left can rank among the best: its worth is below the last one's score, or at it but read before it)
        const last = best[limit - 1]!;
        const bound = score(worthOf(row.row), 1);
        if (bound < last.score || (bound === last.score && row.row < last.row)) {
          complete = false;
          break;
        }
      }
      const hit = reader.hit(row, session);
      if (!hit || twins.repeats(hit)) continue;
      insert(best, hit, limit);
    }
    return { hits: limit === undefined ? best : best.slice(0, limit), complete: complete && (limit === undefined || best.length <= limit), skipped };
  } finally {
    reader.close();
  }
}

/** Best first: the score, then the newest (the row: the index reads the newest last). */
function before(a: SearchHit, b: SearchHit): number {
  return b.score - a.score || b.row - a.row;
}

/** `hit` put in its place among `best`, which keeps at most `limit` (when given) and one more (what says there are more). */
function insert(best: SearchHit[], hit: SearchHit, limit: number | undefined): void {
  let at = best.length;
  while (at > 0 && before(hit, best[at - 1]!) < 0) at--;
  if (limit !== undefined && at > limit) return;
  best.splice(at, 0, hit);
  if (limit !== undefined && best.length > limit + 1) best.length = limit + 1;
}

/** What the query asks of the index as an FTS5 expression; undefined: nothing (every entry a candidate); null: no entry can match. */
function matchOf(index: SearchIndex, query: SearchQuery): string | undefined | null {
  const groups = new Set<string>();
  for (const item of query.items) {
    for (const lookup of item.lookups) {
      const group = groupOf(index, lookup);
      if (group === null) return null;
      if (group !== undefined) groups.add(group);
    }
  }
  return groups.size === 0 ? undefined : [...groups].join(" AND ");
}

/** One lookup as an FTS5 expression; undefined: it narrows nothing; null: no term can be it. */
function groupOf(index: SearchIndex, { kind, term, unspaced }: Lookup): string | undefined | null {
  const length = [...term].length;
  switch (kind) {
    case "exact":
      return quoted(term);
    case "prefix":
      // (a word's first letter starts too many terms to narrow by; a character of a script without spaces does not)
      return unspaced || length >= 2 ? `${quoted(term)} *` : undefined;
    case "suffix":
    case "substring": {
      if (length < 3) return undefined;
      const terms = index.termsHolding(term, MOST_TERMS)?.filter((t) => kind === "substring" || t.endsWith(term));
      if (terms === undefined) return undefined;
      // (a word longer than the index keeps whole may hold it past its pieces)
      if (kind === "substring") terms.push(GIANT_TERM);
      if (terms.length === 0) return null;
      return terms.length === 1 ? quoted(terms[0]!) : `(${terms.map(quoted).join(" OR ")})`;
    }
  }
}

/**
 * Entries read again from their sessions and matched: each session's source opened once a run,
 * and for `--branch current` its current branch read once.
 */
class EntryReader {
  private readonly sources = new Map<number, ByteSource | null>();
  private readonly branches = new Map<number, Set<number> | null>();
  private readonly lineMaps = new Map<number, ((line: number) => number) | undefined>();

  constructor(
    private readonly query: SearchQuery,
    private readonly filter: SearchFilter,
  ) {}

  /** The bytes of a line of a session, or undefined (its session can no longer be read, or the line is not there). */
  bytes(session: ScopeSession, offset: number, length: number): Buffer | undefined {
    let source = this.sources.get(session.id);
    if (source === undefined) {
      try {
        source = openSource(session.abs);
      } catch {
        source = null;
      }
      this.sources.set(session.id, source);
    }
    if (!source) return undefined;
    const bytes = source.read(offset, length);
    return bytes.length === length ? bytes : undefined;
  }

  /** The candidate as a match, if it is one. */
  hit(row: CandidateRow, session: ScopeSession): SearchHit | undefined {
    const bytes = this.bytes(session, row.offset, row.length);
    if (!bytes) return undefined;
    const { value } = parseLine(bytes, row.line === 1);
    if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
    const entry = session.version < 3 ? migrateEntryV2ToV3(value as Record<string, unknown>) : (value as Record<string, unknown>);
    if (this.filter.currentBranch && !this.onBranch(session, row.line)) return undefined;
    const admitted = admits(entry, this.filter.entry);
    if (!admitted) return undefined;
    const m = matchEntry(entry, this.query, this.filter.entry.tool);
    if (!m) return undefined;
    const id = session.mode === "whole" ? (row.id ?? undefined) : typeof entry.id === "string" ? entry.id : undefined;
    return { ...(m.match as TextMatch), line: this.lineOf(session, row.line), sourceLine: row.line, id, type: typeof entry.type === "string" ? entry.type : "(none)", role: admitted.role, timestamp: admitted.timestamp, session, score: score(worthOf(row.row), m.quality), time: row.time, row: row.row };
  }

  /** The line a match names: its file's (a session read as pi's lines from another form names its file's lines). */
  private lineOf(session: ScopeSession, line: number): number {
    if (!this.lineMaps.has(session.id)) this.lineMaps.set(session.id, storedLines(session.abs));
    const map = this.lineMaps.get(session.id);
    return map ? map(line) : line;
  }

  /** Whether a line holds an entry on its session's current branch (a session without a leaf: every entry, as grep's reference reads it). */
  private onBranch(session: ScopeSession, line: number): boolean {
    let lines = this.branches.get(session.id);
    if (lines === undefined) {
      lines = null;
      try {
        const s = Session.open(openSource(session.abs));
        try {
          if (s.leafNode >= 0) lines = new Set(s.tree.pathTo(s.leafNode).map((node) => s.nodeLine(node)));
        } finally {
          s.close();
        }
      } catch {
        lines = new Set();
      }
      this.branches.set(session.id, lines);
    }
    return lines === null || lines.has(line);
  }

  close(): void {
    for (const s of this.sources.values()) s?.close();
    this.sources.clear();
  }
}

/**
 * Each match once, as `grep` reports it (its `withoutRepeats`): in OpenClaw's SQLite era a
 * transcript's entries are in its database and again in the importer's copy (or a live JSONL
 * beside it); a copy's match that the database transcript, searched too, gives alike (grep's
 * `hitKey`: the entry, what matched and where) is not reported again.
 */
class Twins {
  /** The database transcript searched of each session group that has one. */
  private readonly transcripts = new Map<string, ScopeSession>();
  private readonly groups = new Map<number, string | undefined>();

  private found = false;

  constructor(
    private readonly index: SearchIndex,
    private readonly scope: readonly ScopeSession[],
    private readonly reader: EntryReader,
  ) {}

  /** Whether `hit`, in a copy, is a match its database transcript gives too. */
  repeats(hit: SearchHit): boolean {
    if (!this.groups.has(hit.session.id)) this.groups.set(hit.session.id, sessionGroup(hit.session.abs));
    const group = this.groups.get(hit.session.id);
    // (a session no other holds, as all of pi's: nothing to repeat)
    if (group === undefined || refOf(hit.session.abs).kind === "transcript") return false;
    // (the transcripts searched, found when a match is first in a session that may be a copy)
    if (!this.found) {
      this.found = true;
      for (const s of this.scope) {
        if (refOf(s.abs).kind !== "transcript") continue;
        const group = sessionGroup(s.abs);
        if (group !== undefined) this.transcripts.set(group, s);
      }
    }
    const transcript = this.transcripts.get(group);
    if (!transcript) return false;
    const key = hitKey({ ...hit, line: hit.sourceLine });
    for (const row of this.index.withKey(transcript.id, idHash(hit.id ?? `#${hit.sourceLine}`))) {
      const other = this.reader.hit(row, transcript);
      if (other && hitKey({ ...other, line: other.sourceLine }) === key) return true;
    }
    return false;
  }
}

/** Lines pi skips in the sessions searched that could hold a match of every item (what `grep` says it did not search). */
function skippedLines(index: SearchIndex, query: SearchQuery, scope: readonly ScopeSession[], reader: EntryReader): SearchFound["skipped"] {
  const out: SearchFound["skipped"] = [];
  for (const session of scope) {
    if (!session.skips) continue;
    const lines = index.skippedOf(session.id).filter((s) => {
      const bytes = reader.bytes(session, s.offset, s.length);
      return bytes !== undefined && query.items.every((item) => mayHoldMatch(bytes, item.pattern));
    });
    if (lines.length > 0) out.push({ session, lines: lines.map((s) => s.line) });
  }
  return out;
}
