/**
 * A transcript in OpenClaw's database and the importer's copy of it, read once where they are the
 * same bytes (`runUnit`): every result is what reading each file on its own gives (its path, its
 * stamp's time, its own bytes where they differ), small and past what is held in memory
 * (test/e2e/twins.test.ts: through the CLI, in worker threads).
 */
import { statSync } from "node:fs";
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionStamp, storeInputs, withTwinKeys } from "../../src/stores/index.js";
import { overFiles, unitsOf } from "../../src/support/workers/pool.js";
import { runTask, type FileJob } from "../../src/support/workers/tasks.js";
import { id, transcripts, twinsStore } from "../helpers/twins-store.js";

const jobsOf = (root: string): FileJob[] => withTwinKeys(storeInputs([root], "/nonexistent", {}, "all").files.map((path) => ({ path, stamp: sessionStamp(path) })));

describe("a database transcript and the importer's copy of it", () => {
  const root = twinsStore();
  const jobs = jobsOf(root);

  it("are read as one unit: each transcript with its copy, nothing else", () => {
    const units = unitsOf(jobs);
    expect(jobs.length).toBe(10);
    expect(units.map((u) => [basename(u.path), u.twins?.map((t) => basename(t.path))])).toEqual(
      transcripts.map((t) => [`openclaw-agent.sqlite#${id(t.n)}`, [`agent_main_main.${id(t.n)}.jsonl.imported-1796192004837`]]),
    );
    // (sizes differ: no key in common; no database transcript among them, as in a store of the JSONL era: no keys)
    const [a, b] = withTwinKeys([
      { path: `${root}/agents/main/agent/openclaw-agent.sqlite#${id(1)}`, stamp: { size: 5, mtimeMs: 0, ino: 0 } },
      { path: `${root}/agents/main/session-sqlite-import-archive/agent_main_main.${id(1)}.jsonl.imported-1`, stamp: { size: 6, mtimeMs: 0, ino: 0 } },
    ]);
    expect(a!.twin).toBeDefined();
    expect(a!.twin).not.toBe(b!.twin);
    expect(withTwinKeys(jobs.filter((j) => !j.path.includes("#")).map(({ path, stamp }) => ({ path, stamp }))).every((j) => j.twin === undefined)).toBe(true);
  });

  for (const task of ["describe", "usage"] as const) {
    it(`${task}: every file's result is what reading it on its own gives`, async () => {
      const alone = [];
      for (const job of jobs) alone.push(await runTask(task, { path: job.path, stamp: job.stamp }));
      const together = await overFiles(task, jobs, () => {}, 1);
      expect(together).toEqual(alone);
      // (what makes the comparison mean something: copies that differ, and rows that are their path's)
      expect(together.map((r) => r.path)).toEqual(jobs.map((j) => j.path));
    });
  }

  it("a copy of other bytes is its own; a copy with no time in it is as old as its file", async () => {
    const rows = await overFiles("describe", jobs, () => {}, 1);
    const copy3 = rows.find((r) => r.path.includes(`agent_main_main.${id(3)}`))!;
    const db3 = rows.find((r) => r.path.endsWith(`#${id(3)}`))!;
    expect(copy3.modified).toBe(new Date(statSync(copy3.path).mtimeMs).toISOString());
    expect(db3.modified).toBe("2026-01-01T00:00:00.000Z");
    const read = await overFiles("usage", jobs, () => {}, 1);
    const of = (n: number) => read.filter((r) => r.path.includes(id(n))).map((r) => [...r.usage.entries]);
    expect(of(1)[0]).toEqual(of(1)[1]);
    expect(of(2)[0]).not.toEqual(of(2)[1]);
    expect(of(5)[0]).not.toEqual(of(5)[1]);
  });
});

describe("which files may be a database transcript's twin, by name", () => {
  const agent = "/store/agents/main";
  const key = (path: string, size = 10) => withTwinKeys([{ path: `${agent}/agent/openclaw-agent.sqlite#s1`, stamp: { size: 10 } }, { path, stamp: { size } }])[1]!.twin;
  const twin = `${agent}\ns1\n10`;

  it("the importer's copy of a session, whatever its key holds (dots, underscores, colons written as '_'), is keyed by the session's id", () => {
    for (const name of ["agent_main_main.s1.jsonl.imported-1", "agent_main_discord_channel_1.2.3.s1.jsonl.imported-1796192004837", "agent_x.s1.jsonl.imported-0", "agent_a_b_c.d.e.s1.jsonl.imported-42"]) {
      expect(key(`${agent}/session-sqlite-import-archive/${name}`), name).toBe(twin);
    }
    // a live transcript beside the database, by its own name
    expect(key(`${agent}/sessions/s1.jsonl`)).toBe(twin);
    // another size: another key (a size is part of it)
    expect(key(`${agent}/session-sqlite-import-archive/agent_main_main.s1.jsonl.imported-1`, 11)).not.toBe(twin);
  });

  it("no key for names that are not a copy of a session: no key, no id, no time, a time that is not digits, another prefix, another folder", () => {
    for (const name of [
      "agent_.s1.jsonl.imported-1",
      "agent_main.jsonl.imported-1",
      "agent_main_main..jsonl.imported-1",
      "agent_main_main.s1.jsonl.imported-",
      "agent_main_main.s1.jsonl.imported-12a",
      "agent_main_main.s1.jsonl",
      "archive-tier.s1.jsonl.imported-1",
      "Agent_main_main.s1.jsonl.imported-1",
    ]) {
      expect(key(`${agent}/session-sqlite-import-archive/${name}`), name).toBeUndefined();
    }
    expect(key(`${agent}/elsewhere/agent_main_main.s1.jsonl.imported-1`)).toBeUndefined();
    expect(key(`/store/not-agents/main/session-sqlite-import-archive/agent_main_main.s1.jsonl.imported-1`)).toBeUndefined();
  });
});
