/**
 * The progress bar on a terminal's stderr: `main` run in-process with a stderr that says it is a
 * TTY, on a clock the test moves. A quick run leaves nothing on stderr (no frame to flicker, none
 * left in a captured log); a long one draws frames and clears its line; stdout is the same either
 * way, and a stderr that is not a terminal never gets a frame.
 */
import { copyFileSync, cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { FIXTURES } from "../helpers/paths.js";

async function run(args: string[], opts: { tty: boolean; step: number }): Promise<{ code: number; out: string; err: string }> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdout = new PassThrough();
  stdout.on("data", (c: Buffer) => out.push(c));
  const stderr = Object.assign(new PassThrough(), opts.tty ? { isTTY: true, columns: 80 } : {});
  stderr.on("data", (c: Buffer) => err.push(c));
  let t = 0;
  const cache = mkdtempSync(join(tmpdir(), "pi-session-progress-cache-"));
  const code = await main(args, { stdout, stderr, env: { NO_COLOR: "1", XDG_CACHE_HOME: cache, PI_SESSION_THREADS: "1" }, now: () => (t += opts.step) });
  return { code, out: Buffer.concat(out).toString("utf8"), err: Buffer.concat(err).toString("utf8") };
}

const copy = () => {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-progress-"));
  cpSync(FIXTURES, dir, { recursive: true, filter: (from) => !from.includes("openclaw-cold") });
  return dir;
};

describe("the progress bar", () => {
  for (const args of [(d: string) => ["check", join(d, "fused.jsonl"), join(d, "branched.jsonl")], (d: string) => ["ls", d], (d: string) => ["usage", d], (d: string) => ["grep", "-F", "zzz-nowhere", d]]) {
    it(`${args("DIR").join(" ")}: nothing on stderr when the run is quick, frames and a cleared line when it is long`, async () => {
      const dir = copy();
      const quick = await run(args(dir), { tty: true, step: 0 });
      expect(quick.err).not.toContain("\r");
      const long = await run(args(dir), { tty: true, step: 1000 });
      expect(long.err).toMatch(/^\r\[#* *\] \d+\/\d+ /);
      expect(long.err).toContain(`\r${" ".repeat(79)}\r`);
      // (each frame is cleared before anything else is written: what is left is the quick run's stderr, warnings and all)
      expect(long.err.replace(/\r\[[#\s]*\] \d+\/\d+ [^\r]*/g, "").replace(/\r {79}\r/g, "")).toBe(quick.err);
      expect(long.out).toBe(quick.out);
      expect(long.code).toBe(quick.code);
      const piped = await run(args(dir), { tty: false, step: 1000 });
      expect(piped.err).not.toContain("\r");
    });
  }

  it("a warning in the middle of a run (a writer passing over a stale lock) clears the bar's line first", async () => {
    const setUp = () => {
      const dir = mkdtempSync(join(tmpdir(), "pi-session-progress-locked-"));
      for (const name of ["branched.jsonl", "fused.jsonl", "linear.jsonl"]) copyFileSync(join(FIXTURES, name), join(dir, name));
      // (a pid no process has: a lock its writer left behind)
      writeFileSync(join(dir, "fused.jsonl.lock"), JSON.stringify({ pid: 2 ** 30 + 7 }));
      return dir;
    };
    const quick = await run(["repair", setUp(), "--backup-dir", mkdtempSync(join(tmpdir(), "pi-session-progress-bak-"))], { tty: true, step: 0 });
    expect(quick.err).toMatch(/fused\.jsonl\.lock names process \d+, which is not running here/);
    const long = await run(["repair", setUp(), "--backup-dir", mkdtempSync(join(tmpdir(), "pi-session-progress-bak-"))], { tty: true, step: 1000 });
    // (a frame, cleared, the warning on a line of its own, then frames again)
    expect(long.err).toMatch(/^\r\[#* *\] 1\/3 fused\.jsonl *\r {79}\rpi-session: \S+fused\.jsonl\.lock names process/);
    const named = (err: string) => err.replaceAll(/pi-session-progress-locked-\w+/g, "DIR");
    expect(named(long.err.replace(/\r\[[#\s]*\] \d+\/\d+ [^\r]*/g, "").replace(/\r {79}\r/g, ""))).toBe(named(quick.err));
  });

  it("an error the run ends with in its middle (a backup folder that cannot be made) clears the bar's line first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-progress-backup-"));
    for (const name of ["branched.jsonl", "fused.jsonl", "linear.jsonl"]) copyFileSync(join(FIXTURES, name), join(dir, name));
    writeFileSync(join(dir, "not-a-folder"), "");
    const long = await run(["repair", dir, "--backup-dir", join(dir, "not-a-folder", "backups")], { tty: true, step: 1000 });
    expect(long.code).toBe(2);
    expect(long.err).toMatch(/^\r\[#* *\] 1\/3 fused\.jsonl *\r {79}\rpi-session: cannot make the backup folder [^\r\n]+; give another place\n$/);
  });
});
