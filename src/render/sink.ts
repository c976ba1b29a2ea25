/**
 * Output that may be large (a tree of a million entries, a gigabyte context) is written piece by
 * piece, waiting when the stream is full, so that it is never held in memory whole.
 */
export interface Sink {
  write(text: string): Promise<void> | void;
}

export function streamSink(stream: NodeJS.WritableStream): Sink & { flush(): Promise<void> } {
  let buffered: string[] = [];
  let size = 0;
  let closed = false;
  stream.once("error", () => (closed = true));
  const push = (text: string): Promise<void> => {
    if (closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (stream.write(text)) resolve();
      else stream.once("drain", resolve);
    });
  };
  return {
    write(text: string) {
      // Batch small writes: one syscall per ~64 KB, not one per line.
      buffered.push(text);
      size += text.length;
      if (size < 65536) return;
      const chunk = buffered.join("");
      buffered = [];
      size = 0;
      return push(chunk);
    },
    async flush() {
      if (size > 0) await push(buffered.join(""));
      buffered = [];
      size = 0;
    },
  };
}

/** An item that is JSON text already (written as is, on one line). */
export class RawJson {
  constructor(readonly text: string) {}
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
    const json = item instanceof RawJson ? item.text : compactItems ? JSON.stringify(item) : JSON.stringify(item, null, 2).replace(/\n/g, "\n    ");
    await out.write(`${first ? "\n" : ",\n"}    ${json}`);
    first = false;
  }
  await out.write(first ? "]" : "\n  ]");
  const tail = Object.entries(after).filter(([, v]) => v !== undefined).map(([k, v]) => field(k, v));
  await out.write(`${tail.map((f) => `,\n${f}`).join("")}\n}\n`);
}
