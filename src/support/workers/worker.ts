/** A worker thread of `overFiles` (pool.ts): runs each chunk it is given and posts the results back. */
import { parentPort } from "node:worker_threads";
import { runTask, runUnit } from "./tasks.js";
import type { Chunk } from "./pool.js";

parentPort!.on("message", async (chunk: Chunk) => {
  const batch = [];
  for (const unit of chunk.jobs) {
    if (!unit.twins) batch.push({ i: unit.i, value: await runTask(chunk.task, unit, chunk.settings as never) });
    else batch.push(...(await runUnit(chunk.task, unit, chunk.settings as never)));
  }
  parentPort!.postMessage(batch);
});
