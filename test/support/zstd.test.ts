import { constants, zstdCompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decompressZstd, decompressZstdEach } from "../../src/stores/common/zstd.js";

describe("decompressZstd", () => {
  const text = Buffer.from(Array.from({ length: 400 }, (_, i) => JSON.stringify({ type: "message", id: `e${i}`, text: "x".repeat(i % 37) })).join("\n") + "\n");
  const first = zstdCompressSync(text.subarray(0, 1000));
  const forms: Array<[string, Buffer]> = [
    ["plain", zstdCompressSync(text)],
    ["with a checksum", zstdCompressSync(text, { params: { [constants.ZSTD_c_checksumFlag]: 1 } })],
    ["two frames", Buffer.concat([first, zstdCompressSync(text.subarray(1000))])],
  ];

  it.each(forms)("%s: the whole decompresses; cut at any byte, it is an error, never a shorter text", (name, packed) => {
    expect(Buffer.compare(decompressZstd(packed), text)).toBe(0);
    for (let cut = 0; cut < packed.length; cut++) {
      // (cut between two frames, what is left is one whole frame: nothing says more was meant)
      if (name === "two frames" && cut === first.length) expect(Buffer.compare(decompressZstd(packed.subarray(0, cut)), text.subarray(0, 1000))).toBe(0);
      else expect(() => decompressZstd(packed.subarray(0, cut)), `cut at ${cut}`).toThrow();
    }
  });

  it("data that is not zstd is an error", () => {
    expect(() => decompressZstd(Buffer.from('{"type":"session"}\n'))).toThrow();
  });
});

describe("decompressZstdEach", () => {
  const lines = Array.from({ length: 40 }, (_, i) => Buffer.from(JSON.stringify({ type: "message", id: `e${i}`, text: "y".repeat(500 + i * 97) })));
  const each = (i: number, decompress: () => Buffer) => {
    try {
      return decompress();
    } catch (error) {
      return new Error(`blob ${i}: ${(error as Error).message}`);
    }
  };

  it("blobs of one frame each, declaring the lengths given, come back each as its text", () => {
    const out = decompressZstdEach(lines.map((l) => zstdCompressSync(l)), lines.map((l) => l.length), each);
    out.forEach((b, i) => expect(Buffer.compare(b as Buffer, lines[i]!), `blob ${i}`).toBe(0));
  });

  it("frames without a declared length, and a blob of two frames, come back as their texts", () => {
    const blobs = lines.map((l, i) => (i % 3 === 0 ? zstdCompressSync(l, { params: { [constants.ZSTD_c_contentSizeFlag]: 0 } }) : i % 3 === 1 ? Buffer.concat([zstdCompressSync(l.subarray(0, 100)), zstdCompressSync(l.subarray(100))]) : zstdCompressSync(l)));
    const out = decompressZstdEach(blobs, lines.map((l) => l.length), each);
    out.forEach((b, i) => expect(Buffer.compare(b as Buffer, lines[i]!), `blob ${i}`).toBe(0));
  });

  it("a damaged blob among whole ones is its own error; the others come back whole", () => {
    const blobs = lines.map((l) => zstdCompressSync(l));
    const bad = Buffer.from(blobs[7]!);
    bad[bad.length - 2] ^= 0xff;
    blobs[7] = bad;
    const out = decompressZstdEach(blobs, lines.map((l) => l.length), each);
    expect(out[7]).toBeInstanceOf(Error);
    out.forEach((b, i) => i !== 7 && expect(Buffer.compare(b as Buffer, lines[i]!), `blob ${i}`).toBe(0));
  });

  it("a length given that its frame does not declare is not trusted to split the batch: each blob on its own, as it is", () => {
    const blobs = lines.map((l) => zstdCompressSync(l));
    const lengths = lines.map((l) => l.length);
    // (two wrong lengths that sum to the right total: split by them, two texts would be cut wrong)
    lengths[3]! += 5;
    lengths[4]! -= 5;
    const out = decompressZstdEach(blobs, lengths, each);
    out.forEach((b, i) => expect(Buffer.compare(b as Buffer, lines[i]!), `blob ${i}`).toBe(0));
  });
});
