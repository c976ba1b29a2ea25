import { describe, expect, it } from "vitest";
import stringWidth from "string-width";
import { csvLine } from "../../src/render/csv.js";
import { costBar, formatCost, formatTokens } from "../../src/render/units.js";
import { displayWidth } from "../../src/render/width.js";

describe("usage's numbers", () => {
  it("tokens: exact below 10,000, else three figures and a unit", () => {
    expect([0, 999, 9999, 10_000, 12_345, 999_499, 999_600, 1_234_567, 206_565_581, 3_213_359_276].map(formatTokens)).toEqual(["0", "999", "9,999", "10.0k", "12.3k", "999k", "1.00M", "1.23M", "207M", "3.21B"]);
  });

  it("cost: dollars and cents, a cost too small to show said so", () => {
    expect([0, 0.004, 0.005, 2.5, 2791.95216088].map(formatCost)).toEqual(["$0.00", "<$0.01", "$0.01", "$2.50", "$2,791.95"]);
  });

  it("a bar: eighths of a cell, the largest full, none for nothing", () => {
    expect(costBar(10, 10, 10)).toBe("█".repeat(10));
    expect(costBar(5, 10, 10)).toBe("█".repeat(5));
    expect(costBar(0.5, 10, 10)).toBe("▌");
    expect(costBar(9.3, 10, 10)).toBe("█████████▎");
    expect(costBar(0.0001, 10, 10)).toBe("▏");
    expect(costBar(0, 10, 10)).toBe("");
    expect(displayWidth(costBar(7.3, 10, 10))).toBe(stringWidth(costBar(7.3, 10, 10)));
  });

  it("box-drawing and block characters are one column, as string-width says", () => {
    for (let c = 0x2500; c <= 0x259f; c++) expect(displayWidth(String.fromCharCode(c).repeat(3)), c.toString(16)).toBe(stringWidth(String.fromCharCode(c).repeat(3)));
  });
});

describe("csvLine", () => {
  it("RFC 4180: CRLF, quoted where a field holds a comma, quote or line break, quotes doubled", () => {
    expect(csvLine(["a", 1, 2.5])).toBe("a,1,2.5\r\n");
    expect(csvLine(['say "hi"', "a,b", "two\nlines", "cr\r"])).toBe('"say ""hi""","a,b","two\nlines","cr\r"\r\n');
  });

  it("a text that a spreadsheet would run as a formula is made text", () => {
    expect(csvLine(["=1+1", "+x", "-y", "@z", "\tt", "ok"])).toBe("'=1+1,'+x,'-y,'@z,'\tt,ok\r\n");
    expect(csvLine([-1])).toBe("-1\r\n");
  });
});
