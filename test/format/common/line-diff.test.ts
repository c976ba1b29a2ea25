/**
 * `lineDiff`: a unified diff that `applyPatch` (the `diff` package's own) turns the one text into
 * the other with, small and large: where the two differ in more lines than the search for the
 * fewest changes is let run over (two unrelated conversations, whole), the middle is one hunk,
 * in bounded time.
 */
import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { lineDiff } from "../../../src/format/common/line-diff.js";

const text = (lines: string[]) => `${lines.join("\n")}\n`;

describe("lineDiff", () => {
  it("one line changed among many: one hunk with three lines of context, as diff -u", () => {
    const a = Array.from({ length: 200 }, (_, k) => `line ${k}`);
    const b = a.map((l, k) => (k === 100 ? "changed" : l));
    const d = lineDiff("a", "b", a, b);
    expect(d).toContain("@@ -98,7 +98,7 @@\n line 97\n line 98\n line 99\n-line 100\n+changed\n line 101\n");
    expect(applyPatch(text(a), d)).toBe(text(b));
    expect(lineDiff("a", "b", a, a)).toBe("");
  });

  it("two unrelated texts of 14,000 lines each (two conversations, whole), a shared start and end around them: one hunk, in a few seconds (the search for the fewest changes took 95 s), that applyPatch turns the one into the other with", () => {
    const same = ["first", "second", "third", "fourth"];
    const a = [...same, ...Array.from({ length: 14000 }, (_, k) => `a ${k * 7919}`), ...same];
    const b = [...same, ...Array.from({ length: 14000 }, (_, k) => `b ${k * 104729}`), ...same];
    const t = Date.now();
    const d = lineDiff("a", "b", a, b);
    expect(Date.now() - t).toBeLessThan(30_000);
    expect(d.match(/^@@ /gm)).toHaveLength(1);
    expect(d).toContain("@@ -2,14006 +2,14006 @@\n second\n third\n fourth\n-a 0\n");
    expect(applyPatch(text(a), d)).toBe(text(b));
    // (an empty side: all added)
    const added = lineDiff("a", "b", [], b);
    expect(applyPatch("", added)).toBe(text(b));
  });
});
