import { dirname } from "node:path";
import type { FollowedSession } from "./session.js";
import { Wakeups } from "./wakeups.js";

/*
 * Following sessions until interrupted (`tail -f`): each is looked at when its folder changes, and
 * now and then besides (`Wakeups`); with `--all`, the store is listed again when its folders
 * change (at most once a second) and now and then besides, and each new session is followed from
 * its start.
 */

/** How long `--all` waits between two listings of the store when nothing there says it changed (its folders watched: a new session is a change in one; not watched: sooner). */
const RESCAN_MS = 30_000;
const RESCAN_UNWATCHED_MS = 5000;
/** And at least, when its folders change (a busy gateway changes them many times a second). */
const RESCAN_AFTER_CHANGE_MS = 1000;

export interface FollowOptions {
  /** The store's sessions not yet followed, each made a `FollowedSession` (`--all`). */
  newSessions?: () => FollowedSession[];
  /** The store's folder given (`--all DIR`): watched too, so that a new folder in it is seen as it is made. */
  root?: string | undefined;
  /** Called after each look (the status line). */
  afterEach: () => void;
}

export async function followUntil(signal: AbortSignal, sessions: FollowedSession[], options: FollowOptions): Promise<void> {
  const wakeups = new Wakeups();
  const watchAll = () => wakeups.watch(sessions.flatMap((s) => s.follower?.wakers ?? [s.path]));
  watchAll();
  if (options.root !== undefined) wakeups.watchFolder(options.root);
  let scanned = Date.now();
  let rescanDue = false;
  try {
    // (what came between the first read and the watch, at once)
    for (const s of sessions) s.poll();
    options.afterEach();
    while (!signal.aborted) {
      const pollMs = wakeups.pollMs(sessions.length);
      const timedOut = await wakeups.wait(signal, rescanDue ? Math.min(RESCAN_AFTER_CHANGE_MS, pollMs) : pollMs);
      if (signal.aborted) break;
      const changed = wakeups.takeChanged();
      // (a change in a watched folder: its sessions; the poll's time: every one)
      for (const s of sessions) if (timedOut || (s.follower?.wakers ?? [s.path]).some((w) => changed.has(dirname(w)))) s.poll();
      // (a change seen too soon after the last listing is listed at the next wake-up: not lost)
      if (changed.size > 0) rescanDue = true;
      const since = Date.now() - scanned;
      if (options.newSessions && ((rescanDue && since >= RESCAN_AFTER_CHANGE_MS) || since >= (wakeups.watching ? RESCAN_MS : RESCAN_UNWATCHED_MS))) {
        scanned = Date.now();
        rescanDue = false;
        for (const s of options.newSessions()) s.start(Number.POSITIVE_INFINITY);
        watchAll();
      }
      options.afterEach();
    }
  } finally {
    wakeups.close();
    for (const s of sessions) s.close();
  }
}
