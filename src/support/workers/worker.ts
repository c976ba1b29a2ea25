/** A worker thread of `overFiles` (pool.ts): runs each chunk it is given and posts the results back. */
import { parentPort } from "node:worker_threads";
import { runChunk, transferable } from "./tasks.js";
import type { Chunk } from "./pool.js";

parentPort!.on("message", async (chunk: Chunk) => {
  const results = await runChunk(chunk.task, chunk.jobs, chunk.settings as never, true);
  // (buffers a result owns are handed over, not copied)
  parentPort!.postMessage(results, results.flatMap((r) => transferable(r.value)));
});
