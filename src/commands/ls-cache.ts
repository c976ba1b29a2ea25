import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { SessionRow } from "./ls-describe.js";

/**
 * `ls`'s index cache: one file under `$XDG_CACHE_HOME/pi-session/` (else `~/.cache/pi-session/`),
 * a row per session keyed by path and checked against the file's size, mtime and inode. A row
 * whose file changed is recomputed; a cache that does not parse or has another shape is ignored
 * and rebuilt, never trusted.
 *
 * The file is one line of JSON, the index (columns of paths, stamps and last activity, and where
 * each row lies), then one line of JSON per row. A warm `ls` parses the index and only the rows it
 * shows: with thousands of sessions, parsing every row was most of a warm run. (`--cwd` and the
 * other sort keys read every row.)
 */
const CACHE_VERSION = 2;

export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

interface Index {
  version: number;
  paths: string[];
  size: number[];
  mtimeMs: number[];
  ino: number[];
  /** Each row's `modified` (the default sort key). */
  modified: Array<string | null>;
  /** Each row's byte offset and length in the rows part (after the index line). */
  start: number[];
  length: number[];
}

/** A row found in the cache: its sort key now, the rest when asked. */
export interface CacheHit {
  modified: string | null;
  /** The row; throws `CorruptCacheError` when it does not parse as the row of this path. */
  row(): SessionRow;
}

export class CorruptCacheError extends Error {}

export function cachePath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "pi-session", "ls-index.json");
}

const isArray = (v: unknown, n: number, item: (x: unknown) => boolean): boolean => Array.isArray(v) && v.length === n && v.every(item);
const isNumber = (x: unknown) => typeof x === "number";

export class LsCache {
  private index: Index | undefined;
  private rowsPart = Buffer.alloc(0);
  private readonly slots = new Map<string, number>();
  private readonly fresh = new Map<string, { stamp: FileStamp; row: SessionRow }>();
  private dirty = false;

  /** `rebuild`: start empty whatever is on disk (after a row turned out corrupt). */
  constructor(
    private readonly file: string,
    rebuild = false,
  ) {
    if (rebuild) {
      this.dirty = true;
      return;
    }
    try {
      const bytes = readFileSync(file);
      const nl = bytes.indexOf(10);
      if (nl < 0) throw new CorruptCacheError();
      const index = JSON.parse(bytes.toString("utf8", 0, nl)) as Index;
      const rowsPart = bytes.subarray(nl + 1);
      const n = Array.isArray(index?.paths) ? index.paths.length : -1;
      const valid =
        index.version === CACHE_VERSION &&
        isArray(index.paths, n, (p) => typeof p === "string") &&
        isArray(index.size, n, isNumber) &&
        isArray(index.mtimeMs, n, isNumber) &&
        isArray(index.ino, n, isNumber) &&
        isArray(index.modified, n, (m) => m === null || typeof m === "string") &&
        isArray(index.start, n, isNumber) &&
        isArray(index.length, n, isNumber) &&
        index.start.every((s, i) => s >= 0 && s + index.length[i]! <= rowsPart.length);
      if (!valid) throw new CorruptCacheError();
      this.index = index;
      this.rowsPart = rowsPart;
      index.paths.forEach((p, i) => this.slots.set(p, i));
    } catch {
      // missing, corrupt or older: start empty, rebuilt on save
      this.dirty = true;
    }
  }

  get(path: string, stamp: FileStamp): CacheHit | undefined {
    const i = this.slots.get(path);
    const x = this.index;
    if (i === undefined || !x || x.size[i] !== stamp.size || x.mtimeMs[i] !== stamp.mtimeMs || x.ino[i] !== stamp.ino) return undefined;
    let row: SessionRow | undefined;
    return {
      modified: x.modified[i]!,
      row: () => (row ??= this.parseRow(i, path)),
    };
  }

  private parseRow(i: number, path: string): SessionRow {
    const x = this.index!;
    let row: SessionRow;
    try {
      row = JSON.parse(this.rowsPart.toString("utf8", x.start[i]!, x.start[i]! + x.length[i]!)) as SessionRow;
    } catch {
      throw new CorruptCacheError();
    }
    if (!row || typeof row !== "object" || row.path !== path || row.modified !== x.modified[i]) throw new CorruptCacheError();
    return row;
  }

  set(path: string, stamp: FileStamp, row: SessionRow): void {
    this.fresh.set(path, { stamp, row });
    this.dirty = true;
  }

  /** Writes the cache atomically (temp file + rename); a cache that cannot be written is skipped. */
  save(): void {
    if (!this.dirty) return;
    const index: Index = { version: CACHE_VERSION, paths: [], size: [], mtimeMs: [], ino: [], modified: [], start: [], length: [] };
    const rows: Buffer[] = [];
    let offset = 0;
    const add = (path: string, stamp: FileStamp, modified: string | null, bytes: Buffer) => {
      index.paths.push(path);
      index.size.push(stamp.size);
      index.mtimeMs.push(stamp.mtimeMs);
      index.ino.push(stamp.ino);
      index.modified.push(modified);
      index.start.push(offset);
      index.length.push(bytes.length);
      rows.push(bytes, NEWLINE);
      offset += bytes.length + 1;
    };
    // Rows kept from the file are copied as they are, without parsing them.
    const x = this.index;
    if (x) {
      x.paths.forEach((path, i) => {
        if (this.fresh.has(path)) return;
        add(path, { size: x.size[i]!, mtimeMs: x.mtimeMs[i]!, ino: x.ino[i]! }, x.modified[i]!, this.rowsPart.subarray(x.start[i]!, x.start[i]! + x.length[i]!));
      });
    }
    for (const [path, { stamp, row }] of this.fresh) add(path, stamp, row.modified, Buffer.from(JSON.stringify(row)));
    try {
      mkdirSync(join(this.file, ".."), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat([Buffer.from(JSON.stringify(index)), NEWLINE, ...rows]));
      renameSync(tmp, this.file);
    } catch {
      // a read-only home: listing still works, just not faster next time
    }
  }
}

const NEWLINE = Buffer.from("\n");
