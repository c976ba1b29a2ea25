/**
 * The scanner against JSON.parse, on generated lines and corruptions of them: wherever it answers
 * it agrees (valid: JSON.parse succeeds and the kept fields match; invalid: JSON.parse throws);
 * where it cannot be sure it defers.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { lineFindings } from "../../../src/format/check/validate.js";
import { LineFlag } from "../../../src/format/read/salvage.js";
import { emptyFields, idText, lendFields, scanLine, scanShape, Verdict, type ScanFields } from "../../../src/format/read/scanner.js";
import { openSessionSync } from "../../../src/format/session/session.js";
import { fieldsOf } from "../../../src/format/read/scanner.js";
import { borrowChunk, inModuleMemory, returnChunk, simdFindNeedle } from "../../../src/format/read/wasm/simd.js";
import { WASM } from "../../../src/format/read/wasm/scan-wasm.js";
import { rng } from "../../helpers/generate.js";
import { corpusFiles, fixtureFiles } from "../../helpers/paths.js";

/** Bytes a scan that looked past a line's end would take for part of it. */
const PAST_END = Buffer.from('"\\"}]0e1 ,:{"');
let shift = 0;

/**
 * `scanLine` on a copy of `line` in the WebAssembly module's memory (where pass one's lines lie),
 * at a shifting alignment and with `PAST_END` right after it.
 */
function scanInMemory(line: Buffer, fields: ScanFields, shape = false): Verdict {
  const at = shift++ % 19;
  const memory = borrowChunk(at + line.length + PAST_END.length);
  expect(memory, "the module's memory is free").toBeDefined();
  try {
    line.copy(memory!, at);
    PAST_END.copy(memory!, at + line.length);
    expect(inModuleMemory(memory!)).toBe(true);
    // the line as pass one hands it on: a view of the chunk, at `at`
    const verdict = shape ? scanShape(memory!, fields, at, at + line.length) : scanLine(memory!, fields, at, at + line.length);
    // positions are the line's own, wherever the line lies
    return verdict;
  } finally {
    returnChunk(memory!);
  }
}

/** The JSON value `text` starts with (what follows it cut off), found by its brackets and quotes. */
function firstValue(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (depth === 0 && /[,\s}\]]/.test(c)) return text.slice(0, i);
    if (c === '"') {
      for (i++; text[i] !== '"'; i++) if (text[i] === "\\") i++;
      if (depth === 0) return text.slice(0, i + 1);
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (--depth === 0) return text.slice(0, i + 1);
    }
  }
  return text;
}

/** The scanner agrees with JSON.parse: on the verdict, and on every field it keeps (as `fieldsOf` reads them from the value). */
function expectAgrees(line: Buffer): Verdict {
  const fields = emptyFields();
  const verdict = scanInMemory(line, fields);
  // outside the module's memory the scanner defers, always
  expect(scanLine(Buffer.from(line), emptyFields())).toBe(Verdict.Defer);
  let parsed: unknown;
  let ok = true;
  try {
    parsed = JSON.parse(line.toString("utf8"));
  } catch {
    ok = false;
  }
  const text = line.toString("utf8").slice(0, 300);
  if (verdict === Verdict.Valid) {
    expect(ok, `scanner said valid: ${text}`).toBe(true);
    const obj = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    expect(fields.object, text).toBe(obj !== undefined);
    if (obj) {
      const expected = emptyFields();
      fieldsOf(obj, expected);
      const kept = (f: ScanFields) => ({ type: f.type, idHex: f.idHex, id: f.id, parentKind: f.parentKind, parentHex: f.parentHex, parentId: f.parentId, hasTimestamp: f.hasTimestamp, time: f.time, role: f.role, contentKind: f.contentKind, provider: f.provider, model: f.model, responseModel: f.responseModel, responseModelKind: f.responseModelKind, toolCallId: f.toolCallId, stopReason: f.stopReason });
      expect(kept(fields), text).toEqual(kept(expected));
      const m = obj.message as Record<string, unknown> | undefined;
      const isObj = !!m && typeof m === "object" && !Array.isArray(m);
      if (isObj) {
        expect(JSON.parse(line.toString("utf8", fields.messageStart, fields.messageEnd))).toEqual(m);
        const usage = m!.usage;
        if (usage && typeof usage === "object" && !Array.isArray(usage)) expect(JSON.parse(line.toString("utf8", fields.usageStart, fields.usageEnd)), text).toEqual(usage);
        else expect(fields.usageStart, text).toBe(-1);
        // where the (last) content value starts: the value read from there is the message's content
        if ("content" in m!) expect(JSON.parse(firstValue(line.toString("utf8", fields.contentStart))), text).toEqual(m!.content);
        else expect(fields.contentStart, text).toBe(-1);
        // scanShape: the same start, and the content's text and thinking blocks' strings, in order
        const shape = emptyFields();
        expect(scanInMemory(line, shape, true)).toBe(Verdict.Valid);
        expect({ type: shape.type, role: shape.role, messageStart: shape.messageStart, contentStart: shape.contentStart }).toEqual({ type: fields.type, role: fields.role, messageStart: fields.messageStart, contentStart: fields.contentStart });
        if (Array.isArray(m!.content)) {
          const isBlock = (b: unknown): b is Record<string, unknown> => !!b && typeof b === "object" && !Array.isArray(b);
          const blocks = m!.content.filter(isBlock);
          const expectedTexts = blocks.flatMap((b) =>
            b.type === "text" && typeof b.text === "string"
              ? [[1, b.text]]
              : b.type === "thinking" && typeof b.thinking === "string"
                ? [[2, b.thinking]]
                : b.type === "toolCall"
                  ? [...(typeof b.name === "string" ? [[3, b.name]] : []), ...("arguments" in b ? [[4, b.arguments]] : [])]
                  : [],
          );
          if (shape.texts >= 0) {
            const found = Array.from({ length: shape.texts }, (_, k) => [shape.textKind[k], JSON.parse(shape.textKind[k] === 4 ? firstValue(line.toString("utf8", shape.textOpen[k])) : line.toString("utf8", shape.textOpen[k], shape.textClose[k]! + 1))]);
            expect(found, text).toEqual(expectedTexts);
          } else {
            // (only more than 64 texts, or a block type with an escape, leaves them to the reader)
            const escapedType = /"type"\s*:\s*"[^"]*\\/.test(line.toString("utf8"));
            expect(expectedTexts.length > 64 || escapedType, text).toBe(true);
          }
        }
        // the ids of the content's toolCall blocks, in order (the last `id` and `type` of a block count)
        const content = m!.content;
        const calls = Array.isArray(content) ? content.filter((b) => b && typeof b === "object" && !Array.isArray(b) && b.type === "toolCall" && typeof b.id === "string").map((b) => b.id as string) : [];
        if (calls.length <= 64) {
          const found = Array.from({ length: Math.max(0, fields.calls) }, (_, k) => JSON.parse(`"${line.toString("utf8", fields.callOpen[k], fields.callClose[k])}"`) as string);
          expect(found, text).toEqual(calls);
        } else expect(fields.calls).toBe(-1);
      } else {
        expect(fields.messageStart).toBe(-1);
      }
    }
    // Plain text: no string (value or key) can hold what output cleans.
    if (fields.plainText) {
      const texts: string[] = [];
      const all = (v: unknown): void => {
        if (typeof v === "string") texts.push(v);
        else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) {
          texts.push(k);
          all(x);
        }
      };
      all(parsed);
      // eslint-disable-next-line no-control-regex
      for (const t of texts) expect(t, text).not.toMatch(/[\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    }
    // The line's ASCII-ness, and its long string (the longest string value of 64 KB or more).
    // (`ascii` is also false on a line with a control byte, such as a tab between tokens: the check
    // that finds those stops there.)
    expect(fields.ascii, text).toBe(line.every((x, k) => (x >= 0x20 && x < 0x80) || (x === 0x0d && k === line.length - 1)));
    const strings: string[] = [];
    const collect = (v: unknown): void => {
      if (typeof v === "string") strings.push(v);
      else if (v && typeof v === "object") for (const x of Object.values(v)) collect(x);
    };
    collect(parsed);
    if (fields.longStart >= 0) {
      const body = line.subarray(fields.longStart, fields.longEnd);
      expect(strings, text).toContain(JSON.parse(`"${body.toString("utf8")}"`));
      expect(fields.longPlain, text).toBe(body.every((x) => x < 0x80 && x !== 0x5c));
    }
  } else if (verdict === Verdict.Invalid) {
    expect(ok, `scanner said invalid: ${text}`).toBe(false);
  }
  return verdict;
}

const r = rng(7);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const tricky = ['plain', 'quote " inside', "back\\slash", "unicode é ✓ 😀", "\u2028line\u2029sep", 'nested {"id":"fake","parentId":"x"}', "\\u0041", "\t tab", "ctrl \u0001", "}{", "\u0000nul"];

function randomValue(depth: number): unknown {
  const x = r();
  if (depth > 3 || x < 0.3) return pick(tricky) + (r() < 0.5 ? "" : String(Math.floor(r() * 1e6)));
  if (x < 0.4) return pick([0, -1, 1.5, 1e21, -0.25e-3, true, false, null]);
  if (x < 0.7) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = 0; i < Math.floor(r() * 5); i++) o[pick(["id", "parentId", "type", "role", "text", "timestamp", "message", "content", "x"])] = randomValue(depth + 1);
  return o;
}

// pi's own form, and forms Date.parse reads (or rejects) in other ways
const TIMES = ["2026-01-01T00:00:00.000Z", "2024-02-29T23:59:59.999Z", "2023-02-29T10:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "0050-01-01T00:00:00.000Z", "2026-01-01T00:00:00Z", "2026-01-01T02:00:00.000+02:00", "2026-01-01", "Jan 1 2026", "not a time", "2026-04-31T00:00:00.000Z", "1999-12-31T23:59:60.000Z"];

/** A message with the fields a skim keeps, in any order, sometimes repeated, sometimes of other kinds. */
function randomMessage(): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  // (text and thinking blocks: their strings, kept by scanShape, in any order and of other kinds)
  const textBlock = () => Object.fromEntries([["type", pick(["text", "text", "thinking", "image", 3])], ["text", pick(["hello", 'say "hi"\n', 5, null])], ["thinking", pick(["hmm", "é", {}])], ["textSignature", "s"]].filter(() => r() < 0.8).sort(() => r() - 0.5));
  const block = () =>
    r() < 0.4
      ? textBlock()
      : r() < 0.5
        ? { type: pick(["toolCall", "toolCall", "text", 3]), id: pick(["call_1", "toolu_01Abc", "\\u0063all", 7, "é"]), name: "bash", arguments: r() < 0.2 ? { stopReason: "error" } : randomValue(2) }
        : { id: pick(["late-type", "x"]), arguments: {}, type: pick(["toolCall", "text"]) };
  for (const k of ["role", "content", "provider", "model", "responseModel", "usage", "toolCallId", "stopReason", "id", "content"].filter(() => r() < 0.7).sort(() => r() - 0.5)) {
    if (k === "role") m.role = pick(["user", "assistant", "toolResult", 5, null]);
    else if (k === "content") m.content = r() < 0.6 ? Array.from({ length: Math.floor(r() * 5) }, () => (r() < 0.7 ? block() : randomValue(2))) : randomValue(1);
    else if (k === "usage") m.usage = r() < 0.8 ? { input: 10, output: 2, cost: { total: 0.5 } } : randomValue(2);
    else if (k === "id") m.id = "inner";
    // (blocks' arguments sometimes hold a `stopReason` of their own, which must not count)
    else if (k === "stopReason") m.stopReason = r() < 0.8 ? pick(["error", "aborted", "stop", "toolUse", "\\u0065rror"]) : randomValue(2);
    else m[k] = r() < 0.8 ? pick(["anthropic", "claude-sonnet-4-5", "call_1", "é"]) : randomValue(2);
  }
  return m;
}

function randomEntry(): Record<string, unknown> {
  const keys = ["type", "id", "parentId", "timestamp", "message", "data", "customType"];
  // keys in any order, sometimes repeated (JSON.parse keeps the last)
  const order = keys.filter(() => r() < 0.8).sort(() => r() - 0.5);
  const e: Record<string, unknown> = {};
  for (const k of order) {
    if (k === "message") e.message = r() < 0.8 ? randomMessage() : randomValue(1);
    else if (k === "parentId") e.parentId = pick([null, "p1234567", 7, { id: "x" }, "esc\"aped"]);
    else if (k === "data") e.data = randomValue(0);
    else if (k === "timestamp") e[k] = r() < 0.9 ? pick(TIMES) : randomValue(2);
    else e[k] = r() < 0.9 ? pick(["message", "a1b2c3d4", "2026-01-01T00:00:00.000Z", "é\\u00e9", "x"]) : randomValue(2);
  }
  return e;
}

function serialise(e: Record<string, unknown>): string {
  let s = JSON.stringify(e);
  // pretty-ish spacing sometimes, and a duplicated key
  if (r() < 0.2) s = s.replace(/,"/g, ', "').replace(/":/g, '" : ');
  if (r() < 0.1) s = s.replace(/^\{/, '{"id":"dup-first",');
  // a message given twice (the earlier one's content must be forgotten), and a content given twice
  if (r() < 0.1) s = s.replace(/^\{/, '{"message":{"role":"user","content":[{"type":"text","text":"first"}]},');
  if (r() < 0.1) s = s.replace(/"message":\{/, '"message":{"content":"first",');
  if (r() < 0.05) s = ` ${s}\t\r`;
  return s;
}

function corrupt(s: string): string {
  const i = Math.floor(r() * (s.length + 1));
  switch (Math.floor(r() * 9)) {
    case 0:
      return s.slice(0, i); // torn
    case 1:
      return s + serialise(randomEntry()); // fused
    case 2:
      return s.slice(0, i) + serialise(randomEntry()); // torn + next append
    case 3:
      return s.slice(0, i) + pick(["{", "}", "[", "]", ",", ":", '"', "\\", "\u0000", "x", "\u0001"]) + s.slice(i); // an inserted byte
    case 4:
      return s.slice(0, i) + s.slice(i + 1); // a deleted byte
    case 5:
      return "\u0000\u0000" + s;
    case 6:
      return s.replace(/\\u00/, "\\u0g");
    case 7:
      return s.replace(/[0-9]/, "0" + pick(["0", "x", ".", "e", "-"]));
    default:
      return pick(["", " ", "null", "42", '"str"', "[1,2]", "{}", "{,}", '{"a":1,}', "[1,]", "tru", "nul", '{"a" 1}', "01", "-", "1.", "1e", "{\"a\":1}}"]);
  }
}

describe("scanLine agrees with JSON.parse", () => {
  it("on 20,000 generated lines", () => {
    const verdicts = [0, 0, 0];
    for (let n = 0; n < 20_000; n++) verdicts[expectAgrees(Buffer.from(serialise(randomEntry())))]!++;
    expect(verdicts[Verdict.Valid]).toBeGreaterThan(15_000);
  });

  it("scanShape keeps what the content's blocks hold that grep reads, the last of each block's keys", () => {
    const line = Buffer.from(
      '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"one"},{"thinking":"two","type":"thinking"},{"type":"image","data":"x"},{"text":"x","type":"text","text":"three"},{"type":"thinking","text":"not this"},{"type":"text","text":4},{"type":"text","text":"gone","text":null}]}}',
    );
    const f = emptyFields();
    expect(scanInMemory(line, f, true)).toBe(Verdict.Valid);
    expect(Array.from({ length: f.texts }, (_, k) => [f.textKind[k], line.toString("utf8", f.textOpen[k]! + 1, f.textClose[k])])).toEqual([
      [1, "one"],
      [2, "two"],
      [1, "three"],
    ]);
    // a tool call's block: its name, and where its arguments start (the last of each)
    const call = Buffer.from('{"type":"message","message":{"content":[{"type":"text","text":"a"},{"arguments":1,"type":"toolCall","id":"c","name":"x","arguments":{"k":"v"}},{"type":"toolCall","name":"y","name":2}]}}');
    expect(scanInMemory(call, f, true)).toBe(Verdict.Valid);
    expect(Array.from({ length: f.texts }, (_, k) => [f.textKind[k], call.toString("utf8", f.textOpen[k]!, f.textKind[k] === 4 ? f.textOpen[k]! + 9 : f.textClose[k]! + 1)])).toEqual([
      [1, '"a"'],
      [3, '"x"'],
      [4, '{"k":"v"}'],
    ]);
    // an escaped block type leaves the content to the reader
    expect(scanInMemory(Buffer.from('{"type":"message","message":{"content":[{"type":"te\\u0078t","text":"a"}]}}'), f, true)).toBe(Verdict.Valid);
    expect(f.texts).toBe(-1);
  });

  it("on 20,000 corrupted lines", () => {
    const verdicts = [0, 0, 0];
    for (let n = 0; n < 20_000; n++) verdicts[expectAgrees(Buffer.from(corrupt(serialise(randomEntry()))))]!++;
    expect(verdicts[Verdict.Invalid]).toBeGreaterThan(5_000);
    expect(verdicts[Verdict.Valid]).toBeGreaterThan(1_000);
  });

  it("says a line is plain text only when no string can decode to a control character, CR, DEL or bidi override", () => {
    const plain = (text: string) => {
      const f = emptyFields();
      expect(scanInMemory(Buffer.from(JSON.stringify({ type: "message", id: "a", message: { content: [{ type: "text", text }] } })), f)).toBe(Verdict.Valid);
      return f.plainText;
    };
    expect(plain('line one\nline two\t"quoted" \\ / ok')).toBe(true);
    for (const bad of ["\r", "\u001b[31m", "\u0000", "\u007f", "\u0085", "\u202e", "\u2067", "é", "\b", "\f"]) expect(plain(`x${bad}y`), JSON.stringify(bad)).toBe(false);
    // An escape that decodes to something harmless is still \u: not claimed plain.
    const f = emptyFields();
    scanInMemory(Buffer.from('{"type":"message","text":"\\u0041"}'), f);
    expect(f.plainText).toBe(false);
  });

  it("finds the longest long string value, and says whether it and the line are plain", () => {
    const at = (line: string) => {
      const f = emptyFields();
      expect(expectAgrees(Buffer.from(line))).toBe(Verdict.Valid);
      scanInMemory(Buffer.from(line), f);
      return f;
    };
    const a = "A".repeat(70_000);
    const b = "B".repeat(90_000);
    let f = at(JSON.stringify({ type: "message", x: a, m: { content: [{ data: b }] }, k: "short" }));
    expect([f.longEnd - f.longStart, f.longPlain, f.ascii]).toEqual([90_000, true, true]);
    f = at(JSON.stringify({ type: "message", x: `${a}\n${a}`, y: "é" }));
    expect([f.longEnd - f.longStart, f.longPlain, f.ascii]).toEqual([140_002, false, false]);
    f = at(JSON.stringify({ type: "message", x: a, y: "é" }));
    expect([f.longPlain, f.ascii]).toEqual([true, false]);
    f = at(JSON.stringify({ type: "message", x: "é".repeat(40_000) }));
    expect([f.longEnd - f.longStart, f.longPlain]).toEqual([80_000, false]);
    f = at(JSON.stringify({ type: "message", [a]: 1, x: "short" })); // a long key is not a value
    expect(f.longStart).toBe(-1);
  });

  it("on huge strings, deep nesting and invalid UTF-8", () => {
    const big = "A".repeat(5 * 1024 * 1024);
    expect(expectAgrees(Buffer.from(JSON.stringify({ type: "message", id: "i", message: { role: "user", content: [{ type: "image", data: big }] } })))).toBe(Verdict.Valid);
    expect(expectAgrees(Buffer.from("[".repeat(600) + "]".repeat(600)))).toBe(Verdict.Defer);
    expect(expectAgrees(Buffer.from("[".repeat(400) + "]".repeat(400)))).toBe(Verdict.Valid);
    const bad = Buffer.concat([Buffer.from('{"type":"x","id":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    expect(scanInMemory(bad, emptyFields())).toBe(Verdict.Valid);
    expect(expectAgrees(Buffer.from('{"t\\u0079pe":"message"}'))).toBe(Verdict.Defer);
  });

  it("reads each id afresh, whether or not it matches the id the line before read", () => {
    // parent = the id before (handed back), then ids and parents of the same length that differ
    // only in their last byte, a prefix, and an escaped id that decodes to the same text
    const ids: Array<[string, string | null]> = [["a1b2c3d4", null], ["e5f6a7b8", "a1b2c3d4"], ["e5f6a7b9", "e5f6a7b8"], ["e5f6a7b9", "e5f6a7b"], ["x", "e5f6a7b9"], ["\\u0078", "x"], ["é", "\\u00e9"]];
    for (const [id, parentId] of ids) {
      const line = Buffer.from(`{"type":"message","id":"${id}","parentId":${parentId === null ? "null" : `"${parentId}"`}}`);
      expect(expectAgrees(line), line.toString()).toBe(Verdict.Valid);
    }
  });

  it("reads a lowercase UUID id as its four words, whether written plain or with escapes, and any other form as a string", () => {
    const uuid = "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";
    const forms: Array<[string, string | null, boolean]> = [
      [uuid, null, true],
      ["1f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b", uuid, true],
      [`\u0030${uuid.slice(1)}`, uuid, true],
      [uuid.toUpperCase(), uuid, false],
      [`${uuid.slice(0, 35)}g`, uuid, false],
      [`${uuid.slice(0, 8)}x${uuid.slice(9)}`, uuid, false],
      [`${uuid}0`, uuid, false],
    ];
    for (const [id, parentId, isUuid] of forms) {
      const line = Buffer.from(`{"type":"message","id":"${id}","parentId":${parentId === null ? "null" : `"${parentId}"`}}`);
      expect(expectAgrees(line), line.toString()).toBe(Verdict.Valid);
      const f = emptyFields();
      scanInMemory(line, f);
      expect(f.idIsUuid, id).toBe(isUuid);
      expect(idText(f), id).toBe(JSON.parse(`"${id}"`));
    }
  });

  it("on every line of every fixture and corpus file", () => {
    for (const file of [...fixtureFiles(), ...corpusFiles()]) {
      for (const line of readFileSync(file).toString("latin1").split("\n")) {
        const bytes = Buffer.from(line, "latin1");
        if (bytes.indexOf(0) === -1 && bytes.length > 0) expectAgrees(bytes);
      }
    }
  });
});

describe("the WebAssembly module", () => {
  it("classifies control, high and DEL bytes at every alignment and position", () => {
    for (let offset = 0; offset < 17; offset++) {
      for (const len of [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 200]) {
        for (let at = -1; at < len; at += at < 0 ? 1 : Math.max(1, len >> 3)) {
          for (const byte of [0x00, 0x09, 0x1f, 0x20, 0x7f, 0x80, 0xff]) {
            // a string of len bytes inside a record
            const body = Buffer.alloc(len, 0x41);
            if (at >= 0) body[at] = byte;
            const line = Buffer.concat([Buffer.from('{"type":"x","text":"'), body, Buffer.from('"}')]);
            shift = offset;
            const f = emptyFields();
            const verdict = scanInMemory(line, f);
            const control = at >= 0 && byte < 0x20;
            expect(verdict, `offset ${offset} len ${len} at ${at} byte ${byte}`).toBe(control ? Verdict.Invalid : Verdict.Valid);
            if (!control) {
              expect(f.ascii, `offset ${offset} len ${len} at ${at} byte ${byte}`).toBe(!(at >= 0 && byte >= 0x80));
              expect(f.plainText, `offset ${offset} len ${len} at ${at} byte ${byte}`).toBe(!(at >= 0 && (byte >= 0x7f)));
            }
          }
        }
      }
    }
  });

  it("finds a needle where a plain search does: at every alignment, either side of a 64-byte stride, with and without case folding", () => {
    /** The first start in [from, limit) of `needle` in `hay` (letters of either case when `fold`), or -1. */
    const plain = (hay: Buffer, from: number, limit: number, needle: Buffer, fold: boolean): number => {
      const lower = (c: number) => (fold && c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
      for (let i = from; i < limit && i + needle.length <= hay.length; i++) {
        let k = 0;
        while (k < needle.length && lower(hay[i + k]!) === needle[k]) k++;
        if (k === needle.length) return i;
      }
      return -1;
    };
    const chunk = borrowChunk(4096)!;
    try {
      const r = rng(17);
      for (const text of ["ab", "abc", "npm test", "zqxjkvbwpy-nowhere", "a\u00e9b", "x".repeat(70)]) {
        for (const fold of [false, true]) {
          const needle = Buffer.from(text);
          for (let trial = 0; trial < 300; trial++) {
            // a haystack of the needle's own bytes (near misses everywhere), the needle placed at random or nowhere
            const length = 1 + Math.floor(r() * 300);
            for (let i = 0; i < length; i++) chunk[i] = needle[Math.floor(r() * needle.length)]! ^ (fold && r() < 0.3 ? 0x20 : 0);
            const at = r() < 0.7 ? Math.floor(r() * length) : -1;
            if (at >= 0) Buffer.from(fold ? text.toUpperCase() : text).copy(chunk, at);
            chunk.fill(0x2e, length, length + 128);
            const from = Math.floor(r() * Math.min(length, 80));
            const limit = from + Math.floor(r() * (length - from + 1));
            const want = plain(chunk, from, limit, Buffer.from(fold ? text.toLowerCase() : text), fold);
            expect(simdFindNeedle(chunk, from, limit, Buffer.from(fold ? text.toLowerCase() : text), fold), `${text} fold ${fold} trial ${trial}`).toBe(want);
          }
        }
      }
    } finally {
      returnChunk(chunk);
    }
  });

  it("runs the bytes assembled from scan.wat (the committed module is not stale)", async () => {
    // @ts-expect-error: a build script without type declarations
    const { assemble } = await import("../../../scripts/build-wasm.mjs");
    const bytes: Buffer = await assemble(new URL("../../../src/format/read/wasm/scan.wat", import.meta.url).pathname);
    expect(bytes.toString("base64")).toBe(WASM);
  });

  it("is not used for a buffer outside its memory: the line is deferred to JSON.parse", () => {
    expect(inModuleMemory(Buffer.from("abc"))).toBe(false);
    expect(scanLine(Buffer.from('{"type":"x"}'), emptyFields())).toBe(Verdict.Defer);
  });
});

describe("the scan path and the parse path index the same", () => {
  it.each([...fixtureFiles(), ...corpusFiles()].map((f) => [f.split("/").pop(), f]))("%s", (_name, file) => {
    const scanned = openSessionSync(file);
    const parsed = openSessionSync(file, { onRecord: () => {} });
    // RAW_MESSAGE and PLAIN_TEXT are scan-path hints (only the scanner sees bytes and escapes).
    const strip = (rs: Array<{ flags: number; id?: string; parentId?: string | null }>) => rs.map((r) => ({ ...r, id: r.id, parentId: r.parentId, flags: r.flags & ~LineFlag.RAW_MESSAGE & ~LineFlag.PLAIN_TEXT }));
    expect(strip(scanned.records)).toEqual(strip(parsed.records));
    const ids = (s: typeof scanned) => Array.from({ length: s.tree.size }, (_, n) => [s.nodeId(n), s.tree.parent[n]]);
    expect(ids(scanned)).toEqual(ids(parsed));
    expect(scanned.leafNode).toBe(parsed.leafNode);
    expect(lineFindings(scanned)).toEqual(lineFindings(parsed));
  });
});

describe("a scan's fields lent", () => {
  it("are the same fields call after call, other ones to a call made during another, and given back after a throw", () => {
    const first = lendFields((f) => f);
    expect(lendFields((f) => f)).toBe(first);
    lendFields((outer) => {
      expect(outer).toBe(first);
      // (a session opened while another's pass one runs: its own fields)
      lendFields((inner) => expect(inner).not.toBe(outer));
    });
    expect(() => lendFields(() => {
      throw new Error("a read failed");
    })).toThrow("a read failed");
    expect(lendFields((f) => f)).toBe(first);
  });

  it("say what the line they last scanned says, whatever scanned before them", () => {
    // (fields reused from one session to the next: a user message's read after an assistant's with calls and usage)
    const before = Buffer.from(JSON.stringify({ type: "message", id: "a1", parentId: "u0", timestamp: "2026-01-01T00:00:00.000Z", message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } }], provider: "p", model: "m", usage: { input: 1 }, stopReason: "toolUse" } }));
    const after = Buffer.from(JSON.stringify({ type: "message", id: "u2", parentId: null, timestamp: "2026-01-02T00:00:00.000Z", message: { role: "user", content: "hi" } }));
    lendFields((f) => expect(scanInMemory(before, f)).toBe(Verdict.Valid));
    const reused = lendFields((f) => (expect(scanInMemory(after, f)).toBe(Verdict.Valid), { ...f }));
    const fresh = emptyFields();
    scanInMemory(after, fresh);
    // (the typed arrays hold what was written last only up to their counts, a UUID's words where the id is one)
    const counted = (f: ScanFields) => ({ ...f, idWords: f.idIsUuid ? [...f.idWords] : [], parentWords: f.parentIsUuid ? [...f.parentWords] : [], textOpen: [...f.textOpen.subarray(0, Math.max(0, f.texts))], textClose: [...f.textClose.subarray(0, Math.max(0, f.texts))], textKind: [...f.textKind.subarray(0, Math.max(0, f.texts))], callOpen: [...f.callOpen.subarray(0, Math.max(0, f.calls))], callClose: [...f.callClose.subarray(0, Math.max(0, f.calls))] });
    expect(counted(reused)).toEqual(counted(fresh));
  });
});
