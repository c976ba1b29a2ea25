import { describe, expect, it } from "vitest";
import { workersPay } from "../../src/support/workers/pool.js";

describe("when worker threads are called in", () => {
  it("not before this thread's pace is a measure, however much is left", () => {
    expect(workersPay(5, 1, 100_000)).toBe(false);
    expect(workersPay(24, 1, 100_000)).toBe(false);
  });

  it("when what is left, at this thread's pace, takes longer than a worker's start is worth", () => {
    // a store of 3,000 small files, 600 done in 30 ms: 120 ms left, done before a worker would be ready
    expect(workersPay(30, 600, 3000)).toBe(false);
    // 300 large sessions, 10 done in 30 ms: 870 ms left
    expect(workersPay(30, 10, 300)).toBe(true);
    // by bytes: 8 MB of 300 MB done in 30 ms: about a second left
    expect(workersPay(30, 8 << 20, 300 << 20)).toBe(true);
    // the last of a long run: little left
    expect(workersPay(900, 290, 300)).toBe(false);
  });

  it("not when nothing is done yet, or everything is", () => {
    expect(workersPay(100, 0, 10)).toBe(false);
    expect(workersPay(100, 10, 10)).toBe(false);
  });
});
