import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { lsColumns } from "../../src/commands/ls.js";
import { fit, renderTable, type Column } from "../../src/render/table.js";
import { cutToWidth, wrapSegments } from "../../src/render/width.js";
import { makeStyle } from "../../src/render/style.js";
import { rng } from "../helpers/generate.js";

const cols = (...heads: string[]): Column[] => heads.map((head, i) => ({ head, priority: i + 1 }));
const plain = makeStyle(false, 100);
const at = (width: number, wide = false) => makeStyle(false, width, { terminalWidth: width, wide });

describe("renderTable", () => {
  it("a cut indented cell (a row under another) keeps its indent, whichever end of it stays", () => {
    for (const keep of ["start", "end"] as const) {
      const columns: Column[] = [{ head: "project", priority: 1, max: 12, keep }];
      const lines = renderTable(columns, [["/home/用户/项目/网上商店"], ["  通义千问-最大版本-2026"]], at(100)).trimEnd().split("\n");
      expect(lines[1]).toMatch(/^[^ ]/);
      expect(lines[2]).toMatch(/^ {2}[^ ]/);
      expect(lines[2]).toMatch(keep === "end" ? /^ {2}….*2026$/ : /^ {2}通义.*…$/);
      for (const line of lines.slice(1)) expect(stringWidth(line)).toBeLessThanOrEqual(12);
    }
  });

  it("pads every cell to its column's display width, two spaces apart (wide characters count two), the last cell unpadded", () => {
    const out = renderTable(cols("id", "name"), [["日本", "x"], ["a", "😀"]], plain);
    expect(out).toBe(["id    name", "日本  x", "a     😀"].join("\n") + "\n");
  });

  it("paints after measuring, and bolds the head in colour; no line ends in spaces, colour or not", () => {
    const style = makeStyle(true, 100);
    const columns: Column[] = [{ head: "status", priority: 1, paint: (t) => style.c.green(t) }, { head: "n", priority: 2, align: "right" }];
    const out = renderTable(columns, [["ok", "1"], ["invalid", "22"]], style);
    const lines = out.trimEnd().split("\n");
    // "status" pads to "invalid", the gap, then " n" right-aligned to "22"
    expect(lines[0]).toBe(`${style.c.bold("status")}    ${style.c.bold("n")}`);
    expect(lines[1]).toBe(`${style.c.green("ok")}        1`);
    for (const color of [true, false]) {
      const s = makeStyle(color, 100);
      for (const line of renderTable(cols("a", "b", "c"), [["x", "", ""], ["longer", "y", ""]], s).split("\n")) expect(line).not.toMatch(/ (\u001b\[[0-9;]*m)*$/);
    }
  });

  it("cuts a cell to its column's max display width on a terminal; piped, every cell is whole (ids and paths for scripts)", () => {
    expect(renderTable([{ head: "a", priority: 1, max: 5 }], [["abcdefghij"]], at(100))).toBe("a\nabcd…\n");
    expect(renderTable([{ head: "a", priority: 1, max: 5 }], [["日本語日本語"]], at(100))).toBe("a\n日本…\n");
    expect(renderTable([{ head: "a", priority: 1, max: 5 }], [["abcdefghij"]], plain)).toBe("a\nabcdefghij\n");
    expect(renderTable([{ head: "a", priority: 1, max: 5 }], [["abcdefghij"]], at(100, true))).toBe("a\nabcdefghij\n");
  });

  it("cuts a path from its start, so that the file name stays, to its max and when a terminal squeezes it", () => {
    const path = "/home/ada/.pi/agent/sessions/--home-ada-project--/2026-12-01_session.jsonl";
    const file: Column = { head: "file", priority: 1, flex: true, max: 40, keep: "end" };
    expect(renderTable([file], [[path]], at(100))).toBe(`file\n…${path.slice(-39)}\n`);
    expect(renderTable([file], [[path]], plain)).toBe(`file\n${path}\n`);
    const squeezed = renderTable([file, { head: "result", priority: 2 }], [[path, "migrated"]], at(30)).split("\n")[1]!;
    expect(squeezed).toBe(`…${path.slice(-19)}  migrated`);
    expect(cutToWidth("日本語のファイル.jsonl", 12, "end")).toBe("…イル.jsonl");
  });

  it("counts printable ASCII and the ellipsis one column each, as string-width does", () => {
    const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join("");
    for (const cell of [ascii, "…", `a…b${ascii}…`]) {
      expect(stringWidth(cell)).toBe(cell.length);
      const out = renderTable(cols("h", "z"), [[cell, "z"], ["x", "z"]], plain);
      expect(out.split("\n")[2]).toBe("x" + " ".repeat(cell.length - 1) + "  z");
    }
  });

  it("on a terminal, isolates a right-to-left cell so that it cannot reorder its neighbours; piped, leaves the text as it is", () => {
    const out = renderTable(cols("a", "b", "c"), [["1", "שלום עולם", "3"]], at(100));
    expect(out.split("\n")[1]).toBe("1  \u2068שלום עולם\u2069  3");
    const piped = renderTable(cols("a", "b", "c"), [["1", "שלום עולם", "3"]], plain);
    expect(piped.split("\n")[1]).toBe("1  שלום עולם  3");
  });
});

describe("fitting a table to a terminal", () => {
  const ls = lsColumns(plain);
  const random = rng(11);
  const word = () => ["fix", "the", "日本語", "😀", "parser", "مرحبا", "a-very-long-token-without-spaces", "tests"][Math.floor(random() * 8)]!;
  // (the heads as `ls` has them: "name / first message")
  const rows = Array.from({ length: 40 }, (_, i) => [
    `019f${i}0b-0864-715c-9025`,
    Array.from({ length: Math.floor(random() * 12) }, word).join(" "),
    `/home/ada/${Array.from({ length: 3 }, word).join("/")}`,
    "2026-07-05 02:10",
    "2026-07-05 03:31",
    String(Math.floor(random() * 5000)),
    String(1 + (i % 4)),
    `${i * 37} KB`,
    "3",
    i % 5 === 0 ? "invalid: 12 problems" : "ok",
  ]);
  const heads = (out: string) => out.split("\n")[0]!.trim().split(/\s{2,}/);

  for (const width of [60, 80, 100, 160]) {
    it(`never draws a line wider than ${width} columns, and keeps the most important columns`, () => {
      const out = renderTable(ls, rows, at(width));
      // (the isolates around right-to-left cells are zero-width format characters on a terminal)
      for (const line of out.trimEnd().split("\n")) expect(stringWidth(line.replace(/[\u2068\u2069]/g, "")), line).toBeLessThanOrEqual(width);
      // a head is shown whole, or cut with an ellipsis when its column shrinks
      const drawn = heads(out);
      const isShown = (head: string) => drawn.some((h) => h === head || (h.endsWith("…") && head.startsWith(h.slice(0, -1))));
      for (const h of ["id", "status", "name / first message"]) expect(isShown(h), h).toBe(true);
      if (width >= 80) for (const h of ["last activity", "msgs", "size"]) expect(isShown(h), h).toBe(true);
      // what is dropped is the least important: every shown column outranks every dropped one
      const dropped = ls.filter((c) => !isShown(c.head));
      for (const d of dropped) for (const s of ls.filter((c) => isShown(c.head))) expect(s.priority).toBeLessThan(d.priority);
    });
  }

  it("shrinks flexible columns before dropping any, least important first", () => {
    const natural = [10, 30, 30, 5];
    const columns: Column[] = [{ head: "a", priority: 1 }, { head: "b", priority: 2, flex: true, min: 10 }, { head: "c", priority: 3, flex: true, min: 10 }, { head: "d", priority: 4 }];
    expect(fit(columns, natural, 1000)).toEqual({ shown: [0, 1, 2, 3], width: natural });
    // 6 of gaps: 75 + 6 = 81 → 1 over; c shrinks first
    expect(fit(columns, natural, 80)).toEqual({ shown: [0, 1, 2, 3], width: [10, 30, 29, 5] });
    expect(fit(columns, natural, 62)).toEqual({ shown: [0, 1, 2, 3], width: [10, 30, 11, 5] });
    expect(fit(columns, natural, 58)).toEqual({ shown: [0, 1, 2, 3], width: [10, 27, 10, 5] });
    // below every minimum: d goes, then the flexible ones shrink again; then c, then b
    expect(fit(columns, natural, 40)).toEqual({ shown: [0, 1, 2], width: [10, 16, 10, 5] });
    expect(fit(columns, natural, 22).shown).toEqual([0, 1]);
    expect(fit(columns, natural, 20).shown).toEqual([0]);
  });

  it("--wide draws every column whole, and piped output (no terminal width) is one full layout", () => {
    const wide = renderTable(ls, rows, at(60, true));
    expect(heads(wide)).toEqual(ls.map((c) => c.head));
    expect(wide.split("\n")[2]).toContain(rows[1]![1]!.split(" ")[0] ?? "");
    const piped = renderTable(ls, rows, plain);
    expect(heads(piped)).toEqual(ls.map((c) => c.head));
  });
});

describe("cutToWidth and wrapSegments", () => {
  it("cuts to display columns, never splitting a surrogate pair", () => {
    expect(cutToWidth("abcdef", 4)).toBe("abc…");
    expect(cutToWidth("日本語日本語", 5)).toBe("日本…");
    expect(cutToWidth("😀😀😀", 4)).toBe("😀…");
    expect(cutToWidth("short", 10)).toBe("short");
  });

  it("keeping a mark: the text before a trailing (mark) is cut, the mark stays whole while a character of the rest fits", () => {
    expect(cutToWidth("main · direct feishu (copy)", 12, "mark")).toBe("main… (copy)");
    expect(cutToWidth("main · cron (deleted)", 12, "mark")).toBe("m… (deleted)");
    expect(cutToWidth("代理 · 直接 (copy)", 12, "mark")).toBe("代理… (copy)");
    expect(cutToWidth("代理 · 直接 (copy)", 11, "mark")).toBe("代… (copy)");
    expect(cutToWidth("代理 · 直接 (copy)", 10, "mark")).toBe("代… (copy)");
    // (no room for the mark and a character before it, or no mark: cut as any text)
    expect(cutToWidth("main · cron (not imported)", 12, "mark")).toBe("main · cron…");
    expect(cutToWidth("main · direct feishu", 12, "mark")).toBe("main · dire…");
    expect(cutToWidth("main (reset)", 12, "mark")).toBe("main (reset)");
  });

  it("wraps to the width, later lines indented, long words broken; piped: one line", () => {
    const segments = [["/some/long/path/file.jsonl:12: "], ["error", (s: string) => `<${s}>`], [" code: a message that goes on and on past the edge (and a hint with a-very-long-unbreakable-token-that-exceeds-every-line)"]] as const;
    expect(wrapSegments(segments, undefined)).toHaveLength(1);
    for (const width of [20, 40, 60]) {
      const lines = wrapSegments(segments, width);
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect(stringWidth(line.replace(/[<>]/g, ""))).toBeLessThanOrEqual(width);
      expect(lines.slice(1).every((l) => l.startsWith("    "))).toBe(true);
      expect(lines.join(" ").replace(/\s+/g, "")).toBe(segments.map(([t, p]) => (p ? p(t) : t)).join("").replace(/\s+/g, ""));
    }
  });
});
