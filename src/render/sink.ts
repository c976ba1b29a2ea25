/**
 * Output that may be large (a tree of a million entries, a gigabyte context) is written piece by
 * piece, waiting when the stream is full, so that it is never held in memory whole.
 */
export interface Sink {
  write(chunk: string | Uint8Array): Promise<void> | void;
}

/** Chunks this large (a message's JSON copied from the file, a long text) go out as they are, not copied. */
const DIRECT = 65536;

export function streamSink(stream: NodeJS.WritableStream): Sink & { flush(): Promise<void> } {
  let buffered: Array<string | Uint8Array> = [];
  /** UTF-16 units of the strings plus bytes of the rest. */
  let size = 0;
  let closed = false;
  stream.once("error", () => (closed = true));
  const push = (chunk: string | Uint8Array): Promise<void> => {
    if (closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (stream.write(chunk)) resolve();
      else stream.once("drain", resolve);
    });
  };
  /**
   * The batch as one buffer, each string encoded straight into it (a string takes at most three
   * UTF-8 bytes a UTF-16 unit): joining the strings first, then encoding, copied them once more.
   */
  const joined = (): Uint8Array => {
    const out = Buffer.allocUnsafe(size * 3);
    let at = 0;
    for (const c of buffered) {
      if (typeof c === "string") at += out.write(c, at);
      else {
        out.set(c, at);
        at += c.length;
      }
    }
    buffered = [];
    size = 0;
    return out.subarray(0, at);
  };
  return {
    // Not async: a write that only joins the batch returns nothing to wait for (no promise each).
    write(chunk: string | Uint8Array) {
      if (chunk.length >= DIRECT) return size > 0 ? push(joined()).then(() => push(chunk)) : push(chunk);
      // Batch small writes: one syscall per ~64 KB, not one per line.
      buffered.push(chunk);
      size += chunk.length;
      if (size < DIRECT) return;
      return push(joined());
    },
    async flush() {
      if (size > 0) await push(joined());
    },
  };
}

/** An item that is JSON already (its UTF-8 bytes, written as they are, on one line). */
export class RawJson {
  constructor(readonly bytes: Uint8Array) {}
}

/**
 * Writes `{ ...head, [key]: [items…], ...tail }` as `JSON.stringify(value, null, 2)` would,
 * streaming the items; with `compactItems`, each item on one line (for items that can be
 * megabytes, such as messages with images, indenting them costs more than it gives).
 */
export async function writeJsonWithArray(out: Sink, before: Record<string, unknown>, key: string, items: Iterable<unknown>, after: Record<string, unknown>, compactItems = false): Promise<void> {
  const field = (k: string, v: unknown) => `  ${JSON.stringify(k)}: ${JSON.stringify(v, null, 2).replace(/\n/g, "\n  ")}`;
  const fields = Object.entries(before).filter(([, v]) => v !== undefined).map(([k, v]) => field(k, v));
  await out.write(`{\n${fields.map((f) => `${f},\n`).join("")}  ${JSON.stringify(key)}: [`);
  let first = true;
  for (const item of items) {
    const separator = first ? "\n    " : ",\n    ";
    first = false;
    if (item instanceof RawJson) {
      await out.write(separator);
      await out.write(item.bytes);
      continue;
    }
    await out.write(separator + (compactItems ? JSON.stringify(item) : JSON.stringify(item, null, 2).replace(/\n/g, "\n    ")));
  }
  await out.write(first ? "]" : "\n  ]");
  const tail = Object.entries(after).filter(([, v]) => v !== undefined).map(([k, v]) => field(k, v));
  await out.write(`${tail.map((f) => `,\n${f}`).join("")}\n}\n`);
}
