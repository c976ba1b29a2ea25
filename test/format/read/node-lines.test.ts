/**
 * Which line each node is on, and which node each line holds: kept as runs of nodes on lines one
 * after another, or as a column where the runs come to a quarter of the nodes. Both ways are held
 * to what the file's text says, line by line.
 */
import { describe, expect, it } from "vitest";
import { openSessionBuffer } from "../../../src/format/session/session.js";
import { rng } from "../../helpers/generate.js";
import { header, user } from "../../helpers/builders.js";

/** A session of `entries` entries with other lines (blank, broken, a second header) between them where `gap` says. */
function session(entries: number, gap: (k: number) => string | undefined): { text: string; entryLines: number[] } {
  const lines = [JSON.stringify(header())];
  const entryLines: number[] = [];
  let parent: string | null = null;
  for (let k = 0; k < entries; k++) {
    const other = gap(k);
    if (other !== undefined) lines.push(other);
    const id = k.toString(16).padStart(8, "0");
    entryLines.push(lines.length);
    lines.push(JSON.stringify(user(id, parent, `message ${k}`)));
    parent = id;
  }
  return { text: lines.join("\n") + "\n", entryLines };
}

function agree(text: string, entryLines: number[]): void {
  const s = openSessionBuffer("s.jsonl", Buffer.from(text));
  try {
    expect(s.tree.size).toBe(entryLines.length);
    const lines = text.split("\n").length - 1;
    const nodeOf = new Map(entryLines.map((line, node) => [line, node]));
    // (asked in an order of their own, as commands ask: the run found last is no help)
    for (let node = entryLines.length - 1; node >= 0; node--) expect(s.nodeLine(node)).toBe(entryLines[node]! + 1);
    for (let node = 0; node < entryLines.length; node++) expect(s.nodeLine(node)).toBe(entryLines[node]! + 1);
    for (let index = 0; index < lines + 2; index++) expect(s.nodeAtLine(index), `line ${index + 1}`).toBe(nodeOf.get(index) ?? -1);
  } finally {
    s.close();
  }
}

describe("a node's line and a line's node", () => {
  it("a file with nothing between its entries", () => {
    const { text, entryLines } = session(500, () => undefined);
    agree(text, entryLines);
  });

  it("a few lines between entries: a run each", () => {
    const { text, entryLines } = session(2000, (k) => (k === 7 ? "" : k === 900 ? "{not json" : k === 1500 ? JSON.stringify(header()) : k === 1501 ? "" : undefined));
    agree(text, entryLines);
  });

  it("many lines between entries: a column", () => {
    const r = rng(60);
    const { text, entryLines } = session(3000, () => (r() < 0.5 ? (r() < 0.5 ? "" : "[1]") : undefined));
    agree(text, entryLines);
  });

  it("a file that turns from runs to a column half way", () => {
    const r = rng(61);
    const { text, entryLines } = session(3000, (k) => (k > 1500 && r() < 0.6 ? "" : undefined));
    agree(text, entryLines);
  });
});
