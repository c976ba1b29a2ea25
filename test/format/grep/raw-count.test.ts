/**
 * The raw count (grep/raw-count.ts): an entry's verdict from its line's bytes. Each case says
 * which verdict the bytes allow (a match, none, or unsure: decode it), and `JSON.parse` with the
 * rule (grepFile's reference read) must agree with every certain one.
 */
import { describe, expect, it } from "vitest";
import { compilePattern, type PatternOptions } from "../../../src/format/grep/pattern.js";
import { RawCount, RawVerdict } from "../../../src/format/grep/raw-count.js";
import { grepFile, referenceGrep } from "../../../src/format/grep/read.js";
import { emptyFields, scanShape, Verdict } from "../../../src/format/read/scanner.js";
import { BufferSource } from "../../../src/format/read/source.js";
import { borrowChunk, returnChunk } from "../../../src/format/read/wasm/simd.js";

const HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';
const entry = (message: string) => `{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":${message}}`;

/** The verdict on `line`, read where the scanner reads lines (the module's memory), as grep's read takes it. */
function verdict(line: string, source = "the", options: PatternOptions = { fixed: true }, roles?: string[], walk = false): RawVerdict {
  const pattern = compilePattern(source, options);
  const bytes = Buffer.from(line);
  const chunk = borrowChunk(bytes.length + 64)!;
  try {
    bytes.copy(chunk, 16);
    const f = emptyFields();
    // (a line the scanner does not find valid is decoded, as by grep's read)
    if (scanShape(chunk, f, 16, 16 + bytes.length) !== Verdict.Valid) return RawVerdict.Unsure;
    // (`walk`: as where the scanner leaves the content's blocks to the reader, past 64 of them)
    if (walk) f.texts = -1;
    return new RawCount(pattern, roles && new Set(roles)).judge(chunk, 16, 16 + bytes.length, f);
  } finally {
    returnChunk(chunk);
  }
}

/** Whether the reference read (every line decoded) counts the line a match. */
function decoded(line: string, source = "the", options: PatternOptions = { fixed: true }, roles?: string[]): boolean {
  const data = Buffer.from(`${HEADER}\n${line}\n`);
  return referenceGrep(new BufferSource("t", data), compilePattern(source, options), { countOnly: true, roles: roles && new Set(roles) }).count === 1;
}

const CASES: Array<[string, string, RawVerdict, string?, PatternOptions?, string[]?]> = [
  ["a user's text", '{"role":"user","content":"read the file"}', RawVerdict.Match],
  ["a user's text block", '{"role":"user","content":[{"type":"image","data":"the"},{"type":"text","text":"read the file"}]}', RawVerdict.Match],
  ["the block's type after its text", '{"role":"user","content":[{"text":"read the file","type":"text"}]}', RawVerdict.Match],
  ["an assistant's thinking", '{"role":"assistant","content":[{"type":"thinking","thinking":"the plan","thinkingSignature":"x"}]}', RawVerdict.Match],
  ["a user's thinking block is not read", '{"role":"user","content":[{"type":"thinking","thinking":"the plan"}]}', RawVerdict.NoMatch],
  ["a tool call's name", '{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"bathe","arguments":{}}]}', RawVerdict.Match],
  ["a tool call's argument, nested", '{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{"edits":[{"old":1,"new":"the"}]}}]}', RawVerdict.Match],
  ["an argument's key is not read", '{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{"these":1}}]}', RawVerdict.NoMatch],
  ["an argument given twice: the last counts", '{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{"cmd":"the","cmd":"ls"}}]}', RawVerdict.NoMatch],
  ["an argument given twice, the last matching", '{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{"cmd":"ls","cmd":"the"}}]}', RawVerdict.Match],
  ["an argument after a nested one without a match", '{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{"a":{"x":[1,"no",{}],"y":[]},"b":"the"}}]}', RawVerdict.Match],
  ["a match nested in an argument given again", '{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{"a":{"x":["the"]},"a":1}}]}', RawVerdict.NoMatch],
  ["an escaped key among the arguments after a match", '{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{"cmd":"the","\\u0063md":"ls"}}]}', RawVerdict.Unsure],
  ["an assistant's errorMessage", '{"role":"assistant","content":[],"errorMessage":"the server"}', RawVerdict.Match],
  ["a tool result's toolName and text", '{"role":"toolResult","toolCallId":"c","toolName":"bathe","content":[{"type":"text","text":"x"}],"isError":false}', RawVerdict.Match],
  ["a tool result's details are not read", '{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"x"}],"details":{"diff":"the"}}', RawVerdict.NoMatch],
  ["a bash execution's output", '{"role":"bashExecution","command":"ls","output":"the file","exitCode":0}', RawVerdict.Match],
  ["a custom message", '{"role":"custom","customType":"k","content":"the note","display":true}', RawVerdict.Match],
  ["content given twice: the last counts", '{"role":"user","content":"the","content":"x"}', RawVerdict.NoMatch],
  ["a block's text given twice: the last counts", '{"role":"user","content":[{"type":"text","text":"the","text":"x"}]}', RawVerdict.NoMatch],
  ["only in a key", '{"role":"user","content":[{"type":"text","text":"x","other":1}]}', RawVerdict.NoMatch],
  ["only in the model", '{"role":"assistant","content":[{"type":"text","text":"x"}],"model":"the-model"}', RawVerdict.NoMatch],
  ["an escape's letter: \\t then he", '{"role":"user","content":"a\\the"}', RawVerdict.Unsure],
  ["an escaped backslash, then the", '{"role":"user","content":"a\\\\the"}', RawVerdict.Match],
  ["spelled with a \\u escape", '{"role":"user","content":"\\u0074he"}', RawVerdict.Unsure],
  ["a \\u escape of another letter nearby", '{"role":"user","content":"\\u00e9the"}', RawVerdict.Match],
  ["inside a \\u escape's digits", '{"role":"user","content":"caf\\u00e9"}', RawVerdict.Unsure, "00e9"],
  ["an escaped key that may be content", '{"role":"user","\\u0063ontent":"the"}', RawVerdict.Unsure],
  ["an escaped block type", '{"role":"user","content":[{"type":"te\\u0078t","text":"the"}]}', RawVerdict.Unsure],
  ["spaces between the tokens", '{ "role" : "user" , "content" : [ { "type" : "text" , "text" : "the" } ] }', RawVerdict.Match],
  ["either case with -i", '{"role":"user","content":"THE END"}', RawVerdict.Match, "the", { fixed: true, ignoreCase: true }],
  ["another role than --role's", '{"role":"user","content":"the"}', RawVerdict.NoMatch, "the", { fixed: true }, ["assistant"]],
  ["--role's role", '{"role":"assistant","content":[{"type":"text","text":"the"}]}', RawVerdict.Match, "the", { fixed: true }, ["assistant"]],
  ["a role the rule does not read", '{"role":"branchSummary","summary":"the"}', RawVerdict.NoMatch],
];

describe("a count's verdict from the raw bytes", () => {
  it.each(CASES)("%s", (_, message, expected, source = "the", options = { fixed: true }, roles) => {
    const line = entry(message);
    expect(verdict(line, source, options, roles)).toBe(expected);
    expect(verdict(line, source, options, roles, true), "the blocks read, not kept by the scanner").toBe(expected);
    if (expected !== RawVerdict.Unsure) expect(decoded(line, source, options, roles)).toBe(expected === RawVerdict.Match);
    // and grep's count, whichever way it took, is the decoded one
    const data = Buffer.from(`${HEADER}\n${line}\n`);
    const pattern = compilePattern(source, options);
    expect(grepFile(new BufferSource("t", data), pattern, { countOnly: true, roles: roles && new Set(roles) }).count).toBe(decoded(line, source, options, roles) ? 1 : 0);
  });

  const other = (fields: string) => `{"type":${fields},"id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z"}`;
  it.each([
    ["a compaction's summary", other('"compaction","summary":"the summary","firstKeptEntryId":"x","tokensBefore":1'), RawVerdict.Match],
    ["a branch summary", other('"branch_summary","fromId":"x","summary":"the way back"'), RawVerdict.Match],
    ["a custom message's blocks", other('"custom_message","customType":"k","content":[{"type":"text","text":"the note"}],"display":true'), RawVerdict.Match],
    ["a custom entry's data is not read", other('"custom","customType":"k","data":{"note":"the"}'), RawVerdict.NoMatch],
    ["a session's name", other('"session_info","name":"the name"'), RawVerdict.Match],
    ["a label", other('"label","targetId":"x","label":"the label"'), RawVerdict.Match],
    ["a summary given twice: the last counts", other('"compaction","summary":"the","summary":"x"'), RawVerdict.NoMatch],
    ["a message given twice: the last counts", other('"message","message":{"role":"user","content":"the"},"message":{"role":"user"}'), RawVerdict.NoMatch],
    ["a message given twice, the last matching", other('"message","message":{"role":"user"},"message":{"role":"user","content":"the"}'), RawVerdict.Match],
    ["a compaction under --role assistant", other('"compaction","summary":"the summary"'), RawVerdict.NoMatch, ["assistant"]],
    ["a compaction under --role compaction", other('"compaction","summary":"the summary"'), RawVerdict.Match, ["compaction"]],
  ] as Array<[string, string, RawVerdict, string[]?]>)("%s", (_, line, expected, roles) => {
    expect(verdict(line, "the", { fixed: true }, roles)).toBe(expected);
    expect(decoded(line, "the", { fixed: true }, roles)).toBe(expected === RawVerdict.Match);
  });

  // A regular expression (or a word): each searched string decoded and matched, unless its bytes
  // lack what every match holds; an escape no longer leaves it unsure.
  const HEX = "[0-9a-f]{40}";
  const sha = "0123456789abcdef0123456789abcdef01234567";
  it.each([
    ["a run in a user's text", `{"role":"user","content":"commit ${sha} landed"}`, RawVerdict.Match, HEX, { ignoreCase: true }],
    ["either case with -i", `{"role":"user","content":"${sha.toUpperCase()}"}`, RawVerdict.Match, HEX, { ignoreCase: true }],
    ["a run only in ids and a signature", `{"role":"assistant","content":[{"type":"thinking","thinking":"x","thinkingSignature":"${sha}"},{"type":"toolCall","id":"${sha}","name":"x","arguments":{}}]}`, RawVerdict.NoMatch, HEX, { ignoreCase: true }],
    ["a run only in a tool result's id", `{"role":"toolResult","toolCallId":"${sha}","toolName":"read","content":[{"type":"text","text":"ok"}]}`, RawVerdict.NoMatch, HEX, { ignoreCase: true }],
    ["a run in a tool call's argument", `{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{"ref":"${sha}"}}]}`, RawVerdict.Match, HEX, { ignoreCase: true }],
    ["a run spelled with a \\u escape", `{"role":"user","content":"\\u0030${sha.slice(1)}"}`, RawVerdict.Match, HEX, { ignoreCase: true }],
    ["a run cut by an escaped newline", `{"role":"user","content":"${sha.slice(0, 20)}\\n${sha.slice(20)}"}`, RawVerdict.NoMatch, HEX, { ignoreCase: true }],
    ["a run beside escaped newlines, whole", `{"role":"user","content":"a\\n${sha}\\nb"}`, RawVerdict.Match, HEX, { ignoreCase: true }],
    ["a run of a class with the slash, an escaped slash in it", `{"role":"user","content":"${sha.slice(0, 20)}\\/${sha.slice(20)}"}`, RawVerdict.Match, "[0-9a-f/]{41}", { ignoreCase: true }],
    ["a run of a class with the tab, an escaped tab in it", `{"role":"user","content":"x\\n${sha.slice(0, 20)}\\t${sha.slice(20)}"}`, RawVerdict.Match, "[0-9a-f\\t]{41}", {}],
    ["a literal with a slash, written escaped", '{"role":"user","content":"see src\\/format\\n"}', RawVerdict.Match, "src/form(at)?", {}],
    ["a literal spelled with a \\u escape beside an escaped newline", '{"role":"user","content":"\\nsrc/\\u0066ormat"}', RawVerdict.Match, "src/form(at)?", {}],
    ["a literal not there, escaped newlines around", '{"role":"user","content":"\\nsrc/other\\n"}', RawVerdict.NoMatch, "src/form(at)?", {}],
    ["a run in a text given twice, the last without", `{"role":"user","content":[{"type":"text","text":"${sha}","text":"x"}]}`, RawVerdict.NoMatch, HEX, { ignoreCase: true }],
    ["an anchor after an escaped quote", '{"role":"user","content":"\\"Let us go"}', RawVerdict.NoMatch, "^Let", {}],
    ["an anchor at a text's start", '{"role":"user","content":[{"type":"text","text":"x"},{"type":"text","text":"Let us go"}]}', RawVerdict.Match, "^Let", {}],
    ["a whole word", '{"role":"user","content":"the theme"}', RawVerdict.Match, "the", { fixed: true, word: true }],
    ["no whole word", '{"role":"user","content":"theme and other"}', RawVerdict.NoMatch, "the", { fixed: true, word: true }],
    ["an empty text, matched by ^$", '{"role":"user","content":[{"type":"text","text":""}]}', RawVerdict.Match, "^$", {}],
    ["an escaped block type", `{"role":"user","content":[{"type":"te\\u0078t","text":"${sha}"}]}`, RawVerdict.Unsure, HEX, { ignoreCase: true }],
  ] as Array<[string, string, RawVerdict, string, PatternOptions]>)("an expression: %s", (_, message, expected, source, options) => {
    const line = entry(message);
    expect(compilePattern(source, options).exact).toBe(false);
    expect(verdict(line, source, options)).toBe(expected);
    expect(verdict(line, source, options, undefined, true), "the blocks read, not kept by the scanner").toBe(expected);
    if (expected !== RawVerdict.Unsure) expect(decoded(line, source, options)).toBe(expected === RawVerdict.Match);
    const data = Buffer.from(`${HEADER}\n${line}\n`);
    expect(grepFile(new BufferSource("t", data), compilePattern(source, options), { countOnly: true }).count).toBe(decoded(line, source, options) ? 1 : 0);
  });

  it("a pattern a needle does not hold whole is not exact (the raw count decodes each string it searches)", () => {
    expect(compilePattern("the", { fixed: true, word: true }).exact).toBe(false);
    expect(compilePattern('say "the"', { fixed: true }).exact).toBe(false);
    expect(compilePattern("the", {}).exact).toBe(false);
    expect(compilePattern("kind", { fixed: true, ignoreCase: true }).exact).toBe(false);
  });

  it("a line pi skips is never counted, though it holds the needle where a text would", () => {
    const torn = entry('{"role":"user","content":"the end"}').slice(0, -3);
    const data = Buffer.from(`${HEADER}\n${entry('{"role":"user","content":"the"}')}\n${torn}\n`);
    const read = grepFile(new BufferSource("t", data), compilePattern("the", { fixed: true }), { countOnly: true });
    expect({ count: read.count, skipped: read.skipped }).toEqual({ count: 1, skipped: [3] });
  });
});
