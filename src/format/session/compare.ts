import { commonPrefix } from "../read/source.js";
import type { Session } from "./session.js";
import { isObject } from "../common/guards.js";

/*
 * Two sessions compared entry by entry, and two branches of one session compared from where they
 * part (`diff`, docs/commands.md). Entries are matched by id (an entry without one, as in a v1 file, by its
 * line); two entries with one id differ when their values do, compared as JSON values: key order
 * and spacing are no change. Lines whose bytes are the same are not parsed.
 */

/** An entry of one side: its id (null: none) and its line. */
export interface EntryAt {
  id: string | null;
  node: number;
  line: number;
}

interface ChangedEntry {
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

const at = (s: Session, n: number): EntryAt => ({ id: s.nodeId(n) ?? null, node: n, line: s.nodeLine(n) });

/** The node of `s` an entry of another session matches: the one with its id (the first, where several hold it), else (no id) the one on its line. */
function match(s: Session, id: string | undefined, line: number): number | undefined {
  if (id !== undefined) return s.duplicateIds.get(id)?.[0] ?? s.nodeOf(id);
  let lo = 0;
  let hi = s.tree.size - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const l = s.nodeLine(mid);
    if (l === line) return s.nodeId(mid) === undefined ? mid : undefined;
    if (l < line) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** Whether `n` is the entry `match` finds for its own id (the first holder of an id it shares with others). */
const isFirst = (s: Session, n: number): boolean => {
  const id = s.nodeId(n);
  return id === undefined || (s.duplicateIds.get(id)?.[0] ?? n) === n;
};

export function compareSessions(a: Session, b: Session): SessionComparison {
  // A snapshot and the file it grew into, a .bak and its repair: the same bytes up to a point. The
  // entries that lie whole within those bytes are the same in both (the same lines at the same
  // places), and are passed over without a look; only those after are matched and compared.
  const same = commonPrefix(a.source, b.source);
  const inPrefix = (s: Session, n: number) => s.nodeOffset(n) + s.nodeLength(n) <= same;
  let pa = 0;
  while (pa < a.tree.size && inPrefix(a, pa)) pa++;
  let pb = 0;
  while (pb < b.tree.size && inPrefix(b, pb)) pb++;
  const removed: EntryAt[] = [];
  const changed: ChangedEntry[] = [];
  const matched = new Set<number>();
  for (let n = pa; n < a.tree.size; n++) {
    if (!isFirst(a, n)) continue;
    const m = match(b, a.nodeId(n), a.nodeLine(n));
    if (m === undefined) {
      removed.push(at(a, n));
      continue;
    }
    matched.add(m);
    if (a.nodeLength(n) === b.nodeLength(m) && a.nodeBytes(n).equals(b.nodeBytes(m))) continue;
    const fields = differingFields(a.entry(n), b.entry(m));
    if (fields.length > 0) changed.push({ id: a.nodeId(n) ?? null, a: at(a, n), b: at(b, m), fields });
  }
  const added: EntryAt[] = [];
  for (let m = pb; m < b.tree.size; m++) {
    if (matched.has(m) || !isFirst(b, m)) continue;
    // (one in the prefix of both is the same entry; another, found here, is A's too)
    const n = match(a, b.nodeId(m), b.nodeLine(m));
    if (n === undefined) added.push(at(b, m));
  }
  // (an entry of A's prefix whose id B holds first after its prefix: matched above from B's side)
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
