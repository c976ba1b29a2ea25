/** What a value read from JSON (a session's, a cache's) is, asked once the same way everywhere. */

export const isString = (v: unknown): v is string => typeof v === "string";

/** A number that is one (not NaN, not infinite). */
export const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** A whole number >= 0 that a double holds exactly: a count, an offset, a length. */
export const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether the process `pid` runs on this machine now (one another user runs counts). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
