import { describe, expect, it } from "vitest";
import { openSessionBuffer } from "../../src/format/session/session.js";
import { renderBranch } from "../../src/render/terminal/branch.js";
import { renderTree, TreeResult } from "../../src/commands/tree.js";
import { SMALL_STRING } from "../../src/render/sink.js";
import { makeStyle } from "../../src/render/style.js";
import { assistant, header, jsonl, user } from "../helpers/builders.js";

/**
 * `path` and `tree` draw thousands of lines a window: each piece they hand the sink is a few
 * lines (`SMALL_STRING`), never a window's worth, which is a string V8 makes outside the young
 * generation and a rope the sink flattens (BENCHMARKS.md, "output in small strings").
 */
describe("a drawing's pieces", () => {
  const count = 5000;
  const entries = Array.from({ length: count }, (_, k) => (k % 2 === 0 ? user(`e${k}`, k === 0 ? null : `e${k - 1}`, `question ${k} ${"é".repeat(k % 90)}`) : assistant(`e${k}`, `e${k - 1}`, `answer ${k}`)));
  const bytes = jsonl(header(), ...entries);

  const check = (pieces: string[], lines: number) => {
    expect(pieces.length).toBeGreaterThan(10);
    const longest = Math.max(...pieces.flatMap((p) => p.split("\n").map((l) => l.length + 1)));
    for (const piece of pieces) {
      expect(piece.endsWith("\n")).toBe(true);
      expect(piece.length).toBeLessThan(SMALL_STRING + longest);
    }
    expect(pieces.join("").split("\n").length - 1).toBe(lines);
  };

  for (const [name, style] of [["piped", makeStyle(false, 100)], ["a terminal", makeStyle(true, 80, { terminalWidth: 80 })]] as const) {
    it(`path's, ${name}`, () => {
      const s = openSessionBuffer("t.jsonl", bytes);
      const pieces = [...renderBranch(s, s.tree.pathTo(s.leafNode), style)];
      // (on a terminal a head line names the columns)
      check(pieces, count + (name === "piped" ? 0 : 1));
      expect(pieces.join("")).toContain("answer 4999");
    });

    it(`tree's, ${name}`, () => {
      const s = openSessionBuffer("t.jsonl", bytes);
      const pieces = [...renderTree(new TreeResult(s, new Map(), undefined), style)];
      check(pieces, count);
      expect(pieces.join("")).toContain("answer 4999");
    });
  }
});
