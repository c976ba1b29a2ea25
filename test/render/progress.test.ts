import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { PROGRESS_AFTER_MS, Progress, progressFrame } from "../../src/render/progress.js";

describe("progressFrame", () => {
  it("is exactly as wide as asked, whatever its label", () => {
    for (const label of ["", "sessions", "会话/很长的路径/".repeat(10), "جلسة طويلة جدا ".repeat(8), "a\u001b[31mred\u0007"]) {
      for (const columns of [20, 40, 79]) expect(stringWidth(progressFrame(3, 7, label, columns))).toBe(columns);
    }
  });

  it("fills the bar by the share done and says the count", () => {
    expect(progressFrame(0, 4, "x", 79).startsWith(`[${" ".repeat(30)}] 0/4 x`)).toBe(true);
    expect(progressFrame(2, 4, "x", 79).startsWith(`[${"#".repeat(15)}${" ".repeat(15)}] 2/4 x`)).toBe(true);
  });

  it("shows no control character of a label", () => {
    expect(progressFrame(1, 2, "a\u001b[2Jb\rc", 60)).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe("Progress: when a bar is drawn", () => {
  it("draws nothing for a run that ends before it has gone on for a while, and clears nothing", () => {
    const bar = new Progress(40);
    expect(bar.update(0, 3, "a", 1000)).toBe("");
    expect(bar.update(1, 3, "b", 1000 + PROGRESS_AFTER_MS - 1)).toBe("");
    expect(bar.update(3, 3, "", 1000 + PROGRESS_AFTER_MS + 50)).toBe("");
  });

  it("draws once the run has gone on, at most every 100 ms, and clears its line at the end", () => {
    const bar = new Progress(40);
    expect(bar.update(0, 10, "a", 0)).toBe("");
    const first = bar.update(1, 10, "b", PROGRESS_AFTER_MS);
    expect(first).toBe(`\r${progressFrame(1, 10, "b", 40)}`);
    expect(bar.update(2, 10, "c", PROGRESS_AFTER_MS + 99)).toBe("");
    expect(bar.update(3, 10, "d", PROGRESS_AFTER_MS + 100)).toBe(`\r${progressFrame(3, 10, "d", 40)}`);
    expect(bar.update(10, 10, "", PROGRESS_AFTER_MS + 101)).toBe(`\r${" ".repeat(40)}\r`);
  });

  it("starts afresh after a run ends: the next waits its own while", () => {
    const bar = new Progress(40);
    bar.update(0, 2, "a", 0);
    expect(bar.update(1, 2, "a", 500)).not.toBe("");
    expect(bar.update(2, 2, "", 600)).not.toBe("");
    expect(bar.update(0, 2, "b", 700)).toBe("");
    expect(bar.update(1, 2, "b", 700 + PROGRESS_AFTER_MS - 1)).toBe("");
    expect(bar.update(2, 2, "", 700 + PROGRESS_AFTER_MS)).toBe("");
  });
});
