/**
 * `diff` (README): two branches of a session, and two sessions. The oracles are the files'
 * own parent links (read here with pi's parser), `context` (what the model sees on a leaf, printed
 * piped: the diff of two must turn one into the other, by the `diff` package's own applyPatch),
 * and sessions changed here on purpose: entries appended, one changed in place, one leaf removed,
 * a line rewritten with its keys in another order (no change).
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { corpusFiles, fixture, ROOT } from "../helpers/paths.js";
import { branches as paths, piEntries } from "../helpers/pi.js";

type Entry = Record<string, any>;


const scratch = (name: string) => join(mkdtempSync(join(tmpdir(), "pi-session-diff-")), name);

describe("diff FILE LEAF_A LEAF_B", () => {
  const files = [fixture("branched.jsonl"), ...corpusFiles().filter((f) => /branches/.test(f))].slice(0, 4);

  it.each(files.map((f) => [basename(f), f]))("%s: the fork point and both sides are what the parent links give; the context diff turns one leaf's context into the other's", async (_name, file) => {
    const leaves = [...paths(piEntries(file))];
    expect(leaves.length).toBeGreaterThan(1);
    const lineOf = new Map(readFileSync(file, "utf8").split("\n").map((l, i) => [l ? (JSON.parse(l) as Entry).id : undefined, i + 1]));
    for (const [[a, pa], [b, pb]] of [[leaves[0]!, leaves[1]!], [leaves[leaves.length - 1]!, leaves[0]!]]) {
      let k = 0;
      while (k < pa.length && k < pb.length && pa[k] === pb[k]) k++;
      const r = await cliJson(["diff", file, a, b]);
      expect(r.exitCode).toBe(1);
      expect(r.json.forkPoint).toMatchObject(k > 0 ? { id: pa[k - 1], line: lineOf.get(pa[k - 1]) } : {});
      expect(r.json.a.map((s: { id: string }) => s.id)).toEqual(pa.slice(k));
      expect(r.json.b.map((s: { id: string }) => s.id)).toEqual(pb.slice(k));
      expect(r.json.a.map((s: { line: number }) => s.line)).toEqual(pa.slice(k).map((id) => lineOf.get(id)));
      const ca = (await cli(["context", file, "--leaf", a])).stdout;
      const cb = (await cli(["context", file, "--leaf", b])).stdout;
      if (ca === cb) expect(r.json.context).toBe("");
      else expect(applyPatch(ca, r.json.context)).toBe(cb);
      const human = await cli(["diff", file, a, b]);
      expect(human.exitCode).toBe(1);
      expect(human.stdout).toContain(k > 0 ? `fork point  ${pa[k - 1]} (line ${lineOf.get(pa[k - 1])})` : "fork point  none");
      expect(human.stdout).toContain(`--- ${a} (line ${lineOf.get(a)}): ${pa.length - k} ${pa.length - k === 1 ? "entry" : "entries"} after it`);
    }
  });

  it("a leaf against itself is the same: exit 0, nothing on either side; --stat gives the counts; a missing leaf is exit 2", async () => {
    const file = fixture("branched.jsonl");
    const same = await cliJson(["diff", file, "b000000b", "b000000b"]);
    expect([same.exitCode, same.json.a, same.json.b, same.json.context]).toEqual([0, [], [], ""]);
    const stat = await cliJson(["diff", file, "b0000007", "b000000b", "--stat"]);
    expect(stat.json).toMatchObject({ forkPoint: { id: "b0000002" }, a: 5, b: 4, contextDiffers: true });
    expect((await cli(["diff", file, "b0000007", "b000000b", "--stat"])).stdout).toMatch(/the contexts differ: \d+ lines? removed, \d+ added\n$/);
    // both sides' rows in one set of columns: every preview starts where the others do, by display width
    const human = (await cli(["diff", file, "b0000007", "b000000b"])).stdout;
    const rows = human.split("\n").filter((l) => /^ *\d+  b0000/.test(l));
    expect(rows).toHaveLength(9);
    expect(new Set(rows.map((l) => l.replace(/^( *\d+  b[0-9a-f]{7}  \S+ +)\S.*$/, "$1").length)).size).toBe(1);
    const one = await cli(["diff", file]);
    expect([one.exitCode, one.stdout, one.stderr]).toEqual([2, "", "pi-session: `diff` needs two sessions (paths or session ids), or a FILE and two of its entries; e.g. pi-session diff session.jsonl.bak session.jsonl, or pi-session diff session.jsonl LEAF_A LEAF_B\n"]);
    const missing = await cli(["diff", file, "b0000007", "zzzz"]);
    expect([missing.exitCode, missing.stdout]).toEqual([2, ""]);
    expect(missing.stderr).toMatch(/no entry `zzzz`; run `pi-session path/);
  });
});

describe("diff A B", () => {
  const lines = (file: string) => readFileSync(file, "utf8").trimEnd().split("\n");

  it("a file against itself: exit 0, nothing added, removed or changed", async () => {
    const file = fixture("compacted.jsonl");
    const r = await cliJson(["diff", file, file]);
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({ added: [], removed: [], changed: [], header: [], context: "" });
    expect((await cli(["diff", file, file])).stdout).toContain("0 entries added, 0 removed, 0 changed\n");
  });

  it("entries appended, one changed in place, one leaf removed, one line with its keys reordered: exactly those, each at its lines", async () => {
    const base = fixture("branched.jsonl");
    const a = scratch("a.jsonl");
    const b = scratch("b.jsonl");
    copyFileSync(base, a);
    const entries = lines(base).map((l) => JSON.parse(l) as Entry);
    const out: string[] = [];
    for (const e of entries) {
      if (e.id === "b0000007") continue; // a leaf removed
      if (e.id === "b0000009") out.push(JSON.stringify({ ...e, message: { ...e.message, content: "Shorter, please!" } }));
      else if (e.id === "b0000003") out.push(JSON.stringify(Object.fromEntries(Object.entries(e).reverse()), null, 1).replace(/\n/g, ""));
      else out.push(JSON.stringify(e));
    }
    const appended = [
      { type: "message", id: "c0000001", parentId: "b000000b", timestamp: "2026-03-01T10:05:00.000Z", message: { role: "user", content: "one more", timestamp: 1 } },
      { type: "message", id: "c0000002", parentId: "c0000001", timestamp: "2026-03-01T10:06:00.000Z", message: { role: "user", content: "and another", timestamp: 2 } },
    ];
    writeFileSync(b, `${[...out, ...appended.map((e) => JSON.stringify(e))].join("\n")}\n`);
    const lineIn = (file: string, id: string) => lines(file).findIndex((l) => (JSON.parse(l) as Entry).id === id) + 1;
    const r = await cliJson(["diff", a, b]);
    expect(r.exitCode).toBe(1);
    expect(r.json.added.map((e: { id: string; line: number }) => [e.id, e.line])).toEqual([["c0000001", lineIn(b, "c0000001")], ["c0000002", lineIn(b, "c0000002")]]);
    expect(r.json.removed.map((e: { id: string; line: number }) => [e.id, e.line])).toEqual([["b0000007", lineIn(a, "b0000007")]]);
    expect(r.json.changed).toEqual([{ id: "b0000009", lineA: lineIn(a, "b0000009"), lineB: lineIn(b, "b0000009"), fields: ["message.content"] }]);
    expect(r.json.header).toEqual([]);
    // the current leaves' contexts: the diff turns A's into B's
    const ca = (await cli(["context", a])).stdout;
    const cb = (await cli(["context", b])).stdout;
    expect(applyPatch(ca, r.json.context)).toBe(cb);
    const human = (await cli(["diff", a, b])).stdout;
    expect(human).toContain("2 entries added, 1 removed, 1 changed\n");
    expect(human).toContain(`~ b0000009  line ${lineIn(a, "b0000009")} → ${lineIn(b, "b0000009")}  message.content\n`);
    expect(human).toMatch(/\n- b0000007 {2}line \d+ {2,}label {2}/);
    // each row's preview starts in one column (the rows' line numbers and kinds differ in width)
    const rows = human.split("\n").filter((l) => /^[+-] [0-9a-f]{8} /.test(l));
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((l) => l.search(/\(cleared|one more|and another/))).size).toBe(1);
    const stat = await cliJson(["diff", a, b, "--stat"]);
    expect(stat.json).toMatchObject({ added: 2, removed: 1, changed: 1, header: false, contextDiffers: true });
  });

  it("a damaged file is compared as check reads it, its problems said once; a missing one is exit 2", async () => {
    const r = await cli(["diff", fixture("fused.jsonl"), fixture("fused.jsonl")]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(2);
    expect(r.stderr).toMatch(/fused\.jsonl:\d+: skipped/);
    const missing = await cli(["diff", fixture("linear.jsonl"), join(ROOT, "fixtures/nope.jsonl")]);
    expect([missing.exitCode, missing.stdout]).toEqual([2, ""]);
    expect(missing.stderr).toContain("nope.jsonl: no such file or directory");
  });

  it("a transcript in OpenClaw's database against the JSONL its importer kept: the same entries, the lines it rewrote named", async () => {
    const store = join(ROOT, "../shared/openclaw-stores-sqlite/archeoneocode/agents/main");
    const copy = join(store, "session-sqlite-import-archive/agent_main_main.fad751fa-87be-49aa-a9a0-034a5bbc985e.jsonl.imported-1796192009931");
    const r = await cliJson(["diff", `${store}/agent/openclaw-agent.sqlite#fad751fa-87be-49aa-a9a0-034a5bbc985e`, copy]);
    expect(r.json.added).toEqual([]);
    expect(r.json.removed).toEqual([]);
    expect(r.exitCode).toBe(r.json.changed.length > 0 || r.json.context !== "" ? 1 : 0);
  });
});
