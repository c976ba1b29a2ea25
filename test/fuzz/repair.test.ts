/**
 * Repair fuzz: every corruption mode README's `repair` lists applied to fixtures and corpus files (seeded; a
 * bounded set in the normal suite, more with `npm run fuzz`). Invariants: the original is kept
 * byte-for-byte; every record that was valid on its own (and both halves of a fused line, and a
 * record split by a raw newline) is still there; the result is clean for `check`, loads whole in
 * pi, a second repair changes nothing, and what pi sends for every leaf pairs every result with its
 * call (judged for files with ids; a v1 file is mended once migrated). Two fixtures are fuzzed again
 * with UUIDs for their ids.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Validator } from "../../src/format/check/validate.js";
import { FileSource } from "../../src/format/read/source.js";
import { openSessionSync } from "../../src/format/session/session.js";
import { replaceFile, stampOf } from "../../src/format/write/atomic.js";
import { planRepair, writeRepair } from "../../src/format/write/repair/index.js";
import { corrupt, CORRUPTIONS } from "../helpers/corrupt.js";
import { corpusFiles, fixture } from "../helpers/paths.js";
import { pi, sentBreaks } from "../helpers/pi.js";
import { generateDisplacedSession, generateSession } from "../helpers/generate.js";

const SEEDS = Number(process.env.FUZZ_SEEDS ?? 1);
const work = mkdtempSync(join(tmpdir(), "pi-session-fuzz-"));
const tally = { repairs: 0, records: 0, failures: 0 };
afterAll(() => console.log(`repair fuzz: ${tally.repairs} corrupted files repaired (${SEEDS} seed(s) x ${CORRUPTIONS.length} kinds x files), ${tally.records} records checked, ${tally.failures} failures`));

const BASES = [
  ...["linear.jsonl", "branched.jsonl", "compacted.jsonl", "v1.jsonl", "v2-hook.jsonl", "null-content.jsonl", "escapes.jsonl"].map(fixture),
  ...corpusFiles().filter((f) => statSync(f).size < 400_000 && !/header-only|corrupt/.test(f)),
  // the same with UUIDs for ids (a replayer's, OpenClaw's): every hex id, parent and reference made one
  ...["branched.jsonl", "compacted.jsonl"].map((name) => {
    const named = join(work, `uuid-${name}`);
    const uuid = (hex: string) => `${hex}-5eed-4d1d-8a1d-0000${hex}`;
    writeFileSync(named, readFileSync(fixture(name), "utf8").replace(/"(id|parentId|targetId|firstKeptEntryId|fromId)":"([0-9a-f]{8})"/g, (_, key: string, hex: string) => `"${key}":"${uuid(hex)}"`));
    return named;
  }),
  // sessions pi's SessionManager writes: branches, compactions keeping from anywhere, summaries, context edits
  ...[3, 11, 29].map((seed) => {
    const dir = join(work, `generated-${seed}`);
    mkdirSync(dir, { recursive: true });
    const file = generateSession({ seed, dir, steps: 70 });
    const named = join(work, `generated-${seed}.jsonl`);
    copyFileSync(file, named);
    return named;
  }),
  // parallel calls answered after a user message, compactions keeping from above them, turns cut by `length` (damaged as written)
  ...[2, 5, 13, 21, 34].map((seed) => {
    const dir = join(work, `displaced-${seed}`);
    mkdirSync(dir, { recursive: true });
    const named = join(work, `displaced-${seed}.jsonl`);
    copyFileSync(generateDisplacedSession({ seed, dir }), named);
    return named;
  }),
];

/** A record's identity: its content without the tree links repair may change (a compaction's first kept entry among them: `compaction-kept-moved`). */
function identity(value: Record<string, unknown>): string {
  const { id: _i, parentId: _p, ...rest } = value;
  if (rest.type === "compaction") delete rest.firstKeptEntryId;
  return JSON.stringify(rest);
}

function records(bytes: Buffer): Array<Record<string, unknown>> {
  return bytes
    .toString("utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function check(base: string, kind: (typeof CORRUPTIONS)[number], seed: number): void {
  const original = readFileSync(base);
  const c = corrupt(original, kind, seed);
  if (!c) return;
  const dir = join(work, `${basename(base)}-${kind}-${seed}`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, basename(base));
  writeFileSync(path, c.bytes);

  // the tool results `check` finds the corrupted file cannot send, by call id (its call destroyed or
  // refused, or the result a second one); a result only cut off from its call is moved, never removed
  const broken = new Set<string>();
  {
    const validator = new Validator();
    const before = openSessionSync(path, { onRecord: validator.onRecord, skim: true });
    for (const f of validator.findings(before)) if (f.severity === "error" && !f.message.includes("is cut off from its call")) for (const [, id] of f.message.matchAll(/`([^`]*)`/g)) broken.add(id!);
    before.close();
  }
  const stamp = stampOf(path);
  const source = new FileSource(path);
  const plan = planRepair(source, stamp.mtimeMs);
  const backup = replaceFile(path, (w) => writeRepair(source, plan, w), { expect: stamp });
  source.close();
  tally.repairs++;

  // the original, byte-for-byte
  expect(readFileSync(backup).equals(c.bytes), "backup").toBe(true);
  // every record that was valid on its own survives (a result `check` found broken may go)
  const out = readFileSync(path);
  const kept = new Map<string, number>();
  for (const r of records(out)) kept.set(identity(r), (kept.get(identity(r)) ?? 0) + 1);
  // the calls on the lines the corruption destroyed
  const destroyedCalls = new Set<string>();
  for (const i of c.destroyed) for (const [, id] of (original.toString("utf8").split("\n")[i] ?? "").matchAll(/"type":"toolCall","id":"([^"]*)"/g)) destroyedCalls.add(id!);
  original
    .toString("utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!line.trim() || c.destroyed.has(i) || (i === 0 && c.headerLost)) return;
      const rec = JSON.parse(line) as Record<string, unknown>;
      tally.records++;
      // a tool result whose call the corruption destroyed (or that check finds unsendable) goes, as a provider refuses it, and is listed
      const callId = (rec.message as { role?: string; toolCallId?: string } | undefined)?.toolCallId;
      if (callId !== undefined && (broken.has(callId) || destroyedCalls.has(callId)) && plan.actions.some((a) => a.code === "result-removed" && a.message.includes(`\`${callId}\``))) return;
      expect(kept.has(identity(rec)), `${kind}: line ${i + 1} (${String(rec.type)}) lost`).toBe(true);
    });
  // clean for check (the conversation's rules too)
  const validator = new Validator();
  const after = openSessionSync(path, { onRecord: validator.onRecord, skim: true });
  const errors = validator.findings(after).filter((f) => f.severity === "error");
  expect(errors.map((f) => `${f.line}:${f.code}`), `${kind}: errors after repair`).toEqual([]);
  // idempotent
  expect(planRepair(after.source).changed, `${kind}: a second repair changes something`).toBe(false);
  after.close();
  // whole in pi (on a copy: pi rewrites old versions when it opens them)
  const copy = join(dir, "pi-copy.jsonl");
  copyFileSync(path, copy);
  const entries = records(out).filter((r) => r.type !== "session").length;
  expect(pi.SessionManager.open(copy).getEntries().length, `${kind}: pi loads every entry`).toBe(entries);
  // every leaf sendable, as pi sends it
  if (after.version >= 2) expect(sentBreaks(path), `${kind}: what pi sends after repair`).toEqual(new Map());
}

describe("repair fuzz", () => {
  for (const base of BASES) {
    it(`${basename(base)}: ${CORRUPTIONS.length} corruption kinds x ${SEEDS} seed(s)`, () => {
      for (let seed = 1; seed <= SEEDS; seed++) {
        for (const kind of CORRUPTIONS) {
          try {
            check(base, kind, seed * 1000 + CORRUPTIONS.indexOf(kind));
          } catch (error) {
            tally.failures++;
            throw error;
          }
        }
      }
    }, 60_000 + SEEDS * 2_000); // (the largest base takes about half a second a seed here)
  }
});
