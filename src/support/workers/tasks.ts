import { grepPath, type GrepFileResult, type GrepSettings } from "../grep/read.js";
import type { IndexFile, IndexSettings } from "../search/read.js";
import { describeSession, scanSession, sessionRow, type ScannedSession, type SessionRow } from "../ls/rows.js";
import { readUsage, type UsageFile, type UsageSettings } from "../usage/read.js";
import type { RedactionSettings } from "../inputs/redacted.js";
import type { RedactFileResult } from "../redact/check.js";
import { openSource } from "../inputs/input.js";
import { type SessionStamp, idFromFileName, readAheadWithin, refOf, withBytes } from "../../stores/index.js";
import { BufferSource, commonPrefix, type ByteSource } from "../../format/read/source.js";

/** A file to read, with its stamp (what the caches key it by). */
export interface FileJob {
  path: string;
  stamp: SessionStamp | undefined;
  /**
   * What the file's likely byte-for-byte copies share (`withTwinKeys`: OpenClaw's importer copy of a
   * transcript in its database): jobs with one key are read as one unit (`runUnit`).
   */
  twin?: string;
}

/** A job as the pool hands it out: its place in the results, and the jobs that may be copies of it. */
export type Unit = FileJob & { i: number; twins?: Array<FileJob & { i: number }> };

/**
 * What a worker thread can do with a file: `ls`'s row, `usage`'s records, `grep`'s matches,
 * `search`'s index of it (whole, or what was appended: `IndexSettings`), `redact --check`'s
 * findings. A lone file is one call (`one`). Files that may be one another's bytes again
 * (`runUnit`) are read in two steps: what the bytes say (`read`, the costly part), then what each file's path and stamp
 * add (`finish`), so that a file byte for byte the same as another is finished from that one's
 * read. A task without `finish` reads every file.
 */
const TASKS = {
  describe: {
    one: (job: FileJob): Promise<SessionRow> => describeSession(job.path, job.stamp),
    read: (job: FileJob): Promise<ScannedSession> => scanSession(job.path),
    finish: (scanned: ScannedSession, job: FileJob): SessionRow => sessionRow(scanned, job.path, job.stamp),
    readable: (scanned: ScannedSession) => !("error" in scanned),
  },
  usage: {
    one: (job: FileJob, settings?: UsageSettings): Promise<UsageFile> => readUsage(job.path, undefined, settings),
    read: (job: FileJob, settings?: UsageSettings): Promise<UsageFile> => readUsage(job.path, undefined, settings),
    finish: (read: UsageFile, job: FileJob): UsageFile => (read.path === job.path ? read : { ...read, path: job.path }),
    readable: (read: UsageFile) => read.kind !== "unreadable",
  },
  grep: {
    one: (job: FileJob, settings: GrepSettings): Promise<GrepFileResult> => grepPath(job.path, settings),
  },
  index: {
    // (search's reading, and the hash it takes, loaded by the threads given this task alone)
    one: async (job: FileJob, settings: IndexSettings): Promise<IndexFile> => (await import("../search/read.js")).readIndexFile(job.path, settings.from[job.path]),
  },
  // (the rule set is loaded by the threads given this task alone)
  redact: {
    one: async (job: FileJob, settings: RedactionSettings): Promise<RedactFileResult> => (await import("../redact/check.js")).checkPath(job.path, settings),
  },
};

type Tasks = typeof TASKS;

/** The buffers a result owns alone, to hand over to another thread rather than copy (`search`'s packed entries). */
export function transferable(value: unknown): ArrayBuffer[] {
  const entries = (value as Partial<IndexFile> | undefined)?.entries;
  if (!entries?.numbers || !entries.text) return [];
  return [entries.numbers.buffer as ArrayBuffer, entries.text.buffer as ArrayBuffer];
}
export type FileTask = keyof Tasks;
export type TaskResult<T extends FileTask> = Awaited<ReturnType<Tasks[T]["one"]>>;
export type TaskSettings<T extends FileTask> = Parameters<Tasks[T]["one"]>[1];

interface AnyTask {
  one(job: FileJob, settings?: unknown): Promise<unknown>;
  read?(job: FileJob, settings?: unknown): Promise<unknown>;
  finish?(read: unknown, job: FileJob): unknown;
  readable?(read: unknown): boolean;
}

/**
 * A chunk's results, by place (`overFiles`): a lone file in one call, as most are; a unit with its
 * twins as `runUnit` reads it. Where other threads
 * take chunks of the same jobs (`shared`), a database's rows are read ahead only into the chunk's
 * own transcripts.
 */
export async function runChunk<T extends FileTask>(task: T, units: readonly Unit[], settings: TaskSettings<T> | undefined, shared: boolean): Promise<Array<{ i: number; value: TaskResult<T> }>> {
  if (shared) readAheadWithin(units.flatMap((u) => [u.path, ...(u.twins ?? []).map((t) => t.path)]));
  try {
    const out: Array<{ i: number; value: TaskResult<T> }> = [];
    for (const unit of units) {
      if (!unit.twins) out.push({ i: unit.i, value: await runTask(task, unit, settings) });
      else out.push(...(await runUnit(task, unit, settings)));
    }
    return out;
  } finally {
    readAheadWithin(undefined);
  }
}

/** A lone file's result: one call, as most files are read. */
export function runTask<T extends FileTask>(task: T, job: FileJob, settings?: TaskSettings<T>): Promise<TaskResult<T>> {
  return (TASKS[task] as AnyTask).one(job, settings) as Promise<TaskResult<T>>;
}

/**
 * A unit's results, by place: its job's, and each twin's. Where a twin's bytes are the job's, byte
 * for byte, the two are read once and each finished from that read (an OpenClaw store holds each
 * imported transcript twice, in the database and as the importer's copy: BENCHMARKS.md, "copies
 * read once"); any other is read as itself. The bytes are read whole from a file among them where
 * there is one (a file is read with one call, a database transcript row by row), held to compare
 * the others with, and read from there (`HELD_BYTES`: a larger one is compared a chunk at a time
 * and read again).
 */
async function runUnit<T extends FileTask>(task: T, unit: Unit, settings?: TaskSettings<T>): Promise<Array<{ i: number; value: TaskResult<T> }>> {
  const t = TASKS[task] as AnyTask;
  const twins = unit.twins ?? [];
  const jobs: Array<FileJob & { i: number }> = [unit, ...twins];
  if (twins.length === 0 || !t.read || !t.finish) {
    const out = [];
    for (const job of jobs) out.push({ i: job.i, value: await runTask(task, job, settings) });
    return out;
  }
  const reader = jobs.find((j) => refOf(j.path).kind !== "transcript") ?? unit;
  const { held, same } = compareTwins(reader, jobs);
  const read = held ? await withBytes(reader.path, held, () => t.read!(reader, settings)) : await t.read(reader, settings);
  const usable = t.readable!(read);
  const out = [];
  for (const [k, job] of jobs.entries()) out.push({ i: job.i, value: job === reader || (usable && same[k]) ? (t.finish(read, job) as TaskResult<T>) : await runTask(task, job, settings) });
  return out;
}

/** Bytes read whole to compare with, and read from, up to this size. */
const HELD_BYTES = 4 * 1024 * 1024;

/**
 * Which of `jobs` are `reader`'s bytes again, byte for byte (and named alike where a name gives the
 * id a row falls back on), with `reader`'s bytes when they were read whole. A file that cannot be
 * read is no one's twin: it is read as itself, and says why.
 */
function compareTwins(reader: FileJob, jobs: readonly FileJob[]): { held: Buffer | undefined; same: boolean[] } {
  const same = jobs.map(() => false);
  let source: ByteSource;
  try {
    source = openSource(reader.path);
  } catch {
    return { held: undefined, same };
  }
  try {
    const size = source.size;
    const held = size <= HELD_BYTES ? heldBuffer(size) : undefined;
    if (held && readFully(source, held, 0) !== size) return { held: undefined, same };
    const id = idFromFileName(reader.path);
    // (the bytes held, else the reader's source, read again)
    const mine = held ? new BufferSource(reader.path, held) : source;
    jobs.forEach((job, k) => {
      if (job === reader || idFromFileName(job.path) !== id) return;
      let other: ByteSource | undefined;
      try {
        other = openSource(job.path);
        // (a database transcript compares its rows where they lie; others are read and compared a chunk at a time)
        same[k] = other.size === size && (held && other.sameAs ? other.sameAs(held) : commonPrefix(mine, other) === size);
      } catch {
        same[k] = false;
      } finally {
        other?.close();
      }
    });
    return { held, same };
  } catch {
    return { held: undefined, same };
  } finally {
    source.close();
  }
}

/**
 * A buffer of `size` bytes to hold a unit's bytes in, the same memory unit after unit: a fresh
 * buffer's pages are each faulted in and zeroed by the kernel, which cost a store's copies a
 * third more than reading them (BENCHMARKS.md, "copies read once"). Nothing a task returns keeps
 * a view of it.
 */
function heldBuffer(size: number): Buffer {
  if (!memory || memory.length < size) memory = Buffer.allocUnsafeSlow(Math.min(HELD_BYTES, Math.max(size, 2 * (memory?.length ?? 0), 256 * 1024)));
  return memory.subarray(0, size);
}
let memory: Buffer | undefined;

/** Reads `target.length` bytes at `offset`, or as many as there are. */
function readFully(source: ByteSource, target: Buffer, offset: number): number {
  let done = 0;
  while (done < target.length) {
    const n = source.readInto(target.subarray(done), offset + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
