import { zlib } from "../../format/common/builtins.js";

/**
 * zstd data decompressed whole, or an error when it is cut short or damaged. Node 22's
 * `zstdDecompressSync` returns what it could of a truncated frame without a word (Node 24
 * throws), so the frames are walked first: each must reach its last block (and its checksum).
 */
export function decompressZstd(bytes: Buffer): Buffer {
  const frames: Frame[] = [];
  const cut = incompleteAt(bytes, frames);
  if (cut !== undefined) throw new Error(`the data ends inside a zstd frame (byte ${cut} of ${bytes.length})`);
  // (frame by frame: Node 22 decompresses only the first of several)
  const { zstdDecompressSync } = zlib();
  return frames.length === 1 ? zstdDecompressSync(bytes) : Buffer.concat(frames.map(({ start, end }) => zstdDecompressSync(bytes.subarray(start, end))));
}

/**
 * Several zstd blobs, each of which must decompress to the length given for it (OpenClaw's
 * compressed rows record it), decompressed in one call where they can be: a call costs about 15 µs
 * of its own, as much as decoding a row of several KB (BENCHMARKS.md, "the SQLite era's rows").
 * One call is exact when every blob is one whole frame whose header declares that length: zstd
 * refuses a frame that decodes to another length than its header declares, so the output splits at
 * the declared lengths. Otherwise (several frames in a blob, no declared length, a Node that
 * decompresses only the first of concatenated frames), or when the one call fails, each blob is
 * decompressed on its own and `onEach` decides what its result means; the error names a blob.
 */
export function decompressZstdEach<T>(blobs: readonly Buffer[], lengths: readonly number[], onEach: (index: number, decompress: () => Buffer) => T): Array<Buffer | T> {
  if (blobs.length > 1 && concatenatedFramesRead() && blobs.every((b, i) => declaredLength(b) === lengths[i])) {
    const total = lengths.reduce((a, b) => a + b, 0);
    let whole: Buffer | undefined;
    try {
      whole = zlib().zstdDecompressSync(joined(blobs), { chunkSize: Math.max(64, total) });
    } catch {
      // one blob is damaged: each on its own says which
    }
    if (whole && whole.length === total) {
      const out: Array<Buffer | T> = [];
      let at = 0;
      for (const n of lengths) out.push(whole.subarray(at, (at += n)));
      return out;
    }
  }
  return blobs.map((b, i) => onEach(i, () => decompressZstd(b)));
}

/** The blobs run together: a view of them where they lie one after another in one buffer already (a batch's frames do), else a copy. */
function joined(blobs: readonly Buffer[]): Buffer {
  const first = blobs[0]!;
  let end = first.byteOffset + first.length;
  for (let i = 1; i < blobs.length; i++) {
    const b = blobs[i]!;
    if (b.buffer !== first.buffer || b.byteOffset !== end) return Buffer.concat(blobs);
    end += b.length;
  }
  return Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset);
}

/** Whether this Node's `zstdDecompressSync` reads every frame of concatenated ones (24 does; 22 stops after the first). */
let concatenated: boolean | undefined;
function concatenatedFramesRead(): boolean {
  if (concatenated === undefined) {
    const { zstdCompressSync, zstdDecompressSync } = zlib();
    concatenated = zstdDecompressSync(Buffer.concat([zstdCompressSync("a"), zstdCompressSync("b")])).toString("latin1") === "ab";
  }
  return concatenated;
}

/** The length a blob's one whole frame declares it decompresses to, or undefined (no such field, or not exactly one frame). */
function declaredLength(bytes: Buffer): number | undefined {
  const frames: Frame[] = [];
  if (incompleteAt(bytes, frames) !== undefined || frames.length !== 1 || frames[0]!.start !== 0 || frames[0]!.end !== bytes.length) return undefined;
  return frames[0]!.contentSize;
}

const MAGIC = 0xfd2fb528;

interface Frame {
  start: number;
  end: number;
  /** Frame_Content_Size, where the header gives it. */
  contentSize: number | undefined;
}

/** Where the frames stop making sense, or undefined when every frame is whole; `frames` hears each data frame's bounds. */
function incompleteAt(b: Buffer, frames: Frame[]): number | undefined {
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
    const fcsAt = at + 1 + (single ? 0 : 1) + dictSize;
    at = fcsAt + fcsSize;
    if (at > b.length) return b.length;
    const contentSize = fcsSize === 0 ? undefined : fcsSize === 1 ? b[fcsAt]! : fcsSize === 2 ? b.readUInt16LE(fcsAt) + 256 : fcsSize === 4 ? b.readUInt32LE(fcsAt) : Number(b.readBigUInt64LE(fcsAt));
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
    frames.push({ start, end: at, contentSize });
  }
  return undefined;
}
