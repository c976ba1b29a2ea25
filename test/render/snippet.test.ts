import { describe, expect, it } from "vitest";
import { renderSnippet, snippetOf } from "../../src/render/snippet.js";
import { displayWidth } from "../../src/render/width.js";

const parts = [
  { before: "我喜欢的水果是苹果，请", match: "记住", after: "" },
  { before: "", match: "npm test", after: " failed with 3 errors in src/format/session.ts and two more lines after" },
  { before: "the whole build log ".repeat(5), match: "ERROR", after: " at line 7" },
  { before: "مرحبا بك في المقهى ", match: "قهوة", after: " عربية مع الهيل 😊 والسكر" },
  { before: "a", match: "x".repeat(200), after: "b" },
];

describe("a snippet on a terminal line", () => {
  for (const p of parts) {
    for (const room of [12, 30, 44, 80]) {
      it(`fits ${room} columns and keeps the match in view: ${p.match.slice(0, 12)}`, () => {
        const s = snippetOf(p);
        const line = renderSnippet(s, room, (m) => `[${m}]`);
        expect(displayWidth(line.replace(/[[\]]/g, ""))).toBeLessThanOrEqual(room);
        expect(line).toMatch(/\[.+\]/);
        expect(line.replace(/[[\]]/g, "")).toContain(s.match.slice(0, 1));
      });
    }
  }

  it("gives the text before the room the text after does not need", () => {
    const s = snippetOf(parts[0]!);
    // 26 columns in all: shown whole in 40, though half of what is left after the match is 18
    expect(renderSnippet(s, 40)).toBe("我喜欢的水果是苹果，请记住");
  });

  it("gives the text after the room when both need more than there is, the text before at most half", () => {
    const s = snippetOf(parts[2]!);
    const line = renderSnippet(s, 30);
    expect(line.endsWith("ERROR at line 7")).toBe(true);
    expect(line.startsWith("…")).toBe(true);
    expect(displayWidth(line)).toBeLessThanOrEqual(30);
  });

  it("piped (no room): the text before as snippetOf cut it, the match, the text after up to 160 characters", () => {
    const s = snippetOf({ before: "b".repeat(100), match: "M", after: "a".repeat(300) });
    const line = renderSnippet(s, undefined);
    expect(line).toBe(`…${"b".repeat(40)}M${"a".repeat(160)}…`);
  });
});
