import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { renderTable } from "../../src/render/table.js";
import { makeStyle } from "../../src/render/text.js";

describe("renderTable", () => {
  it("pads every cell to its column's display width, two spaces apart (wide characters count two)", () => {
    const out = renderTable(["id", "name"], [["日本", "x"], ["a", "😀"]], makeStyle(false, 100));
    expect(out).toBe(["id    name", "日本  x   ", "a     😀  "].join("\n") + "\n");
  });

  it("does not count colour codes, and bolds the head in colour", () => {
    const style = makeStyle(true, 100);
    const out = renderTable(["status", "n"], [[style.c.green("ok"), "1"]], style);
    const lines = out.trimEnd().split("\n");
    expect(lines[0]).toBe(`${style.c.bold("status")}  ${style.c.bold("n")}`);
    expect(lines[1]).toBe(`${style.c.green("ok")}      1`);
  });

  it("cuts cells to the widths given", () => {
    const out = renderTable(["a"], [["abcdefghij"]], makeStyle(false, 100), [5]);
    expect(out).toBe("a    \nabcd…\n");
  });

  it("counts printable ASCII and the ellipsis one column each, as string-width does", () => {
    const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join("");
    for (const cell of [ascii, "…", `a…b${ascii}…`]) {
      expect(stringWidth(cell)).toBe(cell.length);
      const out = renderTable(["h"], [[cell], ["x"]], makeStyle(false, 1000));
      expect(out.split("\n")[2]).toBe("x" + " ".repeat(cell.length - 1));
    }
  });
});
