import { describe, expect, it, vi } from "vitest";
import { lineFindings, quickFindings } from "../../../src/format/check/validate.js";
import { IMAGE_DATA_LENGTH } from "../../../src/format/read/pass-two.js";
import { LineFlag, parseLine } from "../../../src/format/read/salvage.js";
import { BufferSource, FileSource, forEachLine } from "../../../src/format/read/source.js";
import { openSessionBuffer, openSessionSync, type OpenOptions, type Session } from "../../../src/format/session/session.js";
import { KeptSummaries, SummaryReader, withSummaries } from "../../../src/format/session/summary.js";
import { assistant, entry, header, jsonl, user } from "../../helpers/builders.js";
import { previewFromBytes, previewOf } from "../../../src/render/preview.js";
import { CORPUS, corpusFiles, fixture, fixtureFiles } from "../../helpers/paths.js";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { rng } from "../../helpers/generate.js";
import { inModuleMemory } from "../../../src/format/read/wasm/simd.js";

const open = (bytes: Buffer) => openSessionBuffer("t.jsonl", bytes);
const kinds = (bytes: Buffer) => open(bytes).records.map((r) => r.kind);

describe("forEachLine", () => {
  it("splits on \\n only, keeping offsets, across chunk boundaries", () => {
    const text = "a\u2028b\nsecond\r\n\nlast";
    const bytes = Buffer.from(text);
    const seen: Array<[string, number, number, boolean]> = [];
    for (const chunk of [1, 2, 3, 64]) {
      seen.length = 0;
      forEachLine(new BufferSource("x", bytes), (b, start, end, line, offset, terminated) => seen.push([b.toString("utf8", start, end), line, offset, terminated]), chunk);
      expect(seen, `chunk ${chunk}`).toEqual([
        ["a\u2028b", 1, 0, true],
        ["second\r", 2, 6, true],
        ["", 3, 14, true],
        ["last", 4, 15, false],
      ]);
    }
  });

  it("agrees with a split of the whole file for random lines and chunk sizes, lines longer than the chunk included", () => {
    const random = rng(7);
    for (let round = 0; round < 200; round++) {
      const parts: string[] = [];
      const count = Math.floor(random() * 12);
      for (let k = 0; k < count; k++) parts.push("x".repeat(Math.floor(random() * random() * 40)));
      const text = parts.join("\n") + (random() < 0.5 ? "\n" : "");
      const chunk = 1 + Math.floor(random() * 24);
      const seen: Array<[string, number, number, boolean]> = [];
      forEachLine(new BufferSource("x", Buffer.from(text)), (b, start, end, line, offset, terminated) => seen.push([b.toString("utf8", start, end), line, offset, terminated]), chunk);
      const expected: Array<[string, number, number, boolean]> = [];
      let offset = 0;
      const lines = text.split("\n");
      lines.forEach((l, k) => {
        const last = k === lines.length - 1;
        if (!(last && l === "")) expected.push([l, k + 1, offset, !last]);
        offset += l.length + 1;
      });
      expect(seen, `round ${round}, chunk ${chunk}: ${JSON.stringify(text)}`).toEqual(expected);
    }
  });

  it("hands out lines of a file in the SIMD module's memory, where the scanner classifies them in place", () => {
    const lines: Buffer[] = [];
    forEachLine(new FileSource(fixture("branched.jsonl")), (b, start, end) => void lines.push(b.subarray(start, end)));
    expect(lines.length).toBeGreaterThan(3);
    for (const b of lines) expect(inModuleMemory(b)).toBe(true);
    // A nested read (the memory is lent out) gets a buffer of its own, and still works.
    const inner: string[] = [];
    forEachLine(new FileSource(fixture("branched.jsonl")), () => forEachLine(new BufferSource("x", Buffer.from("a\nb")), (b, start, end) => void inner.push(b.toString("utf8", start, end))));
    expect(inner.slice(0, 2)).toEqual(["a", "b"]);
  });

  it("reads up to the size the source had when opened: a small file in one read, and bytes written past it are no lines", () => {
    // (the source has grown since it was opened: pi appends while it runs)
    const now = Buffer.from("a\nb\nc\nappended\n");
    const offsets: number[] = [];
    const source = {
      name: "x",
      size: 5,
      read: (offset: number, length: number) => now.subarray(offset, offset + length),
      readInto(target: Buffer, offset: number) {
        offsets.push(offset);
        return now.copy(target, 0, offset, Math.min(now.length, offset + target.length));
      },
      close() {},
    };
    const seen: Array<[string, boolean]> = [];
    forEachLine(source, (b, start, end, _line, _offset, terminated) => seen.push([b.toString("utf8", start, end), terminated]));
    expect(seen).toEqual([["a", true], ["b", true], ["c", false]]);
    expect(offsets).toEqual([0]);
    // a larger one, read a few bytes at a time, to its size and no further
    offsets.length = 0;
    seen.length = 0;
    forEachLine({ ...source, size: 7 }, (b, start, end, _line, _offset, terminated) => seen.push([b.toString("utf8", start, end), terminated]), 3);
    expect(seen).toEqual([["a", true], ["b", true], ["c", true], ["a", false]]);
    expect(offsets).toEqual([0, 3, 5]);
  });

  it("does not report an empty line after a final newline", () => {
    const lines: string[] = [];
    forEachLine(new BufferSource("x", Buffer.from("a\nb\n")), (b, start, end) => lines.push(b.toString("utf8", start, end)));
    expect(lines).toEqual(["a", "b"]);
  });
});

describe("line classification", () => {
  it("classifies every kind of line with its reason", () => {
    const bytes = Buffer.concat([
      jsonl(header(), user("u1", null, "hi"), "", "not json", "42", "[1]", '{"id":"x1","parentId":"u1"}', header({ id: "other" })),
      Buffer.from('{"type":"message","id":"t1","parentId":"u1","timestamp":"20'),
    ]);
    const s = open(bytes);
    expect(s.records.map((r) => r.kind)).toEqual(["header", "entry", "blank", "invalid", "not-object", "not-object", "entry", "extra-header", "invalid"]);
    const codes = lineFindings(s).map((f) => `${f.line}:${f.code}`);
    expect(codes).toEqual(expect.arrayContaining(["3:line-blank", "4:line-invalid-json", "5:line-not-object", "6:line-not-object", "7:entry-no-type", "8:header-duplicate", "9:line-torn"]));
  });

  it("notes BOM, CRLF, NUL and invalid UTF-8 without losing the record", () => {
    expect(parseLine(Buffer.from('\ufeff{"type":"session"}'), true).flags & LineFlag.BOM).toBeTruthy();
    expect(parseLine(Buffer.from('\ufeff{"type":"session"}'), true).value).toEqual({ type: "session" });
    expect(parseLine(Buffer.from('{"a":1}\r')).flags & LineFlag.CRLF).toBeTruthy();
    expect(parseLine(Buffer.from('{"a":1}\r')).value).toEqual({ a: 1 });
    const nul = parseLine(Buffer.from('\0\0{"a":1}'));
    expect(nul.value).toBeUndefined();
    expect(nul.flags & LineFlag.NUL).toBeTruthy();
    const bad = parseLine(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
    expect(bad.flags & LineFlag.BAD_UTF8).toBeTruthy();
    expect(bad.value).toEqual({ a: "\ufffd" });
  });


  it("treats a header-less file as entries and reports the missing header", () => {
    const s = open(jsonl(user("u1", null, "a"), assistant("a1", "u1", "b")));
    expect(s.header).toBeNull();
    expect(s.tree.size).toBe(2);
    expect(lineFindings(s).map((f) => f.code)).toContain("header-missing");
  });

  it("reports an empty file", () => {
    expect(kinds(Buffer.alloc(0))).toEqual([]);
    expect(quickFindings(open(Buffer.alloc(0))).map((f) => f.code)).toEqual(["file-empty"]);
  });
});

describe("pass two", () => {
  it("re-reads only the requested line, by offset", () => {
    const s = open(jsonl(header(), user("u1", null, "first"), assistant("a1", "u1", "second")));
    const e = s.entry(1);
    expect(e.id).toBe("a1");
    expect((e.message as { content: Array<{ text: string }> }).content[0]!.text).toBe("second");
  });

  it("upgrades v1 entries in memory with deterministic ids", () => {
    const a = openSessionSync(fixture("v1.jsonl"));
    const b = openSessionSync(fixture("v1.jsonl"));
    const idsOf = (s: Session) => Array.from({ length: s.tree.size }, (_, n) => s.nodeId(n));
    const ids = idsOf(a);
    expect(ids).toEqual(idsOf(b));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
    // each entry's parent is the previous entry
    ids.forEach((_, i) => expect(a.nodeRecord(i).parentId).toBe(i === 0 ? null : ids[i - 1]));
    // the compaction's firstKeptEntryIndex (4: the 4th record after the header) became an id
    const compaction = a.entries(ids.map((_, i) => i)).find((e) => e.type === "compaction")!;
    expect(compaction.firstKeptEntryIndex).toBeUndefined();
    expect(compaction.firstKeptEntryId).toBe(ids[3]);
  });

  it("renames hookMessage to custom when reading v2", () => {
    const s = openSessionSync(fixture("v2-hook.jsonl"));
    expect((s.entry(1).message as { role: string }).role).toBe("custom");
    expect(s.nodeRecord(1).role).toBe("custom");
  });
});

describe("pass two without image data", () => {
  const big = (n: number, c = "A") => c.repeat(n);
  const image = (id: string, parent: string | null, data: string, extra: Record<string, unknown> = {}) =>
    entry("message", id, parent, { message: { role: "user", content: [{ type: "text", text: "look" }, { type: "image", mimeType: "image/png", data }], timestamp: 1 }, ...extra });
  const lines = () =>
    jsonl(
      header(),
      image("i1", null, big(70_000)),
      user("u1", "i1", big(80_000, "x")), // a long plain text: read back in full
      user("u2", "u1", `${big(70_000, "y")}\n"q"`), // escapes: not plain, read whole
      user("u3", "u2", big(70_000, "é")), // not ASCII: read whole
      image("i2", "u3", big(90_000, "B"), { note: big(100, "n") }),
      image("i3", "i2", "short"),
      assistant("a1", "i3", "done"),
    );

  it("gives every entry as a full read does, with the length of long image data instead of it", () => {
    const s = open(lines());
    const nodes = s.tree.pathTo(s.leafNode);
    const full = [...s.entriesInOrder(nodes)].map((x) => x.entry);
    const light = [...s.entriesInOrder(nodes, { imageData: "length" })].map((x) => x.entry);
    const single = Array.from(nodes, (n) => s.entry(n, { imageData: "length" }));
    expect(light).toEqual(single);
    expect(light).toHaveLength(full.length);
    let omitted = 0;
    light.forEach((e, k) => {
      const blocks = (e.message as { content: unknown }).content;
      const fullBlocks = (full[k]!.message as { content: unknown }).content;
      if (!Array.isArray(blocks)) return expect(e).toEqual(full[k]);
      blocks.forEach((b: Record<string | symbol, unknown>, j) => {
        const f = (fullBlocks as Array<Record<string, unknown>>)[j]!;
        if (b[IMAGE_DATA_LENGTH] !== undefined) {
          omitted++;
          expect(b.data).toBe("");
          expect(b[IMAGE_DATA_LENGTH]).toBe((f.data as string).length);
          const { [IMAGE_DATA_LENGTH]: length, ...rest } = b;
          expect(length).toBeGreaterThan(65_535);
          expect({ ...rest, data: f.data }).toEqual(f);
        } else expect(b).toEqual(f);
      });
      expect({ ...e, message: undefined }).toEqual({ ...full[k], message: undefined });
    });
    expect(omitted).toBe(2); // i1 and i2; i3's data is short
  });

  it("gives previews from lines cut short exactly as from whole lines", () => {
    const s = open(jsonl(header(), image("i1", null, big(70_000)), user("u1", "i1", big(80_000, "x")), image("i2", "u1", big(90_000, "B")), assistant("a1", "i2", "done")));
    for (let node = 0; node < s.tree.size; node++) {
      const { type, role } = s.nodeKind(node);
      const cut = s.previewBytes(node);
      expect(cut.length).toBeLessThan(4096);
      expect(previewFromBytes(cut, type, role), String(node)).toBe(previewFromBytes(s.nodeBytes(node), type, role));
    }
  });

  it("gives previews read in windows, which skip the long string in their searches, as from whole lines", () => {
    // text before the image, after it (content: [image, text]), as the long string itself, and none
    const after = (id: string, parent: string, data: string) => entry("message", id, parent, { message: { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "image", mimeType: "image/png", data }, { type: "text", text: "after the image" }], timestamp: 1 } });
    const none = (id: string, parent: string, data: string) => entry("message", id, parent, { message: { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "image", mimeType: "image/png", data }], timestamp: 1 } });
    const bytes = jsonl(header(), image("i1", null, big(70_000)), after("i2", "i1", big(90_000, "B")), user("u1", "i2", big(80_000, "x")), none("i3", "u1", big(75_000, "C")), assistant("a1", "i3", "done"));
    const s = openSessionBuffer("t.jsonl", bytes);
    const nodes = Array.from({ length: s.tree.size }, (_, n) => n);
    const seen = Array.from(withSummaries(new SummaryReader(s, 200, previewOf(200)), [...nodes].reverse(), (n) => n), ([node, preview]) => ({ node, preview, skip: s.nodeHasLong(node) }));
    expect(seen.map((x) => x.node)).toEqual([...nodes].reverse());
    expect(seen.filter((x) => x.skip)).toHaveLength(4);
    for (const { node, preview } of seen) {
      const { type, role } = s.nodeKind(node);
      expect(preview, String(node)).toBe(previewFromBytes(s.nodeBytes(node), type, role));
    }
    expect(seen.map((x) => x.preview)).toContain("after the image");
  });

  it("gives previews made in pass one (KeptSummaries) as pass two reads them, kept or not, and reads no line again for a kept one", () => {
    const after = (id: string, parent: string, data: string) => entry("message", id, parent, { message: { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "image", mimeType: "image/png", data }, { type: "text", text: "after the image" }], timestamp: 1 } });
    const hook = (id: string, parent: string) => entry("message", id, parent, { message: { role: "hookMessage", customType: "x", content: "from a hook", display: true, timestamp: 1 } });
    // (a call whose arguments hold a text and a long string: OpenClaw's message tool sending an image)
    const send = (id: string, parent: string, data: string) => entry("message", id, parent, { message: { role: "assistant", content: [{ type: "toolCall", id: "c", name: "message", arguments: { action: "send", text: "see this", buffer: data } }], timestamp: 1 } });
    const bytes = jsonl(header(), image("i1", null, big(70_000)), after("i2", "i1", big(90_000, "B")), user("u1", "i2", big(80_000, "x")), hook("h1", "u1"), user("u2", "h1", `${"é".repeat(300)} "quoted"`), assistant("a1", "u2", "done"), send("m1", "a1", big(75_000, "C")));
    expect(previewFromBytes(openSessionBuffer("t.jsonl", bytes).previewBytes(6), "message", "assistant")).toBe("→ message(…)");
    // (a v2 file too: its hookMessage is a custom message, by the role pass one records)
    const v2 = Buffer.from(bytes.toString().replace('"version":3', '"version":2'));
    for (const file of [bytes, v2]) {
      for (const max of [12, 80, 200]) {
        const plain = openSessionBuffer("t.jsonl", file);
        const nodes = Array.from({ length: plain.tree.size }, (_, n) => n);
        const read = Array.from(withSummaries(new SummaryReader(plain, max, previewOf(max)), nodes, (n) => n), ([, p]) => p);
        // all kept, none, the first few, and none in a session of the size kept none from
        for (const budget of [Infinity, 0, 40, -1]) {
          const kept = budget === -1 ? new KeptSummaries(max, previewOf(max), { budget: Infinity, upTo: file.length }) : new KeptSummaries(max, previewOf(max), { budget });
          const s = openSessionBuffer("t.jsonl", file, { previewLines: kept.previewLines });
          kept.done();
          if (kept.has(6)) expect(kept.get(6)).toBe(previewOf(max)("→ message(…)"));
          const reads = vi.spyOn(s.source, "read");
          const readsInto = vi.spyOn(s.source, "readInto");
          expect(Array.from(withSummaries(new SummaryReader(s, max, previewOf(max), kept), [...nodes].reverse(), (n) => n), ([, p]) => p)).toEqual([...read].reverse());
          expect(reads.mock.calls.length + readsInto.mock.calls.length > 0, `budget ${budget}`).toBe(budget !== Infinity);
          const keptCount = nodes.filter((n) => kept.has(n)).length;
          if (budget === 40) expect(keptCount > 0 && keptCount < nodes.length, `${keptCount} kept`).toBe(true);
          else expect(keptCount).toBe(budget === Infinity ? nodes.length : 0);
          // kept for another width: not used, and the previews are still right
          expect(Array.from(withSummaries(new SummaryReader(s, max + 1, previewOf(max + 1), kept), nodes, (n) => n), ([, p]) => p)).toEqual(Array.from(withSummaries(new SummaryReader(plain, max + 1, previewOf(max + 1)), nodes, (n) => n), ([, p]) => p));
        }
      }
    }
  });

  it("keeps a branch's previews (chain) while the entries read as mostly one chain: 16 forks and one in 1,024 entries", () => {
    // (entry k's parent: the one before, but every `every`-th entry goes back three: a fork each)
    const session = (count: number, every: number) => {
      const ids = Array.from({ length: count }, (_, k) => `e${k}`);
      return jsonl(header(), ...ids.map((id, k) => user(id, k === 0 ? null : ids[k % every === 0 && k > 3 ? k - 4 : k - 1]!, `text ${k}`)));
    };
    const keptOf = (bytes: Buffer, chain: boolean) => {
      const kept = new KeptSummaries(80, previewOf(80), { chain });
      const s = openSessionBuffer("t.jsonl", bytes, { previewLines: kept.previewLines });
      kept.done();
      const all = Array.from({ length: s.tree.size }, (_, n) => n);
      const count = all.filter((n) => kept.has(n)).length;
      // (what is kept is what pass two reads)
      expect(all.filter((n) => kept.has(n)).map((n) => kept.get(n))).toEqual(Array.from(withSummaries(new SummaryReader(open(bytes), 80, previewOf(80)), all.slice(0, count), (n) => n), ([, p]) => p));
      return count;
    };
    // 16 forks in 400 entries: all kept; the 17th fork (entry 170 when one in ten forks) ends the keeping
    expect(keptOf(session(400, 25), true)).toBe(400);
    expect(keptOf(session(400, 10), true)).toBe(170);
    expect(keptOf(session(400, 10), false)).toBe(400);
    // one more allowed each 1,024 entries: 17 forks in 2,100 entries (one in 120) kept all, the 17th
    // is past 16 and one there; one in 52: the 17th, at entry 884, before the allowance grows
    expect(keptOf(session(2100, 120), true)).toBe(2100);
    expect(keptOf(session(2100, 52), true)).toBe(884);
  });

  it("hands pass one's preview bytes on, with the session's size asked first, until the caller wants no more", () => {
    const bytes = jsonl(header(), image("i1", null, big(70_000)), user("u1", "i1", "one"), user("u2", "u1", "two"), assistant("a1", "u2", "done"));
    const sizes: number[] = [];
    const seen: Array<[number, string | undefined, string | undefined, number]> = [];
    const s = openSessionBuffer("t.jsonl", bytes, {
      previewLines: (size) => {
        sizes.push(size);
        return (node, line, type, role) => seen.push([node, type, role, line.length]) < 3;
      },
    });
    expect(sizes).toEqual([bytes.length]);
    // (the image line cut as previewBytes cuts it; the fourth entry not handed on)
    expect(seen).toEqual([
      [0, "message", "user", s.previewBytes(0).length],
      [1, "message", "user", s.nodeLength(1)],
      [2, "message", "user", s.nodeLength(2)],
    ]);
    expect(s.previewBytes(0).length).toBeLessThan(2048);
    expect(openSessionBuffer("t.jsonl", bytes, { previewLines: () => undefined }).tree.size).toBe(4);
  });

  it("gives previews made in pass one as pass two reads them, on every fixture and real session, at a tree's widths", () => {
    // (OpenClaw's transcripts too, live, reset and deleted: their user messages come in envelopes)
    const stores = join(CORPUS, "..", "openclaw-stores");
    const transcripts = readdirSync(stores, { recursive: true, encoding: "utf8" }).filter((f) => /\.jsonl(\.(reset|deleted)\.|$)/.test(f)).map((f) => join(stores, f));
    expect(transcripts.length).toBeGreaterThan(20);
    let nodes = 0;
    for (const file of [...fixtureFiles(), ...corpusFiles(), ...transcripts]) {
      for (const max of [60, 200]) {
        const kept = new KeptSummaries(max, previewOf(max));
        const s = openSessionSync(file, { previewLines: kept.previewLines });
        kept.done();
        const plain = openSessionSync(file);
        const all = Array.from({ length: s.tree.size }, (_, n) => n);
        expect(all.every((n) => kept.has(n)), file).toBe(true);
        const made = all.map((n) => kept.get(n));
        expect(made, `${file} at ${max}`).toEqual(Array.from(withSummaries(new SummaryReader(plain, max, previewOf(max)), all, (n) => n), ([, p]) => p));
        nodes += all.length;
      }
    }
    expect(nodes).toBeGreaterThan(8_000);
  });

  it("reads long image data in full when asked (the default)", () => {
    const s = open(lines());
    const e = s.entry(0);
    expect(((e.message as { content: Array<{ data?: string }> }).content[1]!.data ?? "").length).toBe(70_000);
  });
});

describe("current leaf", () => {
  it("is the last entry of a coding-agent file", () => {
    const s = open(jsonl(header(), user("u1", null, "a"), assistant("a1", "u1", "b"), user("u2", "u1", "c")));
    expect(s.nodeRecord(s.leafNode).id).toBe("u2");
  });

  it("follows leaf entries in a harness file", () => {
    const s = openSessionSync(fixture("harness.jsonl"));
    expect(s.isHarness).toBe(true);
    expect(s.nodeRecord(s.leafNode).id).toBe("h0000007");
    const back = open(jsonl(header(), user("u1", null, "a"), assistant("a1", "u1", "b"), entry("leaf", "l1", "a1", { targetId: "u1" })));
    expect(back.nodeRecord(back.leafNode).id).toBe("u1");
    const none = open(jsonl(header(), user("u1", null, "a"), entry("leaf", "l1", "u1", { targetId: null })));
    expect(none.leafNode).toBe(-1);
  });
});

describe("pass one with onRecord and imageData: length", () => {
  /** Every entry handed on, with image data as `ReadOptions.imageData: "length"` leaves it. */
  const entries = (open: (o: OpenOptions) => Session, imageData: "full" | "length") => {
    const seen: unknown[] = [];
    const session = open({ onRecord: (v) => void seen.push(v), imageData });
    const image = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(image);
      if (v && typeof v === "object") {
        const o = v as Record<string | symbol, unknown>;
        const length = o[IMAGE_DATA_LENGTH];
        const out: Record<string, unknown> = Object.fromEntries(Object.entries(o).map(([k, x]) => [k, image(x)]));
        if (typeof length === "number") out.data = `(${length} bytes)`;
        else if (o.type === "image" && typeof o.data === "string" && o.data.length >= 65536) out.data = `(${o.data.length} bytes)`;
        return out;
      }
      return v;
    };
    const result = { entries: seen.map(image), records: session.records, leaf: session.leafNode, findings: lineFindings(session) };
    session.close();
    return result;
  };

  it("hands on the same entries as the full read, large images' data left out, and indexes the same", () => {
    const big = "A".repeat(200_000);
    const bytes = jsonl(
      header(),
      user("u1", null, "look"),
      entry("message", "t1", "u1", { message: { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "image", data: big, mimeType: "image/png" }, { type: "text", text: "x".repeat(70_000) }] } }),
      entry("message", "t2", "t1", { message: { role: "user", content: [{ type: "text", text: `quote \\" and ${"y".repeat(70_000)}` }, { type: "image", data: big, mimeType: "image/png" }] } }),
    );
    const files: Array<(o: OpenOptions) => Session> = [(o) => openSessionBuffer("t.jsonl", bytes, o), ...[...fixtureFiles(), ...corpusFiles()].map((f) => (o: OpenOptions) => openSessionSync(f, o))];
    let skimmed = 0;
    for (const open of files) {
      const full = entries(open, "full");
      const length = entries(open, "length");
      const strip = (rs: Array<{ flags: number; id?: string; parentId?: string | null }>) => rs.map((r) => ({ ...r, id: r.id, parentId: r.parentId, flags: r.flags & ~LineFlag.RAW_MESSAGE & ~LineFlag.PLAIN_TEXT }));
      expect(length.entries).toEqual(full.entries);
      expect(strip(length.records)).toEqual(strip(full.records));
      expect(length.leaf).toBe(full.leaf);
      expect(length.findings).toEqual(full.findings);
      skimmed += JSON.stringify(length.entries).split('bytes)"').length - 1;
    }
    expect(skimmed, "some image data was left out").toBeGreaterThanOrEqual(2);
  });
});

describe("previews of text in any script", () => {
  it("never cut a character in two, at any width", () => {
    for (const text of ["好的，李四，已记住！😊 （注意：你之前也提到过“张三”，如需区分或更新上下文，请告诉我。）".repeat(4), "é".repeat(300), "😊".repeat(300), "ab😊".repeat(100)]) {
      const line = Buffer.from(JSON.stringify(user("u1", null, text)));
      for (let max = 2; max <= 220; max += 7) {
        const p = previewFromBytes(line, "message", "user", max);
        expect(p, `max ${max}`).not.toContain("\uFFFD");
        expect(text.startsWith(p.replace(/…$/, "")), `max ${max}: ${p}`).toBe(true);
        expect(p.length, `max ${max}`).toBeLessThanOrEqual(max);
      }
    }
    // Escapes take more bytes than the window allows a character (`\u0001` is six): the window
    // then ends inside the text, and must still end between characters.
    const dense = Buffer.from(JSON.stringify(user("u1", null, "\u0001好".repeat(200))));
    for (let max = 2; max <= 220; max += 7) expect(previewFromBytes(dense, "message", "user", max), `max ${max}`).not.toContain("\uFFFD");
  });
});
