import { WASM } from "./classes-wasm.js";

/**
 * WebAssembly SIMD for the loop pass one spends most of its time in: `byteClasses` over every byte
 * of every line. Measured on the 200 MB linear benchmark session, 16 bytes at a time in WebAssembly
 * take 43-49 ms where the JavaScript word loop takes 154-176 ms (and copying the bytes in first
 * would eat half the gain), so the read chunk itself lives in the module's memory: `forEachLine`
 * borrows it, and a line that views it is classified in place. Anything else (a line pieced together
 * across chunks, a buffer from stdin) takes the JavaScript path, as does every line where
 * WebAssembly is unavailable (`node --jitless`).
 */

/** The largest chunk the memory holds (its size, 16 MiB + 64 KiB, less a page). */
export const SIMD_CHUNK = 16 * 1024 * 1024;

interface Simd {
  memory: ArrayBuffer;
  classes: (start: number, end: number) => number;
}

/** undefined: not loaded yet; null: unavailable. */
let simd: Simd | null | undefined;
let lent = false;

function load(): Simd | null {
  if (simd === undefined) {
    try {
      const { exports } = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(WASM, "base64")));
      simd = { memory: (exports.memory as WebAssembly.Memory).buffer, classes: exports.classes as Simd["classes"] };
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

/** `byteClasses` of `b[start..end)` when `b` views the module's memory; -1 when it does not. */
export function simdClasses(b: Uint8Array, start: number, end: number): number {
  return simd && b.buffer === simd.memory ? simd.classes(b.byteOffset + start, b.byteOffset + end) : -1;
}
