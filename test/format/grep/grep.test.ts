import { describe, expect, it } from "vitest";
import { CASELESS, compilePattern, requiredLiteral, requiredRun } from "../../../src/format/grep/pattern.js";
import { grepFile } from "../../../src/format/grep/read.js";
import { BufferSource } from "../../../src/format/read/source.js";

/** The run's members as a string of the characters, in byte order. */
const membersOf = (source: string, ignoreCase = false, unicode = false) => {
  const run = requiredRun(source, ignoreCase, unicode);
  if (!run) return undefined;
  let chars = "";
  run.members.forEach((m, b) => m && (chars += String.fromCharCode(b)));
  return { chars, length: run.length };
};

describe("what a line must hold to match: a needle, else a run of a class", () => {
  it("the needle: the longest plain run at the top level", () => {
    expect(requiredLiteral("npm test")).toBe("npm test");
    expect(requiredLiteral("fo+bar\\.baz")).toBe("bar.baz");
    expect(requiredLiteral("a|b")).toBeUndefined();
    expect(requiredLiteral("[0-9a-f]{40}")).toBeUndefined();
  });

  it("a class repeated: its members and its minimum", () => {
    expect(membersOf("[0-9a-f]{40}")).toEqual({ chars: "0123456789abcdef", length: 40 });
    expect(membersOf("\\b[0-9a-f]{7,40}\\b")).toEqual({ chars: "0123456789abcdef", length: 7 });
    expect(membersOf("[0-9a-f]{40}", true)).toEqual({ chars: "0123456789ABCDEFabcdef", length: 40 });
  });

  it("atoms in a row add up, over the union of their classes; assertions do not end the run", () => {
    expect(membersOf("^\\d{4}-\\d{2}-\\d{2}$")).toEqual({ chars: "-0123456789", length: 10 });
    expect(membersOf("[A-Z]{2,}\\d{2}")).toEqual({ chars: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", length: 4 });
    expect(membersOf("[A-Z]{2,}\\d")).toBeUndefined(); // 3: in nearly every line
  });

  it("an optional atom, a group, `.`, a negated class or a character JSON may escape ends the run", () => {
    expect(membersOf("\\d{3}x?\\d{3}")).toBeUndefined(); // two runs of 3, each below the minimum
    expect(membersOf("\\d{2}(ab)\\d{5}")).toEqual({ chars: "0123456789", length: 5 });
    expect(membersOf("\\d{3}.\\d{5}")).toEqual({ chars: "0123456789", length: 5 });
    expect(membersOf("[^a]{9}")).toBeUndefined();
    expect(membersOf('[a"]{9}')).toBeUndefined();
    expect(membersOf("[a\\\\]{9}")).toBeUndefined();
    expect(membersOf("[a/]{9}")).toBeUndefined();
    expect(membersOf("\\s{9}")).toBeUndefined();
    expect(membersOf("[é]{9}")).toBeUndefined();
    expect(membersOf("\\d{4}|x")).toBeUndefined();
  });

  it("a class's escaped dash is a member, not a range", () => {
    expect(membersOf("[a\\-z]{5}")).toEqual({ chars: "-az", length: 5 });
    expect(membersOf("[a-c]{5}")).toEqual({ chars: "abc", length: 5 });
  });

  it("with -w and -i, k and s end the run (they match the Kelvin sign and the long s)", () => {
    expect(membersOf("[a-z]{5}", true, true)).toBeUndefined();
    expect(membersOf("[a-j]{5}", true, true)).toEqual({ chars: "ABCDEFGHIJabcdefghij", length: 5 });
    expect(new RegExp("[a-z]{5}", "iu").test("\u212Aelvin")).toBe(true); // (why)
  });

  it("with -i, a character without case is in the needle as it is: no other character matches it, by i or iu (every code point asked)", () => {
    const hay: string[] = [];
    const cased: string[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      (CASELESS.test(c) ? hay : cased).push(c);
    }
    // (a class of every cased character, with i, matches whatever any of them matches)
    const quoted = (cs: string[]) => cs.map((c) => c.replace(/[\]\\^-]/g, "\\$&")).join("");
    const unicode = hay.join("").match(new RegExp(`[${quoted(cased)}]`, "giu")) ?? [];
    const bmp = hay.filter((c) => c.length === 1).join("").match(new RegExp(`[${quoted(cased.filter((c) => c.length === 1))}]`, "gi")) ?? [];
    expect([...unicode, ...bmp].map((c) => `U+${c.codePointAt(0)!.toString(16)}`)).toEqual([]);
    // (the class finds what it should: a cased character among the hay)
    expect("xΣ".match(new RegExp(`[${quoted(cased)}]`, "giu"))).toEqual(["Σ"]);
    expect(hay.length).toBeGreaterThan(1_000_000);
    // (so that a Chinese or Arabic -i pattern sifts lines by its bytes, as without -i)
    expect(Buffer.from(compilePattern("数据", { fixed: true, ignoreCase: true }).needle!).toString()).toBe("数据");
    expect(Buffer.from(compilePattern("موقع", { ignoreCase: true }).needle!).toString()).toBe("موقع");
    expect(compilePattern("Σσ", { fixed: true, ignoreCase: true }).needle).toBeUndefined();
  });

  it("compilePattern takes the needle when there is one, else the run", () => {
    expect(compilePattern("[0-9a-f]{40}", { ignoreCase: true }).run?.length).toBe(40);
    expect(compilePattern("sha [0-9a-f]{40}").run).toBeUndefined();
    expect(compilePattern("[0-9a-f]{40}", { fixed: true }).run).toBeUndefined();
  });
});

describe("a run's search finds every line that can match, and no other is decoded", () => {
  const header = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" });
  const entry = (id: string, text: string) => JSON.stringify({ type: "message", id, parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: text } });
  const sha = "0123456789abcdef0123456789abcdef01234567";
  const lines = [
    header,
    entry("e0000001", `commit ${sha} landed`),
    entry("e0000002", `commit ${sha.slice(0, 39)} is one short`),
    entry("e0000003", `upper ${sha.toUpperCase()}`),
    // a run spelled with an escape: \u0030 is 0
    entry("e0000004", `escaped X${sha.slice(1)}`).replace("X", "\\u0030"),
    // the run only in an image's data and in a tool call id
    JSON.stringify({ type: "message", id: "e0000005", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "image", data: `QUJD${sha}QUJD`, mimeType: "image/png" }] } }),
    entry("e0000006", `ends the line ${sha}`),
  ];
  const bytes = Buffer.from(lines.join("\n") + "\n");
  const ids = (source: string, ignoreCase = false) => grepFile(new BufferSource("t", bytes), compilePattern(source, { ignoreCase })).hits.map((h) => h.id);

  it("finds the runs, in either case with -i, and one a \\u escape spells", () => {
    expect(ids("[0-9a-f]{40}")).toEqual(["e0000001", "e0000004", "e0000006"]);
    expect(ids("[0-9a-f]{40}", true)).toEqual(["e0000001", "e0000003", "e0000004", "e0000006"]);
    expect(ids("\\b[0-9a-f]{39}\\b")).toEqual(["e0000002"]);
  });
});
