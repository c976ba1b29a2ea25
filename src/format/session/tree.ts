import type { NodeTable } from "../read/line-table.js";
import { lastAtMost, release } from "../read/columns.js";
import { hexString } from "../read/scan-values.js";

/**
 * The entry tree, from the node table's parents, without recursion (a 100k-entry linear session
 * is a 100k-deep tree) and in typed arrays. Parent links resolve the way pi resolves them: an id
 * names the last entry that holds it. What pi would choke on is found and made safe:
 *
 * - an entry without a parent id, with a parent that does not exist, or that is its own parent,
 *   is a root (as in pi's `getTree`);
 * - a parent cycle (pi loops forever on it) is broken at the cycle's first entry in file order,
 *   which becomes a root.
 *
 * Children lists, child counts and depths are made when a command first asks for them: `path`
 * needs none of them, `path --leaves` the counts, `tree` all three.
 */

type ParentProblem = "missing" | "self" | "forward" | "cycle";

export interface TreeProblem {
  node: number;
  problem: ParentProblem;
}

export class TreeIndex {
  /** Resolved parent node, or -1 for a root. */
  readonly parent: Int32Array;
  /** Roots in file order (pi does not sort roots). */
  readonly roots: number[] = [];
  readonly problems: TreeProblem[] = [];
  /** The parent id of each node whose parent does not exist (for its finding). */
  readonly missingParents = new Map<number, string>();
  readonly size: number;
  private readonly timeOf: (node: number) => number;
  /** Children of node n: childList[childStart[n] .. childStart[n + 1]), by time then file order. */
  private childStart: Int32Array | undefined;
  private childList: Int32Array | undefined;
  /** Child counts, saturating at 255 (enough to tell leaves and branch points). */
  private counts: Uint8Array | undefined;
  private depthCache: Int32Array | undefined;
  /** Each node's place in pre-order, and where its subtree ends in it (see `isAncestor`). */
  private preorderAt: Int32Array | undefined;
  private subtreeEnds: SubtreeEnds | undefined;

  /** Settles the table's parents (`NodeTable.unresolved…`, duplicated ids, cycles). */
  constructor(nodes: NodeTable) {
    const n = (this.size = nodes.count);
    const parent = (this.parent = nodes.parent.subarray(0, n));
    this.timeOf = (node) => nodes.timeOf(node);
    const ids = nodes.ids;
    ids.seal();
    for (const node of nodes.selfParents) this.problems.push({ node, problem: "self" });
    // A duplicated id names its last holder, which may come after a child that found an earlier one.
    // (the earlier holders a bit a node, each one's last holder in a map: a column a node was 4
    // bytes an entry for what is a few entries in most files)
    if (ids.duplicates.size > 0) {
      const earlier = new Uint32Array((n >>> 5) + 1);
      const lastOf = new Map<number, number>();
      for (const holders of ids.duplicates.values()) {
        const last = holders[holders.length - 1]!;
        for (const h of holders) {
          if (h === last) continue;
          earlier[h >>> 5]! |= 1 << (h & 31);
          lastOf.set(h, last);
        }
      }
      for (let i = 0; i < n; i++) {
        const p = parent[i]!;
        if (p >= 0 && earlier[p >>> 5]! & (1 << (p & 31))) parent[i] = lastOf.get(p)!;
      }
    }
    // Parents that were not the entry before: found all at once, in order of their ids.
    const { count, node: unresolvedNode, number: unresolvedHex } = nodes.unresolved;
    const found = ids.findAll(unresolvedHex.subarray(0, count));
    for (let k = 0; k < count; k++) {
      const node = unresolvedNode[k]!;
      const number = unresolvedHex[k]!;
      // (-2 - a reference: an id other than hex, `NodeTable.unresolved`)
      const p = number <= -2 ? ids.holderOfRef(-2 - number) : found[k]!;
      if (p < 0) {
        this.problems.push({ node, problem: "missing" });
        this.missingParents.set(node, number <= -2 ? ids.refString(-2 - number) : hexString(number));
        continue;
      }
      parent[node] = p;
    }
    for (let i = 0; i < n; i++) if (parent[i]! > i) this.problems.push({ node: i, problem: "forward" });
    this.breakCycles();
    for (let i = 0; i < n; i++) if (parent[i] === -1) this.roots.push(i);
  }

  /** Children of `node`, by timestamp then file order. */
  children(node: number): Int32Array {
    if (!this.childList) this.buildChildren();
    return this.childList!.subarray(this.childStart![node]!, this.childStart![node + 1]!);
  }

  /** How many children `node` has (saturating at 255: enough to tell a leaf or a branch point). */
  childCount(node: number): number {
    if (this.childStart) return this.childStart[node + 1]! - this.childStart[node]!;
    if (!this.counts) {
      const counts = new Uint8Array(this.size);
      for (let i = 0; i < this.size; i++) {
        const p = this.parent[i]!;
        if (p >= 0 && counts[p]! < 255) counts[p]!++;
      }
      this.counts = counts;
    }
    return this.counts[node]!;
  }

  /** Compressed children lists: count, prefix-sum, fill (file order), then sort each by time. */
  private buildChildren(): void {
    const n = this.size;
    const start = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      const p = this.parent[i]!;
      if (p !== -1) start[p + 1]!++;
    }
    for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
    const fill = start.slice(0, n);
    const list = new Int32Array(Math.max(0, n - this.roots.length));
    for (let i = 0; i < n; i++) {
      const p = this.parent[i]!;
      if (p !== -1) list[fill[p]!++] = i;
    }
    const time = this.timeOf;
    for (let p = 0; p < n; p++) {
      const a = start[p]!;
      const b = start[p + 1]!;
      if (b - a > 1) {
        const sorted = Array.from(list.subarray(a, b)).sort((x, y) => compareTime(time(x), time(y)) || x - y);
        list.set(sorted, a);
      }
    }
    this.childStart = start;
    this.childList = list;
    this.counts = undefined;
  }

  private breakCycles(): void {
    const n = this.size;
    const parent = this.parent;
    // 0 = unseen, 1 = on the current walk, 2 = known to reach a root
    const state = new Uint8Array(n);
    const walk: number[] = [];
    for (let start = 0; start < n; start++) {
      if (state[start] !== 0) continue;
      let cur = start;
      while (cur !== -1 && state[cur] === 0) {
        state[cur] = 1;
        walk.push(cur);
        cur = parent[cur]!;
      }
      if (cur !== -1 && state[cur] === 1) {
        // `cur` is on this walk: the walk from `cur` on is a cycle.
        const cycle = walk.slice(walk.indexOf(cur));
        let first = cycle[0]!;
        for (const c of cycle) if (c < first) first = c;
        parent[first] = -1;
        this.problems.push({ node: first, problem: "cycle" });
      }
      for (const w of walk) state[w] = 2;
      walk.length = 0;
    }
    release(state);
  }

  /** Node indices from the root to `node` (4 bytes a step: a branch can be a million entries long). */
  pathTo(node: number): Int32Array {
    let length = 0;
    for (let cur = node; cur !== -1; cur = this.parent[cur]!) length++;
    const path = new Int32Array(length);
    for (let cur = node, k = length - 1; cur !== -1; cur = this.parent[cur]!) path[k--] = cur;
    return path;
  }

  /**
   * Whether `ancestor` is on the path from the root to `node` (itself included), in constant time:
   * a node's descendants are the nodes numbered after it in pre-order, as many as its subtree holds.
   */
  isAncestor(ancestor: number, node: number): boolean {
    this.numberPreorder();
    const a = this.preorderAt![ancestor]!;
    const n = this.preorderAt![node]!;
    return a <= n && n <= this.subtreeEnds!.endOf(a, ancestor);
  }

  /** The nodes in pre-order (children in file order): each node before its descendants, a subtree a run. */
  preorder(): Int32Array {
    this.numberPreorder();
    const order = new Int32Array(this.size);
    for (let i = 0; i < this.size; i++) order[this.preorderAt![i]!] = i;
    return order;
  }

  /** The nodes in pre-order, as `preorder`, a window after another (`preorderWindows`). */
  *preorderWindows(): Generator<Int32Array> {
    this.numberPreorder();
    yield* preorderWindows(this.preorderAt!);
  }

  /** The number of nodes in the subtree under `node` (itself included). */
  subtreeSizeOf(node: number): number {
    this.numberPreorder();
    const at = this.preorderAt![node]!;
    return this.subtreeEnds!.endOf(at, node) - at + 1;
  }

  /** `node`'s place in pre-order (see `preorder`). */
  preorderIndex(node: number): number {
    this.numberPreorder();
    return this.preorderAt![node]!;
  }

  /**
   * Numbers the nodes in pre-order once, without children lists or recursion: nodes taken parents
   * first (by depth, file order within a depth), subtree sizes summed children first, then each
   * child placed after its parent and its earlier siblings' subtrees.
   */
  private numberPreorder(): void {
    if (this.preorderAt) return;
    const n = this.size;
    const parent = this.parent;
    // parents first: file order is that already unless a parent comes later (then a counting sort by depth)
    let ordered = true;
    for (let i = 0; i < n && ordered; i++) if (parent[i]! >= i) ordered = false;
    if (ordered) {
      const { at, end } = preorderNumbers(parent);
      this.numbered(at, end);
      return;
    }
    // (the depths a command has not asked for are not kept: their column is the numbering's scratch)
    const kept = this.depthCache !== undefined;
    const depth = this.depthCache ?? this.depths();
    let maxDepth = 0;
    for (let i = 0; i < n; i++) maxDepth = Math.max(maxDepth, depth[i]!);
    const byDepth = new Int32Array(maxDepth + 2);
    for (let i = 0; i < n; i++) byDepth[depth[i]! + 1]!++;
    for (let d = 0; d <= maxDepth; d++) byDepth[d + 1]! += byDepth[d]!;
    const topo = new Int32Array(n);
    for (let i = 0; i < n; i++) topo[byDepth[depth[i]!]!++] = i;
    const { at, end } = preorderNumbers(parent, topo, kept ? {} : { end: depth });
    release(byDepth, topo);
    this.numbered(at, end);
  }

  /** The numbering kept: the places, and where subtrees end by chain (the column given back, unless the chains are too many: `SubtreeEnds`). */
  private numbered(at: Int32Array, end: Int32Array): void {
    this.preorderAt = at;
    this.subtreeEnds = new SubtreeEnds(this.parent, at, end);
    if (!this.subtreeEnds.holds(end)) release(end);
  }

  depth(node: number): number {
    this.depthCache ??= this.depths();
    return this.depthCache[node]!;
  }

  /**
   * The depths of a few nodes (leaves, an entry), without making the column `depth` keeps (4 bytes
   * an entry) where no command has made it: each walks up to the nearest node whose depth is known
   * (a root, or a branch point an earlier walk passed) and notes the branch points it passed, so
   * that a stretch of chain is walked once or twice, whatever the number of leaves below it.
   */
  depthsOf(nodes: readonly number[]): number[] {
    const cached = this.depthCache;
    if (cached) return nodes.map((n) => cached[n]!);
    const parent = this.parent;
    const known = new Map<number, number>();
    const isKnown = (n: number) => this.childCount(n) > 1 && known.has(n);
    return nodes.map((node) => {
      let steps = 0;
      let top = node;
      while (top !== -1 && !isKnown(top)) {
        top = parent[top]!;
        steps++;
      }
      const d = top === -1 ? steps - 1 : known.get(top)! + steps;
      let at = d;
      for (let n = node; n !== top; n = parent[n]!, at--) if (this.childCount(n) > 1) known.set(n, at);
      return d;
    });
  }

  /** Each node's depth (a root's 0). */
  private depths(): Int32Array {
    const n = this.size;
    const depth = new Int32Array(n).fill(-1);
    // Parents come before children in an append-only file: one pass in file order; the few
    // that do not (a forward parent) are settled by walking up.
    for (let i = 0; i < n; i++) {
      const p = this.parent[i]!;
      if (p === -1) depth[i] = 0;
      else if (p < i && depth[p]! >= 0) depth[i] = depth[p]! + 1;
    }
    for (let i = 0; i < n; i++) {
      if (depth[i]! >= 0) continue;
      const up: number[] = [];
      let cur = i;
      while (cur !== -1 && depth[cur]! < 0) {
        up.push(cur);
        cur = this.parent[cur]!;
      }
      let d = cur === -1 ? -1 : depth[cur]!;
      for (let k = up.length - 1; k >= 0; k--) depth[up[k]!] = ++d;
    }
    return depth;
  }

  leaves(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.size; i++) if (this.childCount(i) === 0) out.push(i);
    return out;
  }

  branchPoints(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.size; i++) if (this.childCount(i) > 1) out.push(i);
    return out;
  }

  /** Pre-order walk (children in order) without recursion. */
  *walk(from: readonly number[] = this.roots): Generator<{ node: number; depth: number }> {
    const stack: Array<{ node: number; depth: number }> = [];
    for (let i = from.length - 1; i >= 0; i--) stack.push({ node: from[i]!, depth: 0 });
    while (stack.length > 0) {
      const top = stack.pop()!;
      yield top;
      const kids = this.children(top.node);
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i]!, depth: top.depth + 1 });
    }
  }
}


/**
 * The nodes in pre-order, from each one's place in it (`at`), a window after another in one buffer
 * refilled: each window a pass over `at`, picking out the nodes whose places it holds. Eight passes
 * at most, where the whole order was a column of 4 bytes an entry (BENCHMARKS.md, "Memory an
 * entry").
 */
export function* preorderWindows(at: Int32Array): Generator<Int32Array> {
  const n = at.length;
  const size = Math.min(n, Math.max(PREORDER_WINDOW, Math.ceil(n / 8)));
  const buffer = new Int32Array(size);
  for (let from = 0; from < n; from += size) {
    const to = Math.min(n, from + size);
    for (let v = 0; v < n; v++) {
      const p = at[v]!;
      if (p >= from && p < to) buffer[p - from] = v;
    }
    yield to - from === size ? buffer : buffer.subarray(0, to - from);
  }
}

/**
 * Where each node's subtree ends in pre-order, kept by chain: a node with one child is numbered
 * just before it, and their subtrees end at the same place, so a chain (from a root or a branch
 * point's child down to a leaf or a branch point) is a run of places with one end. Kept are the
 * chains' first places and their ends, in pre-order, where a column of subtree sizes was 4 bytes an
 * entry (BENCHMARKS.md, "Memory an entry"); where the chains come to a quarter of the nodes, that
 * column after all.
 */
class SubtreeEnds {
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  /** Past each node's subtree, where the chains are too many (`preorderNumbers`' column). */
  private readonly past: Int32Array | undefined;
  /** The chain `endOf` found last (the walks ask in pre-order). */
  private last = 0;

  /** `at` and `end`: `preorderNumbers`' columns. */
  constructor(parent: Int32Array, at: Int32Array, end: Int32Array) {
    const n = parent.length;
    const size = (v: number) => end[v]! - at[v]!;
    // (a node heads a chain unless it is its parent's only child: then the parent's subtree is its and one)
    const heads = (v: number) => parent[v]! < 0 || size(parent[v]!) !== size(v) + 1;
    let count = 0;
    for (let v = 0; v < n; v++) if (heads(v)) count++;
    if (4 * count > n + 64) {
      this.past = end;
      this.starts = this.ends = new Int32Array(0);
      return;
    }
    const first = new Int32Array(count);
    for (let v = 0, k = 0; v < n; v++) if (heads(v)) first[k++] = v;
    first.sort((a, b) => at[a]! - at[b]!);
    this.starts = new Int32Array(count);
    this.ends = new Int32Array(count);
    for (let k = 0; k < count; k++) {
      const v = first[k]!;
      this.starts[k] = at[v]!;
      this.ends[k] = end[v]! - 1;
    }
    release(first);
  }

  /** Whether it keeps `column` (where the chains are too many). */
  holds(column: Int32Array): boolean {
    return this.past === column;
  }

  /** Where the subtree of `node`, at pre-order place `at`, ends (the place of its last node). */
  endOf(at: number, node: number): number {
    if (this.past) return this.past[node]! - 1;
    const { starts } = this;
    let r = this.last;
    if (!(starts[r]! <= at && (r + 1 === starts.length || starts[r + 1]! > at))) this.last = r = lastAtMost(starts, starts.length, at);
    return this.ends[r]!;
  }
}

/** Columns `preorderNumbers` may fill rather than make. */
export interface PreorderColumns {
  at?: Int32Array;
  end?: Int32Array;
}

/** The fewest places a window of `preorderWindows` holds (a session of fewer nodes is one window). */
const PREORDER_WINDOW = 1 << 16;

function compareTime(a: number, b: number): number {
  // pi sorts with `a - b`, which is NaN (treated as "equal") when a timestamp does not parse.
  const d = a - b;
  return Number.isNaN(d) ? 0 : d;
}

/**
 * Each node's place in pre-order (`at`) and the place just past its subtree (`end`: its size is
 * `end - at`), from its parent (-1: a root) and an order that takes every parent before its children
 * (`topo`; none: the nodes' own order is one). Subtree sizes are summed children first; then each
 * child is placed after its parent and its earlier siblings' subtrees, a parent's `end` standing
 * for where its next child goes until the last is placed, which leaves it past its subtree: one
 * column of scratch, the answer's. Linear, no recursion. `columns`: columns at least `parent`'s
 * length it may fill where it would make them (a caller numbering a tree again and again, or
 * holding one it no longer needs).
 */
export function preorderNumbers(parent: Int32Array, topo?: Int32Array, columns: PreorderColumns = {}): { at: Int32Array; end: Int32Array } {
  const n = parent.length;
  const node = (k: number) => (topo ? topo[k]! : k);
  const end = columns.end ? columns.end.subarray(0, n).fill(1) : new Int32Array(n).fill(1);
  for (let k = n - 1; k >= 0; k--) {
    const v = node(k);
    const p = parent[v]!;
    if (p >= 0) end[p]! += end[v]!;
  }
  const at = columns.at ? columns.at.subarray(0, n) : new Int32Array(n);
  let rootAt = 0;
  for (let k = 0; k < n; k++) {
    const v = node(k);
    const p = parent[v]!;
    // (`end[v]` is v's size until v is placed; its children come after it)
    const size = end[v]!;
    if (p < 0) {
      at[v] = rootAt;
      rootAt += size;
    } else {
      at[v] = end[p]!;
      end[p]! += size;
    }
    end[v] = at[v]! + 1;
  }
  return { at, end };
}
