/**
 * A search through a line's bytes that runs ahead over the read chunk rather than line by line:
 * `Buffer.indexOf` and the scanner's SIMD searches pay a start-up per call, and most lines hold
 * no hit. The next hit is searched once (within a window: a search to the chunk's end would run
 * through bytes no read has filled), and each line after asks whether it lies within it. `usage`
 * (a `"usage"` key) and `grep` (the pattern's needle, an escape, a title's line) search so.
 */
export class ChunkSearch {
  private chunk: Buffer | undefined;
  private lastStart = -1;
  /** The first hit at or after the last search's start (-1: none before `searchedTo`). */
  private at = -1;
  /** No hit starts between the last search's start and here but `at`. */
  private searchedTo = 0;

  /**
   * `find`: where the first hit starts in `chunk[from..limit)` (-1 for none; it may read past
   * `limit` to check a hit that starts before it); `lengthAt`: the length of the hit at `at`;
   * `skip` (optional): for a hit at `at` in the line from `lineStart` to `end` that does not count,
   * where to search on from (else `at`).
   */
  constructor(
    private readonly find: (chunk: Buffer, from: number, limit: number) => number,
    private readonly lengthAt: (chunk: Buffer, at: number) => number,
    private readonly skip?: (chunk: Buffer, lineStart: number, at: number, end: number) => number,
  ) {}

  /** Where the hit `within` last found starts. */
  get hit(): number {
    return this.at;
  }

  /** Whether `chunk[start..end)` (a line; lines are asked for in order) holds a whole hit. */
  within(chunk: Buffer, start: number, end: number): boolean {
    // a new read refills the chunk from its front: its lines start afresh
    if (chunk !== this.chunk || start <= this.lastStart) {
      this.chunk = chunk;
      this.at = -1;
      this.searchedTo = start;
    }
    this.lastStart = start;
    while (this.at < start && end > this.searchedTo) {
      const from = Math.max(start, this.searchedTo);
      const limit = Math.min(chunk.length, Math.max(end, from + WINDOW));
      const at = this.find(chunk, from, limit);
      this.at = at;
      this.searchedTo = at < 0 ? limit : at + 1;
      if (this.skip && at >= start && at < end) {
        const past = this.skip(chunk, start, at, end);
        if (past > at) {
          this.at = -1;
          this.searchedTo = past;
        }
      }
    }
    return this.at >= start && this.at + this.lengthAt(chunk, this.at) <= end;
  }
}

const WINDOW = 64 * 1024;
