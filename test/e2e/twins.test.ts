/**
 * The importer's copies read once, through the CLI, in this thread and in worker threads: `usage`
 * counts each entry once and a differing copy's own turn too; `ls` gives each copy its own row
 * (test/support/twins.test.ts holds each result to what reading the file alone gives).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { id, twinsStore } from "../helpers/twins-store.js";
import { jsonl, user } from "../helpers/builders.js";

describe("a database transcript and the importer's copy of it, through the CLI", () => {
  const root = twinsStore();

  it("in this thread and in worker threads: each entry once, a differing copy's turn counted too; each copy its own row", async () => {
    for (const threads of ["1", "2"]) {
      const { json, exitCode } = await cliJson(["usage", root, "--no-cache"], { env: { PI_SESSION_THREADS: threads } });
      expect(exitCode).toBe(0);
      // 1, 3 and 4: once; 2 and 5: the database's turn and the copy's
      expect(json.total.requests, threads).toBe(1 + 2 + 1 + 2);
      expect(json.total.input, threads).toBe(100 + 2 * 200 + 300 + 2 * 500);
      const ls = await cliJson(["ls", root, "--no-cache"], { env: { PI_SESSION_THREADS: threads } });
      const rows = ls.json.sessions as Array<{ path: string; modified: string; messages: number }>;
      expect(rows).toHaveLength(10);
      expect(rows.find((r) => r.path.includes(`agent_main_main.${id(3)}`))!.modified, threads).toBe("2025-06-01T00:00:00.000Z");
      expect(rows.find((r) => r.path.endsWith(`#${id(3)}`))!.modified, threads).toBe("2026-01-01T00:00:00.000Z");
      expect(rows.filter((r) => r.messages === 2)).toHaveLength(8);
    }
  });

  it("grep, in this thread and in worker threads: each match once, a copy's repeats of its transcript's passed over, what a copy holds that the database lacks found", async () => {
    const store = twinsStore();
    // (1's copy with an entry more: no longer its transcript's bytes, and what it adds is in no database)
    const copy1 = join(store, "agents/main/session-sqlite-import-archive", `agent_main_main.${id(1)}.jsonl.imported-1796192004837`);
    writeFileSync(copy1, Buffer.concat([readFileSync(copy1), jsonl(user("u9", "a1", "extra words"))]));
    for (const threads of ["1", "2"]) {
      const env = { PI_SESSION_THREADS: threads };
      const { json, exitCode } = await cliJson(["grep", "hello|xxx|extra", store], { env });
      expect(exitCode).toBe(0);
      const where = (json.matches as Array<{ file: string; id: string }>).map((m) => `${m.file.includes("#") ? "db" : "copy"} ${m.file.includes(id(1)) ? 1 : m.file.includes(id(2)) ? 2 : m.file.includes(id(4)) ? 4 : m.file.includes(id(5)) ? 5 : 3} ${m.id}`).sort();
      // every copy finds its user's entry too (2 and 5 of other bytes, 1 of more): reported once, by the database's transcript
      expect(where, threads).toEqual(["copy 1 u9", "db 1 u1", "db 2 u2", "db 4 u4", "db 5 u5"]);
      expect(json.total, threads).toEqual({ sessions: 5, matches: 5 });
      const counted = await cli(["grep", "-c", "hello|xxx|extra", store], { env });
      expect(counted.stdout.trimEnd().split("\n").sort(), threads).toEqual([`${copy1}:1`, ...[1, 2, 4, 5].map((n) => `${store}/agents/main/agent/openclaw-agent.sqlite#${id(n)}:1`)].sort());
    }
    // (what each file holds alone, the copies' repeats included)
    for (const n of [1, 2, 4, 5]) {
      const alone = await cliJson(["grep", "hello|xxx", join(store, "agents/main/session-sqlite-import-archive", `agent_main_main.${id(n)}.jsonl.imported-1796192004837`)]);
      expect(alone.json.total, String(n)).toEqual({ sessions: 1, matches: 1 });
    }
  });

  it("usage's cache holds the numbers of a copy read once with its transcript once, and reads them back as one", async () => {
    const cache = mkdtempSync(join(tmpdir(), "pi-session-twins-cache-"));
    const env = { XDG_CACHE_HOME: cache, PI_SESSION_THREADS: "1" };
    const cold = await cliJson(["usage", root, "--by", "session"], { env });
    expect(cold.exitCode).toBe(0);
    expect(cold.json.total.requests).toBe(1 + 2 + 1 + 2);
    const path = join(cache, "pi-session", "usage-index.bin");
    const read = () => {
      const bytes = readFileSync(path);
      const nl = bytes.indexOf(10);
      return { bytes, nl, meta: JSON.parse(bytes.toString("utf8", 0, nl)) };
    };
    const { bytes, nl, meta } = read();
    const names: string[] = meta.name;
    const at = (name: string) => names.findIndex((x) => x.includes(name));
    // 1, 3 and 4 are their copies' bytes: each copy's numbers are its transcript's (whichever was written first holds them); 2 and 5 differ
    const pairs = Object.entries(meta.same as Record<string, number>).map(([i, j]) => [names[Number(i)], names[j]].map((x) => x!.replace(/^.*#|^agent_main_main\.|\.jsonl.*$/g, "")).sort().join(" "));
    expect(pairs.sort()).toEqual([1, 3, 4].map((n) => `${id(n)} ${id(n)}`));
    for (const n of [2, 5]) expect(meta.same[at(`#${id(n)}`)]).toBeUndefined();
    const warm = await cliJson(["usage", root, "--by", "session"], { env });
    expect(warm.json).toEqual(cold.json);
    // one that says a file's numbers are a later file's is rebuilt, never trusted
    const [i, j] = Object.entries(meta.same as Record<string, number>)[0]!;
    meta.same = { [j]: Number(i) };
    const head = Buffer.from(JSON.stringify(meta));
    const padded = Buffer.alloc(Math.ceil((head.length + 1) / 8) * 8, 0x20);
    head.copy(padded);
    padded[padded.length - 1] = 10;
    writeFileSync(path, Buffer.concat([padded, bytes.subarray(nl + 1)]));
    expect((await cliJson(["usage", root, "--by", "session"], { env })).json).toEqual(cold.json);
    expect(Object.keys(read().meta.same)).toHaveLength(3);
  });
});
