import { grepPath, type GrepFileResult, type GrepSettings } from "../grep/read.js";
import { describeSession, type SessionRow } from "../ls/rows.js";
import { readUsage, type UsageFile } from "../usage/read.js";
import type { FileStamp } from "../inputs/stamp.js";

/** A file to read, with its stamp (what the caches key it by). */
export interface FileJob {
  path: string;
  stamp: FileStamp | undefined;
}

/** What a worker thread can do with a file: `ls`'s row, `usage`'s records, `grep`'s matches. */
const TASKS = {
  describe: (job: FileJob): Promise<SessionRow> => describeSession(job.path, job.stamp),
  usage: (job: FileJob): Promise<UsageFile> => readUsage(job.path),
  grep: (job: FileJob, settings: GrepSettings): Promise<GrepFileResult> => grepPath(job.path, settings),
};

export type FileTask = keyof typeof TASKS;
export type TaskResult<T extends FileTask> = Awaited<ReturnType<(typeof TASKS)[T]>>;
export type TaskSettings<T extends FileTask> = Parameters<(typeof TASKS)[T]>[1];

export function runTask<T extends FileTask>(task: T, job: FileJob, settings?: TaskSettings<T>): Promise<TaskResult<T>> {
  return (TASKS[task] as (job: FileJob, settings?: unknown) => Promise<TaskResult<T>>)(job, settings);
}
