/**
 * Conformance against pi 1.6: for every fixture, every corpus file and a seeded set of sessions
 * written by pi's SessionManager, the context we rebuild for every entry as the leaf must equal
 * pi's `buildSessionContext` (as JSON, key order included), and our tree must equal pi's `getTree`.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contextAt } from "../../src/format/context/branch.js";
import { buildContext } from "../../src/format/context/context.js";
import type { AnyEntry } from "../../src/format/schema/types.js";
import { openSessionSync, type Session } from "../../src/format/session/session.js";
import { generateSession } from "../helpers/generate.js";
import { corpusFiles, fixtureFiles } from "../helpers/paths.js";
import { pi, piEntries, piWalkLoops } from "../helpers/pi.js";

const work = mkdtempSync(join(tmpdir(), "pi-session-conformance-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const tally = { files: 0, leaves: 0, streamed: 0, piLoops: 0, piCrashes: 0, trees: 0 };
afterAll(() => {
  // The suite says how much it compared.
  console.log(`conformance: ${tally.files} files, ${tally.leaves} leaves equal to pi (${tally.streamed} also through the streaming builder); ${tally.trees} trees equal to getTree; ${tally.piLoops} leaves where pi would loop forever and ${tally.piCrashes} where pi throws (ours finished)`);
});

type PiEntry = Record<string, any>;

/** Compares every leaf of one file; entries are matched by position (v1 ids are random in pi). */
function compareFile(path: string): number {
  const theirs = piEntries(path);
  const session = openSessionSync(path);
  try {
    const ours: AnyEntry[] = Array.from({ length: session.tree.size }, (_, n) => session.entry(n));
    // pi keeps harness `leaf` records as entries; we keep them out of the tree.
    const theirsTree = theirs.filter((e) => e.type !== "leaf");
    expect(theirsTree.length).toBe(ours.length);
    const byId = new Map<string, PiEntry>();
    for (const e of theirs) byId.set(e.id, e);
    let compared = 0;
    for (let i = 0; i < ours.length; i++) {
      const theirId = theirsTree[i]!.id;
      if (piWalkLoops(byId, theirId)) {
        tally.piLoops++;
        expect(() => buildContext(pathOf(session, ours, i))).not.toThrow();
        continue;
      }
      let expected;
      try {
        expected = pi.buildSessionContext(theirs, theirId);
      } catch {
        tally.piCrashes++;
        expect(() => buildContext(pathOf(session, ours, i))).not.toThrow();
        continue;
      }
      const leaf = session.nodeOf(ours[i]!.id) ?? i;
      const { activeToolNames: _tools, ...got } = buildContext(pathOf(session, ours, leaf));
      expect(JSON.stringify(got), `${basename(path)} leaf #${i} (${theirId})`).toBe(JSON.stringify(expected));
      // The streaming builder the commands use reads the lines itself; every leaf of small files,
      // a sample of large ones (it re-reads the path for each leaf).
      if (ours.length < 400 || i % 25 === 0) {
        const { activeToolNames: _t, ...streamed } = contextAt(session, leaf);
        expect(JSON.stringify(streamed), `${basename(path)} leaf #${i} (${theirId}), streamed`).toBe(JSON.stringify(expected));
        tally.streamed++;
      }
      compared++;
    }
    tally.files++;
    tally.leaves += compared;
    return compared;
  } finally {
    session.close();
  }
}

function pathOf(session: Session, ours: AnyEntry[], node: number): AnyEntry[] {
  return Array.from(session.tree.pathTo(node), (n) => ours[n]!);
}

interface PiTreeNode {
  entry: PiEntry;
  children: PiTreeNode[];
  label?: string;
}

/** Flattens a tree (pi's or ours) to "depth id label" lines, iteratively. */
function flattenPi(roots: PiTreeNode[]): string[] {
  const out: string[] = [];
  const stack = [...roots].reverse().map((node) => ({ node, depth: 0 }));
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    out.push(`${depth} ${node.entry.id} ${node.label ?? ""}`);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, depth: depth + 1 });
  }
  return out;
}

function compareTree(path: string): void {
  const copy = join(mkdtempSync(join(work, "tree-")), basename(path));
  copyFileSync(path, copy);
  const manager = pi.SessionManager.open(copy);
  const session = openSessionSync(path);
  try {
    const labels = new Map<string, string>();
    for (let n = 0; n < session.tree.size; n++) {
      const e = session.entry(n);
      if (e.type === "label" && typeof e.targetId === "string") {
        if (e.label) labels.set(e.targetId, e.label as string);
        else labels.delete(e.targetId);
      }
    }
    const ours = [...session.tree.walk()].map(({ node, depth }) => {
      const id = session.nodeId(node)!;
      return `${depth} ${id} ${labels.get(id) ?? ""}`;
    });
    expect(ours).toEqual(flattenPi(manager.getTree()));
    tally.trees++;
  } finally {
    session.close();
  }
}

/** Files whose tree pi cannot draw faithfully (duplicate ids, cycles) or will not open. */
function treeComparable(path: string): boolean {
  const session = openSessionSync(path);
  try {
    const ok = session.duplicateIds.size === 0 && !session.tree.problems.some((p) => p.problem === "cycle" || p.problem === "self");
    return ok && session.version === 3 && !!session.header && session.firstRecordLine === session.headerRecord?.line && !session.isHarness && !session.records.some((r) => r.flags & 1 || r.kind === "not-object");
  } finally {
    session.close();
  }
}

describe("context for every leaf equals pi's buildSessionContext", () => {
  const fixtures = fixtureFiles().filter((f) => f.endsWith(".jsonl"));
  it.each(fixtures.map((f) => [basename(f), f]))("fixture %s", (_name, path) => {
    compareFile(path);
  });

  // (pi builds the context of every leaf of the corpus's largest session: 20-30 s alone, and up
  // to three times that where the machine's two cores are shared with other work)
  it.each(corpusFiles().map((f) => [basename(f), f]))("corpus %s", (_name, path) => {
    compareFile(path);
  }, 240_000);

  it("seeded sessions written by pi's SessionManager", () => {
    let leaves = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const path = generateSession({ seed, dir: join(work, `gen-${seed}`), steps: 80 });
      leaves += compareFile(path);
    }
    expect(leaves).toBeGreaterThan(40 * 60);
  });
});

/** The fields that name an entry by its id. */
const ID_FIELDS = ["id", "parentId", "firstKeptEntryId", "targetId", "fromId"] as const;

/** The k-th id of a form: pi's hex is kept as it is; the others as a UUID (lowercase or not), a short name, or characters past Latin-1 (a lone surrogate among them). */
function idOfForm(form: "uuid" | "UUID" | "short" | "wide", k: number, hex: string): string {
  const uuid = `${hex}-${(k % 65536).toString(16).padStart(4, "0")}-4${hex.slice(0, 3)}-8000-${k.toString(16).padStart(12, "0")}`;
  if (form === "uuid") return uuid;
  if (form === "UUID") return uuid.toUpperCase();
  if (form === "short") return `e${k}`;
  return k % 2 ? `ид-${k}` : `\ud800${k}`;
}

/**
 * A copy of a pi-written session with its entry ids in other forms (`mixed`: each id its own form,
 * pi's hex among them), written as JSON writes them; with `damage`, every 17th entry reuses an
 * earlier entry's id, every 23rd names a parent that is nowhere, and every 29th one that comes later.
 */
function withIds(path: string, out: string, mode: "uuid" | "mixed", damage = false): string {
  const forms = ["hex", "uuid", "UUID", "short", "wide"] as const;
  const lines = readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as PiEntry);
  const renamed = new Map<string, string>();
  const rename = (id: string): string => {
    let to = renamed.get(id);
    if (to === undefined) {
      const k = renamed.size;
      const form = mode === "uuid" ? "uuid" : forms[k % forms.length]!;
      to = form === "hex" ? id : idOfForm(form, k, id.padEnd(8, "0").slice(0, 8));
      renamed.set(id, to);
    }
    return to;
  };
  lines.forEach((e, i) => {
    if (e.type === "session") return;
    for (const f of ID_FIELDS) if (typeof e[f] === "string") e[f] = rename(e[f]);
    if (!damage || i < 2) return;
    if (i % 17 === 0) e.id = lines[Math.floor(i / 2)]!.id;
    else if (i % 23 === 0) e.parentId = `gone-${i}`;
    else if (i % 29 === 0 && i + 3 < lines.length) e.parentId = rename(lines[i + 3]!.id);
  });
  writeFileSync(out, lines.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return out;
}

describe("context and tree equal pi's with ids of any form (UUIDs, names, any characters)", () => {
  it("seeded sessions, their ids as UUIDs, then as a mix of forms, then a mix with duplicated, missing and later parents", () => {
    let leaves = 0;
    for (let seed = 200; seed < 212; seed++) {
      const path = generateSession({ seed, dir: join(work, `ids-${seed}`), steps: 80 });
      const uuids = withIds(path, join(work, `ids-${seed}-uuid.jsonl`), "uuid");
      const mixed = withIds(path, join(work, `ids-${seed}-mixed.jsonl`), "mixed");
      const damaged = withIds(path, join(work, `ids-${seed}-damaged.jsonl`), "mixed", true);
      for (const file of [uuids, mixed, damaged]) leaves += compareFile(file);
      compareTree(uuids);
      compareTree(mixed);
      // every id is found again by itself and by its prefix
      for (const file of [uuids, mixed, damaged]) {
        const session = openSessionSync(file);
        try {
          for (let n = 0; n < session.tree.size; n++) {
            const id = session.nodeId(n)!;
            expect(id, file).toBe(JSON.parse(readFileSync(file, "utf8").split("\n")[session.nodeLine(n) - 1]!).id);
            const holder = session.duplicateIds.get(id)?.at(-1) ?? n;
            expect(session.nodeOf(id)).toBe(holder);
            expect(session.nodesWithPrefix(id.slice(0, 5))).toContain(holder);
          }
        } finally {
          session.close();
        }
      }
    }
    expect(leaves).toBeGreaterThan(12 * 3 * 60);
  });
});

describe("tree equals pi's getTree", () => {
  const files = [...fixtureFiles().filter((f) => f.endsWith(".jsonl")), ...corpusFiles()].filter(treeComparable);
  it.each(files.map((f) => [basename(f), f]))("%s", (_name, path) => {
    compareTree(path);
  });

  it("seeded sessions written by pi's SessionManager", () => {
    for (let seed = 100; seed < 120; seed++) compareTree(generateSession({ seed, dir: join(work, `tree-gen-${seed}`), steps: 80 }));
  });
});
