import { describeSession, type SessionRow } from "./ls-rows.js";
import { readUsage, type UsageFile } from "./usage-read.js";
import type { FileJob } from "./workers.js";

/** What a worker thread can do with a file: `ls`'s row, `usage`'s records. */
const TASKS = {
  describe: (job: FileJob): Promise<SessionRow> => describeSession(job.path, job.stamp),
  usage: (job: FileJob): Promise<UsageFile> => readUsage(job.path),
};

export type FileTask = keyof typeof TASKS;
export type TaskResult<T extends FileTask> = Awaited<ReturnType<(typeof TASKS)[T]>>;

export function runTask<T extends FileTask>(task: T, job: FileJob): Promise<TaskResult<T>> {
  return TASKS[task](job) as Promise<TaskResult<T>>;
}
