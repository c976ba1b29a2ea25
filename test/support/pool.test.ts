import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { workersPay } from "../../src/support/workers/pool.js";

describe("when worker threads are called in", () => {
  it("not before this thread's pace is a measure, however much is left", () => {
    expect(workersPay(5, 1, 100_000)).toBe(false);
    expect(workersPay(49, 1, 100_000)).toBe(false);
  });

  it("when what is left, at this thread's pace, takes longer than a worker's start is worth", () => {
    // 3,000 small transcripts, 200 read in 53 ms: 740 ms left at that pace (380 in fact), done before a worker would pay
    expect(workersPay(53, 200, 3000)).toBe(false);
    // 300 large sessions, 13 done in 87 ms: 1.9 s left
    expect(workersPay(87, 13, 300)).toBe(true);
    // by bytes: 8 MB of 300 MB done in 60 ms: over 2 s left
    expect(workersPay(60, 8 << 20, 300 << 20)).toBe(true);
    // the last of a long run: little left
    expect(workersPay(900, 290, 300)).toBe(false);
  });

  it("not when nothing is done yet, or everything is", () => {
    expect(workersPay(100, 0, 10)).toBe(false);
    expect(workersPay(100, 10, 10)).toBe(false);
  });
});

/** `node:worker_threads`, as the pool loads it, with a Worker that runs its chunks in this thread, each one made noted in `made`. */
function mockWorkers(made: string[]): void {
  // a worker that runs its chunks here (the real one is the built worker.js)
  vi.doMock("../../src/format/common/builtins.js", async (original) => {
    const { EventEmitter } = await import("node:events");
    class Worker extends EventEmitter {
      constructor(url: URL) {
        super();
        made.push(String(url));
      }
      postMessage(chunk: { task: "usage"; jobs: Array<{ i: number; path: string; stamp: undefined }> }) {
        void (async () => {
          // (imported here: the tasks' modules import the one this mock stands for)
          const { runTask } = await import("../../src/support/workers/tasks.js");
          const batch = [];
          for (const job of chunk.jobs) batch.push({ i: job.i, value: await runTask(chunk.task, job) });
          this.emit("message", batch);
        })();
      }
      terminate() {
        return Promise.resolve(0);
      }
    }
    return { ...(await original<typeof import("../../src/format/common/builtins.js")>()), workerThreads: () => ({ Worker }) };
  });
}

/** `n` small session files. */
function sessionFiles(n: number): Array<{ path: string; stamp: undefined }> {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-pool-"));
  return Array.from({ length: n }, (_, i) => {
    const path = join(dir, `${i}.jsonl`);
    writeFileSync(path, `${JSON.stringify({ type: "session", version: 3, id: `s${i}`, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" })}\n`);
    return { path, stamp: undefined };
  });
}

describe("what calls workers in: this thread's CPU time, not the clock's", () => {
  it("a run whose CPU time says much is left calls a worker in; the clock alone does not", async () => {
    vi.resetModules();
    const made: string[] = [];
    mockWorkers(made);
    const { overFiles } = await import("../../src/support/workers/pool.js");
    const jobs = sessionFiles(200);
    const alone = await overFiles("usage", jobs, () => {});
    expect(made).toHaveLength(0);
    // 400 ms of CPU each time the pool looks (a chunk of 32 files): 200 files take seconds by that measure
    let cpu = 0;
    const spy = vi.spyOn(process, "threadCpuUsage").mockImplementation(() => ({ user: (cpu += 400_000), system: 0 }));
    try {
      const helped = await overFiles("usage", jobs, () => {});
      expect(made.length).toBeGreaterThan(0);
      expect(helped).toEqual(alone);
    } finally {
      spy.mockRestore();
      vi.doUnmock("../../src/format/common/builtins.js");
    }
  });
});

describe("threads asked for (PI_SESSION_THREADS)", () => {
  it("start with the first file, however little the work; at most one a unit; 1 is this thread alone", async () => {
    vi.resetModules();
    const made: string[] = [];
    mockWorkers(made);
    try {
      const { overFiles } = await import("../../src/support/workers/pool.js");
      const jobs = sessionFiles(3);
      const alone = await overFiles("usage", jobs, () => {}, 1);
      expect(made).toHaveLength(0);
      // (three small files: left to itself, the pool would never start a worker for them)
      expect(await overFiles("usage", jobs, () => {})).toEqual(alone);
      expect(made).toHaveLength(0);
      expect(await overFiles("usage", jobs, () => {}, 2)).toEqual(alone);
      expect(made).toHaveLength(1);
      made.length = 0;
      expect(await overFiles("usage", jobs, () => {}, 8)).toEqual(alone);
      expect(made).toHaveLength(2);
    } finally {
      vi.doUnmock("../../src/format/common/builtins.js");
    }
  });
});
