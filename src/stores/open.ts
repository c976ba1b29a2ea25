import { readFileSync, statSync } from "node:fs";
import { BufferSource, FileSource, type ByteSource } from "../format/read/source.js";
import { CliError } from "../errors.js";
import { decompressZstd } from "./common/zstd.js";
import { isDatabaseFile } from "./common/openclaw-layout.js";
import { DatabaseError } from "./openclaw-sqlite/connection.js";
import { transcriptRef } from "./openclaw-sqlite/ref.js";
import { agentDatabase, databaseTranscripts, openDatabaseTranscript, transcriptStamp } from "./openclaw-sqlite/transcripts.js";

/**
 * A session as its store keeps it, named once where it is found (README, "Stores"): a file (pi's,
 * or OpenClaw's JSONL), a zstd-compressed archive (`.zst`), or a transcript in a container that
 * holds several (OpenClaw's database: `<database>#<session id>`). Every reader asks what a path is
 * here, and nothing after takes its name apart.
 */
export type SessionRef = { kind: "file"; path: string } | { kind: "archive"; path: string } | { kind: "transcript"; path: string; container: string; id: string };

/** What `path` names (parsed once a path: the stores memoise it). */
export function refOf(path: string): SessionRef {
  const t = transcriptRef(path);
  if (t) return { kind: "transcript", path, container: t.database, id: t.name };
  return path.endsWith(".zst") ? { kind: "archive", path } : { kind: "file", path };
}

/**
 * A session's bytes as stored, for a command about to read all of them (`sizeHint`): a file's, a
 * `.zst` archive's decompressed (OpenClaw's), or a transcript's rows in OpenClaw's database
 * (`<database>#<session id>`). Every reader goes through here, so that none knows which it was.
 */
export function openSource(path: string): ByteSource {
  const ref = transcriptRef(path);
  const held = lent.get(path);
  let source: ByteSource;
  if (held) source = new BufferSource(path, held);
  else if (ref) {
    try {
      source = openDatabaseTranscript(ref, path);
    } catch (error) {
      throw new CliError(error instanceof DatabaseError ? error.message : `${path}: ${(error as Error).message}`);
    }
  } else if (isDatabaseFile(path)) {
    let count: number;
    try {
      count = databaseTranscripts(path, false).filter((p) => p !== path).length;
      agentDatabase(path);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    throw new CliError(`${path}: OpenClaw's database of an agent's transcripts (${count} live), not one transcript; name one as ${path}#<session id>, by its id or key, or give the store's folder`);
  } else if (path.endsWith(".zst")) {
    const bytes = readFileSync(path);
    try {
      source = new BufferSource(path, decompressZstd(bytes));
    } catch (error) {
      throw new CliError(`${path}: not a readable zstd archive (${(error as Error).message}); the file may be cut short or damaged`);
    }
  } else source = new FileSource(path);
  return source;
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

/** What the caches (`ls`, `usage`, `grep`) key a file by: a file whose stamp is unchanged is read from the cache. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

/** A session's stamp now (what the caches key it by), or undefined when it cannot be stat'ed: such a session is described by its read, never cached. */
export function fileStamp(path: string): FileStamp | undefined {
  const ref = transcriptRef(path);
  if (ref) return transcriptStamp(ref);
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino } : undefined;
  } catch {
    return undefined;
  }
}
