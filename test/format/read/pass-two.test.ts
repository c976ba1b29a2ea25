/**
 * Pass two's block reading (BlockReads): the lines asked for, in the order asked, whatever lies
 * between them; lines close together in one read, lines far apart each in a read of their own.
 */
import { describe, expect, it } from "vitest";
import { BlockReads, type LineRanges } from "../../../src/format/read/pass-two.js";
import { BufferSource, type ByteSource } from "../../../src/format/read/source.js";
import { rng } from "../../helpers/generate.js";

/** A source that counts the reads made of it and the bytes they took in. */
function counted(bytes: Buffer): ByteSource & { reads: number; bytesRead: number } {
  const inner = new BufferSource("test", bytes);
  const source = {
    name: "test",
    size: inner.size,
    reads: 0,
    bytesRead: 0,
    read(offset: number, length: number) {
      source.reads++;
      source.bytesRead += length;
      return inner.read(offset, length);
    },
    readInto(target: Buffer, offset: number) {
      source.reads++;
      const n = inner.readInto(target, offset);
      source.bytesRead += n;
      return n;
    },
    close() {},
  };
  return source;
}

/** A file of `n` lines of random lengths, and each line's offset and length. */
function file(n: number, seed: number): { bytes: Buffer; offsets: number[]; lengths: number[] } {
  const r = rng(seed);
  const offsets: number[] = [];
  const lengths: number[] = [];
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const text = `{"i":${i},"pad":"${"x".repeat(Math.floor(r() ** 3 * 3000))}"}`;
    offsets.push(at);
    lengths.push(text.length);
    parts.push(text + "\n");
    at += text.length + 1;
  }
  return { bytes: Buffer.from(parts.join("")), offsets, lengths };
}

const ranges = (lines: number[], f: { offsets: number[]; lengths: number[] }): LineRanges => ({
  count: lines.length,
  offset: (k) => f.offsets[lines[k]!]!,
  length: (k) => f.lengths[lines[k]!]!,
  omitted: () => false,
});

describe("BlockReads", () => {
  it("gives each line asked for, in order, from blocks that take in nearby lines", () => {
    const f = file(5000, 3);
    const source = counted(f.bytes);
    const all = Array.from({ length: 5000 }, (_, i) => i);
    const blocks = new BlockReads(source, ranges(all, f), 256 * 1024);
    for (let k = 0; k < all.length; k++) expect(JSON.parse(blocks.line(k).toString()).i).toBe(k);
    // consecutive lines: about one read a block
    expect(source.reads).toBeLessThanOrEqual(Math.ceil(f.bytes.length / (256 * 1024)) * 2);
  });

  it("reads lines far apart on their own instead of the bytes between them", () => {
    const f = file(20_000, 5);
    const source = counted(f.bytes);
    // every 40th line, in file order: they lie ~30 KB apart, farther than a read is worth bridging
    const sparse = Array.from({ length: 500 }, (_, k) => k * 40);
    const blocks = new BlockReads(source, ranges(sparse, f), 4 * 1024 * 1024);
    for (let k = 0; k < sparse.length; k++) expect(JSON.parse(blocks.line(k).toString()).i).toBe(sparse[k]);
    const wanted = sparse.reduce((n, i) => n + f.lengths[i]!, 0);
    // (bridging every gap would read nearly the whole file)
    expect(source.bytesRead).toBeLessThan(wanted + sparse.length * 16 * 1024);
    expect(source.bytesRead).toBeLessThan(f.bytes.length / 4);
  });
});
