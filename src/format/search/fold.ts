/**
 * Case folded as `grep -i` matches (a JavaScript expression with the `i` and `u` flags, whose
 * letters are equal when Unicode's simple case folding makes them one): `toLowerCase`, then the
 * few letters it leaves apart from another that the expression takes for the same (`ſ` and `s`,
 * `ς` and `σ`, `µ` and `μ`, `ΐ` U+1FD3 and U+0390, …; test/format/search/fold.test.ts holds the list to the expression
 * over every code point). Two texts one of which `grep -i` finds in the other fold so that the
 * one is inside the other: the index and a query are folded alike, and nothing a match needs is
 * lost. Folding may make apart letters one (`İ` and `i̇`): a candidate the match then rejects.
 */

/** What `toLowerCase` leaves as these letters, and the letter their equals lower to. */
const LOWER_ALIKE: Readonly<Record<string, string>> = {
  "\u017f": "s", // ſ
  "\u00b5": "\u03bc", // µ μ
  "\u0345": "\u03b9", // the combining ypogegrammeni: ι
  "\u1fbe": "\u03b9", // ι ι
  "\u03d0": "\u03b2", // ϐ β
  "\u03f5": "\u03b5", // ϵ ε
  "\u03d1": "\u03b8", // ϑ θ
  "\u03f0": "\u03ba", // ϰ κ
  "\u03d6": "\u03c0", // ϖ π
  "\u03f1": "\u03c1", // ϱ ρ
  "\u03c2": "\u03c3", // ς σ
  "\u03d5": "\u03c6", // ϕ φ
  "\u1c80": "\u0432", // ᲀ в
  "\u1c81": "\u0434", // ᲁ д
  "\u1c82": "\u043e", // ᲂ о
  "\u1c83": "\u0441", // ᲃ с
  "\u1c84": "\u0442", // ᲄ т
  "\u1c85": "\u0442", // ᲅ т
  "\u1c86": "\u044a", // ᲆ ъ
  "\u1c87": "\u0463", // ᲇ ѣ
  "\u1c88": "\ua64b", // ᲈ ꙋ
  "\u1e9b": "\u1e61", // ẛ ṡ
  "\ufb06": "\ufb05", // ﬆ ﬅ
  // (no simple case folding joins these, yet the expression takes each for the other: their
  // full foldings are one, and the polytonic letter is the one a Greek keyboard's tonos makes)
  "\u1fd3": "\u0390", // ΐ ΐ
  "\u1fe3": "\u03b0", // ΰ ΰ
};

const ALIKE = new RegExp(`[${Object.keys(LOWER_ALIKE).join("")}]`, "g");
const ANY_ALIKE = new RegExp(ALIKE.source);

/** `text` case folded (see above). */
export function fold(text: string): string {
  const lower = text.toLowerCase();
  return ANY_ALIKE.test(lower) ? lower.replace(ALIKE, (c) => LOWER_ALIKE[c]!) : lower;
}

/** The combining ypogegrammeni: no letter, but folded to one (ι): a text holding it is read both ways (terms.ts). */
export const YPOGEGRAMMENI = "\u0345";
