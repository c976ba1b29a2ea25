/**
 * README's "Common tasks" run as written: each command of its `sh` blocks, from a copy of the
 * clone's fixtures, with `pi-session` on PATH as README says to put it there (a link to the bin).
 * Each finishes as a task does (exit 0, or 1 where it reports problems or work left), never with a
 * usage error or an unreadable input; and the table of commands names every command there is.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { COMMAND_NAMES } from "../../src/cli/commands.js";
import { BIN, FIXTURES, ROOT } from "../helpers/paths.js";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const section = README.slice(README.indexOf("## Common tasks"), README.indexOf("\n## ", README.indexOf("## Common tasks") + 1));
const commands = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#")));

describe("README's common tasks", () => {
  it("are there: a block of commands for each task", () => {
    expect(commands.length).toBeGreaterThanOrEqual(8);
    for (const c of commands) expect(c).toMatch(/^pi-session /);
  });

  it("run as written, from the clone's folder", async () => {
    const work = mkdtempSync(join(tmpdir(), "pi-session-readme-"));
    cpSync(FIXTURES, join(work, "fixtures"), { recursive: true });
    const bin = join(work, ".bin");
    mkdirSync(bin);
    symlinkSync(BIN, join(bin, "pi-session"));
    for (const command of commands) {
      const r = await execa("sh", ["-c", command], {
        cwd: work,
        reject: false,
        env: { PATH: `${bin}:${process.env.PATH}`, HOME: work, NO_COLOR: "1", XDG_CACHE_HOME: join(work, ".cache"), PI_CODING_AGENT_SESSION_DIR: undefined, PI_CODING_AGENT_DIR: undefined, OPENCLAW_STATE_DIR: undefined },
        extendEnv: true,
      });
      expect(r.exitCode, `${command}\n${r.stderr}`).toBeLessThanOrEqual(1);
      expect(r.stderr, command).not.toMatch(/internal error|no such file|see pi-session .*--help/);
      // (each says something, on the terminal or in the file it writes)
      const into = / > (\S+)$/.exec(command)?.[1];
      expect(into ? statSync(join(work, into)).size : `${r.stdout}`.length, command).toBeGreaterThan(0);
    }
  });

  it("the table of commands names every command", () => {
    const table = section.slice(section.indexOf("### Commands at a glance"));
    for (const name of COMMAND_NAMES) expect(table, name).toMatch(new RegExp(`\\| \`${name}[ \`]`));
  });
});
