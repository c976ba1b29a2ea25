import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writevSync } from "node:fs";
import { dirname, join } from "node:path";
import { BUILD } from "../../build-info.js";
import type { FileUsage } from "../../format/usage/records.js";
import type { FileKind } from "../../format/schema/types.js";
import type { SessionStamp } from "../../stores/index.js";
import type { UsageFile } from "./read.js";
import { cacheFolder } from "../../stores/index.js";
import { isCount } from "../../format/common/guards.js";
import { CliError } from "../../errors.js";

/**
 * `usage`'s cache: each session file's usage, keyed like `ls`'s index (path, size, mtime, inode,
 * and the build that read it), in `$XDG_CACHE_HOME/pi-session/usage-index.bin` (else
 * `~/.cache/pi-session/`). A warm report reads this file and no session that has not changed.
 *
 * Layout: a line of JSON (the build; then the files' facts a column each: each path cut after its
 * last `/`, what it is, its header's id, time and cwd, its stamp, its models, what pi cannot read
 * of it where there is something, the models its requests with no price were asked of where it
 * has any, and how many numbers it has in each region, or, for a file whose
 * usage is an earlier file's (an OpenClaw transcript and the importer's copy of it, read once),
 * that file's index and no numbers of its own; repeated strings
 * (folders, cwds, models) given once, by index), padded with spaces to a multiple of 8 bytes; then
 * three regions of float64s in this machine's byte order: every file's blocks (its usage by
 * quarter hour and model), every file's entries (a record's time and entry key), every file's
 * amounts (a record's model, tokens and cost), each file's after the one before's. A report reads
 * the blocks of most sessions, the entries of those that have records in a quarter hour another
 * has records in, and the amounts of those that inherit entries: the JSON line, the blocks and
 * the entries are read at once, and where the amounts are more bytes than those, a file's when a
 * report first asks for them, from the cache file as it was opened (BENCHMARKS.md, "the usage
 * cache's amounts on demand"). Columns, not an object a file:
 * a store of thousands of small cron runs wrote and parsed a line of 1.5 MB (BENCHMARKS.md, "the
 * usage cache in columns"). A cache that does not read back whole (another build or layout, a
 * torn write, numbers out of range) is ignored and rebuilt, never trusted.
 */
const CACHE_VERSION = 7;
const MADE_BY = `${BUILD.version}+${BUILD.rules}`;

/** The three regions, in order. */
const REGIONS = ["blocks", "entries", "amounts"] as const;
type Region = (typeof REGIONS)[number];

/** The JSON line: a column a fact, a value a file; strings that repeat are indices into `strings`. */
interface Meta {
  version: number;
  build: string;
  /** The machine's byte order when it was written: "LE" or "BE". */
  endian: string;
  /** Float64s in each region. */
  regions: Record<Region, number>;
  strings: string[];
  /** Each path up to its last `/` (an index into `strings`), and after it. */
  dir: number[];
  name: string[];
  kind: number[];
  id: Array<string | null>;
  created: Array<string | null>;
  /** An index into `strings`, or -1 for none. */
  cwd: number[];
  size: number[];
  mtimeMs: number[];
  ino: number[];
  models: number[][];
  /** What pi cannot read, for the files (by their index) where that is anything. */
  skipped: Record<string, FileUsage["skipped"]>;
  /** The models requests with no price were asked of (`FileUsage.asked`: a model's index, then its provider and model as indices into `strings`), for the files (by their index) that have any. */
  asked: Record<string, Array<[number, number, number]>>;
  /**
   * The files (by their index) whose usage is an earlier file's, the one object (a transcript and
   * the importer's copy of it, read once): that file's index. Such a file has no numbers of its own.
   */
  same: Record<string, number>;
  length: Record<Region, number[]>;
}

/** One file's facts, as a report and the next write take them. */
interface Held {
  path: string;
  kind: UsageFile["kind"];
  id: string | null;
  created: string | null;
  cwd: string | null;
  stamp: SessionStamp;
  usage: FileUsage;
}

const ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? "LE" : "BE";

export function usageCachePath(env: NodeJS.ProcessEnv): string {
  return join(cacheFolder(env), "usage-index.bin");
}

const NO_SKIPPED = (): FileUsage["skipped"] => ({ requests: 0, cost: 0, lines: [] });

/** The first read of the cache: its JSON line, and the blocks and entries after it where they fit (the 3,082-transcript OpenClaw store of the benchmarks has a line of 500 KB: read whole). */
const HEAD_READ = 256 * 1024;

/** Pieces a write takes at most (the system's limit on a `writev`, IOV_MAX, is 1,024 on Linux and macOS). */
const WRITE_PIECES = 1024;

export class UsageCache {
  private meta: Meta | undefined;
  /** Path -> its index in `meta`'s columns. */
  private readonly index = new Map<string, number>();
  /** Where each file's numbers start in each region (sums of the lengths before it). */
  private at: Record<Region, Float64Array> = { blocks: new Float64Array(0), entries: new Float64Array(0), amounts: new Float64Array(0) };
  /** The blocks and the entries, read whole; the amounts are read a file's at a time (`amountsOf`), or whole (`allAmounts`). */
  private regions: Record<Region, Float64Array> = { blocks: new Float64Array(0), entries: new Float64Array(0), amounts: new Float64Array(0) };
  /** The cache file as it was opened (a later write replaces the name, not this file), while amounts are left to read. */
  private fd: number | undefined;
  /** Where the amounts start in it (bytes). */
  private amountsStart = 0;
  private amountsWhole = false;
  /** Each file's usage as read back, made once: files that share one share it again. */
  private usages: Array<FileUsage | undefined> = [];
  private readonly amounts: Array<Float64Array | undefined> = [];
  private readonly fresh = new Map<string, Held>();
  private dirty = false;

  constructor(private readonly path: string) {
    try {
      this.load();
    } catch {
      // missing, torn or another build's: start empty, rebuilt on save
      this.close();
      this.meta = undefined;
      this.index.clear();
      this.dirty = true;
    }
  }

  private load(): void {
    // The JSON line, the blocks and the entries at once; the amounts, where they are most of the
    // bytes, as a report asks for them: a read a file costs a system call, a read of every file's
    // the page faults of a buffer the size of them all where a report wants a few files'.
    this.fd = openSync(this.path, "r");
    const size = fstatSync(this.fd).size;
    let head = Buffer.allocUnsafe(Math.min(size, HEAD_READ));
    let got = readSync(this.fd, head, 0, head.length, 0);
    let nl = head.subarray(0, got).indexOf(10);
    if (nl < 0 && got === head.length && got < size) {
      // (a line longer than the first read, as a store of thousands of transcripts has: the whole file)
      const all = Buffer.allocUnsafe(size);
      head.copy(all, 0, 0, got);
      got += readSync(this.fd, all, got, size - got, got);
      head = all;
      nl = head.subarray(0, got).indexOf(10);
    }
    if (nl < 0 || (nl + 1) % 8 !== 0) throw new Error("not a usage cache");
    const meta = JSON.parse(head.toString("utf8", 0, nl)) as Meta;
    if (meta?.version !== CACHE_VERSION || meta.build !== MADE_BY || meta.endian !== ENDIAN || !REGIONS.every((r) => isCount(meta.regions?.[r]))) throw new Error("another build's cache");
    const { blocks, entries, amounts } = meta.regions;
    if (nl + 1 + (blocks + entries + amounts) * 8 !== size) throw new Error("torn");
    const count = Array.isArray(meta.name) ? meta.name.length : -1;
    const columns = [meta.dir, meta.kind, meta.id, meta.created, meta.cwd, meta.size, meta.mtimeMs, meta.ino, meta.models, ...REGIONS.map((r) => meta.length?.[r])];
    if (count < 0 || !Array.isArray(meta.strings) || !columns.every((c) => Array.isArray(c) && c.length === count) || !meta.skipped || typeof meta.skipped !== "object" || !meta.asked || typeof meta.asked !== "object" || !meta.same || typeof meta.same !== "object") throw new Error("corrupt");
    // (an earlier file's, itself one with numbers of its own, and none of its own)
    for (const [k, j] of Object.entries(meta.same)) {
      const i = Number(k);
      if (!isCount(i) || !isCount(j) || j >= i || meta.same[j] !== undefined || REGIONS.some((r) => meta.length[r][i] !== 0)) throw new Error("corrupt");
    }
    const string = (k: unknown) => isCount(k) && k < meta.strings.length && typeof meta.strings[k] === "string";
    const at = { blocks: new Float64Array(count), entries: new Float64Array(count), amounts: new Float64Array(count) };
    const sums = { blocks: 0, entries: 0, amounts: 0 };
    for (let i = 0; i < count; i++) {
      const text = (v: unknown) => v === null || typeof v === "string";
      if (typeof meta.name[i] !== "string" || !string(meta.dir[i]) || !string(meta.kind[i]) || !(meta.cwd[i] === -1 || string(meta.cwd[i])) || !text(meta.id[i]) || !text(meta.created[i]) || !Array.isArray(meta.models[i]) || !meta.models[i]!.every(string)) throw new Error("corrupt");
      const asked = meta.asked[i];
      if (asked !== undefined && !(Array.isArray(asked) && asked.every((a) => Array.isArray(a) && a.length === 3 && isCount(a[0]) && a[0] < meta.models[i]!.length && string(a[1]) && string(a[2])))) throw new Error("corrupt");
      for (const r of REGIONS) {
        const n = meta.length[r][i];
        if (!isCount(n)) throw new Error("corrupt");
        at[r][i] = sums[r];
        sums[r] += n;
      }
      this.index.set(meta.strings[meta.dir[i]!]! + meta.name[i]!, i);
    }
    if (!REGIONS.every((r) => sums[r] === meta.regions[r])) throw new Error("corrupt");
    this.meta = meta;
    this.at = at;
    this.amountsStart = nl + 1 + (blocks + entries) * 8;
    // (the amounts with the rest where they are no more than it, as in a store of small sessions)
    const whole = got === size || amounts * 8 <= this.amountsStart;
    let numbers: Float64Array;
    const start = head.byteOffset + nl + 1;
    if (got === size && start % 8 === 0) numbers = new Float64Array(head.buffer, start, blocks + entries + amounts);
    else {
      // (read into a Float64Array's own buffer: aligned, what the first read holds of it copied)
      numbers = new Float64Array(blocks + entries + (whole ? amounts : 0));
      const bytes = new Uint8Array(numbers.buffer);
      const held = Math.max(0, Math.min(got - (nl + 1), bytes.length));
      bytes.set(head.subarray(nl + 1, nl + 1 + held));
      if (held < bytes.length && readSync(this.fd, bytes, held, bytes.length - held, nl + 1 + held) !== bytes.length - held) throw new Error("torn");
    }
    this.regions = { blocks: numbers.subarray(0, blocks), entries: numbers.subarray(blocks, blocks + entries), amounts: numbers.subarray(blocks + entries) };
    this.amountsWhole = whole;
    if (whole) this.close();
  }

  /** The cache file is not read again (the amounts not yet read are not to be asked for). */
  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // closed already: nothing held
    }
    this.fd = undefined;
  }

  /** The file's usage when the cache holds it for this stamp. */
  get(path: string, stamp: SessionStamp): UsageFile | undefined {
    const i = this.index.get(path);
    const m = this.meta;
    if (i === undefined || !m || m.size[i] !== stamp.size || m.mtimeMs[i] !== stamp.mtimeMs || m.ino[i] !== stamp.ino) return undefined;
    const { stamp: _, ...file } = this.heldAt(i, path);
    return file;
  }

  /** What the cache holds of file `i` (at `path`), its stamp with it. */
  private heldAt(i: number, path: string): Held {
    const m = this.meta!;
    return { path, kind: m.strings[m.kind[i]!] as FileKind, id: m.id[i] ?? null, created: m.created[i] ?? null, cwd: m.cwd[i] === -1 ? null : m.strings[m.cwd[i]!]!, stamp: { size: m.size[i]!, mtimeMs: m.mtimeMs[i]!, ino: m.ino[i]! }, usage: this.usageOf(i) };
  }

  private usageOf(i: number): FileUsage {
    const m = this.meta!;
    const j = m.same[i];
    if (j !== undefined) return this.usageOf(j);
    const made = this.usages[i];
    if (made) return made;
    const part = (r: Region) => this.regions[r].subarray(this.at[r][i], this.at[r][i]! + m.length[r][i]!);
    const asked = m.asked[i]?.map(([index, provider, model]): [number, string, string] => [index, m.strings[provider]!, m.strings[model]!]);
    return (this.usages[i] = new HeldUsage(part("blocks"), part("entries"), m.models[i]!.map((k) => m.strings[k]!), m.skipped[i] ?? NO_SKIPPED(), asked, this, i));
  }

  /** File `i`'s amounts: from the whole region where it was read, else read on their own from the file as it was opened. */
  amountsOf(i: number): Float64Array {
    const m = this.meta!;
    const at = this.at.amounts[i]!;
    const length = m.length.amounts[i]!;
    if (this.amountsWhole) return this.regions.amounts.subarray(at, at + length);
    let a = this.amounts[i];
    if (a) return a;
    a = new Float64Array(length);
    this.readAmounts(a, at);
    return (this.amounts[i] = a);
  }

  /** Every file's amounts, in one read (for a write, which keeps every file's). */
  private allAmounts(): void {
    if (this.amountsWhole || !this.meta) return;
    const all = new Float64Array(this.meta.regions.amounts);
    this.readAmounts(all, 0);
    this.regions.amounts = all;
    this.amountsWhole = true;
    this.close();
  }

  private readAmounts(into: Float64Array, at: number): void {
    const bytes = new Uint8Array(into.buffer, into.byteOffset, into.byteLength);
    if (bytes.length === 0) return;
    if (this.fd === undefined) throw new Error("the usage cache's amounts were asked for after it was closed");
    // (the file this cache was opened as: a write since replaced its name, not it; one cut short under us is said so)
    if (readSync(this.fd, bytes, 0, bytes.length, this.amountsStart + at * 8) !== bytes.length) {
      throw new CliError(`${this.path}: the usage cache was cut short while it was read; run the command again (or with --no-cache)`);
    }
  }

  set(stamp: SessionStamp, file: UsageFile): void {
    this.fresh.set(file.path, { path: file.path, kind: file.kind, id: file.id, created: file.created, cwd: file.cwd, stamp, usage: file.usage });
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
    const strings: string[] = [];
    const interned = new Map<string, number>();
    const intern = (s: string) => {
      let k = interned.get(s);
      if (k === undefined) interned.set(s, (k = strings.push(s) - 1));
      return k;
    };
    const meta: Meta = { version: CACHE_VERSION, build: MADE_BY, endian: ENDIAN, regions: { blocks: 0, entries: 0, amounts: 0 }, strings, dir: [], name: [], kind: [], id: [], created: [], cwd: [], size: [], mtimeMs: [], ino: [], models: [], skipped: {}, asked: {}, same: {}, length: { blocks: [], entries: [], amounts: [] } };
    const written = new Map<FileUsage, number>();
    const parts: Record<Region, Float64Array[]> = { blocks: [], entries: [], amounts: [] };
    const add = (f: Held) => {
      const cut = f.path.lastIndexOf("/") + 1;
      const i = meta.name.length;
      meta.dir.push(intern(f.path.slice(0, cut)));
      meta.name.push(f.path.slice(cut));
      meta.kind.push(intern(f.kind));
      meta.id.push(f.id);
      meta.created.push(f.created);
      meta.cwd.push(f.cwd === null ? -1 : intern(f.cwd));
      meta.size.push(f.stamp.size);
      meta.mtimeMs.push(f.stamp.mtimeMs);
      meta.ino.push(f.stamp.ino);
      const first = written.get(f.usage);
      if (first !== undefined) {
        // (a copy read once with its transcript: the numbers once)
        meta.same[i] = first;
        meta.models.push([]);
        for (const r of REGIONS) meta.length[r].push(0);
        return;
      }
      written.set(f.usage, i);
      meta.models.push(f.usage.models.map(intern));
      const s = f.usage.skipped;
      if (s.requests > 0 || s.cost !== 0 || s.lines.length > 0 || s.wholeFile) meta.skipped[i] = s;
      if (f.usage.asked) meta.asked[i] = f.usage.asked.map(([index, provider, model]) => [index, intern(provider), intern(model)]);
      for (const r of REGIONS) {
        parts[r].push(f.usage[r]);
        meta.length[r].push(f.usage[r].length);
        meta.regions[r] += f.usage[r].length;
      }
    };
    for (const f of this.fresh.values()) add(f);
    for (const [path, i] of this.index) {
      if (this.fresh.has(path)) continue;
      // (what the cache held goes into the new one whole: every file's amounts, read at once, at the first)
      this.allAmounts();
      add(this.heldAt(i, path));
    }
    const head = Buffer.from(JSON.stringify(meta));
    const padded = Buffer.alloc(Math.ceil((head.length + 1) / 8) * 8, 0x20);
    head.copy(padded);
    padded[padded.length - 1] = 10;
    const pieces = [padded, ...REGIONS.flatMap((r) => parts[r].map((a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)))];
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    // (the pieces written where they lie, a system call for each thousand: joined first, they were
    // a buffer the size of the cache, 9 MB of fresh pages for the 302-session store, 29 ms)
    const fd = openSync(tmp, "w");
    try {
      for (let k = 0; k < pieces.length; k += WRITE_PIECES) {
        const batch = pieces.slice(k, k + WRITE_PIECES);
        const want = batch.reduce((n, b) => n + b.byteLength, 0);
        if (writevSync(fd, batch) !== want) throw new Error("short write");
      }
    } catch (error) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw error;
    }
    closeSync(fd);
    renameSync(tmp, this.path);
  }
}

/**
 * A file's usage as the cache holds it: its amounts, most of the bytes, read when a report first
 * asks for them (`UsageCache.amountsOf`). A class, not an object with a getter of its own: those
 * were made a dictionary each, 4 MB and 6 ms more over a store of 3,000 transcripts.
 */
class HeldUsage implements FileUsage {
  constructor(
    readonly blocks: Float64Array,
    readonly entries: Float64Array,
    readonly models: string[],
    readonly skipped: FileUsage["skipped"],
    readonly asked: FileUsage["asked"],
    private readonly cache: UsageCache,
    private readonly index: number,
  ) {}

  get amounts(): Float64Array {
    return this.cache.amountsOf(this.index);
  }
}
