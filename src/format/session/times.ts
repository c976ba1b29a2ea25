import type { Session } from "./session.js";

/**
 * A session's times, as every command states them (docs/commands.md, "ls"): when it was created
 * (its header's time) and when it was last active (its latest user or assistant message's time,
 * which pi writes as the message's own). Last activity is never before creation: a fork or a
 * clone copies old entries with their times into a session made today, and is today's. NaN:
 * not known (no header time, no message with a time).
 */
export interface SessionTimes {
  created: number;
  lastActivity: number;
}

export function sessionTimes(session: Session): SessionTimes {
  const stamp = session.header?.timestamp;
  const created = typeof stamp === "string" ? Date.parse(stamp) : Number.NaN;
  let latest = Number.NaN;
  for (let node = 0; node < session.tree.size; node++) {
    const { type, role } = session.nodeKind(node);
    if (type !== "message" || (role !== "user" && role !== "assistant")) continue;
    const t = session.nodeTime(node);
    if (!Number.isNaN(t) && (Number.isNaN(latest) || t > latest)) latest = t;
  }
  return { created, lastActivity: lastActivity(created, latest) };
}

/** The later of a session's creation and its latest message (either NaN: the other; both: NaN). */
function lastActivity(created: number, latestMessage: number): number {
  if (Number.isNaN(latestMessage)) return created;
  if (Number.isNaN(created)) return latestMessage;
  return Math.max(created, latestMessage);
}
