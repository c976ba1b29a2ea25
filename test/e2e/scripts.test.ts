/**
 * What scripts and CI rely on (README, "Exit codes"): `--` ends the options, `grep -e` takes a
 * pattern that starts with `-`, a closed pipe ends a command with exit 0, and a gate given a
 * directory with no session file fails instead of passing on nothing.
 */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { BIN, fixture } from "../helpers/paths.js";

const work = mkdtempSync(join(tmpdir(), "pi-session-scripts-"));

describe("-- ends the options", () => {
  it("a file whose name starts with - is read after --", async () => {
    copyFileSync(fixture("linear.jsonl"), join(work, "-odd.jsonl"));
    const r = await cli(["check", "--", "-odd.jsonl"], { cwd: work });
    expect(r).toMatchObject({ exitCode: 0, stderr: "" });
    expect(r.stdout).toContain("-odd.jsonl: ok");
    // without --, it is an option yargs does not know: a usage error
    expect((await cli(["check", "-odd.jsonl"], { cwd: work })).exitCode).toBe(2);
  });

  it("grep's pattern after --, or after -e, may start with - (and a pattern in Chinese is counted)", async () => {
    const file = join(work, "dash.jsonl");
    const lines = [
      { type: "session", version: 3, id: "dash", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
      { type: "message", id: "d0000001", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "text", text: "run it with --force, 张三 said" }], timestamp: 1 } },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    expect(await cli(["grep", "-F", "-c", "--", "--force", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    expect(await cli(["grep", "-F", "-c", "--", "张三", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    expect(await cli(["grep", "-c", "-e", "--for.e", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    expect(await cli(["grep", "-c", "--regexp=--force", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    const json = await cliJson(["grep", "-e", "-nowhere", file]);
    expect(json.exitCode).toBe(1);
    const none = await cli(["grep"]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/^pi-session: `grep` needs PATTERN, .* -e PATTERN for one that starts with -\n$/);
  });
});

describe("a closed pipe", () => {
  let big: string;
  beforeAll(() => {
    big = join(work, "big.jsonl");
    const lines = [JSON.stringify({ type: "session", version: 3, id: "big", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" })];
    for (let i = 0; i < 20_000; i++) {
      lines.push(JSON.stringify({ type: "message", id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, timestamp: "2026-01-01T00:00:00.000Z", message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: `message ${i} ${"about the salt ".repeat(8)}` }] } }));
    }
    writeFileSync(big, lines.join("\n") + "\n");
  });

  for (const args of [["tree"], ["path"], ["context"], ["export"], ["grep", "-F", "salt"], ["path", "--jsonl"], ["tree", "--json"]]) {
    it(`${args.join(" ")} | head -1 exits 0 under pipefail, quietly`, async () => {
      const command = [BIN, ...args.slice(0, args[0] === "grep" ? 3 : 1), big, ...args.slice(args[0] === "grep" ? 3 : 1)].map((a) => `'${a}'`).join(" ");
      const r = await execa("bash", ["-o", "pipefail", "-c", `node ${command} | head -1`], { reject: false, env: { NO_COLOR: "1" } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.split("\n")).toHaveLength(1);
      expect(r.stderr).toBe("");
    });
  }
});

describe("a directory with no session file", () => {
  it("check and the writers' --check say so on stderr and exit 2; a writer without --check says so", async () => {
    const empty = join(work, "empty");
    mkdirSync(join(empty, "sessions"), { recursive: true });
    const checked = await cli(["check", empty]);
    expect(checked.exitCode).toBe(2);
    expect(checked.stderr).toBe(`pi-session: ${empty}: no session files in it or in its project folders; pi keeps them in ${join(empty, "sessions")}: give that\n`);
    expect((await cliJson(["check", empty])).json.emptyDirectories).toEqual([empty]);
    for (const writer of ["migrate", "repair", "slim"]) {
      const gate = await cli([writer, empty, "--check"]);
      expect(gate.exitCode, writer).toBe(2);
      expect(gate.stderr, writer).toContain(`${empty}: no session files in it`);
    }
    const repaired = await cli(["repair", empty]);
    expect(repaired.exitCode).toBe(0);
    expect(repaired.stderr).toContain(`${empty}: no session files in it`);
    // a directory that holds sessions passes as before
    const full = join(work, "full");
    mkdirSync(full);
    copyFileSync(fixture("linear.jsonl"), join(full, "linear.jsonl"));
    expect((await cli(["check", full])).exitCode).toBe(0);
    expect((await cli(["migrate", full, "--check"])).exitCode).toBe(0);
  });
});
