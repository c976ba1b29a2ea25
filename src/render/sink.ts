import { BATCH_SIZE, ChunkBatch } from "../format/write/batch.js";

/**
 * Output that may be large (a tree of a million entries, a gigabyte context) is written piece by
 * piece, waiting when the stream is full, so that it is never held in memory whole.
 */
export interface Sink {
  write(chunk: string | Uint8Array): Promise<void> | void;
}

/**
 * What a write rejects with once the reader has gone (`| head` closed the pipe): the command stops
 * producing output, and `main` ends it quietly with exit 0, as rg does.
 */
export class OutputClosed extends Error {
  constructor() {
    super("the output was closed");
  }
}

export function streamSink(stream: NodeJS.WritableStream): Sink & { flush(): Promise<void> } {
  const batch = new ChunkBatch();
  let closed = false;
  /** Writes waiting for the stream to drain: a closed stream never drains, so they are told. */
  const waiting = new Set<() => void>();
  stream.on("error", () => {
    closed = true;
    for (const w of waiting) w();
    waiting.clear();
  });
  const push = (chunk: string | Uint8Array): Promise<void> => {
    if (closed) return Promise.reject(new OutputClosed());
    return new Promise((resolve, reject) => {
      if (stream.write(chunk)) return resolve();
      const done = () => {
        waiting.delete(done);
        stream.removeListener("drain", done);
        if (closed) reject(new OutputClosed());
        else resolve();
      };
      waiting.add(done);
      stream.once("drain", done);
    });
  };
  return {
    // Not async: a write that only joins the batch returns nothing to wait for (no promise each).
    write(chunk: string | Uint8Array) {
      // A chunk as large as a batch (a message's JSON copied from the file, a long text) goes as it is.
      if (chunk.length >= BATCH_SIZE) return batch.empty ? push(chunk) : push(batch.take()).then(() => push(chunk));
      if (batch.add(chunk)) return push(batch.take());
    },
    async flush() {
      if (!batch.empty) await push(batch.take());
    },
  };
}

/**
 * Writes every piece, waiting only when the sink is full: awaiting each write costs a microtask a
 * piece (BENCHMARKS.md, "the sink's batches").
 */
export async function writeAll(out: Sink, pieces: Iterable<string | Uint8Array>): Promise<void> {
  for (const piece of pieces) {
    const full = out.write(piece);
    if (full) await full;
  }
}

/**
 * The most characters a piece of output built line by line holds before it is handed to the sink
 * (well under V8's 128 KB regular object size, in UTF-16): a larger one is made outside the young
 * generation and freed only by a full collection, and a string of a window's thousands of lines
 * is one long rope the sink flattens to encode (BENCHMARKS.md, "output in small strings").
 */
export const SMALL_STRING = 16384;

/** An item that is JSON already (its UTF-8 bytes, written as they are, on one line). */
export class RawJson {
  constructor(readonly bytes: Uint8Array) {}
}

/** One JSON value a line (`--jsonl`), streamed: a `RawJson` item as its bytes, anything else stringified. */
export async function writeJsonLines(out: Sink, items: Iterable<unknown>): Promise<void> {
  const newline = "\n";
  await writeAll(out, (function* () {
    for (const item of items) {
      if (item instanceof RawJson) {
        yield item.bytes;
        yield newline;
      } else yield JSON.stringify(item) + newline;
    }
  })());
}

/**
 * Writes `{ ...head, [key]: [items…], ...tail }` as `JSON.stringify(value, null, 2)` would,
 * streaming the items; with `compactItems`, each item on one line (for items that can be
 * megabytes, such as messages with images, indenting them costs more than it gives).
 */
export async function writeJsonWithArray(out: Sink, before: Record<string, unknown>, key: string, items: Iterable<unknown>, after: Record<string, unknown>, compactItems = false): Promise<void> {
  const field = (k: string, v: unknown) => `  ${JSON.stringify(k)}: ${JSON.stringify(v, null, 2).replace(/\n/g, "\n  ")}`;
  const fields = (o: Record<string, unknown>) => Object.entries(o).filter(([, v]) => v !== undefined).map(([k, v]) => field(k, v));
  await writeAll(out, (function* () {
    yield `{\n${fields(before).map((f) => `${f},\n`).join("")}  ${JSON.stringify(key)}: [`;
    let first = true;
    for (const item of items) {
      const separator = first ? "\n    " : ",\n    ";
      first = false;
      if (item instanceof RawJson) {
        yield separator;
        yield item.bytes;
        continue;
      }
      yield separator + (compactItems ? JSON.stringify(item) : JSON.stringify(item, null, 2).replace(/\n/g, "\n    "));
    }
    yield first ? "]" : "\n  ]";
    yield `${fields(after).map((f) => `,\n${f}`).join("")}\n}\n`;
  })());
}
