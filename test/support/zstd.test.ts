import { constants, zstdCompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decompressZstd } from "../../src/support/inputs/zstd.js";

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
