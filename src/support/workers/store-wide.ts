import type { CommandContext } from "../../command.js";
import { keepStoreFacts, saveStoreFacts, sessionStamp, withTwinKeys, type SessionStamp } from "../../stores/index.js";
import type { FileJob, FileTask, TaskResult, TaskSettings } from "./tasks.js";

/**
 * A store-wide read (`ls`, `usage`, `grep`), one pipeline for all three: each session's stamp,
 * what the command's cache holds of it unchanged, the rest read (worker threads over the
 * sessions that may be one another's bytes again, read once), what was read kept in the cache,
 * and what the stores cache between runs (OpenClaw's databases' facts) kept for the run and saved.
 */

/** What a command's cache holds of the sessions read. */
export interface ReadCache<R> {
  /** Whether it holds `path` as it is now (`index`: its place among the sessions read); what it holds is the command's to take. */
  holds(path: string, index: number, stamp: SessionStamp): boolean;
  /** What was read of `path` at `stamp`, to keep for the next run (the cache leaves out what it should not keep). */
  keep(path: string, stamp: SessionStamp, value: R): void;
}

export interface ReadOptions<T extends FileTask> {
  cache?: ReadCache<TaskResult<T>>;
  /** Whether each session is stamped (a cache needs it; without one, a stamp only weighs the work: `grep` of hundreds does without). */
  stamps?: boolean;
  settings?: TaskSettings<T>;
  /** Each result as it is read (by its place in `paths`), none kept: the results are not returned. */
  each?: (index: number, value: TaskResult<T>) => void;
}

export class StoreRead {
  /** `keep`: the stores keep what they cache between runs (not with `--no-cache`). */
  constructor(
    private readonly ctx: CommandContext,
    keep: boolean,
  ) {
    keepStoreFacts(ctx.run, keep ? ctx.env : undefined);
  }

  /**
   * `task` over `paths`: a result for each (undefined where `cache` holds it, and for `-`, which
   * the command reads itself). Progress counts the sessions the cache holds as done.
   */
  async read<T extends FileTask>(task: T, paths: readonly string[], { cache, stamps = true, settings, each }: ReadOptions<T> = {}): Promise<Array<TaskResult<T> | undefined>> {
    const { ctx } = this;
    const out: Array<TaskResult<T> | undefined> = new Array(paths.length);
    const todo: Array<FileJob & { index: number }> = [];
    for (let index = 0; index < paths.length; index++) {
      const path = paths[index]!;
      if (path === "-") continue;
      const stamp = stamps ? sessionStamp(path) : undefined;
      if (!(stamp && cache?.holds(path, index, stamp))) todo.push({ index, path, stamp });
    }
    const held = paths.length - todo.length;
    if (todo.length > 0) {
      // PI_SESSION_THREADS sets the threads (1: no worker). Reading sessions (the format library,
      // worker threads) is loaded only when one needs it: a warm run reads none (BENCHMARKS.md,
      // "the format library at start-up").
      const threads = Number(ctx.env.PI_SESSION_THREADS) || undefined;
      const { overFiles } = await import("./pool.js");
      const read = await overFiles(task, withTwinKeys(todo), (done) => ctx.progress(held + done, paths.length, "sessions"), threads, settings, each && ((k, value) => each(todo[k]!.index, value)));
      if (!each) todo.forEach(({ index, path, stamp }, k) => {
        out[index] = read[k];
        if (stamp) cache?.keep(path, stamp, read[k]!);
      });
    }
    ctx.progress(paths.length, paths.length);
    return out;
  }

  /** What the stores kept for the run, saved (the command is done reading). */
  done(): void {
    saveStoreFacts(this.ctx.run);
  }
}
