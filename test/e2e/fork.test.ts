/** fork, spawned for real, checked against pi's own createBranchedSession and forkFrom. */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { generateSession } from "../helpers/generate.js";
import { CORPUS, fixture } from "../helpers/paths.js";
import { pi } from "../helpers/pi.js";

type Rec = Record<string, any>;
const lines = (path: string): Rec[] => readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

/** Our path fork against pi's createBranchedSession: same entries, labels re-created alike. */
async function compareBranch(source: string, leafId: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "pi-session-fork-"));
  const copy = join(work, basename(source));
  copyFileSync(source, copy);
  const piDir = join(work, "pi");
  mkdirSync(piDir);
  const sm = pi.SessionManager.open(copy, piDir);
  const piFile = sm.createBranchedSession(leafId) as string;
  const theirs = lines(piFile);
  const r = await cliJson(["fork", copy, "--leaf", leafId, "--out", join(work, "ours.jsonl")]);
  expect(r.exitCode, r.stderr).toBe(0);
  const ours = lines(join(work, "ours.jsonl"));
  expect(ours[0]).toMatchObject({ type: "session", version: 3, cwd: theirs[0]!.cwd, parentSession: resolve(copy) });
  expect(ours.length).toBe(theirs.length);
  for (let i = 1; i < ours.length; i++) {
    const [o, t] = [ours[i]!, theirs[i]!];
    if (t.type === "label") {
      const { id: _a, parentId: _b, ...restO } = o;
      const { id: _c, parentId: _d, ...restT } = t;
      expect(restO).toEqual(restT);
      expect(o.parentId).toBe(ours[i - 1]!.id);
    } else {
      expect(o).toEqual(t);
    }
  }
  // and it loads in pi with every entry
  expect(pi.SessionManager.open(join(work, "ours.jsonl")).getEntries().length).toBe(ours.length - 1);
}

describe("fork", () => {
  it("a path fork equals pi's createBranchedSession (fixtures, corpus, generated sessions)", async () => {
    await compareBranch(fixture("branched.jsonl"), "b0000004");
    await compareBranch(fixture("branched.jsonl"), "b000000b");
    await compareBranch(fixture("compacted.jsonl"), "c000000f");
    await compareBranch(`${CORPUS}/verve__22a2a42e.v3.branches.image.jsonl`, "21087341");
    const dir = mkdtempSync(join(tmpdir(), "pi-session-forkgen-"));
    for (const seed of [301, 302, 303]) {
      const file = generateSession({ seed, dir: join(dir, String(seed)), steps: 80 });
      const ids = lines(file).slice(1).map((e) => e.id as string);
      for (const id of [ids[ids.length - 1]!, ids[Math.floor(ids.length / 2)]!]) await compareBranch(file, id);
    }
  });

  it("a whole-tree fork copies every entry under a new header; pi loads it", async () => {
    const work = mkdtempSync(join(tmpdir(), "pi-session-fork-"));
    const r = await cliJson(["fork", fixture("branched.jsonl"), "--session-dir", work, "--cwd", "/work/other"]);
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({ cwd: "/work/other", parentSession: fixture("branched.jsonl"), leaf: null, entries: 11 });
    expect(r.json.file).toMatch(new RegExp(`^${work}/--work-other--/\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z_${r.json.id}\\.jsonl$`));
    const out = lines(r.json.file);
    expect(out.slice(1)).toEqual(lines(fixture("branched.jsonl")).slice(1));
    expect(pi.SessionManager.open(r.json.file).getEntries()).toHaveLength(11);
    // human mode prints just the new path
    const human = await cli(["fork", fixture("branched.jsonl"), "--session-dir", work]);
    expect(human.stdout).toMatch(/^\/.*\.jsonl\n$/);
    expect(readdirSync(join(work, "--home-ada-project--"))).toHaveLength(1);
  });

  it("a v1 source becomes a real v3 tree (pi would copy it unmigrated)", async () => {
    const work = mkdtempSync(join(tmpdir(), "pi-session-fork-"));
    const out = join(work, "f.jsonl");
    expect((await cli(["fork", `${CORPUS}/pi-mono__before-compaction.v1.jsonl`, "--out", out])).exitCode).toBe(0);
    expect((await cli(["check", out])).exitCode).toBe(0);
    const entries = lines(out).slice(1);
    expect(entries.every((e) => typeof e.id === "string" && "parentId" in e)).toBe(true);
    expect(pi.SessionManager.open(out).getEntries()).toHaveLength(entries.length);
  });

  it("a damaged source is refused as migrate and slim refuse it (exit 1, one line on stderr naming the line and repair), nothing written; repaired, its fork keeps every entry repair kept", async () => {
    const work = mkdtempSync(join(tmpdir(), "pi-session-fork-"));
    for (const [name, line] of [["fused-whole.jsonl", 3], ["fused.jsonl", 3], ["torn-last-line.jsonl", 5]] as const) {
      const source = join(work, name);
      copyFileSync(fixture(name), source);
      const out = join(work, `fork-${name}`);
      for (const json of [false, true]) {
        const r = await cli(["fork", source, "--out", out, ...(json ? ["--json"] : [])]);
        expect(r, name).toMatchObject({ exitCode: 1, stdout: "" });
        expect(r.stderr, name).toMatch(new RegExp(`^pi-session: ${source}:${line}: refused: damaged \\(.+\\); nothing was written; run \`pi-session repair ${source}\` first\n$`));
        expect(existsSync(out), name).toBe(false);
      }
      // (and to stdout: nothing of it)
      expect(await cli(["fork", source, "-o", "-"]), name).toMatchObject({ exitCode: 1, stdout: "" });
    }
    // (repaired, the fork holds every entry the repair kept: the fused line's two records with the rest)
    const source = join(work, "fused-whole.jsonl");
    expect((await cli(["repair", source])).exitCode).toBe(0);
    const out = join(work, "fork.jsonl");
    expect((await cli(["fork", source, "--out", out])).exitCode).toBe(0);
    expect(lines(out).slice(1).map((e) => e.id)).toEqual(lines(source).slice(1).map((e) => e.id));
  });

  it("never overwrites; a missing leaf is exit 2", async () => {
    const work = mkdtempSync(join(tmpdir(), "pi-session-fork-"));
    const out = join(work, "f.jsonl");
    expect((await cli(["fork", fixture("linear.jsonl"), "--out", out])).exitCode).toBe(0);
    const again = await cli(["fork", fixture("linear.jsonl"), "--out", out]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toBe(`pi-session: ${out} already exists; fork never overwrites (pass --force to replace it)\n`);
    expect((await cli(["fork", fixture("linear.jsonl"), "--out", out, "--force"])).exitCode).toBe(0);
    // refused before the session is read: its own warning (a line it skips) never comes
    const before = await cli(["fork", fixture("fused.jsonl"), "--out", out]);
    expect(before).toMatchObject({ exitCode: 2, stdout: "", stderr: `pi-session: ${out} already exists; fork never overwrites (pass --force to replace it)\n` });
    const missing = await cli(["fork", fixture("linear.jsonl"), "--leaf", "nope", "--out", join(work, "g.jsonl")]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/no entry `nope`/);
  });
});
