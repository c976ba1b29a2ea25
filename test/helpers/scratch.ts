import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * vitest's global setup: every test's scratch files (the sessions they write, the CLI's caches,
 * the crash test's gigabyte of copies, the packed tarball) go under one directory of this run,
 * removed when the run ends. Workers and the CLI processes the tests spawn inherit `TMPDIR`, and
 * `os.tmpdir()` reads it on every call.
 */
export default function setup(): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-tests-"));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return async () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    // (removed without blocking: a whole run leaves 2.5 GB in 50,000 files, 7-10 s to remove, and
    // vitest's timer for stopping the last worker, 10 s, ran out behind a synchronous removal,
    // "Timeout terminating forks worker", on a loaded machine)
    if (!process.env.PI_SESSION_KEEP_TMP) await rm(dir, { recursive: true, force: true });
  };
}
