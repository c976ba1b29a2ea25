import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { streamSink } from "../../src/render/sink.js";
import { rng } from "../helpers/generate.js";

/** A stream that keeps what it is given, and says it is full every few writes (as a pipe does). */
function collector() {
  const chunks: Buffer[] = [];
  let writes = 0;
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      writes++;
      setImmediate(done);
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks), writes: () => writes };
}

describe("streamSink", () => {
  it("writes strings (as UTF-8) and bytes in order, batched, whatever their size and characters", async () => {
    const random = rng(3);
    const pieces = ["a", "é", "😀", "\ud800", "日本語", "\n", "x".repeat(70_000), "·"];
    const { stream, bytes, writes } = collector();
    const sink = streamSink(stream);
    const expected: Buffer[] = [];
    for (let i = 0; i < 3000; i++) {
      const text = pieces[Math.floor(random() * pieces.length)]!.repeat(1 + Math.floor(random() * 40));
      if (random() < 0.1) {
        const b = Buffer.from(text);
        expected.push(b);
        await sink.write(b);
      } else {
        expected.push(Buffer.from(text));
        await sink.write(text);
      }
    }
    await sink.flush();
    await new Promise<void>((resolve) => stream.end(resolve));
    expect(bytes().equals(Buffer.concat(expected))).toBe(true);
    expect(writes()).toBeLessThan(expected.length / 4);
  });
});
