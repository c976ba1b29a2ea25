/**
 * `grep` against an oracle: every entry decoded by pi's own parser (`parseSessionEntries`, then
 * `migrateSessionEntries`), its texts taken as README's "grep" section lists them (written here
 * apart from src/format/grep/pattern.ts), and the same RegExp applied to each. The entries `grep` reports
 * must be exactly those, for every fixture, corpus file, session written by pi's SessionManager and
 * seeded corruption, on literal, case-insensitive, anchored, multi-line, quoted, backslash, CJK and
 * no-match patterns; a pattern found only in base64 or in an id matches nothing; and the fast read
 * must equal the reference read.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { compilePattern, type PatternOptions } from "../../src/format/grep/pattern.js";
import { grepFile, hitKey, referenceGrep } from "../../src/format/grep/read.js";
import { BufferSource, FileSource } from "../../src/format/read/source.js";
import { Session } from "../../src/format/session/session.js";
import { CORRUPTIONS, corrupt } from "../helpers/corrupt.js";
import { generateSession, rng } from "../helpers/generate.js";
import { corpusFiles, fixture, fixtureFiles } from "../helpers/paths.js";
import { pi } from "../helpers/pi.js";

const work = mkdtempSync(join(tmpdir(), "pi-session-grep-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const tally = { files: 0, patterns: 0, hits: 0 };
afterAll(() => console.log(`grep conformance: ${tally.files} files × patterns, ${tally.hits} matching entries equal to the oracle's`));

type Entry = Record<string, any>;

/** The texts README says grep searches, from a v3 entry. */
function oracleTexts(e: Entry): string[] {
  const out: string[] = [];
  const strings = (v: unknown): void => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(strings);
    else if (v && typeof v === "object") Object.values(v).forEach(strings);
  };
  const content = (c: unknown, assistant: boolean) => {
    if (typeof c === "string") out.push(c);
    else if (Array.isArray(c))
      for (const b of c) {
        if (!b || typeof b !== "object") continue;
        if (b.type === "text" && typeof b.text === "string") out.push(b.text);
        if (assistant && b.type === "thinking" && typeof b.thinking === "string") out.push(b.thinking);
        if (assistant && b.type === "toolCall") {
          if (typeof b.name === "string") out.push(b.name);
          strings(b.arguments);
        }
      }
  };
  const m = e.message;
  if (e.type === "message" && m && typeof m === "object") {
    if (["user", "system", "custom", "hookMessage"].includes(m.role)) content(m.content, false);
    if (m.role === "assistant") {
      content(m.content, true);
      if (typeof m.errorMessage === "string") out.push(m.errorMessage);
    }
    if (m.role === "toolResult") {
      if (typeof m.toolName === "string") out.push(m.toolName);
      content(m.content, false);
    }
    if (m.role === "bashExecution") for (const k of ["command", "output"]) if (typeof m[k] === "string") out.push(m[k]);
  }
  if (e.type === "custom_message") content(e.content, false);
  if ((e.type === "compaction" || e.type === "branch_summary") && typeof e.summary === "string") out.push(e.summary);
  if (e.type === "session_info" && typeof e.name === "string") out.push(e.name);
  if (e.type === "label" && typeof e.label === "string") out.push(e.label);
  return out;
}

/** The 1-based lines of the entries pi parses, each with its entry (pi's parser aligned to the file's lines). */
function piEntriesByLine(bytes: Buffer): Array<{ line: number; entry: Entry }> {
  const text = bytes.toString("utf8");
  const entries = pi.parseSessionEntries(text) as Entry[];
  const objects = entries.filter((e) => e && typeof e === "object" && !Array.isArray(e));
  if (objects.some((e) => e.type === "session")) pi.migrateSessionEntries(objects);
  const out: Array<{ line: number; entry: Entry }> = [];
  let k = 0;
  // (pi's parser trims the content first: a byte-order mark and leading blank lines go)
  const skippedLines = text.slice(0, text.length - text.trimStart().length).split("\n").length - 1;
  text.trim().split("\n").forEach((raw, i) => {
    if (!raw.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      return;
    }
    const e = entries[k++];
    if (!v || typeof v !== "object" || Array.isArray(v)) return;
    if ((e as Entry).type !== "session") out.push({ line: skippedLines + i + 1, entry: e as Entry });
  });
  expect(k, "pi's parser and the file's lines agree").toBe(entries.length);
  return out;
}

const PATTERNS: Array<[string, PatternOptions]> = [
  ["the", {}],
  ["error", { ignoreCase: true }],
  ["^Let", {}],
  ["line one\nline two", {}],
  ['"path"', {}],
  ["C:\\\\Users", {}],
  ["C:\\Users", { fixed: true }],
  ["中文", {}],
  ["npm test", { fixed: true }],
  // fixed strings in most lines: counted from the raw bytes (grep/raw-count.ts)
  ["the", { fixed: true }],
  ["THE", { fixed: true, ignoreCase: true }],
  ["re", { fixed: true }],
  ["read", { word: true }],
  ["BASH", { ignoreCase: true, word: true }],
  ["zzqqxxjj", {}],
  ["\\d{3,}", { ignoreCase: true }],
  // without a needle: lines sifted by a run of a class
  ["[0-9a-f]{8}", { ignoreCase: true }],
  ["\\b\\d{4}-\\d{2}\\b", {}],
  ["[A-Z][a-z]{4,}", {}],
  ["[a-z]{6}", { ignoreCase: true, word: true }],
];

function expectMatchesOracle(path: string, patterns = PATTERNS, bytes?: Buffer): void {
  const data = bytes ?? readFileSync(path);
  const label = basename(path);
  const lines = piEntriesByLine(data);
  for (const [source, options] of patterns) {
    tally.files++;
    const pattern = compilePattern(source, options);
    const regex = new RegExp(pattern.regex.source, pattern.regex.flags.replace("g", ""));
    const expected = lines.filter(({ entry }) => oracleTexts(entry).some((t) => regex.test(t))).map(({ line }) => line);
    const fast = grepFile(new BufferSource(label, data), pattern);
    const reference = referenceGrep(new BufferSource(label, data), pattern);
    expect(fast.hits.map((h) => h.line), `${label} /${source}/ fast`).toEqual(expected);
    expect(fast.hits, `${label} /${source}/ fast = reference`).toEqual(reference.hits);
    expect({ kind: fast.kind, header: fast.header, skipped: fast.skipped }, `${label} /${source}/: what the file is, the lines pi skips that could match`).toEqual({ kind: reference.kind, header: reference.header, skipped: reference.skipped });
    // the title (a name, else the first user message's text), asked for, as the reference finds it
    expect(grepFile(new BufferSource(label, data), pattern, { title: true }).title, `${label} /${source}/ title`).toBe(reference.title);
    // counting keeps no match, only how many and a key of each, both ways
    for (const counted of [grepFile(new BufferSource(label, data), pattern, { countOnly: true, keyed: true }), referenceGrep(new BufferSource(label, data), pattern, { countOnly: true, keyed: true })]) {
      expect({ hits: counted.hits, count: counted.count, keys: counted.keys }, `${label} /${source}/ counted`).toEqual({ hits: [], count: expected.length, keys: fast.hits.map(hitKey) });
    }
    // and without keys (a count told from the raw bytes where they tell it), with and without --role
    expect(grepFile(new BufferSource(label, data), pattern, { countOnly: true }).count, `${label} /${source}/ raw count`).toBe(expected.length);
    const roles = new Set(["assistant", "toolResult"]);
    const ofRoles = referenceGrep(new BufferSource(label, data), pattern, { countOnly: true, roles }).count;
    expect(grepFile(new BufferSource(label, data), pattern, { countOnly: true, roles }).count, `${label} /${source}/ raw count, --role`).toBe(ofRoles);
    tally.hits += expected.length;
  }
}

describe("grep reports exactly the entries whose decoded text matches", () => {
  it.each(fixtureFiles().map((f) => [basename(f), f]))("fixture %s", (_, path) => expectMatchesOracle(path));
  it.each(corpusFiles().map((f) => [basename(f), f]))("corpus %s", (_, path) => expectMatchesOracle(path));

  it("sessions written by pi's SessionManager, with the texts the patterns look for", () => {
    for (let seed = 1; seed <= 6; seed++) {
      const path = generateSession({ seed, dir: work, steps: 60 });
      const sm = pi.SessionManager.open(path);
      sm.appendMessage({ role: "user", content: 'line one\nline two, a "path" in C:\\Users\\dev, 中文, and npm test', timestamp: 1 });
      sm.appendMessage({ role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "npm test", cwd: "C:\\Users\\dev" } }], api: "x", provider: "p", model: "m", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: 2 });
      expectMatchesOracle(path);
    }
  });

  it("a needle spelled with \\u escapes is found; one only in base64 image data or in an id is not", () => {
    const lines = [
      JSON.stringify({ type: "session", version: 3, id: "esc", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }),
      // `npm test` with its m written \u006d, and `Users` with \u0055
      '{"type":"message","id":"e0000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"run np\\u006d test in C:\\\\\\u0055sers"}}',
      JSON.stringify({ type: "message", id: "e0000002", parentId: "e0000001", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "user", content: [{ type: "text", text: "an image" }, { type: "image", data: "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A=", mimeType: "image/png" }] } }),
    ];
    const bytes = Buffer.from(lines.join("\n") + "\n");
    const path = join(work, "escapes.jsonl");
    writeFileSync(path, bytes);
    expectMatchesOracle(path);
    const hits = (source: string, options: PatternOptions = {}) => grepFile(new BufferSource("e", bytes), compilePattern(source, options)).hits.map((h) => h.id);
    expect(hits("npm test", { fixed: true })).toEqual(["e0000001"]);
    expect(hits("C:\\Users", { fixed: true })).toEqual(["e0000001"]);
    expect(hits("TVRVVldYWVo0")).toEqual([]); // in the image's base64
    expect(hits("e0000002")).toEqual([]); // an id
    expect(hits("2026-01-01")).toEqual([]); // a timestamp
  });

  it("a file the fast read stands aside for (v1, damaged) is not parsed where its bytes cannot hold a match", () => {
    const files = [...corpusFiles().filter((f) => /\.v1\.|concat-corrupt/.test(f)), fixture("v1.jsonl"), fixture("fused.jsonl"), fixture("garbage-lines.jsonl"), fixture("no-header.jsonl")];
    expect(files.length).toBeGreaterThan(4);
    const parse = vi.spyOn(JSON, "parse");
    const open = vi.spyOn(Session, "open");
    let v1 = 0;
    try {
      for (const path of files) {
        const data = readFileSync(path);
        const lines = data.toString("utf8").split("\n").length;
        // (a v1 file whose header and first entry read: not opened as a session at all, its entries' ids not made)
        const [head, first] = data.toString("utf8").split("\n", 2).map((l) => { try { return JSON.parse(l); } catch { return undefined; } });
        const sound = head?.type === "session" && head.version === undefined && first?.type === "message";
        if (sound) v1++;
        for (const [source, options] of [["zzqqxxjj", { fixed: true }], ["ZZQQXXJJ", { fixed: true, ignoreCase: true }], ["[0-9a-f]{4}qzxv", {}]] as const) {
          const pattern = compilePattern(source, options);
          parse.mockClear();
          open.mockClear();
          const read = grepFile(new BufferSource(basename(path), data), pattern);
          if (sound) expect(open, `${basename(path)} /${source}/: opened as a session`).not.toHaveBeenCalled();
          // (the header, and the few lines the scanner cannot read alone: a fused one, garbage)
          expect(parse.mock.calls.length, `${basename(path)} /${source}/: lines parsed of ${lines}`).toBeLessThanOrEqual(4 + lines / 50);
          expect(read, `${basename(path)} /${source}/`).toEqual(referenceGrep(new BufferSource(basename(path), data), pattern));
        }
      }
    } finally {
      parse.mockRestore();
      open.mockRestore();
    }
    expect(v1).toBeGreaterThan(2);
  });

  it("the usage store: a shared entry is found in each file that holds it", () => {
    const dir = fixture("usage-store");
    for (const f of ["--work-app--/2026-03-07T22-10-00-000Z_019cca9e-6f3a-7a10-9c2e-1f0c2d4b7a01.jsonl", "--work-app--/2026-03-08T09-00-00-000Z_019ccd02-1b7e-7c44-8a31-6e2f9d0c5b12.jsonl", "--work-lib--/2026-03-09T10-00-00-000Z_019cd2f0-44a9-7d03-b6e8-2a7c1e9f0d23.jsonl"]) expectMatchesOracle(join(dir, f));
    expect(grepFile(new FileSource(join(dir, "--work-lib--/2026-03-09T10-00-00-000Z_019cd2f0-44a9-7d03-b6e8-2a7c1e9f0d23.jsonl")), compilePattern("中文")).hits.map((h) => h.role)).toEqual(["user"]);
  });

  it("seeded corruptions: both reads agree with pi's parser", () => {
    const r = rng(8);
    for (let seed = 1; seed <= 3; seed++) {
      const original = readFileSync(generateSession({ seed: 200 + seed, dir: work, steps: 40 }));
      for (const kind of CORRUPTIONS) {
        const c = corrupt(original, kind, Math.floor(r() * 1e6));
        if (c) expectMatchesOracle(join(work, `corrupt-${kind}.jsonl`), PATTERNS.slice(0, 4), c.bytes);
      }
    }
  });
});
