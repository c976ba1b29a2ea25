/**
 * agent-core's storage format 4 against the published packages themselves (test/helpers/agent-core.ts):
 * every session of fixtures/agent-core (made by those packages: scripts/agent-core-fixtures.mjs),
 * JSONL files and SQLite containers alike, is read as pi's lines whose context at every branch
 * tip and every leaf is agent-core's own (`buildSessionContext`), as this tool's reader builds it
 * and as pi 1.6's builds it from the lines; its usage is its ledger's; and `migrate` writes a file
 * pi 1.6 opens with every entry and the same contexts, its current leaf `main`'s tip, the
 * original left byte for byte as it was.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contextAt } from "../../src/format/context/branch.js";
import { Session } from "../../src/format/session/session.js";
import { listSessionFiles, openSource, storedUsage } from "../../src/stores/index.js";
import { agentCoreJsonl, agentCoreSqlite, type AgentCoreSession } from "../helpers/agent-core.js";
import { cliJson } from "../helpers/cli.js";
import { pi, piEntries } from "../helpers/pi.js";

const FIXTURES = new URL("../../fixtures/agent-core/", import.meta.url).pathname;
const sessions = listSessionFiles(FIXTURES);
const work = mkdtempSync(join(tmpdir(), "agent-core-conformance-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Each session's oracle: agent-core's own reading of it. */
const oracles = new Map<string, AgentCoreSession>();
async function oracleOf(path: string): Promise<AgentCoreSession> {
  let o = oracles.get(path);
  if (!o) {
    const [container, id] = path.includes("#") ? path.split("#") : [path, undefined];
    if (container!.endsWith(".sqlite")) {
      for (const s of await agentCoreSqlite(container!)) oracles.set(id === undefined ? container! : `${container}#${s.id}`, s);
    } else oracles.set(path, await agentCoreJsonl(path));
    o = oracles.get(path)!;
  }
  return o;
}

/** The node of `id` in the session as read, where the translation adds an edit under it (a turn left out), the edit's. */
function leafNode(session: Session, id: string): number {
  const edit = session.nodeOf(`${id}:omitted`);
  return edit ?? session.nodeOf(id)!;
}

/** Every file under `dir`, with its bytes. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(p.slice(dir.length), readFileSync(p).toString("base64"));
    }
  };
  walk(dir);
  return out;
}

describe("agent-core's storage format 4, against agent-core 0.99.1 and the SQLite backend 0.87.1", () => {
  it("lists every session of the fixtures once: JSONL files, per-session databases, a shared container", () => {
    expect(sessions.filter((s) => s.endsWith(".jsonl")).length).toBe(8);
    expect(sessions.filter((s) => s.includes("/sqlite/")).length).toBe(5);
    expect(sessions.filter((s) => s.includes("shared/sessions.sqlite#")).length).toBe(2);
    expect(new Set(sessions).size).toBe(sessions.length);
  });

  for (const path of sessions) {
    const name = path.slice(FIXTURES.length);
    it(`${name}: every tip's and leaf's context is agent-core's, as read here and as pi 1.6 builds it from the lines`, async () => {
      const oracle = await oracleOf(path);
      const source = openSource(path);
      const session = Session.open(source);
      const v3 = join(work, `${oracle.id}.jsonl`);
      writeFileSync(v3, source.read(0, source.size));
      const entries = piEntries(v3);
      const leaves = oracle.leaves();
      expect(leaves.length).toBeGreaterThan(0);
      try {
        for (const leaf of leaves) {
          const want = await oracle.context(leaf);
          const node = leafNode(session, leaf);
          expect(contextAt(session, node).messages, `${leaf}, read here`).toEqual(want);
          expect(pi.buildSessionContext(entries, session.nodeId(node)!).messages, `${leaf}, pi 1.6`).toEqual(want);
        }
        // pi's current leaf is main's tip
        const tip = oracle.tips.get("main");
        if (tip) expect(pi.buildSessionContext(entries).messages).toEqual(await oracle.context(tip));
      } finally {
        session.close();
      }
    });

    it(`${name}: its usage is its ledger's, each row once`, async () => {
      const oracle = await oracleOf(path);
      const want = oracle.ledger.reduce((t, r) => ({ input: t.input + r.usage.input, output: t.output + r.usage.output, total: t.total + r.usage.totalTokens }), { input: 0, output: 0, total: 0 });
      const got = (storedUsage(path) ?? []).reduce((t, r) => ({ input: t.input + r.amounts.input, output: t.output + r.amounts.output, total: t.total + r.amounts.input + r.amounts.output + r.amounts.cacheRead + r.amounts.cacheWrite }), { input: 0, output: 0, total: 0 });
      expect(got).toEqual(want);
      // a row a request, but an upgrade's adjustment: the requests of the messages it repeats, by their models
      const requests = storedUsage(path) ?? [];
      const adjustments = oracle.ledger.filter((r) => r.adjustment).length;
      if (adjustments === 0) expect(requests.length).toBe(oracle.ledger.length);
      else {
        expect(requests.length).toBeGreaterThan(oracle.ledger.length);
        expect(requests.map((r) => r.key)).not.toContain("v3-import");
        expect(new Set(requests.map((r) => r.key))).toContain("anthropic/claude-sonnet-4-6");
      }
    });
  }

  it("usage over the store totals every ledger (each row once; a fork copies none)", async () => {
    const report = await cliJson(["usage", FIXTURES, "--no-cache", "--by", "session"]);
    let want = 0;
    for (const path of sessions) for (const r of (await oracleOf(path)).ledger) want += r.usage.input + r.usage.output + r.usage.cacheRead + r.usage.cacheWrite;
    expect((report.json as { total: { total: number } }).total.total).toBe(want);
  });

  it("migrate writes a v3 file of each that pi 1.6 opens with every entry and the same contexts; the originals are left byte for byte", async () => {
    const copy = join(work, "store");
    cpSync(FIXTURES, copy, { recursive: true });
    const before = snapshot(copy);
    const r = await cliJson(["migrate", copy]);
    expect(r.exitCode).toBe(0);
    const files = (r.json as { files: Array<{ file: string; status: string; out?: string }> }).files;
    expect(files.length).toBe(sessions.length);
    // the originals: every byte as it was (and no -wal or -shm left that was not there)
    const after = snapshot(copy);
    for (const [p, b] of before) expect(after.get(p), p).toBe(b);
    const outs = new Set(files.map((f) => f.out!.slice(copy.length)));
    expect([...after.keys()].filter((p) => !before.has(p) && !outs.has(p))).toEqual([]);
    // one truth: the store's usage is what it was, each request once (a session and its copy share their entries)
    const usage = async () => (await cliJson(["usage", copy, "--no-cache", "--by", "model"])).json as { total: Record<string, number>; rows: Array<{ key: string; requests: number }> };
    const [was, now] = [await cliJson(["usage", FIXTURES, "--no-cache", "--by", "model"]), await usage()];
    const { sessions: _s, ...nowTotal } = now.total;
    const { sessions: _w, ...wasTotal } = (was.json as { total: Record<string, number> }).total;
    expect(nowTotal).toEqual(wasTotal);
    expect(now.rows.map((r) => [r.key, r.requests])).toEqual((was.json as typeof now).rows.map((r) => [r.key, r.requests]));
    for (const f of files) {
      expect(f.status, f.file).toBe("migrated");
      const original = join(FIXTURES, f.file.slice(copy.length + 1));
      const oracle = await oracleOf(original);
      const sm = pi.SessionManager.open(f.out!, join(work, "sm"));
      const entries = sm.getEntries();
      const session = Session.open(openSource(f.out!));
      try {
        // every entry agent-core keeps, and what the translation adds (edits, labels, the name)
        for (const e of oracle.entries) expect(entries.some((x: { id: string }) => x.id === e.id), e.id).toBe(true);
        for (const leaf of oracle.leaves()) expect(pi.buildSessionContext(entries, session.nodeId(leafNode(session, leaf))!).messages).toEqual(await oracle.context(leaf));
        const tip = oracle.tips.get("main");
        if (tip) expect(sm.buildSessionContext().messages).toEqual(await oracle.context(tip));
      } finally {
        session.close();
      }
      expect(statSync(f.out!).size).toBeGreaterThan(0);
    }
  });
});
