import type { Session } from "./session.js";

/*
 * Two sessions compared entry by entry, and two branches of one session compared from where they
 * part (`diff`, README). Entries are matched by id (an entry without one, as in a v1 file, by its
 * line); two entries with one id differ when their values do, compared as JSON values: key order
 * and spacing are no change. Lines whose bytes are the same are not parsed.
 */

/** An entry of one side: its id (null: none) and its line. */
export interface EntryAt {
  id: string | null;
  node: number;
  line: number;
}

export interface ChangedEntry {
  id: string | null;
  a: EntryAt;
  b: EntryAt;
  /** The fields whose values differ (`message.content`, `parentId`, …), two levels deep. */
  fields: string[];
}

export interface SessionComparison {
  /** In B only, in B's order. */
  added: EntryAt[];
  /** In A only, in A's order. */
  removed: EntryAt[];
  /** In both, with another value, in A's order. */
  changed: ChangedEntry[];
  /** The headers' fields that differ (none: the same header). */
  header: string[];
}

const keyOf = (s: Session, n: number): string => {
  const id = s.nodeId(n);
  return id !== undefined ? `#${id}` : `@${s.nodeLine(n)}`;
};

const at = (s: Session, n: number): EntryAt => ({ id: s.nodeId(n) ?? null, node: n, line: s.nodeLine(n) });

export function compareSessions(a: Session, b: Session): SessionComparison {
  const inB = new Map<string, number>();
  for (let n = 0; n < b.tree.size; n++) {
    const k = keyOf(b, n);
    if (!inB.has(k)) inB.set(k, n);
  }
  const seen = new Set<string>();
  const removed: EntryAt[] = [];
  const changed: ChangedEntry[] = [];
  for (let n = 0; n < a.tree.size; n++) {
    const k = keyOf(a, n);
    if (seen.has(k)) continue;
    seen.add(k);
    const m = inB.get(k);
    if (m === undefined) {
      removed.push(at(a, n));
      continue;
    }
    if (a.nodeLength(n) === b.nodeLength(m) && a.nodeBytes(n).equals(b.nodeBytes(m))) continue;
    const fields = differingFields(a.entry(n), b.entry(m));
    if (fields.length > 0) changed.push({ id: a.nodeId(n) ?? null, a: at(a, n), b: at(b, m), fields });
  }
  const added: EntryAt[] = [];
  for (let n = 0; n < b.tree.size; n++) {
    const k = keyOf(b, n);
    if (!seen.has(k) && inB.get(k) === n) added.push(at(b, n));
  }
  return { added, removed, changed, header: differingFields(a.header ?? {}, b.header ?? {}) };
}

/** The fields of two values that differ, as JSON values, to `depth` levels (`message.content`). */
function differingFields(x: unknown, y: unknown, depth = 2, prefix = ""): string[] {
  if (sameJson(x, y)) return [];
  if (depth === 0 || !isObject(x) || !isObject(y)) return [prefix || "(the value)"];
  const out: string[] = [];
  for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (!sameJson(x[k], y[k])) out.push(...differingFields(x[k], y[k], depth - 1, prefix ? `${prefix}.${k}` : k));
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether two values are the same JSON value (objects whatever their key order). */
function sameJson(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (typeof x !== typeof y || x === null || y === null || typeof x !== "object") return typeof x === "number" && typeof y === "number" && Number.isNaN(x) && Number.isNaN(y);
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x)) {
    const ys = y as unknown[];
    return x.length === ys.length && x.every((v, i) => sameJson(v, ys[i]));
  }
  const a = x as Record<string, unknown>;
  const b = y as Record<string, unknown>;
  const keys = Object.keys(a).filter((k) => a[k] !== undefined);
  if (keys.length !== Object.keys(b).filter((k) => b[k] !== undefined).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/** Where the branches to `leafA` and `leafB` part: the last entry both paths hold (-1: none, they share no root), and each path after it. */
export function forkOf(session: Session, leafA: number, leafB: number): { fork: number; a: Int32Array; b: Int32Array } {
  const pa = session.tree.pathTo(leafA);
  const pb = session.tree.pathTo(leafB);
  let k = 0;
  while (k < pa.length && k < pb.length && pa[k] === pb[k]) k++;
  return { fork: k > 0 ? pa[k - 1]! : -1, a: pa.subarray(k), b: pb.subarray(k) };
}
