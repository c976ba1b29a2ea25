import { SliceSource, type ByteSource } from "../read/source.js";
import { sessionFileName } from "./fork.js";
import { planRepair, type RepairAction, type RepairPlan, type SessionStart } from "./repair/index.js";

/**
 * A file that holds several sessions one after another (`cat a.jsonl b.jsonl`) is repaired as
 * that many files: the first in its place, each later one in a file of its own, named as pi names
 * a new session's file. Each part is planned as a file by itself; its actions are numbered by the
 * whole file's lines.
 */
export interface SessionPart {
  source: ByteSource;
  plan: RepairPlan;
  /** The whole file's line that is the part's line 1. */
  firstLine: number;
  /** Where a later part begins (absent for the first). */
  start?: SessionStart;
  /** The file a later part goes to, beside the result (pi's name: `<timestamp>_<id>.jsonl`). */
  fileName?: string;
}

export function splitSessions(source: ByteSource, starts: readonly SessionStart[], mtimeMs: number): SessionPart[] {
  const bounds = [0, ...starts.map((s) => s.offset), source.size];
  return bounds.slice(0, -1).map((from, i) => {
    const slice = new SliceSource(source, from, bounds[i + 1]!);
    const start = i === 0 ? undefined : starts[i - 1]!;
    const firstLine = start?.line ?? 1;
    const plan = planRepair(slice, mtimeMs);
    const shift = (a: RepairAction): RepairAction => ({ ...a, line: a.line + firstLine - 1 });
    return { source: slice, plan: { ...plan, actions: plan.actions.map(shift) }, firstLine, ...(start ? { start, fileName: partFileName(start, mtimeMs) } : {}) };
  });
}

/** pi's name for the part's file, from its header's time (the file's, where that is no time) and id. */
function partFileName(start: SessionStart, mtimeMs: number): string {
  const time = start.timestamp !== undefined && !Number.isNaN(Date.parse(start.timestamp)) ? Date.parse(start.timestamp) : mtimeMs;
  return sessionFileName(new Date(time).toISOString(), start.id.replace(/[^A-Za-z0-9._-]/g, "_"));
}
