import { crypto, zlib } from "../../format/common/builtins.js";
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { appendDurably, cleanLeftovers, createFile, removeFile, TargetExistsError } from "../../format/write/atomic.js";
import { elsewhereOf, MANIFEST, type ElsewhereLine, type ManifestLine } from "../../stores/index.js";

/*
 * Moving a session into its archive folder and back (`archive`, `restore`; docs/commands.md,
 * "archive"), so that no step loses it: the archive is written whole (a temporary file renamed
 * into place), read back and decompressed to the original's bytes (SHA-256), recorded in the
 * manifest, and only then is the original removed. A run killed at any point leaves the session
 * whole in one place or both; the next run finds what is done and finishes the rest. `restore` is
 * the same the other way, and never writes over a file that is there.
 */

export type { ManifestLine };

/** zstd's level: what `zstd` itself uses by default (3). */
const LEVEL = 3;

function compress(bytes: Buffer): Buffer {
  const { zstdCompressSync, constants } = zlib();
  return zstdCompressSync(bytes, { params: { [constants.ZSTD_c_compressionLevel]: LEVEL, [constants.ZSTD_c_checksumFlag]: 1 } });
}

/** What `bytes` come to archived (`archive --dry-run`): compressed as an archive is, kept nowhere. */
export function compressedSize(bytes: Buffer): number {
  return compress(bytes).length;
}

const sha256 = (bytes: Buffer) => crypto().createHash("sha256").update(bytes).digest("hex");

export type Moved = { status: "archived" | "restored" | "finished"; line: ManifestLine } | { status: "skipped"; reason: string };

/** Why a file changed while it was being moved: nothing is removed. */
export class ChangedMeanwhile extends Error {}

/**
 * Archives the session at `path` into `target` (in the archive folder `folder`): written, checked,
 * recorded, then removed. A run before that stopped short is finished (`finished`).
 */
export function archiveFile(path: string, target: string, folder: string, id: string | null, now = new Date()): Moved {
  const before = statSync(path);
  const bytes = readFileSync(path);
  const hash = sha256(bytes);
  mkdirSync(dirname(target), { recursive: true });
  cleanLeftovers(target);
  let status: "archived" | "finished" = "archived";
  if (existsSync(target)) {
    // (a run that stopped after writing it: the same bytes are there already, or it is another's)
    if (!holds(target, hash)) return { status: "skipped", reason: `${target} exists and holds other bytes (another version of the session, archived before); nothing was moved` };
    status = "finished";
  } else {
    const packed = compress(bytes);
    createFile(target, (write) => write(packed));
    // (read back from the disk and decompressed: the original's bytes, compared as they are)
    if (!holdsBytes(target, bytes)) {
      removeFile(target);
      throw new Error(`${target} does not decompress to ${path}'s bytes; nothing was moved`);
    }
  }
  const after = statSync(path);
  if (after.size !== before.size || after.mtimeMs !== before.mtimeMs || after.size !== bytes.length) {
    if (status === "archived") removeFile(target);
    throw new ChangedMeanwhile(`${path} changed while it was archived (is an agent writing it?); it was left where it is`);
  }
  const line: ManifestLine = { action: "archive", path: resolve(path), archive: relative(folder, target), id, size: bytes.length, sha256: hash, compressed: statSync(target).size, mtimeMs: before.mtimeMs, time: now.toISOString() };
  appendDurably(join(folder, MANIFEST), JSON.stringify(line) + "\n");
  removeFile(path);
  return { status, line };
}

/** Puts an archived session back where it was (`line.path`): never over a file there that holds other bytes. */
export function restoreFile(archive: string, line: ManifestLine, folder: string, now = new Date()): Moved {
  // (a path an older version recorded as given, whose place was not found: written nowhere but where it was)
  if (!isAbsolute(line.path)) throw new Error(`${archive}: its manifest records the session's path as ${line.path}, relative to a folder it does not name, and no folder beside the archive holds it; it was left where it is (decompress it with zstd -d where it belongs)`);
  const packed = readFileSync(archive);
  const bytes = unpack(packed, archive);
  const hash = sha256(bytes);
  if (hash !== line.sha256) throw new Error(`${archive} does not decompress to the bytes the manifest records for ${line.path} (SHA-256 differs); it was left where it is`);
  let status: "restored" | "finished" = "restored";
  if (existsSync(line.path)) {
    if (sha256(readFileSync(line.path)) !== hash) return { status: "skipped", reason: `${line.path} exists and holds other bytes (a session written there since the archive); nothing was restored over it` };
    status = "finished";
  } else {
    mkdirSync(dirname(line.path), { recursive: true });
    cleanLeftovers(line.path);
    try {
      createFile(line.path, (write) => write(bytes));
    } catch (error) {
      if (error instanceof TargetExistsError) return { status: "skipped", reason: `${line.path} appeared while it was restored; nothing was restored over it` };
      throw error;
    }
    if (sha256(readFileSync(line.path)) !== hash) throw new Error(`${line.path} does not hold the archive's bytes after it was written; the archive was kept`);
    // (as it was: an old session is old again, to ls, to archive and to its agent)
    if (typeof line.mtimeMs === "number") utimesSync(line.path, new Date(line.mtimeMs), new Date(line.mtimeMs));
  }
  const done: ManifestLine = { ...line, action: "restore", compressed: packed.length, time: now.toISOString() };
  appendDurably(join(folder, MANIFEST), JSON.stringify(done) + "\n");
  removeFile(archive);
  return { status, line: done };
}

/**
 * Records in the archive folder `home` (where sessions would have gone) that they went to `folder`
 * instead (`archive --to`), once: `ls --archived`, `usage`, `restore` and `show` find them there.
 */
export function recordElsewhere(home: string, folder: string, now = new Date()): void {
  if (elsewhereOf(home).includes(folder)) return;
  mkdirSync(home, { recursive: true });
  const line: ElsewhereLine = { action: "elsewhere", folder, time: now.toISOString() };
  appendDurably(join(home, MANIFEST), JSON.stringify(line) + "\n");
}

function holdsBytes(archive: string, bytes: Buffer): boolean {
  try {
    return unpack(readFileSync(archive), archive).equals(bytes);
  } catch {
    return false;
  }
}

function holds(archive: string, hash: string): boolean {
  try {
    return sha256(unpack(readFileSync(archive), archive)) === hash;
  } catch {
    return false;
  }
}

function unpack(packed: Buffer, name: string): Buffer {
  try {
    return zlib().zstdDecompressSync(packed);
  } catch (error) {
    throw new Error(`${name}: not a readable zstd archive (${(error as Error).message})`);
  }
}
