import { describe, expect, it } from "vitest";
import { workersPay } from "../../src/support/workers/pool.js";

describe("when worker threads are called in", () => {
  it("not before this thread's pace is a measure, however much is left", () => {
    expect(workersPay(5, 1, 100_000)).toBe(false);
    expect(workersPay(49, 1, 100_000)).toBe(false);
  });

  it("when what is left, at this thread's pace, takes longer than a worker's start is worth", () => {
    // 3,000 small transcripts, 200 read in 53 ms: 740 ms left at that pace (380 in fact), done before a worker would pay
    expect(workersPay(53, 200, 3000)).toBe(false);
    // 300 large sessions, 13 done in 87 ms: 1.9 s left
    expect(workersPay(87, 13, 300)).toBe(true);
    // by bytes: 8 MB of 300 MB done in 60 ms: over 2 s left
    expect(workersPay(60, 8 << 20, 300 << 20)).toBe(true);
    // the last of a long run: little left
    expect(workersPay(900, 290, 300)).toBe(false);
  });

  it("not when nothing is done yet, or everything is", () => {
    expect(workersPay(100, 0, 10)).toBe(false);
    expect(workersPay(100, 10, 10)).toBe(false);
  });
});
