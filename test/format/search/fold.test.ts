/**
 * Case folded as grep -i matches (format/search/fold.ts): two letters the expression grep matches
 * with (`iu` flags) takes for the same fold alike, over every code point of the letters, marks,
 * numbers and symbols. A letter left apart would lose a match from the index.
 */
import { describe, expect, it } from "vitest";
import { fold } from "../../../src/format/search/fold.js";

describe("fold", () => {
  it("folds alike every two characters grep -i takes for the same (the expression asked of every code point that case folding changes)", () => {
    const all: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) all.push(String.fromCodePoint(cp));
    const changing = all.filter((c) => /\p{CWCF}/u.test(c));
    const hay = all.filter((c) => /[\p{L}\p{M}\p{N}\p{S}]/u.test(c)).join("");
    let pairs = 0;
    const apart: string[] = [];
    for (const c of changing) {
      const re = new RegExp(c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "giu");
      for (const m of hay.matchAll(re)) {
        pairs++;
        if (fold(m[0]) !== fold(c)) apart.push(`${c} U+${c.codePointAt(0)!.toString(16)} / ${m[0]} U+${m[0].codePointAt(0)!.toString(16)}`);
      }
    }
    expect(apart).toEqual([]);
    expect(pairs).toBeGreaterThan(2000);
  });

  it("folds a text as a whole: Σ at a word's end and inside it alike", () => {
    expect(fold("ΣΊΣΥΦΟΣ")).toBe(fold("σίσυφοσ"));
    expect(fold("Straße ſ")).toBe("straße s");
  });
});
