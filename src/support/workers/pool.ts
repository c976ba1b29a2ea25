import { availableParallelism } from "node:os";
import { workerThreads } from "../../format/common/builtins.js";
import type { FileJob, FileTask, TaskResult, TaskSettings, Unit } from "./tasks.js";

/**
 * Reading many session files at once (`ls`'s rows, `usage`'s records, `grep`'s matches): on
 * several cores, split among worker threads (scanning is CPU-bound once the files are in the page
 * cache). Jobs are handed out a chunk at a time as each thread finishes one, so that one large
 * session does not leave the others idle; results come back in the jobs' order.
 *
 * This thread starts on the jobs at once. A worker thread costs its start (Node's, then the library
 * loaded and compiled anew, and the scanner's module: 120-150 ms on a 2-core machine, idle, before
 * its first result), so workers are called in only when what is left would take this thread longer
 * than `JOIN_MS` at the pace it has kept so far (BENCHMARKS.md, "workers called in"): a store of
 * small files is done before a worker would have started. The pace is this thread's CPU time, not
 * the clock's: on a machine in a slow spell (other processes, a host taking the CPU back) the same
 * work takes longer by the clock, and a worker, which needs a CPU of its own, would make it slower
 * still (BENCHMARKS.md, "copies read once").
 */

/** Below this weight (a file for each 64, a unit for each 64 MB), a worker could never pay for its start. */
const FILES_A_UNIT = 64;
const BYTES_A_UNIT = 64 * 1024 * 1024;

/**
 * Jobs a message carries: a message a file took a twentieth of a worker's time on a 5,000-session
 * store (`ls`); a chunk this size still lets the progress bar move.
 */
const CHUNK_FILES = 32;
const CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * How long this thread works (CPU time) before its pace is taken as a measure of what is left: the
 * pace of the files after the first `PROBE_MS`, while the code is compiled, over as long again.
 */
const PROBE_MS = 50;
/**
 * Work left (at this thread's pace) above which workers are called in. The pace of the first
 * files overstates what is left about twice (the code is still being compiled), so it is taken
 * after them, over the next `PROBE_MS`; and a worker pays that compiling again after its start:
 * on a 3,000-transcript store `usage`'s worker cost more than it saved (left: 776 ms at the first
 * look, 380 in fact), on 300 large sessions it saves a seventh (1,972 ms at the first look). With
 * `ls` judging each session's conversation (the validator's code compiled too), the first look
 * at a 3,000-transcript OpenClaw store called a worker in that made the run 6 % slower; the pace
 * after it does not.
 */
const JOIN_MS = 1000;
/** Chunks a worker holds at once: the next is there when it finishes one, not when this thread next listens. */
const IN_FLIGHT = 2;

/** What the worker threads are told: the task, its settings, and the jobs of one chunk, with their indices. */
export interface Chunk {
  task: FileTask;
  settings: unknown;
  jobs: Unit[];
}

/**
 * Runs `task` on every job, with `settings` (what the task needs besides the file: `grep`'s
 * pattern; structured-cloneable); `progress` is called with how many are done. `threads`: this
 * many threads (1: this one only; at most one a unit), the workers started with the first job
 * (`PI_SESSION_THREADS`, as docs/commands.md says of `ls`); not given, as many as the cores and the work's weight
 * allow, called in when the work left calls for them.
 */
export async function overFiles<T extends FileTask>(task: T, jobs: readonly FileJob[], progress: (done: number) => void, threads?: number, settings?: TaskSettings<T>, each?: (i: number, value: TaskResult<T>) => void): Promise<Array<TaskResult<T>>> {
  const units = unitsOf(jobs);
  const bytes = units.reduce((n, u) => n + weight(u), 0);
  const workers = threads !== undefined ? Math.min(threads, units.length) : Math.min(availableParallelism(), Math.floor(units.length / FILES_A_UNIT + bytes / BYTES_A_UNIT), units.length);
  const { runChunk } = await import("./tasks.js");
  const kept: Array<TaskResult<T>> = new Array(jobs.length);
  // (`each`: every result handed on as it comes, and none kept: a store's index is written as it is read)
  const take = each ?? ((i: number, value: TaskResult<T>) => (kept[i] = value));
  if (workers < 2) {
    let done = 0;
    for (const unit of units) {
      progress(done);
      // (a unit at a time, so that progress moves with each file; alone, rows read ahead as far as a batch goes)
      for (const { i, value } of await runChunk(task, [unit], settings, false)) take(i, value);
      done += 1 + (unit.twins?.length ?? 0);
    }
    return kept;
  }
  const chunks = chunked(task, units, settings);
  let done = 0;
  let next = 0;
  const helpers: Array<Promise<void>> = [];
  const callIn = () => {
    for (let k = 1; k < workers; k++) {
      const h = helper();
      // (a worker that fails is heard when this thread has done its share, not as an unhandled rejection before)
      h.catch(() => {});
      helpers.push(h);
    }
  };
  /** A worker thread, given chunks until none is left. */
  const helper = () =>
    new Promise<void>((resolve, reject) => {
      const worker = new (workerThreads().Worker)(new URL("./worker.js", import.meta.url));
      let held = 0;
      const give = () => {
        while (held < IN_FLIGHT && next < chunks.length) {
          worker.postMessage(chunks[next++]);
          held++;
        }
        if (held === 0) void worker.terminate().then(() => resolve(), reject);
      };
      worker.on("message", (batch: Array<{ i: number; value: TaskResult<T> }>) => {
        for (const { i, value } of batch) take(i, value);
        held--;
        done += batch.length;
        progress(done);
        give();
      });
      worker.on("error", reject);
      worker.on("exit", (code) => (code === 0 || code === 1 ? undefined : reject(new Error(`worker exited with ${code}`))));
      give();
    });
  if (threads !== undefined) callIn();
  // This thread takes chunks too: it has the library loaded already.
  const start = cpuMs();
  let doneHere = 0;
  let bytesHere = 0;
  // (the pace is taken from where the first PROBE_MS end: what came before was also compiling)
  let warm: { spent: number; done: number } | undefined;
  while (next < chunks.length) {
    const chunk = chunks[next++]!;
    // (alone until workers are called in: its rows read ahead as far as a batch goes)
    const read = await runChunk(task, chunk.jobs, settings, helpers.length > 0);
    for (const { i, value } of read) take(i, value);
    for (const unit of chunk.jobs) bytesHere += weight(unit);
    const n = read.length;
    doneHere += n;
    done += n;
    progress(done);
    // (by bytes where the files' sizes are known, else by files)
    const doneSoFar = bytes > 0 ? bytesHere : doneHere;
    const spent = cpuMs() - start;
    if (helpers.length === 0 && !warm && spent >= PROBE_MS) warm = { spent, done: doneSoFar };
    else if (helpers.length === 0 && warm && workersPay(spent - warm.spent, doneSoFar - warm.done, (bytes > 0 ? bytes : jobs.length) - warm.done)) callIn();
    // (the other threads' messages are heard between chunks)
    if (helpers.length > 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(helpers);
  return kept;
}

/** This thread's CPU time so far, in ms (user and system). */
function cpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/**
 * Whether to call workers in, `spent` ms (of CPU) into this thread's share, with `done` of `total` (files
 * or bytes) done here: once its pace is a measure (`PROBE_MS`), when what is left would take it
 * longer than `JOIN_MS`.
 */
export function workersPay(spent: number, done: number, total: number): boolean {
  return spent >= PROBE_MS && done > 0 && (spent * (total - done)) / done > JOIN_MS;
}

/**
 * The jobs as units: each with the later jobs of its `twin` key, which may be its bytes again (an
 * OpenClaw transcript in the database and the importer's copy of it), read with it (`runUnit`).
 */
export function unitsOf(jobs: readonly FileJob[]): Unit[] {
  const units: Unit[] = [];
  const byKey = new Map<string, Unit>();
  jobs.forEach((job, i) => {
    const first = job.twin === undefined ? undefined : byKey.get(job.twin);
    if (first) (first.twins ??= []).push({ ...job, i });
    else {
      const unit: Unit = { ...job, i };
      units.push(unit);
      if (job.twin !== undefined) byKey.set(job.twin, unit);
    }
  });
  return units;
}

/** What a unit weighs, in bytes: its job's (its twins, the same bytes, are mostly compared, not read). */
const weight = (unit: Unit): number => unit.stamp?.size ?? 0;

/** Units in chunks of at most `CHUNK_FILES` files or about `CHUNK_BYTES` bytes. */
function chunked(task: FileTask, units: readonly Unit[], settings: unknown): Chunk[] {
  const chunks: Chunk[] = [];
  let chunk: Chunk = { task, settings, jobs: [] };
  let bytes = 0;
  units.forEach((unit) => {
    chunk.jobs.push(unit);
    bytes += weight(unit);
    if (chunk.jobs.length >= CHUNK_FILES || bytes >= CHUNK_BYTES) {
      chunks.push(chunk);
      chunk = { task, settings, jobs: [] };
      bytes = 0;
    }
  });
  if (chunk.jobs.length > 0) chunks.push(chunk);
  return chunks;
}
