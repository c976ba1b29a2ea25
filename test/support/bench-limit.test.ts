/**
 * The benchmark's bound on one timed process: a process that never exits (a hung exit) is killed
 * and reported as a failed run, so that `npm run bench` and CI's bounded run always finish.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { RUN_LIMIT, stuckOr } from "../../bench/measure.mjs";

describe("a timed process that does not exit", () => {
  it("is killed at the bound and said to be, where one that fails says its own error", () => {
    // (the bound itself, shortened: a process that would sleep for a minute)
    const hung = spawnSync(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { ...RUN_LIMIT, timeout: 300 });
    expect(hung.status).toBe(null);
    expect(stuckOr(hung, "its own error")).toBe(`killed after ${RUN_LIMIT.timeout / 60_000} min without exiting`);
    const failed = spawnSync(process.execPath, ["-e", "process.exit(3)"], RUN_LIMIT);
    expect(failed.status).toBe(3);
    expect(stuckOr(failed, "its own error")).toBe("its own error");
  });

  it("the bound is SIGKILL (a hung exit ignores nothing else reliably) and long enough for the largest sizes", () => {
    expect(RUN_LIMIT.killSignal).toBe("SIGKILL");
    expect(RUN_LIMIT.timeout).toBeGreaterThanOrEqual(10 * 60_000);
  });
});
