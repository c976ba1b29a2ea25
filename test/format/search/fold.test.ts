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

  it("folds alike every two characters grep -i takes for the same among those alike in upper case, lower case or decomposed (ΐ U+0390 and U+1FD3: no \\p{CWCF} needle finds them)", () => {
    // (needles from groups of characters made one by toUpperCase, toLowerCase or NFD, each pair
    // asked of the expression: a pair that no simple case folding changes is still found)
    const groups = new Map<string, string[]>();
    const add = (key: string, c: string) => {
      const g = groups.get(key);
      if (g) g.push(c);
      else groups.set(key, [c]);
    };
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      const upper = c.toUpperCase();
      const lower = c.toLowerCase();
      const nfd = c.normalize("NFD");
      if (upper === c && lower === c && nfd === c) continue;
      add(`U${upper}`, c);
      add(`L${lower}`, c);
      add(`N${nfd.toUpperCase()}`, c);
      // (and the character each maps to, which may map to nothing else)
      if (upper.length <= 2) add(`U${upper}`, upper);
      if (lower.length <= 2) add(`L${lower}`, lower);
      add(`N${nfd.toUpperCase()}`, nfd);
    }
    const apart = new Set<string>();
    let pairs = 0;
    for (const group of groups.values()) {
      const list = [...new Set(group)];
      if (list.length < 2) continue;
      for (const a of list) {
        const re = new RegExp(`^${a.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`, "iu");
        for (const b of list) {
          if (a === b || !re.test(b)) continue;
          pairs++;
          if (fold(a) !== fold(b)) apart.add([a, b].sort().map((x) => `${x} U+${x.codePointAt(0)!.toString(16)}`).join(" / "));
        }
      }
    }
    expect([...apart]).toEqual([]);
    expect(pairs).toBeGreaterThan(2000);
  });

  it("folds a text as a whole: Σ at a word's end and inside it alike", () => {
    expect(fold("ΣΊΣΥΦΟΣ")).toBe(fold("σίσυφοσ"));
    expect(fold("Straße ſ")).toBe("straße s");
  });
});
