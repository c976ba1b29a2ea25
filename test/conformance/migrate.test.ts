/**
 * Migration against pi 1.6's `migrateSessionEntries`: for every legacy fixture, corpus file and a
 * seeded set of legacy sessions made from pi-written ones, our output equals pi's up to entry ids
 * (same parents, same compaction targets, same content), and migrating twice gives the same bytes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSessionBuffer, openSessionSync } from "../../src/format/session/session.js";
import { planMigration, writeMigration } from "../../src/format/write/migrate.js";
import { generateSession } from "../helpers/generate.js";
import { corpusFiles, fixture } from "../helpers/paths.js";
import { pi } from "../helpers/pi.js";

type Rec = Record<string, any>;
const work = mkdtempSync(join(tmpdir(), "pi-session-migrate-"));

function migrated(path: string): Buffer {
  const session = openSessionSync(path);
  try {
    expect(planMigration(session).status).toBe("needed");
    const chunks: Buffer[] = [];
    writeMigration(session, (c) => chunks.push(Buffer.from(c)));
    return Buffer.concat(chunks);
  } finally {
    session.close();
  }
}

/** Compares our migrated records with pi's, mapping ids by position. */
function expectSameUpToIds(ours: Rec[], theirs: Rec[]): void {
  expect(ours.length).toBe(theirs.length);
  const idMap = new Map<string, string>();
  ours.forEach((o, i) => {
    if (o.type !== "session") idMap.set(theirs[i]!.id, o.id);
  });
  const ids = new Set<string>();
  ours.forEach((o, i) => {
    const t = { ...theirs[i]! };
    if (o.type === "session") {
      expect(o).toEqual(t);
      return;
    }
    expect(o.id).toMatch(/^[0-9a-f]{8}$/);
    expect(ids.has(o.id)).toBe(false);
    ids.add(o.id);
    expect(o.parentId).toBe(t.parentId === null ? null : idMap.get(t.parentId));
    if ("firstKeptEntryId" in t && t.firstKeptEntryId !== undefined) expect(o.firstKeptEntryId).toBe(idMap.get(t.firstKeptEntryId));
    const strip = ({ id: _i, parentId: _p, firstKeptEntryId: _f, ...rest }: Rec) => rest;
    expect(strip(o)).toEqual(strip(t));
    // key order too: pi appends new keys at the end, as we do
    expect(Object.keys(o)).toEqual(Object.keys(t).filter((k) => k !== "firstKeptEntryId" || t.firstKeptEntryId !== undefined));
  });
}

function compare(path: string): void {
  const out = migrated(path);
  const ours = out.toString("utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Rec);
  const theirs = pi.parseSessionEntries(readFileSync(path, "utf8")).filter((e) => e && typeof e === "object");
  pi.migrateSessionEntries(theirs);
  expectSameUpToIds(ours, theirs);
  // deterministic: the same input gives the same bytes
  expect(migrated(path).equals(out)).toBe(true);
  // and the result is current
  const again = openSessionBuffer("migrated.jsonl", out);
  expect(planMigration(again).status).toBe("current");
}

/** A legacy copy of a pi-written v3 session: v2 (custom -> hookMessage), or v1 (its current branch, without ids). */
function legacy(path: string, version: 1 | 2): string {
  const lines = readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Rec);
  const [header, ...entries] = lines;
  let body = entries;
  if (version === 1) {
    // v1 is linear: keep the current branch, drop ids, turn firstKeptEntryId into an index
    const byId = new Map(entries.map((e) => [e.id, e]));
    const branch: Rec[] = [];
    for (let e = entries[entries.length - 1]; e; e = e.parentId ? byId.get(e.parentId) : undefined) branch.unshift(e);
    const index = new Map(branch.map((e, i) => [e.id, i + 1]));
    body = branch
      .filter((e) => !["label", "context_edit", "branch_summary"].includes(e.type))
      .map(({ id: _i, parentId: _p, ...e }) => {
        if (e.type === "compaction") {
          const { firstKeptEntryId, ...rest } = e;
          return { ...rest, firstKeptEntryIndex: index.get(firstKeptEntryId) ?? 1 };
        }
        return e;
      });
  } else {
    body = entries.map((e) => (e.type === "message" && e.message?.role === "custom" ? { ...e, message: { ...e.message, role: "hookMessage" } } : e));
  }
  const h = { ...header };
  if (version === 1) delete h.version;
  else h.version = 2;
  const out = join(work, `${basename(path, ".jsonl")}.v${version}.jsonl`);
  writeFileSync(out, [h, ...body].map((r) => JSON.stringify(r)).join("\n") + "\n");
  return out;
}

describe("migration equals pi's up to ids", () => {
  it.each(["v1.jsonl", "v2-hook.jsonl"])("fixture %s", (name) => compare(fixture(name)));

  const legacyCorpus = corpusFiles().filter((f) => /\.v1\./.test(f) && !/corrupt/.test(f));
  it.each(legacyCorpus.map((f) => [basename(f), f]))("corpus %s", (_n, path) => compare(path));

  it("seeded legacy sessions made from pi-written ones (v1 and v2)", () => {
    let files = 0;
    for (let seed = 200; seed < 215; seed++) {
      const v3 = generateSession({ seed, dir: join(work, `gen-${seed}`), steps: 60 });
      compare(legacy(v3, 1));
      compare(legacy(v3, 2));
      files += 2;
    }
    expect(files).toBe(30);
  });
});

describe("what migration refuses or leaves alone", () => {
  it("leaves v3 untouched, refuses newer and corrupted files with a reason", () => {
    const plan = (name: string) => planMigration(openSessionSync(fixture(name)));
    expect(plan("linear.jsonl").status).toBe("current");
    expect(plan("newer-version.jsonl")).toMatchObject({ status: "refused", reason: expect.stringContaining("newer") });
    expect(plan("fused.jsonl")).toMatchObject({ status: "refused", reason: expect.stringContaining("pi-session repair") });
    expect(plan("no-header.jsonl").status).toBe("refused");
    expect(plan("empty.jsonl").status).toBe("refused");
  });
});
