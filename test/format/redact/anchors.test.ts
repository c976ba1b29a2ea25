/**
 * The line prefilter (src/format/redact/anchors.ts): whether a line's bytes hold an anchor, an
 * escape that could spell one, or a NUL byte, answered by the WebAssembly search where the bytes
 * lie in the module's memory (as a read chunk does) and by the pair table elsewhere: the two
 * agree with each other and with the plain reading of the rule (every anchor looked for with
 * `includes`, as JSON writes it), on the corpus's lines, planted secrets, and lines made to put
 * anchors at their edges; a URL's `://` counts where a credential or a Slack webhook follows it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { borrowChunk, returnChunk } from "../../../src/format/read/wasm/simd.js";
import { AnchorScan, type Follows } from "../../../src/format/redact/anchors.js";
import { ANCHOR_FOLLOWS, loadRuleSet } from "../../../src/format/redact/rules.js";
import { corpusFiles } from "../../helpers/paths.js";
import { secrets } from "../../helpers/secrets.js";

/** The rule read plainly: an anchor as JSON writes it (`follows` checked after it), `\u`, `\/`, or a NUL byte. */
function plainly(line: Buffer, anchors: readonly string[], follows: ReadonlyMap<string, Follows>): boolean {
  if (line.includes(0)) return true;
  const looked: Array<[string, Follows | undefined]> = [...anchors.map((a): [string, Follows | undefined] => [JSON.stringify(a).slice(1, -1), follows.get(a)]), ["\\u", undefined], ["\\/", undefined]];
  for (const [written, after] of looked) for (let at = line.indexOf(written); at >= 0; at = line.indexOf(written, at + 1)) if (!after || after(line, at + written.length, line.length)) return true;
  return false;
}

describe("the line prefilter", () => {
  it("answers alike in the WebAssembly module's memory and out of it, and as the rule read plainly does", async () => {
    const rules = await loadRuleSet();
    const anchors = [...rules.anchors, "/home/mkowalski", "given-value-9876"];
    const scan = new AnchorScan(anchors, rules.follows);
    // (each line with the bytes a read leaves on either side of it in the chunk: another line's)
    const lines: Array<{ line: Buffer; before: string; after: string }> = [];
    const add = (line: Buffer | string, before = "qq", after = "qq") => lines.push({ line: Buffer.from(line as string, typeof line === "string" ? "utf8" : undefined), before, after });
    for (const file of corpusFiles().slice(0, 40)) for (const line of readFileSync(file).toString("latin1").split("\n")) add(Buffer.from(line, "latin1"));
    for (const p of secrets(7)) for (const around of [(s: string) => s, (s: string) => `x${s}`, (s: string) => `${s}y`, (s: string) => `{"a":"${JSON.stringify(s).slice(1, -1)}"}`]) add(around(p.text));
    // (each anchor at a line's very start and end, and cut by one byte at either edge, the byte cut off just outside the line)
    for (const a of anchors) {
      const w = JSON.stringify(a).slice(1, -1);
      add(w);
      add(w.slice(1), w[0]);
      add(w.slice(0, -1), "qq", w.slice(-1));
      add(`${"q".repeat(37)}${w}`);
      add(`${w}${"q".repeat(37)}`);
      add(`${"q".repeat(100)}${w.slice(0, -1)}`, "qq", w.slice(-1));
      add(`${w.slice(1)}${"q".repeat(100)}`, w[0]);
    }
    for (const line of [Buffer.from([0]), Buffer.from([0x61, 0, 0x62]), "a\\u0067b", "x\\/y", "https://a:b@c.d", "https://a.b/c:d@e", "HTTPS://HOOKS.slack.COM/x", "", "q"]) add(line);
    add("\\", "qq", "u");
    add("https://a:b", "qq", "@c.d");
    const chunk = borrowChunk(1 << 20)!;
    expect(chunk).toBeDefined();
    try {
      let held = 0;
      for (const { line, before, after } of lines) {
        if (line.length + 64 > chunk.length) continue;
        // (at an offset in the chunk, as a read leaves a line)
        const around = Buffer.concat([Buffer.from(before), line, Buffer.from(after), Buffer.alloc(32, 0x71)]);
        const at = 17 + (line.length % 13);
        around.copy(chunk, at - before.length);
        const want = plainly(line, anchors, rules.follows);
        const wasm = scan.holds(chunk, at, at + line.length);
        const js = scan.holds(around, before.length, before.length + line.length);
        expect([wasm, js], line.toString("latin1").slice(0, 120)).toEqual([want, want]);
        if (want) held++;
      }
      expect(held).toBeGreaterThan(200);
      expect(lines.length - held).toBeGreaterThan(1000);
    } finally {
      returnChunk(chunk);
    }
  });

  it("counts `://` only where a credential or a Slack webhook may follow it", () => {
    const scan = new AnchorScan(["://"], ANCHOR_FOLLOWS);
    const holds = (text: string) => scan.holds(Buffer.from(text), 0, Buffer.byteLength(text));
    for (const text of ["https://user:pass@host.example.com", 'postgres://app:p\\"x@db', "HTTPS://HOOKS.SLACK.COM/services/T1/B2/x", "see https://a.b/c then mongodb://u:p@h"]) expect(holds(text), text).toBe(true);
    for (const text of ["https://example.com/a@b", "https://example.com", "see http:// then @", `https://${"a".repeat(1400)}@b`]) expect(holds(text), text).toBe(false);
  });
});
