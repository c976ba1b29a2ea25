/**
 * Output in batches: many small chunks (lines, pieces of Markdown) become one write of ~64 KB,
 * strings encoded as UTF-8 straight into the batch's buffer as they come, bytes copied (they may
 * view a buffer the caller reuses). Joining strings first and encoding the join copied every byte
 * once more, and a string built around a long text is encoded by a slower path than the text
 * itself (see render/export/document.ts's `Pieces`).
 */
export const BATCH_SIZE = 65536;

export class ChunkBatch {
  private buf = Buffer.allocUnsafe(4 * BATCH_SIZE);
  private used = 0;

  get empty(): boolean {
    return this.used === 0;
  }

  /** Adds a chunk; true when the batch is full and should be taken. */
  add(chunk: string | Uint8Array): boolean {
    // A string takes at most three UTF-8 bytes a UTF-16 unit (a lone surrogate: EF BF BD).
    const need = typeof chunk === "string" ? chunk.length * 3 : chunk.length;
    if (this.used + need > this.buf.length) {
      const bigger = Buffer.allocUnsafe(2 * (this.used + need));
      this.buf.copy(bigger, 0, 0, this.used);
      this.buf = bigger;
    }
    if (typeof chunk === "string") this.used += this.buf.write(chunk, this.used);
    else {
      this.buf.set(chunk, this.used);
      this.used += chunk.length;
    }
    return this.used >= BATCH_SIZE;
  }

  /** The batch's bytes, emptied; the buffer is handed over (a stream may hold it), not reused. */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.used);
    this.buf = Buffer.allocUnsafe(4 * BATCH_SIZE);
    this.used = 0;
    return out;
  }
}
