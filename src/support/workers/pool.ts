import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { FileJob, FileTask, TaskResult, TaskSettings } from "./tasks.js";

/**
 * Reading many session files at once (`ls`'s rows, `usage`'s records): on several cores, split
 * among worker threads (scanning is CPU-bound once the files are in the page cache). Jobs are
 * handed out a chunk at a time as each worker finishes its last, so that one large session does
 * not leave the other workers idle; results come back in the jobs' order.
 */

/** Below this weight (a file for each 64, a unit for each 64 MB), starting workers costs more than it saves. */
const FILES_A_UNIT = 64;
const BYTES_A_UNIT = 64 * 1024 * 1024;

/**
 * Jobs a message carries: a message a file took a twentieth of a worker's time on a 5,000-session
 * store (`ls`); a chunk this size still lets the progress bar move.
 */
const CHUNK_FILES = 32;
const CHUNK_BYTES = 8 * 1024 * 1024;

/** What the worker threads are told: the task, its settings, and the jobs of one chunk, with their indices. */
export interface Chunk {
  task: FileTask;
  settings: unknown;
  jobs: Array<FileJob & { i: number }>;
}

/**
 * Runs `task` on every job, with `settings` (what the task needs besides the file: `grep`'s
 * pattern; structured-cloneable); `progress` is called with how many are done. `threads`: at
 * most this many threads (1: this one only).
 */
export async function overFiles<T extends FileTask>(task: T, jobs: readonly FileJob[], progress: (done: number) => void, threads = availableParallelism(), settings?: TaskSettings<T>): Promise<Array<TaskResult<T>>> {
  const bytes = jobs.reduce((n, j) => n + (j.stamp?.size ?? 0), 0);
  const workers = Math.min(threads, Math.floor(jobs.length / FILES_A_UNIT + bytes / BYTES_A_UNIT), jobs.length);
  if (workers < 2) {
    const { runTask } = await import("./tasks.js");
    const results: Array<TaskResult<T>> = [];
    for (const [i, job] of jobs.entries()) {
      progress(i);
      results.push(await runTask(task, job, settings));
    }
    return results;
  }
  const chunks = chunked(task, jobs, settings);
  const results: Array<TaskResult<T>> = new Array(jobs.length);
  let done = 0;
  let next = 0;
  const { runTask } = await import("./tasks.js");
  // This thread takes chunks too, beside `workers - 1` threads: a thread costs its start (the
  // library loaded and compiled again), and this one has it loaded already.
  const here = async (): Promise<void> => {
    while (next < chunks.length) {
      const chunk = chunks[next++]!;
      for (const job of chunk.jobs) results[job.i] = await runTask(task, job, settings);
      done += chunk.jobs.length;
      progress(done);
      // (the other threads' messages are heard between chunks)
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all([
    here(),
    ...Array.from({ length: workers - 1 }, () => {
      return new Promise<void>((resolve, reject) => {
        const worker = new Worker(new URL("./worker.js", import.meta.url));
        const give = () => {
          if (next < chunks.length) worker.postMessage(chunks[next++]);
          else void worker.terminate().then(() => resolve(), reject);
        };
        worker.on("message", (batch: Array<{ i: number; value: TaskResult<T> }>) => {
          for (const { i, value } of batch) results[i] = value;
          done += batch.length;
          progress(done);
          give();
        });
        worker.on("error", reject);
        worker.on("exit", (code) => (code === 0 || code === 1 ? undefined : reject(new Error(`worker exited with ${code}`))));
        give();
      });
    }),
  ]);
  return results;
}

/** Jobs in chunks of at most `CHUNK_FILES` files or about `CHUNK_BYTES` bytes. */
function chunked(task: FileTask, jobs: readonly FileJob[], settings: unknown): Chunk[] {
  const chunks: Chunk[] = [];
  let chunk: Chunk = { task, settings, jobs: [] };
  let bytes = 0;
  jobs.forEach((job, i) => {
    chunk.jobs.push({ ...job, i });
    bytes += job.stamp?.size ?? 0;
    if (chunk.jobs.length >= CHUNK_FILES || bytes >= CHUNK_BYTES) {
      chunks.push(chunk);
      chunk = { task, settings, jobs: [] };
      bytes = 0;
    }
  });
  if (chunk.jobs.length > 0) chunks.push(chunk);
  return chunks;
}
