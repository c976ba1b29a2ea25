import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { SessionRow } from "./ls.js";

/**
 * `ls`'s index cache: one JSON file under `$XDG_CACHE_HOME/pi-session/` (else
 * `~/.cache/pi-session/`), a row per session keyed by path and checked against the file's size,
 * mtime and inode. A row whose file changed is recomputed; a cache that does not parse or has
 * another shape is ignored and rebuilt, never trusted.
 */
const CACHE_VERSION = 1;

interface CachedRow {
  size: number;
  mtimeMs: number;
  ino: number;
  row: SessionRow;
}

export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

export function cachePath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "pi-session", "ls-index.json");
}

export class LsCache {
  private rows = new Map<string, CachedRow>();
  private dirty = false;

  constructor(private readonly file: string) {
    try {
      const data = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown; rows?: unknown };
      if (data.version !== CACHE_VERSION || !data.rows || typeof data.rows !== "object") return;
      for (const [path, v] of Object.entries(data.rows as Record<string, CachedRow>)) {
        if (v && typeof v.size === "number" && typeof v.mtimeMs === "number" && typeof v.ino === "number" && v.row && v.row.path === path) this.rows.set(path, v);
      }
    } catch {
      // missing or corrupt: start empty, rebuilt on save
      this.dirty = true;
    }
  }

  get(path: string, stamp: FileStamp): SessionRow | undefined {
    const hit = this.rows.get(path);
    if (!hit || hit.size !== stamp.size || hit.mtimeMs !== stamp.mtimeMs || hit.ino !== stamp.ino) return undefined;
    return hit.row;
  }

  set(path: string, stamp: FileStamp, row: SessionRow): void {
    this.rows.set(path, { ...stamp, row });
    this.dirty = true;
  }

  /** Writes the cache atomically (temp file + rename); a cache that cannot be written is skipped. */
  save(): void {
    if (!this.dirty) return;
    try {
      mkdirSync(join(this.file, ".."), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ version: CACHE_VERSION, rows: Object.fromEntries(this.rows) }));
      renameSync(tmp, this.file);
    } catch {
      // a read-only home: listing still works, just not faster next time
    }
  }
}
