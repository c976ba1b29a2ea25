/** A worker thread of `ls`: describes its share of the sessions and posts each row back. */
import { parentPort, workerData } from "node:worker_threads";
import type { FileStamp } from "./ls-cache.js";
import { describeSession } from "./ls-describe.js";

for (const job of workerData as Array<{ i: number; path: string; stamp: FileStamp | undefined }>) {
  parentPort!.postMessage({ i: job.i, row: await describeSession(job.path, job.stamp) });
}
