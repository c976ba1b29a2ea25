/**
 * `tail`'s lines on a terminal: an entry a line that fits the width whatever its script (a turn's
 * usage and the preview share the room the columns leave), session text made safe (no terminal
 * escape gets through), a notice on a line of its own, and the status line cut to the width.
 */
import { describe, expect, it } from "vitest";
import type { AnyEntry } from "../../src/format/schema/types.js";
import { makeStyle } from "../../src/render/style.js";
import { renderNotice, renderTailLine, statusLine } from "../../src/render/terminal/tail.js";
import { displayWidth as measured } from "../../src/render/width.js";

/** Columns on a terminal: the isolates around right-to-left text take none (as grep's test measures). */
const displayWidth = (s: string) => measured(s.replace(/[\u2068\u2069]/g, ""));

const at80 = makeStyle(false, 80, { terminalWidth: 80 });
const entry = (role: string, text: string, extra: Record<string, unknown> = {}): AnyEntry =>
  ({ type: "message", id: "5e6f0a1b", parentId: "4d3c2b1a", timestamp: "2026-12-05T10:00:00.000Z", message: { role, content: [{ type: "text", text }], timestamp: 1, ...extra } }) as unknown as AnyEntry;

describe("tail's lines", () => {
  it("fit 80 columns on a terminal, in Latin, Chinese and Arabic, with a turn's usage beside the preview", () => {
    for (const text of ["x".repeat(300), "你好，这是一个很长的中文句子，".repeat(20), "مرحبا، هذه جملة عربية طويلة جدا ".repeat(20)]) {
      const line = renderTailLine({ line: 12345, entry: entry("assistant", text), usage: { input: 1000, output: 200, cacheRead: 50_000, cacheWrite: 0, cost: 0.0123 } }, at80, 12, false);
      expect(line.endsWith("\n")).toBe(true);
      expect(line.split("\n")).toHaveLength(2);
      expect(displayWidth(line.trimEnd())).toBeLessThanOrEqual(80);
      expect(line).toContain("51.2k tok $0.0123");
    }
    // (--all: the session's label leads, and the line still fits)
    const led = renderTailLine({ label: "a long session name", line: 7, entry: entry("user", "y".repeat(200)) }, at80, 12, false);
    expect(led.startsWith("a long sess…")).toBe(true);
    expect(displayWidth(led.trimEnd())).toBeLessThanOrEqual(80);
  });

  it("neutralise terminal escapes and other control characters in session text, labels and notices", () => {
    const evil = "ok\u001b]0;pwned\u0007\u001b[2J\r\nnext";
    const line = renderTailLine({ label: `lab\u001b[31mel`, line: 1, entry: entry("user", evil) }, at80, 12, false);
    const notice = renderNotice(`moved to ${evil}`, "moved", undefined, at80, undefined, 12);
    for (const out of [line, notice]) {
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect(out.split("\n")).toHaveLength(2);
    }
  });

  it("--full draws a message under its line as context does", () => {
    const out = renderTailLine({ line: 3, entry: entry("assistant", "first line\nsecond line") }, makeStyle(false, 80), 12, true);
    expect(out).toMatch(/── assistant/);
    expect(out).toContain("first line\nsecond line");
  });

  it("the status line says what is followed and the totals within the width: a long path gives up its start, then Ctrl-C's reminder goes, never the totals", () => {
    const path = `${"/very/long/path".repeat(6)}/2026-03-01T10-00-00-000Z_0f1e2d3c-0000-4000-8000-000000000001.jsonl`;
    const totals = { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, cost: 1.5 };
    for (const columns of [60, 80, 100]) {
      const text = statusLine(path, 3, totals, columns);
      expect(displayWidth(text), `${columns}: ${text}`).toBeLessThanOrEqual(columns - 1);
      expect(text, `${columns}`).toMatch(/^following …\S*0001\.jsonl · 3 new · 10 tokens · \$1\.5000( · Ctrl-C stops)?$/);
    }
    expect(statusLine(path, 3, totals, 120)).toMatch(/ · Ctrl-C stops$/);
    expect(statusLine("s.jsonl", 3, totals, 100)).toBe("following s.jsonl · 3 new · 10 tokens · $1.5000 · Ctrl-C stops");
    // (tokens spent with no cost recorded are not free)
    expect(statusLine("f", 0, { input: 10, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 }, 100)).toContain("no cost recorded");
  });
});
