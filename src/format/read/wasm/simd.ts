import { WASM } from "./scan-wasm.js";

/**
 * The WebAssembly scanner (scan.wat) and the memory it scans: pass one's read chunk lives in the
 * module's memory (`borrowChunk`), so a line of it is scanned where it lies, without a copy.
 * Anything else (a line pieced together across chunks) is not scanned here, nor is anything where
 * WebAssembly is unavailable (`node --jitless`): the caller parses those with `JSON.parse`.
 */

/** The largest chunk the memory holds (its size, 16 MiB + 192 KiB, less three pages). */
const SIMD_CHUNK = 16 * 1024 * 1024;

/** Where `scan` leaves its slots (scan.wat's OUT): the slots, then the tool-call pairs at +1024 bytes, the content's texts at +1536. */
const OUT = 16 * 1024 * 1024 + 32 * 1024;

interface Simd {
  memory: ArrayBuffer;
  scan: (start: number, end: number, body: number, texts: number) => number;
  find: (start: number, end: number) => number;
  findNeedle: (start: number, end: number, n: number, fold: number) => number;
  anchors: (start: number, end: number, from: number) => number;
}

/** The slots (`Slot` in scanner.ts) of the last `simdScan`, positions as addresses in the memory. */
export let simdSlots = new Int32Array(0);

/** undefined: not loaded yet; null: unavailable. */
let simd: Simd | null | undefined;
let lent = false;

function load(): Simd | null {
  if (simd === undefined) {
    try {
      const { exports } = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(WASM, "base64")));
      const memory = (exports.memory as WebAssembly.Memory).buffer;
      simd = { memory, scan: exports.scan as Simd["scan"], find: exports.find as Simd["find"], findNeedle: exports.findNeedle as Simd["findNeedle"], anchors: exports.anchors as Simd["anchors"] };
      simdSlots = new Int32Array(memory, OUT, 1024);
    } catch {
      simd = null;
    }
  }
  return simd;
}

/**
 * A read buffer of `size` bytes in the module's memory, or undefined when it is lent out already,
 * too small, or WebAssembly is unavailable. Give it back with `returnChunk` when done.
 */
export function borrowChunk(size: number): Buffer | undefined {
  if (lent || size > SIMD_CHUNK) return undefined;
  const s = load();
  if (!s) return undefined;
  lent = true;
  return Buffer.from(s.memory, 0, size);
}

/**
 * The module's memory where a chunk is lent, to copy a line into and scan it there at once (pass
 * two's previews: no chunk is borrowed for it, as nothing runs between the copy and the scan);
 * undefined while a chunk is lent out, or where WebAssembly is unavailable.
 */
export function scratch(): Buffer | undefined {
  if (lent) return undefined;
  const s = load();
  if (!s) return undefined;
  scratchView ??= Buffer.from(s.memory, 0, SIMD_CHUNK);
  return scratchView;
}
let scratchView: Buffer | undefined;

export function returnChunk(chunk: Buffer): void {
  if (simd && chunk.buffer === simd.memory) lent = false;
}

/** Whether `b` views the module's memory (so a line of it can be scanned there). */
export function inModuleMemory(b: Uint8Array): boolean {
  return !!simd && b.buffer === simd.memory;
}

/**
 * `scanLine`'s verdict on `b[start..end)` (`body`: end less a trailing CR) when `b` views the
 * module's memory, its fields left in `simdSlots`; -1 when it does not. With `texts`, what the
 * content's blocks hold that grep reads is kept too (`scanShape`; pass one would pay 3 % for it).
 */
export function simdScan(b: Uint8Array, start: number, end: number, body: number, texts = false): number {
  if (!simd || b.buffer !== simd.memory) return -1;
  const at = b.byteOffset;
  return simd.scan(at + start, at + end, at + body, texts ? 1 : 0);
}

/**
 * Where the first `"usage"` or `\u` starts in `b[start..end)` (an index into `b`; the match may
 * run past `end`), -1 when none does; -2 when `b` does not view the module's memory.
 */
export function simdFind(b: Uint8Array, start: number, end: number): number {
  if (!simd || b.buffer !== simd.memory) return -2;
  const at = b.byteOffset;
  const found = simd.find(at + start, at + end);
  return found < 0 ? -1 : found - at;
}

/** Where `findNeedle` reads its needle (scan.wat's NEEDLE: OUT + 4 KiB), and the longest it takes. */
const NEEDLE = OUT + 4096;
const MAX_NEEDLE = 1024;
let needleSet: Uint8Array | undefined;

/**
 * Where `needle` (at most `MAX_NEEDLE` bytes; lower-case ASCII letters when `fold`) first starts
 * in `b[start..end)`, ASCII letters in either case when `fold` (an index into `b`; the match may
 * run past `end`), -1 when nowhere; -2 when `b` does not view the module's memory.
 */
export function simdFindNeedle(b: Uint8Array, start: number, end: number, needle: Uint8Array, fold: boolean): number {
  if (!simd || b.buffer !== simd.memory || needle.length === 0 || needle.length > MAX_NEEDLE) return -2;
  if (needleSet !== needle) {
    new Uint8Array(simd.memory, NEEDLE, needle.length).set(needle);
    needleSet = needle;
  }
  const at = b.byteOffset;
  const found = simd.findNeedle(at + start, at + end, needle.length, fold ? 1 : 0);
  return found < 0 ? -1 : found - at;
}

/** Where `anchors` reads its table of pairs and its buckets (scan.wat's PAIRS and BUCKETS, a page each), and what was written there last. */
const PAIRS = 16 * 1024 * 1024 + 64 * 1024;
const BUCKETS = PAIRS + 64 * 1024;
let anchorsSet: AnchorTables | undefined;

/**
 * What `simdAnchors` looks for: `pairs`, 65,536 bytes, a pair's mark (0: none; 1: a NUL byte's, a
 * hit at once; else its bucket), and `buckets`, a page as scan.wat's `anchors` reads it at BUCKETS
 * (`BUCKETS_AT`: where it lies, for the addresses it holds).
 */
export interface AnchorTables {
  pairs: Uint8Array;
  buckets: Uint8Array;
}

/** Where the buckets' page lies in the module's memory (their entries' addresses count from there). */
export const BUCKETS_AT = BUCKETS;

/**
 * The first position p in `b[from..end - 1)` where a pair `tables` marks is a NUL byte's or starts
 * an anchor whole within `b[start..end)` (an index into `b`), -1 when none does; -2 when `b` does
 * not view the module's memory. `redact`'s line prefilter (format/redact/anchors.ts).
 */
export function simdAnchors(b: Uint8Array, start: number, end: number, from: number, tables: AnchorTables): number {
  if (!simd || b.buffer !== simd.memory) return -2;
  if (anchorsSet !== tables) {
    new Uint8Array(simd.memory, PAIRS, 65536).set(tables.pairs);
    new Uint8Array(simd.memory, BUCKETS, 65536).set(tables.buckets);
    anchorsSet = tables;
  }
  const at = b.byteOffset;
  const found = simd.anchors(at + start, at + end, at + from);
  return found < 0 ? -1 : found - at;
}
