/**
 * How the benchmark times a contender, in one place for every table: a fresh process each
 * (bench/child.mjs), wall time, peak RSS from the kernel, files read through first.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * How long one timed process may run before it is killed and counted as failed: a process that
 * hangs (an exit that never ends) is a result to print, not a benchmark that never finishes.
 */
export const RUN_LIMIT = { timeout: 15 * 60_000, killSignal: "SIGKILL" };

/** A timed process's failure in a few words: killed at the limit, or its exit status. */
export const stuckOr = (r, other) => (r.error?.code === "ETIMEDOUT" ? `killed after ${RUN_LIMIT.timeout / 60_000} min without exiting` : other);

/**
 * Reads `paths` through once, untimed, so that a timed run finds them in the page cache: this
 * machine reclaims page cache on its own (kdamond), and a run that read part of a file from disk
 * measured the disk (profiled: 307 ms of reading in a 700 ms run, against 69 ms from memory).
 */
const warmBuffer = Buffer.allocUnsafe(16 * 1024 * 1024);
export function warmCache(paths) {
  for (const path of paths) {
    const fd = openSync(path, "r");
    try {
      while (readSync(fd, warmBuffer, 0, warmBuffer.length, null) > 0);
    } finally {
      closeSync(fd);
    }
  }
}

/** Runs one task once in a fresh process (after warming `files`): wall time, and peak RSS from the kernel. */
export function runOnce(task, args, env = {}, files = []) {
  warmCache(files);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, "bench/child.mjs"), task, ...args], { encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 1 << 20, ...RUN_LIMIT });
  const wall = performance.now() - t0;
  if (r.status !== 0) {
    // The line that names the error (a stack trace ends with Node's version).
    const lines = (r.stderr || r.stdout || "").trim().split("\n");
    return { error: stuckOr(r, lines.find((l) => /^([A-Z]\w*)?Error\b/.test(l))?.trim() ?? lines.slice(-1)[0] ?? `exit ${r.status}`) };
  }
  const out = JSON.parse(r.stdout.trim().split("\n").pop());
  return { ms: wall, rssMB: out.rssMB, result: out.result };
}

/** Two measurements of one task as one: the faster time, the larger RSS (an error, once seen, stays). */
export const better = (a, b) => (!a ? b : a.error ? a : b.error ? b : { ms: Math.min(a.ms, b.ms), rssMB: Math.max(a.rssMB, b.rssMB), result: b.result });

/**
 * Runs several tasks `times` rounds over, each round every task once in turn (so that a slow
 * spell of the machine falls on all of them, not on one task's every run); keeps each task's
 * fastest time and largest RSS.
 */
export function measureAll(tasks, times) {
  const best = tasks.map(() => undefined);
  for (let round = 0; round < times; round++) {
    tasks.forEach(({ task, args, env, files }, k) => {
      if (best[k]?.error) return;
      const m = runOnce(task, args, env, files);
      best[k] = better(best[k], m);
    });
  }
  return best;
}

