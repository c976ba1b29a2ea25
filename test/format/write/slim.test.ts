/**
 * slim, proved against pi: for every leaf of every fixture, corpus file and generated session
 * with compactions (written by pi's SessionManager: branches before and after compactions, images,
 * big tool output, thinking with signatures), pi's buildSessionContext on the slimmed file
 * deep-equals it on the original; pi loads every entry; ids, parents, types, timestamps and order
 * stay; check finds nothing new; a second slim changes nothing. And the live set is exactly what
 * some leaf's context holds (worked out leaf by leaf, the slow way, with pi's own functions).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { quickFindings } from "../../../src/format/check/validate.js";
import { compactionSelection } from "../../../src/format/context/context.js";
import { BufferSource } from "../../../src/format/read/source.js";
import { Session } from "../../../src/format/session/session.js";
import { liveNodes, planSlim, writeSlim } from "../../../src/format/write/slim.js";
import { generateBloatedSession } from "../../helpers/generate.js";
import { corpusFiles, fixtureFiles } from "../../helpers/paths.js";
import { pi } from "../../helpers/pi.js";

type Entry = Record<string, any>;

/** The file slimmed in memory (with `minSize`), and what it reported. */
function slimmed(bytes: Buffer, minSize = 1024): { out: Buffer; result: ReturnType<typeof writeSlim> } | undefined {
  const session = Session.open(new BufferSource("s.jsonl", bytes));
  const plan = planSlim(session);
  if (plan.status !== "ready") return undefined;
  const chunks: Buffer[] = [];
  const result = writeSlim(session, plan, minSize, (c) => chunks.push(Buffer.from(c)));
  return { out: Buffer.concat(chunks), result };
}

const entriesOf = (bytes: Buffer): Entry[] => pi.parseSessionEntries(bytes.toString("utf8")).filter((e) => e.type !== "session");

/**
 * The ids a leaf's context entries edit, as pi's `buildSessionProjection` applies edits: the latest
 * edit of an id among them, an omission of any entry, a replacement of a user, assistant, result
 * or custom message (the rest keep their message).
 */
function editedIn(context: Entry[]): Set<string> {
  const latest = new Map<string, Entry>();
  for (const e of context) if (e.type === "context_edit") latest.set(e.targetId, e);
  const out = new Set<string>();
  for (const e of context) {
    const edit = latest.get(e.id);
    if (!edit) continue;
    const role = e.type === "custom_message" ? "custom" : e.type === "message" ? e.message?.role : undefined;
    if (edit.replacement === null || ["user", "assistant", "toolResult", "custom"].includes(role)) out.add(e.id);
  }
  return out;
}

/** Every leaf pi could be asked for: the tree's leaves and the current leaf. */
function leavesOf(entries: Entry[]): string[] {
  const parents = new Set(entries.map((e) => e.parentId));
  const leaves = entries.filter((e) => !parents.has(e.id)).map((e) => e.id);
  const last = entries.filter((e) => e.type !== "label").pop();
  return [...new Set([...leaves, ...(last ? [last.id] : [])])];
}

function expectSameContexts(before: Buffer, after: Buffer, where: string): number {
  const a = entriesOf(before);
  const b = entriesOf(after);
  expect(b.length, where).toBe(a.length);
  const leaves = leavesOf(a);
  for (const leaf of leaves) expect(pi.buildSessionContext(b, leaf), `${where}: leaf ${leaf}`).toEqual(pi.buildSessionContext(a, leaf));
  return leaves.length;
}

/** What stays whatever is slimmed: each entry's id, parent, type, timestamp, role, tool name and call, model, usage, in order. */
function skeleton(bytes: Buffer): unknown[] {
  return entriesOf(bytes).map((e) => ({ id: e.id, parentId: e.parentId, type: e.type, timestamp: e.timestamp, role: e.message?.role, toolName: e.message?.toolName, toolCallId: e.message?.toolCallId, model: e.message?.model, usage: e.message?.usage, calls: Array.isArray(e.message?.content) ? e.message.content.filter((c: Entry) => c?.type === "toolCall").map((c: Entry) => [c.id, c.name]) : [] }));
}

function generated(count: number, payload: number, branching?: number): string[] {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-slim-"));
  return Array.from({ length: count }, (_, k) => generateBloatedSession({ seed: 900 + k, dir: join(dir, String(k)), steps: 70, payload, branching }));
}

describe("slim, proved against pi", () => {
  const files = [...fixtureFiles().filter((f) => f.endsWith(".jsonl")), ...corpusFiles(), ...generated(6, 3000)];

  it("leaves every leaf's context as pi builds it, keeps every entry and its skeleton, and finds nothing new", () => {
    let slimmedFiles = 0;
    let leaves = 0;
    for (const file of files) {
      const before = readFileSync(file);
      for (const minSize of [1024, 1]) {
        const done = slimmed(before, minSize);
        if (!done) continue;
        const where = `${basename(file)} (min ${minSize})`;
        leaves += expectSameContexts(before, done.out, where);
        expect(skeleton(done.out), where).toEqual(skeleton(before));
        const codes = (b: Buffer) => quickFindings(Session.open(new BufferSource("s.jsonl", b))).map((f) => `${f.code}:${f.line}`);
        expect(codes(done.out), where).toEqual(codes(before));
        // pi opens it and loads every entry
        const dir = mkdtempSync(join(tmpdir(), "pi-session-slim-open-"));
        const copy = join(dir, "s.jsonl");
        writeFileSync(copy, done.out);
        expect(pi.SessionManager.open(copy).getEntries().length, where).toBe(entriesOf(before).length);
        // a second slim has nothing left to do
        expect(slimmed(done.out, minSize)!.result.entriesSlimmed, where).toBe(0);
        if (done.result.entriesSlimmed > 0) slimmedFiles++;
      }
    }
    // the generated sessions all have something behind their compactions
    expect(slimmedFiles).toBeGreaterThanOrEqual(6);
    expect(leaves).toBeGreaterThan(100);
  });

  it("saves a large share of a bloated session's bytes, and says how many by kind", () => {
    // (a session that rarely goes back far: what came before its compactions is behind)
    for (const file of generated(2, 20000, 0.005)) {
      const before = readFileSync(file);
      const { out, result } = slimmed(before)!;
      expect(result.bytesBefore).toBe(before.length);
      expect(result.bytesAfter).toBe(out.length);
      const saved = result.bytesBefore - result.bytesAfter;
      expect(saved / result.bytesBefore, basename(file)).toBeGreaterThan(0.25);
      // the kinds add up to what was saved (what re-writing changed is in "other")
      expect(Object.values(result.saved).reduce((a, b) => a + b, 0)).toBe(saved);
      for (const kind of ["toolOutput", "thinking"] as const) expect(result.saved[kind], kind).toBeGreaterThan(0);
    }
  });

  it("calls live exactly the entries whose message or summary some leaf's context holds (pi's rule, leaf by leaf)", () => {
    for (const file of files) {
      const bytes = readFileSync(file);
      const session = Session.open(new BufferSource("s.jsonl", bytes));
      if (planSlim(session).status !== "ready") continue;
      const live = liveNodes(session);
      const entries = entriesOf(bytes);
      const inContext = new Set<string>();
      for (const leaf of leavesOf(entries)) {
        // pi's context entries for the leaf; an older compaction after the first contributes
        // nothing, and an entry a context edit in it omits or replaces is not sent as written
        const context = pi.buildContextEntries(entries, leaf);
        const edited = editedIn(context);
        context.forEach((e, k) => {
          if (e.type === "compaction" && k > 0) return;
          if (edited.has(e.id)) return;
          if (["message", "custom_message", "compaction", "branch_summary"].includes(e.type)) inContext.add(e.id);
        });
      }
      const ours = new Set<string>();
      for (let n = 0; n < session.tree.size; n++) {
        const type = session.nodeType(n);
        if (live[n] && ["message", "custom_message", "compaction", "branch_summary"].includes(type!)) ours.add(session.nodeId(n)!);
      }
      expect([...ours].sort(), basename(file)).toEqual([...inContext].sort());
    }
  });

  it("finds, for every leaf at once, what the context of each leaf holds (the tree's ancestry against a walk of each branch)", () => {
    // compactionBounds, one rule with two lookups: along one branch's path (the context of a
    // leaf) and from the tree's ancestry (slim, every leaf at once). They must agree everywhere,
    // duplicated ids included, where the first holder on a path and the last in the file differ.
    const dup = fixtureFiles().find((f) => basename(f) === "duplicate-compaction-id.jsonl")!;
    for (const file of [...fixtureFiles().filter((f) => f.endsWith(".jsonl")), ...corpusFiles(), ...generated(3, 500)]) {
      const session = Session.open(new BufferSource("s.jsonl", readFileSync(file)));
      if (session.tree.problems.some((p) => p.problem === "cycle")) continue;
      const live = liveNodes(session);
      const byPath = new Set<number>();
      const leaves = [...session.tree.leaves(), ...(session.leafNode >= 0 ? [session.leafNode] : [])];
      for (const leaf of leaves) {
        const path = session.tree.pathTo(leaf);
        const view = { length: path.length, id: (i: number) => session.nodeId(path[i]!), type: (i: number) => session.nodeType(path[i]!), role: (i: number) => session.nodeRole(path[i]!) };
        const { compaction, selected } = compactionSelection(view, (i) => session.entry(path[i]!) as { id: unknown; firstKeptEntryId?: unknown });
        const edited = editedIn([...(compaction >= 0 ? [compaction] : []), ...selected].map((i) => session.entry(path[i]!) as Entry));
        if (compaction >= 0 && !edited.has(session.nodeId(path[compaction]!))) byPath.add(path[compaction]!);
        for (const i of selected) if (session.nodeType(path[i]!) !== "compaction" && !edited.has(session.nodeId(path[i]!))) byPath.add(path[i]!);
      }
      const counted = (n: number) => ["message", "custom_message", "compaction", "branch_summary"].includes(session.nodeType(n)!);
      const ours = Array.from({ length: session.tree.size }, (_, n) => n).filter((n) => live[n] && counted(n));
      expect(ours, basename(file)).toEqual([...byPath].filter(counted).sort((a, b) => a - b));
      if (file === dup) {
        // pi finds the compaction at the first entry holding its id: what lies between is after it; that entry is not
        const holders = session.duplicateIds.get("dup00001")!;
        expect(live[session.nodeOf("b0000001")!], "the entry between where pi finds the compaction and the compaction").toBe(1);
        expect(live[holders.find((n) => session.nodeType(n) === "message")!], "the entry that holds the compaction's id").toBe(0);
      }
    }
  });

  it("refuses a corrupted file, a v1 or v2 file and a parent cycle, pointing to the command that mends each", () => {
    const refusal = (name: string) => {
      const plan = planSlim(Session.open(new BufferSource(name, readFileSync(fixtureFiles().find((f) => basename(f) === name)!))));
      return plan.status === "refused" ? plan.reason : "ready";
    };
    expect(refusal("torn-last-line.jsonl")).toMatch(/run `pi-session repair` first/);
    expect(refusal("v1.jsonl")).toMatch(/run `pi-session migrate` first/);
    expect(refusal("v2-hook.jsonl")).toMatch(/run `pi-session migrate` first/);
    expect(refusal("cycle.jsonl")).toMatch(/cycle.*run `pi-session repair` first/);
    expect(refusal("linear.jsonl")).toBe("ready");
  });
});
