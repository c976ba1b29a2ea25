/**
 * The importer's copies read once, through the CLI, in this thread and in worker threads: `usage`
 * counts each entry once and a differing copy's own turn too; `ls` gives each copy its own row
 * (test/support/twins.test.ts holds each result to what reading the file alone gives).
 */
import { describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli.js";
import { id, twinsStore } from "../helpers/twins-store.js";

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
});
