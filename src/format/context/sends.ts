/**
 * What some leaf sends: the one notion `check`, `repair` and `slim` share of which entries reach a
 * provider. pi builds a leaf's context from its path (`buildSessionContext`, `compactionBounds`):
 * with no compaction on it, every entry; else the newest compaction's summary, the kept range (from
 * its first kept entry up to where the compaction stands; system messages left out), and every entry
 * after it. An entry is sent when some leaf's context holds it; a compaction is in force when it is
 * the newest on some leaf's path: its kept part is then what that context starts with. A leaf is a
 * node with no children, or the current leaf (which may have some).
 *
 * Worked out for every leaf at once, in time linear in the tree:
 *
 * - `free[n]`: some leaf is at or below `n` with no compaction between (`n` excluded). Such an `n`
 *   is in that leaf's context: after its newest compaction, or it is that compaction itself (in
 *   force). Worked out children first.
 * - for each compaction in force: the entries from where pi finds it (a duplicated id can put that
 *   above it) down to it, and its kept range. Kept ranges on one branch overlap (each compaction
 *   keeps from further back than the one before it ended): walked in order of how high they reach,
 *   a walk stops at the first node an earlier walk passed, as all above it up to where this one
 *   ends was walked too. Each node is walked once.
 *
 * Context edits are followed apart (`editedAway`): an entry every leaf holding it sees omitted or
 * replaced is not sent as it is written.
 */
import type { Session } from "../session/session.js";
import { compactionBounds, editEffectOf } from "./context.js";
import type { AnyEntry } from "../schema/types.js";

/** A tree as this needs it: nodes `0..size-1`. */
interface SendsInput {
  readonly size: number;
  parent(k: number): number;
  /** Whether `k` is a leaf: no children, or the current leaf. */
  isLeaf(k: number): boolean;
  isCompaction(k: number): boolean;
  /** A compaction's place on its path as pi finds it, and its first kept entry (undefined: none kept). */
  bounds(c: number): { anchor: number; keptFrom: number | undefined };
  /** Whether an entry in a kept range is sent (a system message is not). */
  sentWhenKept(k: number): boolean;
  depth(k: number): number;
  /** An order whose reverse visits children before their parents (undefined: node order is parents first). */
  order?: Int32Array;
}

export interface Sends {
  /** Per node: 1 when some leaf's context holds it (a compaction: its summary). */
  sent: Uint8Array;
  /** Per compaction: 1 when it is the newest on some leaf's path. */
  inForce: Uint8Array;
}

function whatLeavesSend(t: SendsInput): Sends {
  const n = t.size;
  const free = new Uint8Array(n);
  for (let k = 0; k < n; k++) if (t.isLeaf(k)) free[k] = 1;
  for (let j = n - 1; j >= 0; j--) {
    const k = t.order ? t.order[j]! : j;
    const p = t.parent(k);
    if (p >= 0 && free[k] && !t.isCompaction(k)) free[p] = 1;
  }
  const inForce = new Uint8Array(n);
  const sent = Uint8Array.from(free);
  const ranges: Array<{ from: number; to: number }> = [];
  for (let c = 0; c < n; c++) {
    if (!free[c] || !t.isCompaction(c)) continue;
    inForce[c] = 1;
    const { anchor, keptFrom } = t.bounds(c);
    // (a duplicated id put where pi finds the compaction above it: what lies between is after it)
    if (anchor !== c) for (let k = t.parent(c); k !== anchor && k >= 0; k = t.parent(k)) if (!t.isCompaction(k)) sent[k] = 1;
    const top = t.parent(anchor);
    if (keptFrom !== undefined && top >= 0) ranges.push({ from: top, to: keptFrom });
  }
  ranges.sort((a, b) => t.depth(a.to) - t.depth(b.to));
  const walked = new Uint8Array(n);
  for (const { from, to } of ranges) {
    for (let k = from; k >= 0 && !walked[k]; k = t.parent(k)) {
      walked[k] = 1;
      if (!t.isCompaction(k) && t.sentWhenKept(k)) sent[k] = 1;
      if (k === to) break;
    }
  }
  return { sent, inForce };
}

/** Entries pi applies a replacement to (an omission applies to any). */
const EDITABLE = new Set(["user", "assistant", "toolResult", "custom"]);

/**
 * Per node: 1 when every leaf whose context holds it has a context edit of it in force (omitted,
 * or its content replaced: pi 1.6 applies the latest edit of an entry the context holds): what the
 * entry itself says is sent on no branch. An edit is below its target, and the context of a leaf
 * that holds the target holds the edit too, so a target is seen as written only by the leaves
 * below it and not below any of its edits whose context reaches up to it. Worked out from each
 * leaf's context start (the depth its newest compaction keeps from) in pre-order, a minimum over
 * the ranges of leaves for each edited entry; nothing when the session has no edits.
 */
export function editedAway(session: Session): Uint8Array {
  const { tree } = session;
  const n = tree.size;
  const away = new Uint8Array(n);
  const editsOf = new Map<number, number[]>();
  for (let k = 0; k < n; k++) {
    if (session.nodeType(k) !== "context_edit") continue;
    const effect = editEffectOf(session.entry(k) as AnyEntry);
    if (!effect) continue;
    for (const t of session.duplicateIds.get(effect.target) ?? [session.nodeOf(effect.target)]) {
      if (t === undefined || t === k || !tree.isAncestor(t, k)) continue;
      const role = session.nodeType(t) === "custom_message" ? "custom" : session.nodeRole(t);
      if (!effect.omit && !(session.nodeType(t) === "custom_message" || (session.nodeType(t) === "message" && EDITABLE.has(role ?? "")))) continue;
      const list = editsOf.get(t);
      if (list) list.push(k);
      else editsOf.set(t, [k]);
    }
  }
  if (editsOf.size === 0) return away;
  // each node's context start: the depth its newest compaction keeps from (0: none above)
  const bounds = compactionBoundsOf(session);
  const order = tree.preorder();
  const start = new Int32Array(n);
  const leafStart = new Int32Array(n).fill(0x7fffffff); // by pre-order place: a leaf's context start
  for (let i = 0; i < n; i++) {
    const k = order[i]!;
    const p = tree.parent[k]!;
    start[k] = p >= 0 ? start[p]! : 0;
    if (session.nodeType(k) === "compaction") {
      const { keptFrom } = bounds(k);
      start[k] = keptFrom !== undefined ? tree.depth(keptFrom) : tree.depth(k);
    }
    if (tree.childCount(k) === 0 || k === session.leafNode) leafStart[i] = start[k]!;
  }
  const least = new RangeMin(leafStart);
  for (const [t, edits] of editsOf) {
    const from = tree.preorderIndex(t);
    const to = from + tree.subtreeSizeOf(t);
    // the leaves below t not below one of its edits: the ranges between the edits' subtrees
    const cuts = edits.map((e) => [tree.preorderIndex(e), tree.preorderIndex(e) + tree.subtreeSizeOf(e)] as const).sort((a, b) => a[0] - b[0]);
    let at = from;
    let seen = false;
    for (const [a, b] of cuts) {
      if (a > at && least.of(at, a) <= tree.depth(t)) seen = true;
      at = Math.max(at, b);
    }
    if (at < to && least.of(at, to) <= tree.depth(t)) seen = true;
    if (!seen) away[t] = 1;
  }
  return away;
}

/** The least of a fixed array over a range, in O(log n): a segment tree. */
class RangeMin {
  private readonly size: number;
  private readonly tree: Int32Array;
  constructor(values: Int32Array) {
    let size = 1;
    while (size < values.length) size <<= 1;
    this.size = size;
    this.tree = new Int32Array(2 * size).fill(0x7fffffff);
    this.tree.set(values, size);
    for (let k = size - 1; k >= 1; k--) this.tree[k] = Math.min(this.tree[2 * k]!, this.tree[2 * k + 1]!);
  }
  /** The least value at places `from` (inclusive) to `to` (exclusive). */
  of(from: number, to: number): number {
    let least = 0x7fffffff;
    for (let a = from + this.size, b = to + this.size; a < b; a >>= 1, b >>= 1) {
      if (a & 1) least = Math.min(least, this.tree[a++]!);
      if (b & 1) least = Math.min(least, this.tree[--b]!);
    }
    return least;
  }
}

/** Where pi finds each compaction of a session and its first kept entry (`compactionBounds`, by the tree's ancestry). */
function compactionBoundsOf(session: Session): (c: number) => { anchor: number; keptFrom: number | undefined } {
  const tree = session.tree;
  // the first holder of an id on the path down to `below`: its shallowest holder above `below`
  const firstOnPath = (id: unknown, below: number, inclusive: boolean): number | undefined => {
    const holder = typeof id === "string" ? session.nodeOf(id) : undefined;
    if (holder === undefined) return undefined;
    let first: number | undefined;
    for (const h of session.duplicateIds.get(id as string) ?? [holder]) {
      if ((h !== below || inclusive) && tree.isAncestor(h, below) && (first === undefined || tree.depth(h) < tree.depth(first))) first = h;
    }
    return first;
  };
  return (c) => compactionBounds(c, session.entry(c) as { id: unknown; firstKeptEntryId?: unknown }, firstOnPath);
}

/** What some leaf of a session sends (the tree's leaves and the current one). */
export function sessionSends(session: Session): Sends {
  const tree = session.tree;
  const isCompaction = new Uint8Array(tree.size);
  for (let k = 0; k < tree.size; k++) if (session.nodeType(k) === "compaction") isCompaction[k] = 1;
  const bounds = compactionBoundsOf(session);
  return whatLeavesSend({
    size: tree.size,
    parent: (k) => tree.parent[k]!,
    isLeaf: (k) => tree.childCount(k) === 0 || k === session.leafNode,
    isCompaction: (k) => isCompaction[k] === 1,
    bounds,
    sentWhenKept: (k) => !(session.nodeType(k) === "message" && session.nodeRole(k) === "system"),
    depth: (k) => tree.depth(k),
    // (children before parents: file order backwards, unless a parent comes after its child)
    order: tree.problems.some((p) => p.problem === "forward") ? tree.preorder() : undefined,
  });
}
