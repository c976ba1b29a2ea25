/**
 * A worker thread of `export`: renders the batches of a long branch it is sent and posts each
 * one's text and totals back; the main thread writes them in order (see `export.ts`).
 */
import { parentPort, workerData } from "node:worker_threads";
import { FileSource, type LineSpan } from "../format/index.js";
import { EntryRenderer, renderBatch, type RenderSetup } from "../render/export-batch.js";

export interface BatchRequest {
  id: number;
  spans: LineSpan[];
}

const { file, setup } = workerData as { file: string; setup: RenderSetup };
const source = new FileSource(file);
const renderer = new EntryRenderer(setup);
parentPort!.on("message", (request: BatchRequest | null) => {
  if (request === null) {
    source.close();
    parentPort!.close();
    return;
  }
  try {
    const text = renderBatch(source, request.spans, renderer);
    parentPort!.postMessage({ id: request.id, text, totals: renderer.takeTotals() });
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: (error as Error).message });
  }
});
