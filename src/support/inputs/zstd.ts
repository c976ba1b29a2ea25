import { zstdDecompressSync } from "node:zlib";

/**
 * zstd data decompressed whole, or an error when it is cut short or damaged. Node 22's
 * `zstdDecompressSync` returns what it could of a truncated frame without a word (Node 24
 * throws), so the frames are walked first: each must reach its last block (and its checksum).
 */
export function decompressZstd(bytes: Buffer): Buffer {
  const frames: Array<[number, number]> = [];
  const cut = incompleteAt(bytes, frames);
  if (cut !== undefined) throw new Error(`the data ends inside a zstd frame (byte ${cut} of ${bytes.length})`);
  // (frame by frame: Node 22 decompresses only the first of several)
  return frames.length === 1 ? zstdDecompressSync(bytes) : Buffer.concat(frames.map(([a, b]) => zstdDecompressSync(bytes.subarray(a, b))));
}

const MAGIC = 0xfd2fb528;

/** Where the frames stop making sense, or undefined when every frame is whole; `frames` hears each data frame's bounds. */
function incompleteAt(b: Buffer, frames: Array<[number, number]>): number | undefined {
  let at = 0;
  if (b.length === 0) return 0;
  while (at < b.length) {
    if (at + 4 > b.length) return at;
    const magic = b.readUInt32LE(at);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      // a skippable frame: its size, then that many bytes
      if (at + 8 > b.length) return at;
      at += 8 + b.readUInt32LE(at + 4);
      if (at > b.length) return b.length;
      continue;
    }
    if (magic !== MAGIC) return at;
    const start = at;
    at += 4;
    if (at >= b.length) return at;
    const fhd = b[at]!;
    const single = (fhd >> 5) & 1;
    const checksum = (fhd >> 2) & 1;
    const dictSize = [0, 1, 2, 4][fhd & 3]!;
    const fcsSize = [single ? 1 : 0, 2, 4, 8][fhd >> 6]!;
    at += 1 + (single ? 0 : 1) + dictSize + fcsSize;
    for (;;) {
      if (at + 3 > b.length) return Math.min(at, b.length);
      const h = b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
      const type = (h >> 1) & 3;
      if (type === 3) return at;
      at += 3 + (type === 1 ? 1 : h >>> 3);
      if (at > b.length) return b.length;
      if (h & 1) break;
    }
    if (checksum) {
      at += 4;
      if (at > b.length) return b.length;
    }
    frames.push([start, at]);
  }
  return undefined;
}
