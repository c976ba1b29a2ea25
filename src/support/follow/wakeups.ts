import { watch, type FSWatcher } from "node:fs";
import { dirname } from "node:path";

/*
 * When to look again (`tail -f`): at once when the file system says a watched folder changed
 * (a session's file appended to, a database's log written, a file renamed), else after a while:
 * a poll every `POLL_MS` where the folders are watched (a change the notifications missed, as on
 * a network file system), every `POLL_UNWATCHED_MS` where they cannot be. Idle, the process sleeps.
 */

/** How often a watched session is looked at anyway. */
const POLL_MS = 1000;
/** How often a session is looked at where its folder cannot be watched. */
const POLL_UNWATCHED_MS = 250;
/** Sessions looked at together before the polls slow down: a poll of each is a `stat` (about 3 µs), and idle costs next to nothing only if there are few of them a second. */
const POLLED_AT_FULL_RATE = 200;
/** How often, at most, a store's sessions are all looked at where there are many more (each one's change wakes its own poll where its folder is watched). */
const POLL_MANY_MS = 5000;
/** Changes this close together are read together (a writer's line often comes in several writes). */
const SETTLE_MS = 15;

export class Wakeups {
  private readonly watchers = new Map<string, FSWatcher | null>();
  private wake: (() => void) | undefined;
  private pending = false;
  /** Folders a change was seen in since `takeChanged` was last asked. */
  private changed = new Set<string>();

  /** Watches the folders of `paths` (each once). */
  watch(paths: Iterable<string>): void {
    for (const path of paths) this.watchFolder(dirname(path));
  }

  watchFolder(dir: string): void {
    if (this.watchers.has(dir)) return;
    let watcher: FSWatcher | null = null;
    try {
      watcher = watch(dir, { persistent: false }, () => {
        this.changed.add(dir);
        this.pending = true;
        this.wake?.();
      });
      watcher.on("error", () => {
        watcher?.close();
        this.watchers.set(dir, null);
      });
    } catch {
      watcher = null;
    }
    this.watchers.set(dir, watcher);
  }

  /** Whether every folder asked for is watched. */
  get watching(): boolean {
    for (const w of this.watchers.values()) if (w === null) return false;
    return true;
  }

  /** The folders a change was seen in since last asked. */
  takeChanged(): Set<string> {
    const out = this.changed;
    this.changed = new Set();
    return out;
  }

  /** How long to wait for a change before looking at `sessions` sessions anyway. */
  pollMs(sessions: number): number {
    if (!this.watching) return Math.max(POLL_UNWATCHED_MS, sessions);
    return sessions <= POLLED_AT_FULL_RATE ? POLL_MS : POLL_MANY_MS;
  }

  /** Resolves when a watched folder changes (and settles), after `ms` (the poll's time has come: true), or when `signal` is aborted. */
  async wait(signal: AbortSignal, ms: number): Promise<boolean> {
    let timedOut = false;
    if (signal.aborted) return false;
    if (!this.pending) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          this.wake = undefined;
          resolve();
        };
        const timer = setTimeout(() => {
          timedOut = true;
          done();
        }, ms);
        signal.addEventListener("abort", done);
        this.wake = done;
      });
    }
    if (this.pending && !signal.aborted) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    this.pending = false;
    return timedOut;
  }

  close(): void {
    for (const w of this.watchers.values()) w?.close();
    this.watchers.clear();
  }
}
