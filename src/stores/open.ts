import { readFileSync, statSync } from "node:fs";
import { BufferSource, FileSource, type ByteSource } from "../format/read/source.js";
import { CliError } from "../errors.js";
import { decompressZstd } from "./common/zstd.js";
import { FileFollower, type Follower, type FollowFrom } from "./common/follow.js";
import type { SessionRef, SessionStamp } from "./common/store.js";
import { STORES } from "./registry.js";

/*
 * A session named and opened (docs/stores.md, "Stores"): what a path is is asked here once, of the stores,
 * and every reader opens its bytes here, so that none knows which store kept them.
 */

export type { SessionRef, SessionStamp, Follower };

/** What `path` names: a transcript in a container (as its store says), a `.zst` archive, or a file. */
export function refOf(path: string): SessionRef {
  for (const store of STORES) {
    const ref = store.ref?.(path);
    if (ref) return ref;
  }
  return path.endsWith(".zst") ? { kind: "archive", path } : { kind: "file", path };
}

/**
 * A session's bytes as stored, for a command about to read all of them: as its store keeps them
 * (a transcript's rows in OpenClaw's database), a `.zst` archive's decompressed, or a file's.
 */
export function openSource(path: string): ByteSource {
  const held = lent.get(path);
  if (held) return new BufferSource(path, held);
  for (const store of STORES) {
    const source = store.open?.(path);
    if (source) return source;
  }
  if (!path.endsWith(".zst")) return recognised(new FileSource(path));
  const bytes = readFileSync(path);
  try {
    return new BufferSource(path, decompressZstd(bytes));
  } catch (error) {
    throw new CliError(`${path}: not a readable zstd archive (${(error as Error).message}); the file may be cut short or damaged`);
  }
}

/** Stores that know a plain file by its first bytes. */
const RECOGNISING = STORES.filter((s) => s.recognise);

/** Bytes of a file's start a store is shown to know it by (read into one buffer, over and over: a store keeps no view of it). */
const HEAD = Buffer.allocUnsafe(4096);

/** A plain file, or what a store that knows it by its first bytes reads it as (agent-core's format 4, as pi's lines). */
function recognised(file: FileSource): ByteSource {
  if (RECOGNISING.length === 0 || file.size === 0) return file;
  let head: Buffer | undefined;
  const headOf = () => (head ??= HEAD.subarray(0, file.readInto(HEAD, 0)));
  for (const store of RECOGNISING) {
    const source = store.recognise!(file.name, headOf);
    if (source) {
      file.close();
      return source;
    }
  }
  return file;
}

/** Bytes of a path read already (`withBytes`): `openSource` serves them rather than reading the path again. */
const lent = new Map<string, Buffer>();

/** Runs `read` with `path`'s bytes as `bytes` (read already, to compare with its copies': `runUnit`), not read again. */
export async function withBytes<T>(path: string, bytes: Buffer, read: () => Promise<T>): Promise<T> {
  lent.set(path, bytes);
  try {
    return await read();
  } finally {
    lent.delete(path);
  }
}

/** A session's stamp now (what the caches key it by), or undefined when it has none (it cannot be stat'ed): such a session is described by its read, never cached. */
export function sessionStamp(path: string): SessionStamp | undefined {
  for (const store of STORES) {
    const stamp = store.stamp?.(path);
    if (stamp !== undefined) return stamp ?? undefined;
  }
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A session followed as it is written, from what was read of it (`tail -f`): as its store follows
 * it (a database's new rows), else a file's appended bytes; null where nothing more will be written
 * to it (a `.zst` archive, a transcript in cold storage).
 */
export function followSession(path: string, from: FollowFrom): Follower | null {
  for (const store of STORES) {
    const follower = store.follow?.(path, from);
    if (follower !== undefined) return follower;
  }
  return path.endsWith(".zst") ? null : new FileFollower(path, from);
}
