import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { homedir } from "node:os";
import { BUILD } from "../../build-info.js";
import type { FileUsage } from "../../format/usage/records.js";
import type { FileStamp } from "../inputs/stamp.js";
import type { UsageFile } from "./read.js";

/**
 * `usage`'s cache: each session file's usage, keyed like `ls`'s index (path, size, mtime, inode,
 * and the build that read it), in `$XDG_CACHE_HOME/pi-session/usage-index.bin` (else
 * `~/.cache/pi-session/`). A warm report reads this file and no session that has not changed.
 *
 * Layout: a line of JSON (the build, and per file its stamp, what it is, its header's id, time and
 * cwd, its models, what pi cannot read of it, and where its numbers are), padded with spaces to a
 * multiple of 8 bytes; then three regions of float64s in this machine's byte order: every file's
 * blocks (its usage by quarter hour and model), every file's entries (a record's time and entry
 * key), every file's amounts (a record's model, tokens and cost): a report reads the blocks of
 * most sessions, the entries of those that have records in a quarter hour another has records in,
 * and the amounts of those that inherit entries. A cache that does not read back whole (another
 * build or layout, a torn write, numbers out of range) is ignored and rebuilt, never trusted.
 */
const CACHE_VERSION = 3;
const MADE_BY = `${BUILD.version}+${BUILD.rules}`;

/** The three regions, in order. */
const REGIONS = ["blocks", "entries", "amounts"] as const;
type Region = (typeof REGIONS)[number];

interface CachedFile extends Omit<UsageFile, "usage" | "error"> {
  size: number;
  mtimeMs: number;
  ino: number;
  models: string[];
  skipped: FileUsage["skipped"];
  /** Where its numbers are in each region (in float64s from the region's start), and how many. */
  at: Record<Region, number>;
  length: Record<Region, number>;
}

interface Meta {
  version: number;
  build: string;
  /** The machine's byte order when it was written: "LE" or "BE". */
  endian: string;
  /** Float64s in each region. */
  regions: Record<Region, number>;
  files: CachedFile[];
}

const ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? "LE" : "BE";

export function usageCachePath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "pi-session", "usage-index.bin");
}

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;

export class UsageCache {
  private readonly files = new Map<string, CachedFile>();
  private regions: Record<Region, Float64Array> = { blocks: new Float64Array(0), entries: new Float64Array(0), amounts: new Float64Array(0) };
  private readonly fresh = new Map<string, { stamp: FileStamp; file: UsageFile }>();
  private dirty = false;

  constructor(private readonly path: string) {
    try {
      this.load();
    } catch {
      // missing, torn or another build's: start empty, rebuilt on save
      this.files.clear();
      this.dirty = true;
    }
  }

  private load(): void {
    // one read of the whole file (a read per region, or per file's amounts, cost more in system calls and page faults than the bytes)
    const bytes = readFileSync(this.path);
    const nl = bytes.indexOf(10);
    if (nl < 0 || (nl + 1) % 8 !== 0) throw new Error("not a usage cache");
    const meta = JSON.parse(bytes.toString("utf8", 0, nl)) as Meta;
    if (meta?.version !== CACHE_VERSION || meta.build !== MADE_BY || meta.endian !== ENDIAN || !Array.isArray(meta.files) || !REGIONS.every((r) => isCount(meta.regions?.[r]))) throw new Error("another build's cache");
    const { blocks, entries, amounts } = meta.regions;
    if (nl + 1 + (blocks + entries + amounts) * 8 !== bytes.length) throw new Error("torn");
    // (a Float64Array needs an aligned start: a copy when the read buffer's is not)
    const at = bytes.byteOffset + nl + 1;
    const numbers = at % 8 === 0 ? new Float64Array(bytes.buffer, at, blocks + entries + amounts) : new Float64Array(new Uint8Array(bytes.subarray(nl + 1)).buffer);
    for (const f of meta.files) {
      if (typeof f?.path !== "string" || !Array.isArray(f.models) || !REGIONS.every((r) => isCount(f.at?.[r]) && isCount(f.length?.[r]) && f.at[r] + f.length[r] <= meta.regions[r])) throw new Error("corrupt");
      this.files.set(f.path, f);
    }
    this.regions = { blocks: numbers.subarray(0, blocks), entries: numbers.subarray(blocks, blocks + entries), amounts: numbers.subarray(blocks + entries) };
  }

  /** The file's usage when the cache holds it for this stamp. */
  get(path: string, stamp: FileStamp): UsageFile | undefined {
    const f = this.files.get(path);
    if (!f || f.size !== stamp.size || f.mtimeMs !== stamp.mtimeMs || f.ino !== stamp.ino) return undefined;
    return { path, kind: f.kind, id: f.id, created: f.created, cwd: f.cwd, usage: this.usageOf(f) };
  }

  private usageOf(f: CachedFile): FileUsage {
    const part = (r: Region) => this.regions[r].subarray(f.at[r], f.at[r] + f.length[r]);
    return { blocks: part("blocks"), entries: part("entries"), amounts: part("amounts"), models: f.models, skipped: f.skipped };
  }

  set(stamp: FileStamp, file: UsageFile): void {
    this.fresh.set(file.path, { stamp, file });
    this.dirty = true;
  }

  /** Writes the cache if it changed, atomically (temp file + rename); one that cannot be written is skipped. */
  save(): void {
    if (!this.dirty) return;
    try {
      this.write();
    } catch {
      // a read-only home: the report still comes out, just not faster next time
    }
  }

  private write(): void {
    const files: CachedFile[] = [];
    const parts: Record<Region, Float64Array[]> = { blocks: [], entries: [], amounts: [] };
    const total: Record<Region, number> = { blocks: 0, entries: 0, amounts: 0 };
    const add = (entry: Omit<CachedFile, "at" | "length">, usage: FileUsage) => {
      const at = { ...total };
      const length = { blocks: usage.blocks.length, entries: usage.entries.length, amounts: usage.amounts.length };
      files.push({ ...entry, at, length });
      for (const r of REGIONS) {
        parts[r].push(usage[r]);
        total[r] += length[r];
      }
    };
    for (const { stamp, file } of this.fresh.values()) {
      const { usage, error: _, ...rest } = file;
      add({ ...rest, size: stamp.size, mtimeMs: stamp.mtimeMs, ino: stamp.ino, models: usage.models, skipped: usage.skipped }, usage);
    }
    for (const [path, f] of this.files) {
      if (this.fresh.has(path)) continue;
      const { at: _a, length: _l, ...entry } = f;
      add(entry, this.usageOf(f));
    }
    const meta: Meta = { version: CACHE_VERSION, build: MADE_BY, endian: ENDIAN, regions: total, files };
    const head = Buffer.from(JSON.stringify(meta));
    const padded = Buffer.alloc(Math.ceil((head.length + 1) / 8) * 8, 0x20);
    head.copy(padded);
    padded[padded.length - 1] = 10;
    const bytes = REGIONS.flatMap((r) => parts[r].map((a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)));
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([padded, ...bytes]));
    renameSync(tmp, this.path);
  }
}
