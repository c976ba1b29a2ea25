import { sep } from "node:path";
import type { CommandContext } from "../../command.js";
import { refOf, sessionStamp, storedVersion, type SessionStamp } from "../../stores/index.js";
import { sureStamp, type Directory, type DirectoryRow } from "../search/directory.js";
import type { SearchIndex } from "../search/index-db.js";
import { readIndexFile, readUpTo, type AppendPoint, type IndexFile } from "../search/read.js";
import { IndexWriter } from "../search/write.js";
import { youngKeptSmall } from "../inputs/memory.js";
import { StoreRead } from "./store-wide.js";

/**
 * `search`'s index brought up to date before each search (docs/commands.md, "search"): a
 * store-wide read whose cache is the index. Each session is stamped (size, mtime, inode and a
 * file's ctime; a database transcript's from its summary); one whose stamp the index holds, and
 * was sure of (not written within two seconds of when it was read: `sureStamp`), is not read. One read line by
 * line before, still the same file, and whose every byte up to where it was read hashes as it did,
 * is read from there on (a file's appended lines, a database transcript's new rows; a file only
 * touched reads nothing more); any other that changed is read whole again; a new one whole; one
 * gone is dropped. The reads run on the worker pool and are written as they come, in one write
 * transaction: a second search that would write waits for it (and then finds nothing left to
 * do), one that only reads never waits.
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
/** Bytes to read up to which an update reads them on this thread (the worker pool is not loaded). */
const INLINE_BYTES = 4 * 1024 * 1024;
/** A session larger than this is read in parts, on this thread. */
const LARGE_SESSION = 64 * 1024 * 1024;
/** Bytes of sessions to read from which the read keeps memory first (`youngKeptSmall`). */
const LARGE_READ = 64 * 1024 * 1024;
/** Entries written in one update from which the full-text index is merged into one piece after (a first build). */
const MERGE_FROM = 20_000;

/**
 * Brings `index` up to date for the sessions at `paths` (absolute). Sessions it holds that are no
 * longer there are dropped: with `within` "all" (the listing was of every store), each it does
 * not list that is gone; else each under the folders named (absolute) that is not listed and is
 * gone; and whenever the update writes, every other it holds that is gone (a folder removed).
 */
export async function updateSearchIndex(index: SearchIndex, paths: readonly string[], ctx: CommandContext, within: "all" | readonly string[]): Promise<IndexUpdate> {
  const began = Date.now();
  const listed = new Set(paths);
  const stamps = paths.map(() => null as SessionStamp | undefined | null);
  const stampAt = (k: number) => (stamps[k] === null ? (stamps[k] = sessionStamp(paths[k]!)) : stamps[k]);
  /** The places in `paths` of the sessions `dir` does not hold as they are now. */
  const stale = (dir: Directory) =>
    paths.flatMap((path, k) => {
      const stamp = stampAt(k);
      const slot = dir.slotOf(path, k);
      return !stamp || slot < 0 || !dir.holds(slot, stamp) ? [k] : [];
    });
  /** The sessions `dir` holds that are no longer there (where the listing was of every store). */
  const under = (p: string) => within === "all" || within.some((folder) => p.startsWith(folder.endsWith(sep) ? folder : folder + sep));
  const gone = (dir: Directory, everywhere = false) => dir.paths.filter((p) => !listed.has(p) && (everywhere || under(p)) && sessionStamp(p) === undefined);
  // (the stores' facts kept between runs, before a session is stamped: a warm search opens no OpenClaw database)
  const reading = new StoreRead(ctx, true);
  // (a first look, at the directory alone and without the write lock: nothing changed, nothing to wait for)
  const first = index.directory();
  if (stale(first).length === 0 && gone(first).length === 0) {
    reading.done();
    return { unreadable: [], read: 0, directory: first };
  }
  await waitToWrite(index, ctx);
  try {
    // (as it is now: another search may have written what was stale while this one waited)
    const dir = index.directory();
    const changes = new Map<string, DirectoryRow | null>();
    // (the whole index's, while it is written: a session of a folder since removed, which no search names)
    for (const path of gone(dir, true)) {
      index.forget(dir.id(dir.slotOf(path)));
      changes.set(path, null);
    }
    const todo = stale(dir).map((k) => {
      const slot = dir.slotOf(paths[k]!, k);
      const id = slot < 0 ? index.sessionAt(paths[k]!) : dir.id(slot);
      return { path: paths[k]!, stamp: stampAt(k), held: id === undefined ? undefined : index.session(id) };
    });
    const jobs = new Map(todo.map((t) => [t.path, t]));
    const from: Record<string, AppendPoint> = {};
    for (const { path, stamp, held } of todo) {
      // (one that may have been appended to, or touched, or that the index was not sure of: read on from where
      // the index stopped if every byte before is as it was, else whole)
      if (!held || !stamp || held.mode !== "lines" || stamp.size < held.readTo || !appendable(path, held.stamp, stamp)) continue;
      const guard = index.guardOf(held.id);
      if (guard) from[path] = { bytes: held.readTo, lines: held.lines, version: held.version, guard, name: held.name, firstUser: held.firstUser };
    }
    const unreadable: IndexUpdate["unreadable"] = [];
    const writer = new IndexWriter(index);
    const write = (file: IndexFile, begun?: number) => {
      const { held, stamp } = jobs.get(file.path)!;
      if (file.kind !== "unreadable" && stamp) {
        const id = writer.add(file, held, stamp, begun);
        changes.set(file.path, { id, stamp, kind: file.kind, skipped: (file.appended ? (held?.skipped ?? 0) : 0) + file.skipped.length, sure: sureStamp(stamp, began) });
        return;
      }
      const id = begun ?? held?.id;
      if (id !== undefined) index.forget(id);
      changes.set(file.path, null);
      unreadable.push({ file: file.path, error: file.error ?? "cannot be read" });
    };
    // (a large read: memory first, BENCHMARKS.md, "search")
    if (todo.reduce((n, t) => n + (t.stamp?.size ?? 0), 0) >= LARGE_READ) youngKeptSmall();
    // (the oldest first, each in its order, so that the order the index reads entries in is about their age)
    const order = todo.map((t) => t.path).sort((a, b) => (jobs.get(a)!.stamp?.mtimeMs ?? 0) - (jobs.get(b)!.stamp?.mtimeMs ?? 0));
    // (a large session is read on this thread, its entries written a part at a time as they are read: never all
    // held; what little there is to read, appended lines, a few sessions, too: no worker would pay for its start)
    const bytes = (p: string) => {
      const { held, stamp } = jobs.get(p)!;
      return (stamp?.size ?? 0) - (from[p] && held ? held.readTo : 0);
    };
    const inline = order.reduce((n, p) => n + bytes(p), 0) <= INLINE_BYTES;
    const large = inline ? order : order.filter((p) => (jobs.get(p)!.stamp?.size ?? 0) > LARGE_SESSION);
    if (!inline) await reading.read("index", large.length === 0 ? order : order.filter((p) => !large.includes(p)), { settings: { from }, each: (_i, file) => write(file) });
    const MB = 1024 * 1024;
    for (const path of large) {
      const { held, stamp } = jobs.get(path)!;
      let begun: number | undefined;
      const file = readIndexFile(path, from[path], (part, appended) => {
        writer.part((begun ??= writer.begin(path, held, appended)), part);
        // (a large session's read, in MB: it may take a while)
        ctx.progress(Math.floor(readUpTo(part) / MB), Math.ceil((stamp?.size ?? 0) / MB), "MB of a large session");
      });
      write(file, begun);
      ctx.progress(1, 1);
    }
    reading.done();
    writer.done();
    const removed = index.pruneVocabulary();
    const directory = dir.changed(changes, paths);
    index.keepDirectory(directory);
    index.commit();
    // (after a first build: the full-text index in one piece, the log folded into the file)
    // (and after a word no entry holds any longer, redacted or of a session gone: its pieces merged, the log folded,
    // so that the word is in no page of the file)
    if (writer.written >= MERGE_FROM || removed.dropped > 0) index.tidy();
    else if (removed.removed) index.checkpoint();
    return { unreadable, read: todo.length, directory };
  } catch (error) {
    index.rollback();
    throw error;
  }
}

/**
 * Whether a session that changed from `was` to `now` may have been appended to (read on from where
 * the index stopped): a file still the same file (its inode), or a database transcript; never a
 * `.zst` archive, nor a session its store keeps in a form that is translated (agent-core's
 * format 4), which is read whole whenever it changes. Its bytes up to there are then hashed and
 * compared (read.ts).
 */
function appendable(path: string, was: SessionStamp, now: SessionStamp): boolean {
  const kind = refOf(path).kind;
  if (kind === "archive" || storedVersion(path) !== undefined) return false;
  return kind === "transcript" || was.ino === now.ino;
}

/** The index's write lock taken, waiting (and saying so on a terminal) while another search writes. */
export async function waitToWrite(index: SearchIndex, ctx: CommandContext): Promise<void> {
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
