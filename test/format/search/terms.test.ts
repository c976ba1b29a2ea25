/**
 * The index's one promise (format/search/terms.ts): whatever grep finds in a text, the text's
 * terms hold every term the query asks for. Held on texts of every kind of character the rule
 * has a case for (words, scripts without spaces, marks, letters that fold apart, astral letters,
 * long and giant words), with queries cut from them and their case changed: a query grep finds
 * (`-F -i`, and `-w -i`) whose lookups the text's terms do not satisfy is a match the index
 * would lose.
 */
import { describe, expect, it } from "vitest";
import { compilePattern } from "../../../src/format/grep/pattern.js";
import { fold } from "../../../src/format/search/fold.js";
import { GIANT_TERM, LONG, lookupsOf, TermWriter, type Lookup } from "../../../src/format/search/terms.js";
import { rng } from "../../helpers/generate.js";

/** Pieces a text is made of: each a case the rule must keep. */
const PIECES = [
  "deploy", "Staging", "server", "rm", "-rf", "=>", "{\"", "src/cart.ts", "snake_case", "CamelCase", "v2", "0.1", "2026-03-09",
  " ", " ", " ", "\n", "\t", ".", ",", ":", "*", "\"", "(", ")", "NEAR(", "AND",
  "数据库", "数", "据", "用中文", "ひらがな", "カタカナ", "ภาษาไทย", "한국어",
  "كَتَبَ", "موقع", "الملف", "ـ",
  "ΣΊΣΥΦΟΣ", "σίσυφος", "ς", "ι", "\u0345", "α\u0345", "ſ", "S", "µ", "μ", "\u212a", "k", "K", "İ", "i", "ı", "ẞ", "ß", "ﬅ", "ﬆ",
  "𝐀𝐁𝐂", "𝐚", "😀", "𠀀𠀁", "e\u0301", "café",
];

function textOf(r: () => number): string {
  let out = "";
  const n = 1 + Math.floor(r() * 30);
  for (let k = 0; k < n; k++) {
    const roll = r();
    if (roll < 0.03) out += "ab".repeat(LONG + Math.floor(r() * 3 * LONG));
    else if (roll < 0.036) out += "x9".repeat(2100 + Math.floor(r() * 200));
    else out += PIECES[Math.floor(r() * PIECES.length)];
  }
  return out;
}

/** A query made from a text: a part of it, its case changed here and there, or a piece alone. */
function queryOf(text: string, r: () => number): string {
  const points = Array.from(text);
  if (r() < 0.2) return PIECES[Math.floor(r() * PIECES.length)]!;
  const start = Math.floor(r() * points.length);
  const length = 1 + Math.floor(r() * Math.min(points.length - start, r() < 0.1 ? 200 : 12));
  let q = points.slice(start, start + length).join("");
  const roll = r();
  if (roll < 0.3) q = q.toUpperCase();
  else if (roll < 0.5) q = q.toLowerCase();
  else if (roll < 0.6) q = q.replace(/s/g, "ſ").replace(/σ/g, "ς").replace(/k/g, "\u212a");
  return q;
}

/** Whether `terms` (a text's) satisfy `lookup`. */
function holds(terms: Set<string>, list: string[], { kind, term }: Lookup): boolean {
  switch (kind) {
    case "exact":
      return terms.has(term);
    case "prefix":
      return list.some((t) => t.startsWith(term));
    case "suffix":
      return list.some((t) => t.endsWith(term));
    case "substring":
      return terms.has(GIANT_TERM) || list.some((t) => t.includes(term));
  }
}

function termsOf(text: string): { set: Set<string>; list: string[] } {
  const w = new TermWriter();
  w.add(text);
  const list = w.take().split(" ").filter(Boolean);
  return { set: new Set(list), list };
}

describe("the index's terms hold whatever grep finds", () => {
  it("-F -i and -w -i, on texts of every kind of character, queries cut from them (6,000 pairs)", () => {
    const r = rng(7);
    let found = 0;
    for (let round = 0; round < 600; round++) {
      const text = textOf(r);
      const { set, list } = termsOf(text);
      for (let k = 0; k < 10; k++) {
        const q = queryOf(text, r);
        if (q === "") continue;
        for (const mode of ["fixed", "word"] as const) {
          const regex = compilePattern(q, { fixed: true, ignoreCase: true, word: mode === "word" }).regex;
          regex.lastIndex = 0;
          if (!regex.test(text)) continue;
          found++;
          for (const lookup of lookupsOf(q, mode)) expect(holds(set, list, lookup), `${mode} ${JSON.stringify(q)} in ${JSON.stringify(text.slice(0, 300))}: ${JSON.stringify(lookup)}`).toBe(true);
        }
      }
    }
    expect(found).toBeGreaterThan(3000);
  }, 120_000);

  it("a text's terms: words whole and folded, pairs of a script without spaces and its last character, pieces of a long word", () => {
    expect(termsOf("Deploy the STAGING_server, v2!").list).toEqual(["deploy", "the", "staging_server", "v2"]);
    expect(termsOf("用中文总结").list).toEqual(["用中", "中文", "文总", "总结", "结"]);
    expect(termsOf("用Python写").list).toEqual(["用", "python", "写"]);
    expect(termsOf("ΣΊΣΥΦΟΣ ſ µ").list).toEqual([fold("σίσυφοσ"), "s", "μ"]);
    // (a mark that folds to a letter: read both ways)
    expect(termsOf("a\u0345b").list.sort()).toEqual(["a", "aιb", "b"]);
    const long = "ab".repeat(50);
    expect(termsOf(long).list).toEqual([long.slice(0, 64), long.slice(32, 96), long.slice(36, 100)]);
    expect(termsOf("x".repeat(5000)).list).toContain(GIANT_TERM);
  });

  it("a query's lookups: a word inside whole, the first a word's end, the last a word's start, one alone anywhere; -w: every word whole", () => {
    expect(lookupsOf("rm -rf now", "fixed")).toEqual([{ kind: "suffix", term: "rm" }, { kind: "exact", term: "rf" }, { kind: "prefix", term: "now" }]);
    expect(lookupsOf("Deploy", "fixed")).toEqual([{ kind: "substring", term: "deploy" }]);
    expect(lookupsOf("Deploy", "word")).toEqual([{ kind: "exact", term: "deploy" }]);
    expect(lookupsOf(":-*", "fixed")).toEqual([]);
    expect(lookupsOf("数据库", "fixed")).toEqual([{ kind: "exact", term: "数据", unspaced: true }, { kind: "exact", term: "据库", unspaced: true }]);
    expect(lookupsOf("数", "word")).toEqual([{ kind: "prefix", term: "数", unspaced: true }]);
  });
});
