import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * vitest's global setup: every test's scratch files (the sessions they write, the CLI's caches,
 * the crash test's gigabyte of copies, the packed tarball) go under one directory of this run,
 * removed when the run ends. Workers and the CLI processes the tests spawn inherit `TMPDIR`, and
 * `os.tmpdir()` reads it on every call.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-tests-"));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    if (!process.env.PI_SESSION_KEEP_TMP) rmSync(dir, { recursive: true, force: true });
  };
}
