import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { CommandContext } from "../../command.js";
import { CliError } from "../../errors.js";
import { type ArchivedSession, archiveHolds, archivedSessions, isArchiveFolder, emptyDirectoryNote, listSessionFiles, noStoreMessage, resolveInput, type StoreChoice, storeRoots, transcriptFacts, v3Copy } from "../../stores/index.js";
import { CURRENT_VERSION } from "../../format/schema/types.js";
import { StoreRead, type ReadCache } from "../workers/store-wide.js";
import { cachePath, CorruptCacheError, LsCache } from "../ls/cache.js";
import type { SessionRow } from "../ls/rows.js";
import { sanitize } from "../../render/safe.js";

/*
 * The sessions `ls` lists (docs/commands.md, "ls"), filtered and sorted: what `ls` prints and what
 * `archive` moves are one selection, made here (`archive --older-than` moves exactly the sessions
 * `ls --older-than` lists).
 */

export const SORT_KEYS = ["modified", "created", "size", "messages", "name"] as const;
type SortKey = (typeof SORT_KEYS)[number];

export interface LsOptions {
  dir?: string;
  /** With no `dir`: which stores (pi's session directory, OpenClaw's roots). */
  store?: StoreChoice;
  cwd?: string;
  agent?: string;
  kind?: string;
  /** Only sessions last active before this (epoch ms). */
  olderThan?: number;
  /** Only files larger than this many bytes. */
  largerThan?: number;
  sort?: SortKey;
  limit?: number;
  /** Neither read nor write the index cache. */
  noCache?: boolean;
  /** Each directory's archive folder too (`archive`'s). */
  archived?: boolean;
  /** The filters as the command line gave them (`--older-than 3m`): where sessions there are and none matches, that is said. */
  filters?: string[];
}

export interface LsResult {
  /** The directories listed, `; `-joined (one, or the stores found). */
  dir: string;
  sessions: SessionRow[];
  /** How many sessions matched before `--limit`. */
  total: number;
}

/**
 * Times and paths compare by code unit: ISO times sort so, and `localeCompare` (ICU collation) cost
 * a noticeable part of a warm listing (BENCHMARKS.md, "sorting `ls`"). Titles, which people read, sort by locale.
 */
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Newest first. */
const byModified = (a: string | null, b: string | null) => byCodeUnit(b ?? "", a ?? "");

const SORTERS: Record<SortKey, (a: SessionRow, b: SessionRow) => number> = {
  modified: (a, b) => byModified(a.modified, b.modified),
  created: (a, b) => byCodeUnit(b.created ?? "", a.created ?? ""),
  size: (a, b) => b.size - a.size,
  messages: (a, b) => b.messages - a.messages,
  name: (a, b) => (a.title ?? "\uffff").localeCompare(b.title ?? "\uffff"),
};

export async function ls(options: LsOptions, ctx: CommandContext, rebuildCache = false): Promise<LsResult> {
  // (begun first: what the stores keep between runs is kept from the listing on)
  const reading = new StoreRead(ctx, !options.noCache);
  let dirs: string[];
  if (options.dir === "-") throw new CliError("ls lists a folder of sessions; - (standard input) is one session: `pi-session show -` summarises it");
  const one = options.dir !== undefined ? oneSession(options.dir, ctx) : undefined;
  if (one !== undefined) {
    // (a session named, as ls(1) lists a file: its row alone)
    dirs = [];
  } else if (options.dir) {
    const dir = resolve(options.dir);
    if (!existsSync(dir)) throw new CliError(`${dir}: no such directory, nor a session of that id; pass a directory to list, or --session-dir`);
    dirs = [dir];
  } else {
    dirs = storeRoots(ctx.sessionDir, ctx.env, options.store ?? "all");
    if (dirs.length === 0) throw new CliError(noStoreMessage(ctx.sessionDir, options.store ?? "all"));
  }
  const dir = one ?? dirs.join("; ");
  // (--archived: what each directory's archive holds, wherever it went: \`archivedSessions\`)
  const archived = new Map<string, ArchivedSession>();
  // (an archive folder listed as itself: its sessions are archived ones, and said so)
  for (const d of dirs) if (isArchiveFolder(d)) for (const a of archiveHolds(d)) archived.set(a.path, a);
  if (options.archived) {
    for (const d of dirs) {
      const found = archivedSessions(d);
      for (const m of found.missing) ctx.warn(sanitize(`${m.folder}: recorded in ${m.recordedIn} as where sessions were archived to (--to), and not there now (a disk not mounted?); its sessions are not listed`));
      for (const a of found.sessions) archived.set(a.path, a);
    }
  }
  const files = one !== undefined ? [one] : [...new Set([...dirs.flatMap((d) => listSessionFiles(d)), ...archived.keys()])];
  // (a folder with no session: said on stderr, as every command says it, stdout left empty; a root
  // whose transcripts are in SQLite says where they are)
  if (files.length === 0) ctx.warn(sanitize(options.dir ? emptyDirectoryNote(dirs[0]!) : `no sessions in ${dir}`));
  const { listing, cache } = await describeAll(files, ctx, reading, !options.noCache, rebuildCache, archived);
  let result: LsResult;
  try {
    result = select(listing, options, dir);
  } catch (error) {
    // A cached row that does not read back: the whole cache is rebuilt, never trusted.
    if (error instanceof CorruptCacheError) {
      cache?.close();
      return ls(options, ctx, true);
    }
    throw error;
  }
  cache?.save(files);
  reading.done();
  if (files.length > 0 && result.total === 0 && (options.filters?.length ?? 0) > 0) ctx.warn(`no session in ${sanitize(dir)} matches ${options.filters!.join(", ")}`);
  return result;
}

/**
 * The session `arg` names, where it names one rather than a directory: a file, or an id, a
 * prefix or a key that no directory of that name shadows (none found, or several: an error, as
 * for every FILE); undefined for a directory, or a path that is not there.
 */
function oneSession(arg: string, ctx: CommandContext): string | undefined {
  let st;
  try {
    st = statSync(arg);
  } catch {
    // no such path: a session's id, or nothing (said as a missing directory)
  }
  if (st?.isDirectory()) return undefined;
  if (st) return resolve(arg);
  // (a path that is not there: said as a missing directory; an id, a prefix or a key as every FILE is: none, or several)
  if (/[/\\]/.test(arg) || arg.startsWith(".")) return undefined;
  return resolveInput(arg, ctx.sessionDir, ctx.env);
}

/**
 * Sessions, the most recently active first, as `ls` sorts them by default: by their last activity
 * (`sessionTimes`), read through its index cache. What `tail` follows as "the latest".
 */
export async function mostRecentlyActive(files: readonly string[], ctx: CommandContext): Promise<string[]> {
  const reading = new StoreRead(ctx, true);
  const { listing, cache } = await describeAll(files, ctx, reading, true, false);
  cache?.save(files);
  reading.done();
  const { modified } = listing;
  return Array.from(files, (_, i) => i)
    .sort((a, b) => byModified(modified[a]!, modified[b]!) || byCodeUnit(files[a]!, files[b]!))
    .map((i) => files[i]!);
}

/**
 * Every file's last activity (from ls's index cache where it holds the file unchanged, else read),
 * and its row when asked; `useCache`: read and keep the index cache (`rebuild`: start it anew);
 * `archived`: what an archive's manifest says of the files that are archived sessions.
 */
async function describeAll(files: readonly string[], ctx: CommandContext, reading: StoreRead, useCache: boolean, rebuild: boolean, archived?: ReadonlyMap<string, ArchivedSession>): Promise<{ listing: Listing; cache: LsCache | undefined }> {
  const cache = useCache ? new LsCache(cachePath(ctx.env), rebuild) : undefined;
  // Per file: its default sort key, and its row (described now) or its slot in the cache (a row
  // parsed only if shown or needed to filter and sort). Columns, not an object per file: a warm run
  // over thousands of sessions does little else.
  const modified: Array<string | null> = new Array(files.length);
  const slots = new Int32Array(files.length).fill(-1);
  const held: ReadCache<SessionRow> | undefined = cache && {
    holds(path, index, stamp) {
      const slot = cache.find(path, index, stamp.size, stamp.mtimeMs, stamp.ino);
      if (slot < 0) return false;
      slots[index] = slot;
      modified[index] = cache.modified(slot);
      return true;
    },
    keep: (path, stamp, row) => row.status !== "unreadable" && cache.set(path, stamp, row),
  };
  const rows = await reading.read("describe", files, { cache: held });
  rows.forEach((row, index) => {
    if (row) modified[index] = row.modified;
  });
  // (what a file is to its store is read beside the cache: sessions.json changes without the file)
  const facts: Array<SessionRow | undefined> = new Array(files.length);
  const rowOf = (i: number): SessionRow => (facts[i] ??= withStoreFacts((rows[i] ??= cache!.row(slots[i]!, files[i]!)), archived?.get(files[i]!)));
  return { listing: { files, modified, rowOf }, cache };
}

/** The listed sessions: paths, default sort keys, and each one's row when asked. */
interface Listing {
  files: readonly string[];
  modified: ReadonlyArray<string | null>;
  rowOf: (i: number) => SessionRow;
}

/** Filtering, sorting and the limit; only the rows these need are read from the cache. */
function select({ files, modified, rowOf }: Listing, options: LsOptions, dir: string): LsResult {
  const wanted = options.cwd !== undefined ? resolve(options.cwd) : undefined;
  const older = options.olderThan !== undefined ? new Date(options.olderThan).toISOString() : undefined;
  const keep: Array<(r: SessionRow) => boolean> = [];
  if (wanted !== undefined) keep.push((r) => r.cwd !== null && resolve(r.cwd) === wanted);
  if (options.agent !== undefined) keep.push((r) => r.agent === options.agent);
  if (options.kind !== undefined) keep.push((r) => r.kind === options.kind);
  if (older !== undefined) keep.push((r) => r.modified !== null && r.modified < older);
  if (options.largerThan !== undefined) keep.push((r) => r.size > options.largerThan!);
  const all = Array.from(files, (_, i) => i);
  const matching = keep.length === 0 ? all : all.filter((i) => keep.every((k) => k(rowOf(i))));
  const key = options.sort ?? "modified";
  const byRow = SORTERS[key];
  const order = key === "modified" ? (a: number, b: number) => byModified(modified[a]!, modified[b]!) || byCodeUnit(files[a]!, files[b]!) : (a: number, b: number) => byRow(rowOf(a), rowOf(b)) || byCodeUnit(files[a]!, files[b]!);
  const limit = options.limit !== undefined ? Math.max(0, options.limit) : Infinity;
  const shown = limit * 8 < matching.length ? first(matching, limit, order) : matching.sort(order).slice(0, limit);
  return { dir, sessions: shown.map(rowOf), total: matching.length };
}

/**
 * The `k` first of `items` by `order`, in order, without sorting the rest: one comparison for most
 * items (against the k-th so far), where sorting them all showed (BENCHMARKS.md, "sorting `ls`").
 */
function first(items: readonly number[], k: number, order: (a: number, b: number) => number): number[] {
  const top: number[] = [];
  if (k === 0) return top;
  for (const item of items) {
    if (top.length === k && order(item, top[k - 1]!) >= 0) continue;
    let at = top.length;
    while (at > 0 && order(item, top[at - 1]!) < 0) at--;
    top.splice(at, 0, item);
    if (top.length > k) top.pop();
  }
  return top;
}

/** A row with what its file is to its store (`transcriptFacts`, given the title it has read), and where it is archived (`archived`: the archive's record of it). */
function withStoreFacts(row: SessionRow, archived?: ArchivedSession): SessionRow {
  const out: SessionRow = { ...row, ...transcriptFacts(row.path, row.title) };
  // (a session pi cannot open as stored, whose v3 copy beside it is up to date: migrated, as
  // `migrate --check` and `show` say; read as listed, since the copy is a file of its own)
  if (row.status === "needs-migrate" && row.version !== null && row.version > CURRENT_VERSION) {
    const copy = v3Copy(row.path);
    if (copy?.current) Object.assign(out, { status: "migrated", v3Copy: copy.path });
  }
  if (!archived) return out;
  let compressed = archived.line?.compressed;
  try {
    compressed = statSync(archived.path).size;
  } catch {
    // (gone since it was listed: what the manifest recorded)
  }
  out.archived = out.archived ?? "archive";
  out.archive = { folder: archived.folder, from: archived.line?.path ?? null, archivedAt: archived.line?.time ?? null, compressed: compressed ?? 0 };
  return out;
}

