/** A worker thread of `overFiles` (pool.ts): runs each chunk it is given and posts the results back. */
import { parentPort } from "node:worker_threads";
import { runTask } from "./tasks.js";
import type { Chunk } from "./pool.js";

parentPort!.on("message", async (chunk: Chunk) => {
  const batch = [];
  for (const job of chunk.jobs) batch.push({ i: job.i, value: await runTask(chunk.task, job, chunk.settings as never) });
  parentPort!.postMessage(batch);
});
