import { crypto } from "../common/builtins.js";
import { closeSync, constants, copyFileSync, existsSync, fsyncSync, linkSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { BATCH_SIZE, ChunkBatch } from "./batch.js";
import { isAlive } from "../common/guards.js";

/**
 * Writing session files safely, for every command that writes (docs/commands.md, "Writing safely"): a temporary file in the
 * target's directory, fsync, rename over the target, fsync of the directory, so that a crash at
 * any instant leaves the old file or the new one, never a mix. The original is kept first as a
 * backup, and the target is re-checked just before the rename: if someone else (pi, appending)
 * wrote to it meanwhile, nothing changes.
 */

export class ConcurrentWriteError extends Error {
  constructor(readonly path: string) {
    super(`${path} changed while it was being rewritten (is pi running on it?); nothing was changed`);
  }
}

export class TargetExistsError extends Error {
  constructor(readonly path: string) {
    super(`${path} already exists`);
  }
}

export interface FileStamp {
  size: number;
  mtimeMs: number;
}

export function stampOf(path: string): FileStamp {
  const st = statSync(path);
  return { size: st.size, mtimeMs: st.mtimeMs };
}

const TEMP_MARK = ".pi-session-";
const TEMP_SUFFIX = ".tmp";

/** The temporary file beside `target`: hidden, named after it and this process. */
function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}${TEMP_MARK}${process.pid}-${crypto().randomBytes(4).toString("hex")}${TEMP_SUFFIX}`);
}

/**
 * Removes temporary files a killed run left beside `target` (any process's that is no longer
 * alive). Returns their paths.
 */
export function cleanLeftovers(target: string): string[] {
  const dir = dirname(target);
  const prefix = `.${basename(target)}${TEMP_MARK}`;
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) continue;
    const pid = Number(name.slice(prefix.length).split("-")[0]);
    if (pid === process.pid || isAlive(pid)) continue;
    try {
      unlinkSync(join(dir, name));
      removed.push(join(dir, name));
    } catch {
      // gone already
    }
  }
  return removed;
}

/** `<file>.bak`, else `.bak.1`, `.bak.2`, … (never ending in `.jsonl`, so pi does not list it). */
function backupPathFor(target: string, backupDir?: string): string {
  const base = join(backupDir ?? dirname(target), basename(target));
  if (!existsSync(`${base}.bak`)) return `${base}.bak`;
  for (let i = 1; ; i++) if (!existsSync(`${base}.bak.${i}`)) return `${base}.bak.${i}`;
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some file systems cannot fsync a directory; the rename is still atomic
  }
}

/** Something that writes a file's content through `write`, which takes each chunk before it returns (a chunk may be reused after). */
export type Producer = (write: (chunk: string | Uint8Array) => void) => void;

/** Writes `produce`'s output to a new temporary file beside `target`, fsynced; returns its path. */
function writeTemp(target: string, produce: Producer): string {
  const temp = tempPathFor(target);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  let written = false;
  try {
    const writeAll = (buf: Uint8Array) => {
      let done = 0;
      while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done);
    };
    // One write a batch, not one a line (or a piece of Markdown).
    const batch = new ChunkBatch();
    produce((chunk) => {
      if (chunk.length >= BATCH_SIZE) {
        if (!batch.empty) writeAll(batch.take());
        writeAll(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
      } else if (batch.add(chunk)) writeAll(batch.take());
    });
    if (!batch.empty) writeAll(batch.take());
    fsyncSync(fd);
    written = true;
  } finally {
    closeSync(fd);
    if (!written) unlinkSync(temp);
  }
  return temp;
}

/**
 * Reads the new content, written and synced but not yet in place (its temporary file's path), and
 * throws `RejectedOutputError` to abandon the write: nothing is replaced or created, the temporary
 * file is removed (`redact` reads its output for a secret left so).
 */
export type OutputCheck = (temp: string) => void;

/** What an `OutputCheck` throws: the new content is not to be put in place, and why. */
export class RejectedOutputError extends Error {}

export interface ReplaceOptions {
  /** The target's size and mtime when it was read; the write is abandoned if they changed. */
  expect: FileStamp;
  /** Where the backup goes (default: beside the target). */
  backupDir?: string;
  /** false: no backup is kept (`redact --in-place`: the original holds what must not be kept). */
  backup?: boolean;
  /** Reads the new content before it replaces the target. */
  check?: OutputCheck;
  /** Test hook: called after the new content is written, before the re-check. */
  beforeCommit?: () => void;
}

/**
 * Replaces `target` with `produce`'s output, keeping the original byte-for-byte as a backup
 * (unless `backup` is false). Returns the backup's path.
 */
export function replaceFile(target: string, produce: Producer, options: ReplaceOptions): string | undefined {
  const temp = writeTemp(target, produce);
  let backup: string | undefined;
  try {
    options.check?.(temp);
    options.beforeCommit?.();
    if (options.backup !== false) {
      backup = backupPathFor(target, options.backupDir);
      copyFileSync(target, backup, constants.COPYFILE_EXCL);
      const fd = openSync(backup, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    const now = stampOf(target);
    if (now.size !== options.expect.size || now.mtimeMs !== options.expect.mtimeMs) throw new ConcurrentWriteError(target);
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // renamed or gone
    }
    if (backup && error instanceof ConcurrentWriteError) {
      try {
        unlinkSync(backup);
      } catch {
        // not made
      }
    }
    throw error;
  }
  fsyncDir(dirname(target));
  if (options.backupDir) fsyncDir(options.backupDir);
  return backup;
}

/** Writes a new file atomically; refuses to replace an existing one unless `force`; `check` reads it before it is put in place. */
export function createFile(target: string, produce: Producer, options: { force?: boolean; check?: OutputCheck } = {}): void {
  if (!options.force && existsSync(target)) throw new TargetExistsError(target);
  const temp = writeTemp(target, produce);
  try {
    options.check?.(temp);
    if (options.force) renameSync(temp, target);
    else {
      // A hard link fails if the target appeared meanwhile: no window for overwriting it.
      try {
        linkSync(temp, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new TargetExistsError(target);
        throw error;
      }
      unlinkSync(temp);
    }
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // renamed or gone
    }
    throw error;
  }
  fsyncDir(dirname(target));
}

/** Removes `path` for good: unlinked, and its directory synced, so that a crash after cannot bring it back. */
export function removeFile(path: string): void {
  unlinkSync(path);
  fsyncDir(dirname(path));
}

/** Appends `text` to `path` (made if missing) and syncs it: a line of a log that a crash after must not lose. */
export function appendDurably(path: string, text: string): void {
  const fd = openSync(path, "a");
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
