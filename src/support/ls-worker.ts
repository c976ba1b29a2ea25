/** A worker thread of `ls`: describes its share of the sessions and posts the rows back in batches. */
import { parentPort, workerData } from "node:worker_threads";
import type { FileStamp } from "./ls-cache.js";
import { describeSession, type SessionRow } from "./ls-rows.js";

/**
 * Rows per message: a message per row took a twentieth of a worker's time on a 5,000-session
 * store; batches of this size still let the progress line move.
 */
const BATCH = 32;

let batch: Array<{ i: number; row: SessionRow }> = [];
for (const job of workerData as Array<{ i: number; path: string; stamp: FileStamp | undefined }>) {
  batch.push({ i: job.i, row: await describeSession(job.path, job.stamp) });
  if (batch.length === BATCH) {
    parentPort!.postMessage(batch);
    batch = [];
  }
}
if (batch.length > 0) parentPort!.postMessage(batch);
