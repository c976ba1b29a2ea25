/**
 * The one line-salvage rule (src/format/read/salvage.ts), and the agreement it buys: what `check`
 * (the reader's findings) says can be recovered from a broken line is exactly what `repair`
 * keeps, and what `repair` keeps passes `check` and loads whole in pi. Proven over generated
 * corruptions of real record lines (a bounded seed here; `npm run fuzz` runs more) and over every
 * line of every fixture and corpus file.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Finding } from "../../../src/format/check/findings.js";
import { quickFindings } from "../../../src/format/check/validate.js";
import { BrokenRun, salvagePieces, type BrokenOutcome } from "../../../src/format/read/salvage.js";
import { BufferSource, FileSource } from "../../../src/format/read/source.js";
import { openSessionBuffer, openSessionSync } from "../../../src/format/session/session.js";
import { replaceFile, stampOf } from "../../../src/format/write/atomic.js";
import { planRepair, writeRepair } from "../../../src/format/write/repair/index.js";
import { assistant, header, jsonl, user } from "../../helpers/builders.js";
import { rng } from "../../helpers/generate.js";
import { corpusFiles, fixtureFiles } from "../../helpers/paths.js";
import { pi } from "../../helpers/pi.js";

const SEEDS = Number(process.env.FUZZ_SEEDS ?? 1);

describe("salvagePieces", () => {
  const a = JSON.stringify(user("a0000001", null, "first"));
  const b = JSON.stringify(user("b0000002", "a0000001", "second"));

  it("splits two whole records, keeping both", () => {
    const p = salvagePieces(a + b);
    expect(p.records.map((r) => r.value.id)).toEqual(["a0000001", "b0000002"]);
    expect(p.fragments).toEqual([]);
  });

  it("finds the record after a torn write, compact or spaced, and drops the torn text", () => {
    const spaced = JSON.stringify(JSON.parse(b), null, 1).replace(/\n/g, "");
    expect(spaced.startsWith('{ "type"')).toBe(true);
    for (const next of [b, spaced]) {
      for (const cut of [1, 10, 30, a.length - 1]) {
        const p = salvagePieces(a.slice(0, cut) + next);
        expect(p.records.map((r) => r.value.id), `cut ${cut}`).toEqual(["b0000002"]);
        expect(p.fragments).toEqual([a.slice(0, cut).trim()]);
      }
    }
  });

  it("keeps no typeless object, and no content block a torn message left behind", () => {
    expect(salvagePieces('{"a":1}{"b":2}').records).toEqual([]);
    // a torn message whose text block is whole: `{"type":"text",…}` has a type but is no record
    const torn = a.slice(0, a.indexOf('"text":"first"}') + '"text":"first"}'.length);
    const p = salvagePieces(torn + b);
    expect(p.records.map((r) => r.value.id)).toEqual(["b0000002"]);
  });

  it("finds the record after a write torn inside a text full of braces (code the model wrote)", () => {
    // Each `{` of the code is inside a JSON string; none can start a record, and none may spend
    // the budget that the record after the tear needs (a corpus file lost its next record so).
    const code = JSON.stringify(user("c0000003", null, "const SEASONS: Record<string, { types: string[]; temps: [number] }> = {\n".repeat(3000)));
    for (const cut of [0.3, 0.6, 0.9]) {
      const p = salvagePieces(code.slice(0, Math.floor(code.length * cut)) + b);
      expect(p.records.map((r) => r.value.id), `cut ${cut}`).toEqual(["b0000002"]);
    }
  });

  it("gives up on unmatched braces within a budget instead of going quadratic", () => {
    for (const line of ["{".repeat(200_000) + b, '{"a":'.repeat(100_000) + b]) {
      const start = performance.now();
      const p = salvagePieces(line);
      expect(performance.now() - start).toBeLessThan(5_000);
      expect(p.records.length + p.fragments.length).toBeGreaterThan(0);
    }
  });
});

describe("BrokenRun", () => {
  const collect = (lines: string[]): BrokenOutcome[] => {
    const out: BrokenOutcome[] = [];
    const run = new BrokenRun((o) => out.push(o));
    lines.forEach((text, i) => (text === "" ? run.blank(i) || out.push({ kind: "blank", index: -1 }) : run.add(i, text, true)));
    run.flush();
    return out;
  };

  it("joins a record split by a raw newline inside a string, as the escape it stood for", () => {
    const whole = JSON.stringify(user("a0000001", null, "two\nlines"));
    const [first, second] = whole.split("\\n");
    const out = collect([first!, second!]);
    expect(out).toEqual([{ kind: "joined", first: 0, last: 1, text: whole, value: JSON.parse(whole) }]);
  });

  it("joins a record split between tokens with a space (one line again), and keeps a blank line held inside", () => {
    const whole = JSON.stringify(user("a0000001", null, "x"));
    const at = whole.indexOf(',"parentId"') + 1;
    const out = collect([whole.slice(0, at), "", whole.slice(at)]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ kind: "joined", first: 0, last: 2 });
    expect(JSON.parse((out[0] as { text: string }).text)).toEqual(JSON.parse(whole));
    expect((out[0] as { text: string }).text).not.toMatch(/\n/);
  });

  it("settles lines that never join one by one, in line order", () => {
    const out = collect(["{oops", "not json", "{\"type\":\"x\""]);
    expect(out.map((o) => [o.kind, (o as { index: number }).index])).toEqual([
      ["pieces", 0],
      ["pieces", 1],
      ["pieces", 2],
    ]);
  });
});

// ---- the agreement between check and repair

/** Record lines to corrupt: a few built ones, and every record line of the corpus (bounded). */
function sourceLines(): string[] {
  const built = [user("u0000001", null, "hello { world }"), assistant("a0000002", "u0000001", 'a "quoted" {brace}'), user("u0000003", "a0000002", "ünïcödé ✓")].map((r) => JSON.stringify(r));
  const corpus = corpusFiles().flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .filter((l) => l.length > 0 && l.length < 20_000 && /"id":"/.test(l) && !/"type":"session"/.test(l)),
  );
  return [...built, ...corpus];
}

const spaced = (line: string) => JSON.stringify(JSON.parse(line), null, 1).replace(/\n/g, "");

/** One broken line made from records `a`, `b`, `c`, by a seeded choice of corruption. */
function corruptLine(random: () => number, a: string, b: string, c: string): { name: string; bytes: Buffer } {
  const cut = (s: string) => s.slice(0, 1 + Math.floor(random() * (s.length - 2)));
  const kinds: Array<[string, () => Buffer | string]> = [
    ["torn, then a compact record", () => cut(a) + b],
    ["torn, then a spaced record", () => cut(a) + spaced(b)],
    ["several records", () => a + b + (random() < 0.5 ? " " : "") + c],
    ["typeless pieces between records", () => a + '{"a":1}' + b + '{"b":[2]}'],
    ["typeless pieces only", () => '{"a":1}{"b":{"c":2}}'],
    ["NULs between pieces", () => Buffer.concat([Buffer.from(a), Buffer.alloc(1 + Math.floor(random() * 40)), Buffer.from(spaced(b))])],
    ["invalid UTF-8 inside a piece", () => {
      const bytes = Buffer.from(cut(a) + b);
      const inString = bytes.lastIndexOf(Buffer.from('"'), bytes.length - 3);
      bytes[Math.max(1, inString - 1)] = 0xff;
      return bytes;
    }],
    ["torn twice", () => cut(a) + cut(b) + c],
    ["garbage around a record", () => "xx" + b + "yy"],
  ];
  const [name, make] = kinds[Math.floor(random() * kinds.length)]!;
  const made = make();
  return { name, bytes: typeof made === "string" ? Buffer.from(made) : made };
}

const work = mkdtempSync(join(tmpdir(), "pi-session-salvage-"));

/** The finding `check` makes of line `line`, among the line-level ones. */
function lineFinding(findings: Finding[], line: number): Finding | undefined {
  return findings.find((f) => f.line === line && f.records !== undefined);
}

describe("check and repair agree on every broken line", () => {
  it(`over generated corruptions of real record lines (${SEEDS} seed(s))`, () => {
    const lines = sourceLines();
    const head = JSON.stringify(header({ id: "agree" }));
    let cases = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const random = rng(seed * 7919);
      for (let k = 0; k < 60; k++) {
        // three different records: repair keeps one of two identical ones (an exact duplicate),
        // which check counts as two records on the line
        const picked = new Set<string>();
        while (picked.size < 3) picked.add(lines[Math.floor(random() * lines.length)]!);
        const [a, b, c] = [...picked] as [string, string, string];
        const { name, bytes } = corruptLine(random, a, b, c);
        const before = jsonl(header({ id: "agree" }), user("f0000001", null, "before"));
        const after = jsonl(user("f0000002", "f0000001", "after"));
        const file = Buffer.concat([before, bytes, Buffer.from("\n"), after]);
        const path = join(work, `case-${seed}-${k}.jsonl`);
        writeFileSync(path, file);
        const label = `${name} (seed ${seed}, case ${k})`;

        // check: what it says of line 3
        const session = openSessionSync(path);
        const said = lineFinding(quickFindings(session), 3);
        session.close();
        expect(said, `${label}: check reports line 3`).toBeDefined();

        // repair: what it keeps of line 3
        const stamp = stampOf(path);
        const source = new FileSource(path);
        const plan = planRepair(source, stamp.mtimeMs);
        const decision = plan.decisions.get(2);
        // (a tool result the line holds may then be removed by the conversation rules: its call is not in this file)
        const removedResults = plan.actions.filter((a) => a.line === 3 && a.code === "result-removed").length;
        const keptFromLine = (decision === undefined || decision.kind === "normalize" ? 1 : decision.kind === "drop" ? 0 : decision.pieces.length) + removedResults;
        expect(keptFromLine, `${label}: repair keeps what check said it can recover`).toBe(said!.records);
        replaceFile(path, (w) => writeRepair(source, plan, w), { expect: stamp });
        source.close();

        // every kept piece passes check, and the whole result loads in pi
        const repaired = openSessionSync(path);
        const errors = quickFindings(repaired).filter((f) => f.severity === "error");
        repaired.close();
        expect(errors.map((f) => `${f.line}:${f.code}`), `${label}: errors after repair`).toEqual([]);
        const out = readFileSync(path, "utf8").trimEnd().split("\n");
        expect(out.length, `${label}: header, two entries and the recovered records`).toBe(3 + said!.records! - removedResults);
        const copy = join(work, `pi-${seed}-${k}.jsonl`);
        copyFileSync(path, copy);
        expect(pi.SessionManager.open(copy).getEntries().length, `${label}: pi loads every kept entry`).toBe(out.length - 1);
        expect(out[0]).toBe(head);
        cases++;
      }
    }
    expect(cases).toBe(60 * SEEDS);
  }, 60_000 + SEEDS * 1_000);

  it("agree on a record split by raw newlines with a line of NULs between its halves", () => {
    // check once ended the run at the NUL line (the halves torn, nothing recovered) while repair
    // held it as the blank line it is once normalised, and joined the record
    const record = JSON.stringify(user("s0000001", "f0000001", "first half\n\nsecond half"));
    const [first, second] = record.split("\\n\\n") as [string, string];
    const bytes = Buffer.concat([jsonl(header({ id: "nul-split" }), user("f0000001", null, "before")), Buffer.from(first + "\n"), Buffer.alloc(5), Buffer.from("\n" + second + "\n")]);
    const findings = quickFindings(openSessionBuffer("nul-split.jsonl", bytes));
    expect(lineFinding(findings, 3)).toMatchObject({ code: "line-split", records: 1 });
    const plan = planRepair(new BufferSource("nul-split.jsonl", bytes));
    const out: Buffer[] = [];
    writeRepair(new BufferSource("nul-split.jsonl", bytes), plan, (c) => out.push(Buffer.from(c)));
    const lines = Buffer.concat(out).toString("utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[2]!).message.content[0].text).toBe("first half\n\nsecond half");
  });

  it("over every line of every fixture and corpus file", () => {
    for (const file of [...fixtureFiles(), ...corpusFiles()]) {
      const bytes = readFileSync(file);
      if (bytes.length === 0) continue;
      const session = openSessionBuffer(basename(file), bytes);
      const findings = quickFindings(session);
      const plan = planRepair(new BufferSource(basename(file), bytes));
      for (const f of findings) {
        if (f.records === undefined) continue;
        const d = plan.decisions.get(f.line! - 1);
        const kept = d === undefined || d.kind === "normalize" ? 1 : d.kind === "drop" ? 0 : d.pieces.length;
        expect(kept, `${basename(file)}:${f.line} ${f.code}`).toBe(f.records);
      }
    }
  });
});
