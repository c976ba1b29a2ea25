import type { CommandContext } from "../../command.js";
import { refOf, sessionStamp, storedVersion, type SessionStamp } from "../../stores/index.js";
import type { Directory, SearchIndex } from "../search/index-db.js";
import type { AppendPoint, IndexFile } from "../search/read.js";
import { IndexWriter } from "../search/write.js";
import { youngKeptSmall } from "../inputs/memory.js";
import { StoreRead } from "./store-wide.js";

/**
 * `search`'s index brought up to date before each search (docs/commands.md, "search"): a
 * store-wide read whose cache is the index. Each session is stamped (what `ls` keys its cache by:
 * size, mtime, inode; a database transcript's from its summary); one whose stamp the index holds
 * is not read. One that grew, read line by line before and whose bytes up to where it was read
 * are as they were, is read from there on (a file's appended lines, a database transcript's new
 * rows); any other that changed is read whole again; a new one whole; one gone is dropped. The
 * reads run on the worker pool and are written as they come, in one write transaction: a second
 * search that would write waits for it (and then finds nothing left to do), one that only reads
 * never waits.
 */

/** What the update found of sessions it could not read. */
export interface IndexUpdate {
  /** Sessions that could not be read (not searched), each with why. */
  unreadable: Array<{ file: string; error: string }>;
  /** How many sessions were read (whole or what was appended). */
  read: number;
  /** What the index holds now. */
  directory: Directory;
}

/** How long a wait for another search's writing is polled (the status line says so meanwhile). */
const POLL_MS = 250;
/** How long a search waits at most for another's writing before it says so (exit 2). */
const WAIT_MS = 10 * 60 * 1000;
/** Bytes of sessions to read from which the read keeps memory first (`youngKeptSmall`). */
const LARGE_READ = 64 * 1024 * 1024;
/** Entries written in one update from which the full-text index is merged into one piece after (a first build). */
const MERGE_FROM = 20_000;

const sameStamp = (a: SessionStamp, b: SessionStamp) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

/**
 * Brings `index` up to date for the sessions at `paths` (absolute); with `prune`, sessions it holds
 * that are no longer there are dropped (the listing was of every store: a session it does not list
 * is gone, or elsewhere).
 */
export async function updateSearchIndex(index: SearchIndex, paths: readonly string[], ctx: CommandContext, prune: boolean): Promise<IndexUpdate> {
  const listed = new Set(paths);
  const stamps = new Map<string, SessionStamp | undefined>();
  const stampOf = (path: string) => {
    if (!stamps.has(path)) stamps.set(path, sessionStamp(path));
    return stamps.get(path);
  };
  // (a first look, at the directory alone and without the write lock: nothing changed, nothing to wait for)
  const first = index.directory();
  const changed = paths.some((path, k) => {
    const stamp = sessionStamp(path);
    const slot = first.slotOf(path, k);
    return !stamp || slot < 0 || !first.holds(slot, stamp);
  });
  if (!changed && !(prune && first.paths.some((p) => !listed.has(p) && sessionStamp(p) === undefined))) return { unreadable: [], read: 0, directory: first };
  await waitToWrite(index, ctx);
  try {
    // (as it is now: another search may have written what was stale while this one waited)
    const known = index.sessions();
    stamps.clear();
    const todo = paths.filter((path) => {
      const stamp = stampOf(path);
      const held = known.get(path);
      return !stamp || !held || !sameStamp(stamp, held.stamp);
    });
    if (prune) for (const s of known.values()) if (!listed.has(s.path) && sessionStamp(s.path) === undefined) index.forget(s.id);
    const from: Record<string, AppendPoint> = {};
    for (const path of todo) {
      const held = known.get(path);
      const stamp = stamps.get(path);
      // (an append makes a session larger: one that changed and is not is read whole)
      if (!held || !stamp || held.mode !== "lines" || stamp.size <= held.stamp.size || stamp.size < held.readTo || !appendable(path, held.stamp, stamp)) continue;
      const guard = index.guardOf(held.id);
      if (guard) from[path] = { bytes: held.readTo, lines: held.lines, version: held.version, guard, name: held.name, firstUser: held.firstUser };
    }
    const unreadable: IndexUpdate["unreadable"] = [];
    const writer = new IndexWriter(index);
    const write = (file: IndexFile) => {
      const held = known.get(file.path);
      if (file.kind !== "unreadable") return writer.add(file, held, stamps.get(file.path)!);
      if (held) index.forget(held.id);
      unreadable.push({ file: file.path, error: file.error ?? "cannot be read" });
    };
    // (a large read: memory first, BENCHMARKS.md, "search")
    if (todo.reduce((n, p) => n + (stamps.get(p)?.size ?? 0), 0) >= LARGE_READ) youngKeptSmall();
    // (the oldest first, each in its order, so that the order the index reads entries in is about their age)
    todo.sort((a, b) => (stamps.get(a)?.mtimeMs ?? 0) - (stamps.get(b)?.mtimeMs ?? 0));
    const reading = new StoreRead(ctx, true);
    await reading.read("index", todo, { settings: { from }, each: (_i, file) => write(file) });
    reading.done();
    writer.done();
    index.writeDirectory(paths);
    index.commit();
    index.tidy(writer.written >= MERGE_FROM);
    return { unreadable, read: todo.length, directory: index.directory() };
  } catch (error) {
    index.rollback();
    throw error;
  }
}

/**
 * Whether a session that changed from `was` to `now` may have been appended to (read on from where
 * the index stopped): a file still the same file (its inode), or a database transcript; never a
 * `.zst` archive, nor a session its store keeps in a form that is translated (agent-core's
 * format 4), which is read whole whenever it changes. Its bytes up to there are then compared.
 */
function appendable(path: string, was: SessionStamp, now: SessionStamp): boolean {
  const kind = refOf(path).kind;
  if (kind === "archive" || storedVersion(path) !== undefined) return false;
  return kind === "transcript" || was.ino === now.ino;
}

/** The index's write lock taken, waiting (and saying so on a terminal) while another search writes. */
async function waitToWrite(index: SearchIndex, ctx: CommandContext): Promise<void> {
  const start = Date.now();
  let said = false;
  while (!index.tryBegin()) {
    if (Date.now() - start > WAIT_MS) throw new Error(`another search has been writing the index ${index.file} for ${Math.round(WAIT_MS / 60_000)} minutes`);
    if (!said) ctx.status("waiting for another search to finish writing the index…");
    said = true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  if (said) ctx.status(undefined);
}
