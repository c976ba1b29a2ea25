import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILD } from "../../build-info.js";
import type { SessionStamp } from "../../stores/index.js";
import type { SessionRow } from "./rows.js";
import { cacheFolder } from "../../stores/index.js";
import { isCount } from "../../format/common/guards.js";

/**
 * `ls`'s index cache: one file under `$XDG_CACHE_HOME/pi-session/` (else `~/.cache/pi-session/`),
 * a row per session keyed by path and checked against the file's size, mtime and inode. A row
 * whose file changed is recomputed; a cache that does not parse or has another shape is ignored
 * and rebuilt, never trusted.
 *
 * A warm `ls` of thousands of sessions reads the index and only the rows it shows, so the file is
 * laid out to be read in two reads and a few splits (it is all text, to be read and mended by hand):
 *
 *   {"version":4,"build":B,"count":N,"paths":P,"modified":M,"stamps":S}   (lengths of the next three)
 *   every path, joined by "\n"                                   (P bytes, then "\n")
 *   every row's `modified`, joined by "\n" ("" for none)         (M bytes, then "\n")
 *   base64 of [size, mtimeMs, ino, row start, row length] × N    (S bytes, as float64; then "\n")
 *   the rows, one line of JSON each
 *
 * One JSON index line before the rows (read whole, parsed, a map of the paths) was a quarter of
 * this layout's speed (BENCHMARKS.md, "the ls cache layout").
 */
const CACHE_VERSION = 4;

/**
 * What made the rows: a cache written by another build (other rules for validating or describing a
 * session) is not trusted, so that an upgrade is seen at once, not as each file changes.
 */
const MADE_BY = `${BUILD.version}+${BUILD.rules}`;

/** float64 stamps a cached session keeps, in order: size, mtimeMs, ino, row start, row length. */
const STAMP = 5;

interface Meta {
  version: number;
  /** `MADE_BY` of the build that wrote it. */
  build: string;
  count: number;
  paths: number;
  modified: number;
  stamps: number;
}

export class CorruptCacheError extends Error {}

export function cachePath(env: NodeJS.ProcessEnv): string {
  return join(cacheFolder(env), "ls-index.json");
}


export class LsCache {
  private fd: number | undefined;
  private paths: string[] = [];
  private modifiedOf: string[] = [];
  private stamps = new Float64Array(0);
  /** Where the rows begin in the file. */
  private rowsAt = 0;
  /** Path -> slot, built on the first path not found where the listing's order puts it. */
  private slots: Map<string, number> | undefined;
  /** Slot of the listing's file 0, as far as the cache holds the listing in order. */
  private base = 0;
  private readonly fresh = new Map<string, { stamp: SessionStamp; row: SessionRow }>();
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
      this.load();
    } catch {
      // missing, corrupt or older: start empty, rebuilt on save
      this.close();
      this.paths = [];
      this.dirty = true;
    }
  }

  private load(): void {
    const fd = (this.fd = openSync(this.file, "r"));
    const fileSize = fstatSync(fd).size;
    const head = Buffer.allocUnsafe(Math.min(4096, fileSize));
    const nl = head.subarray(0, readSync(fd, head, 0, head.length, 0)).indexOf(10);
    if (nl < 0) throw new CorruptCacheError();
    const meta = JSON.parse(head.toString("utf8", 0, nl)) as Meta;
    if (meta?.version !== CACHE_VERSION || meta.build !== MADE_BY || ![meta.count, meta.paths, meta.modified, meta.stamps].every(isCount)) throw new CorruptCacheError();
    const n = meta.count;
    const indexBytes = meta.paths + meta.modified + meta.stamps + 3;
    this.rowsAt = nl + 1 + indexBytes;
    if (this.rowsAt > fileSize || meta.stamps !== Math.ceil((n * STAMP * 8) / 3) * 4) throw new CorruptCacheError();
    const index = Buffer.allocUnsafe(indexBytes);
    if (readSync(fd, index, 0, indexBytes, nl + 1) !== indexBytes) throw new CorruptCacheError();
    const paths = n === 0 ? [] : index.toString("utf8", 0, meta.paths).split("\n");
    let at = meta.paths + 1;
    const modified = n === 0 ? [] : index.toString("latin1", at, at + meta.modified).split("\n");
    at += meta.modified + 1;
    const raw = Buffer.from(index.toString("latin1", at, at + meta.stamps), "base64");
    const stamps = new Float64Array(n * STAMP);
    new Uint8Array(stamps.buffer).set(raw.subarray(0, stamps.byteLength));
    if (paths.length !== n || modified.length !== n || raw.length !== stamps.byteLength) throw new CorruptCacheError();
    const rowsBytes = fileSize - this.rowsAt;
    for (let i = 0; i < n; i++) {
      const k = i * STAMP;
      if (!(stamps[k + 3]! >= 0 && stamps[k + 4]! >= 0 && stamps[k + 3]! + stamps[k + 4]! <= rowsBytes)) throw new CorruptCacheError();
    }
    this.paths = paths;
    this.modifiedOf = modified;
    this.stamps = stamps;
  }

  /**
   * The slot of `path` (file `i` of the listing) when its size, mtime and inode match the cache's;
   * -1 otherwise. A listing the cache holds in order is matched by position.
   */
  find(path: string, i: number, size: number, mtimeMs: number, ino: number): number {
    let slot = this.base + i;
    if (this.paths[slot] !== path) {
      const s = this.slotOf(path);
      if (s === undefined) return -1;
      slot = s;
      this.base = s - i;
    }
    const k = slot * STAMP;
    const x = this.stamps;
    return x[k] === size && x[k + 1] === mtimeMs && x[k + 2] === ino ? slot : -1;
  }

  /** The slot the file holds `path` in, by a map built on first use. */
  private slotOf(path: string): number | undefined {
    if (!this.slots) {
      this.slots = new Map();
      this.paths.forEach((p, k) => this.slots!.set(p, k));
    }
    return this.slots.get(path);
  }

  /** The default sort key of the session in `slot`. */
  modified(slot: number): string | null {
    return this.modifiedOf[slot] || null;
  }

  /** The row in `slot`; throws `CorruptCacheError` when it does not parse as the row of `path`. */
  row(slot: number, path: string): SessionRow {
    let row: SessionRow;
    try {
      row = JSON.parse(this.rowBytes(slot).toString("utf8")) as SessionRow;
    } catch {
      throw new CorruptCacheError();
    }
    if (!row || typeof row !== "object" || row.path !== path || row.modified !== this.modified(slot)) throw new CorruptCacheError();
    return row;
  }

  private rowBytes(slot: number): Buffer {
    const k = slot * STAMP;
    const bytes = Buffer.allocUnsafe(this.stamps[k + 4]!);
    if (readSync(this.fd!, bytes, 0, bytes.length, this.rowsAt + this.stamps[k + 3]!) !== bytes.length) throw new CorruptCacheError();
    return bytes;
  }

  set(path: string, stamp: SessionStamp, row: SessionRow): void {
    this.fresh.set(path, { stamp, row });
    this.dirty = true;
  }

  /**
   * Writes the cache if it changed, atomically (temp file + rename), and closes it; a cache that
   * cannot be written is skipped. `listing`: the paths just listed, in order, written first so that
   * listing them again matches by position.
   */
  save(listing: readonly string[]): void {
    try {
      if (this.dirty) this.write(listing);
    } catch {
      // a read-only home: listing still works, just not faster next time
    } finally {
      this.close();
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private write(listing: readonly string[]): void {
    const paths: string[] = [];
    const modified: string[] = [];
    const stamps: number[] = [];
    const rows: Buffer[] = [];
    let offset = 0;
    const add = (path: string, size: number, mtimeMs: number, ino: number, rowModified: string | null, bytes: Buffer) => {
      if (path.includes("\n")) return; // (a path the layout cannot hold is described afresh each time)
      paths.push(path);
      modified.push(rowModified ?? "");
      stamps.push(size, mtimeMs, ino, offset, bytes.length);
      rows.push(bytes, NEWLINE);
      offset += bytes.length + 1;
    };
    // The listing's sessions first, in its order, then the others the file holds; rows kept from the
    // file are copied as they are, without parsing them.
    const x = this.stamps;
    const written = new Set<string>();
    for (const path of [...listing, ...this.paths]) {
      if (written.has(path)) continue;
      written.add(path);
      const fresh = this.fresh.get(path);
      const slot = this.slotOf(path);
      if (fresh) add(path, fresh.stamp.size, fresh.stamp.mtimeMs, fresh.stamp.ino, fresh.row.modified, Buffer.from(JSON.stringify(fresh.row)));
      else if (slot !== undefined) add(path, x[slot * STAMP]!, x[slot * STAMP + 1]!, x[slot * STAMP + 2]!, this.modified(slot), this.rowBytes(slot));
    }
    const parts = [paths.join("\n"), modified.join("\n"), Buffer.from(new Float64Array(stamps).buffer).toString("base64")];
    const meta: Meta = { version: CACHE_VERSION, build: MADE_BY, count: paths.length, paths: Buffer.byteLength(parts[0]!), modified: parts[1]!.length, stamps: parts[2]!.length };
    mkdirSync(join(this.file, ".."), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([Buffer.from(`${JSON.stringify(meta)}\n${parts.join("\n")}\n`), ...rows]));
    renameSync(tmp, this.file);
  }
}

const NEWLINE = Buffer.from("\n");
