import { WASM } from "./scan-wasm.js";

/**
 * WebAssembly SIMD for the loops pass one spends most of its time in: `byteClasses` over every byte
 * of every line, and the scanner (scan.wat). Measured on the 200 MB linear benchmark session, 16
 * bytes at a time in WebAssembly take 43-49 ms where the JavaScript word loop takes 154-176 ms (and
 * copying the bytes in first would eat half the gain), so the read chunk itself lives in the
 * module's memory: `forEachLine` borrows it, and a line that views it is scanned in place. Anything
 * else (a line pieced together across chunks, a buffer from stdin) takes the JavaScript path, as
 * does every line where WebAssembly is unavailable (`node --jitless`).
 */

/** The largest chunk the memory holds (its size, 16 MiB + 64 KiB, less a page). */
export const SIMD_CHUNK = 16 * 1024 * 1024;

/** Where `scan` leaves its slots (scan.wat's OUT). */
const OUT = 16 * 1024 * 1024 + 32 * 1024;

interface Simd {
  memory: ArrayBuffer;
  classes: (start: number, end: number) => number;
  scan: (start: number, end: number, body: number) => number;
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
      simd = { memory, classes: exports.classes as Simd["classes"], scan: exports.scan as Simd["scan"] };
      simdSlots = new Int32Array(memory, OUT, 32);
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

export function returnChunk(chunk: Buffer): void {
  if (simd && chunk.buffer === simd.memory) lent = false;
}

/** `byteClasses` of `b[start..end)` when `b` views the module's memory; -1 when it does not (pass one reaches it through `scan`; the tests check it against the JavaScript loop). */
export function simdClasses(b: Uint8Array, start: number, end: number): number {
  return simd && b.buffer === simd.memory ? simd.classes(b.byteOffset + start, b.byteOffset + end) : -1;
}

/**
 * `scanLine`'s verdict on `b[0..end)` (`body`: end less a trailing CR) when `b` views the module's
 * memory, its fields left in `simdSlots`; -1 when it does not.
 */
export function simdScan(b: Uint8Array, end: number, body: number): number {
  if (!simd || b.buffer !== simd.memory) return -1;
  const at = b.byteOffset;
  return simd.scan(at, at + end, at + body);
}
