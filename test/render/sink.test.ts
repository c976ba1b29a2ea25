import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createFile } from "../../src/format/write/atomic.js";
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

describe("createFile's batched writes", () => {
  it("keep the bytes a chunk held when it was written, though the caller reuses its buffer", () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-batch-"));
    const path = join(dir, "out.txt");
    const line = Buffer.from("abc\n");
    createFile(path, (write) => {
      write(line);
      line.fill(0x78, 0, 3); // "xxx\n"
      write(line);
      write("é😀\n");
    });
    expect(readFileSync(path, "utf8")).toBe("abc\nxxx\né😀\n");
  });
});
