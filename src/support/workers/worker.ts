/** A worker thread of `overFiles` (pool.ts): runs each chunk it is given and posts the results back. */
import { parentPort } from "node:worker_threads";
import { runChunk } from "./tasks.js";
import type { Chunk } from "./pool.js";

parentPort!.on("message", async (chunk: Chunk) => {
  parentPort!.postMessage(await runChunk(chunk.task, chunk.jobs, chunk.settings as never, true));
});
