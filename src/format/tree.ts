/**
 * The entry tree, built from ids and parent ids alone, without recursion (a 100k-entry linear
 * session is a 100k-deep tree) and in typed arrays (children in one compressed list). Parent
 * links resolve the way pi resolves them: an id names the last entry that holds it. What pi would
 * choke on is found and made safe:
 *
 * - an entry without a parent id, with a parent that does not exist, or that is its own parent,
 *   is a root (as in pi's `getTree`);
 * - a parent cycle (pi loops forever on it) is broken at the cycle's first entry in file order,
 *   which becomes a root.
 */

export type ParentProblem = "missing" | "self" | "forward" | "cycle";

export interface TreeProblem {
  node: number;
  problem: ParentProblem;
}

export class TreeIndex {
  /** Node index of the last node holding each id (pi's `byId`). */
  readonly byId = new Map<string, number>();
  /** Resolved parent node, or -1 for a root. */
  readonly parent: Int32Array;
  /** Roots in file order (pi does not sort roots). */
  readonly roots: number[] = [];
  readonly problems: TreeProblem[] = [];
  /** Ids held by more than one node, with those nodes in file order. */
  readonly duplicates = new Map<string, number[]>();
  /** Children of node n: childList[childStart[n] .. childStart[n + 1]). */
  private readonly childStart: Int32Array;
  private readonly childList: Int32Array;
  private depthCache: Int32Array | undefined;

  /**
   * @param ids each node's id (undefined: none)
   * @param parentIds each node's parent id (null or undefined: a root)
   * @param times each node's timestamp in ms, for ordering children (NaN sorts as pi sorts it)
   */
  constructor(
    readonly ids: ReadonlyArray<string | undefined>,
    parentIds: ReadonlyArray<string | null | undefined>,
    times: Float64Array,
  ) {
    const n = ids.length;
    this.parent = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      const id = ids[i];
      if (id === undefined) continue;
      const prev = this.byId.get(id);
      if (prev !== undefined) {
        const list = this.duplicates.get(id);
        if (list) list.push(i);
        else this.duplicates.set(id, [prev, i]);
      }
      this.byId.set(id, i);
    }
    for (let i = 0; i < n; i++) {
      const pid = parentIds[i];
      if (pid === null || pid === undefined) continue;
      if (pid === ids[i]) {
        this.problems.push({ node: i, problem: "self" });
        continue;
      }
      // Most entries follow the one before: that parent is found without the map, unless its id
      // is held again later (the map names the last holder).
      const p = i > 0 && pid === ids[i - 1] && (this.duplicates.size === 0 || !this.duplicates.has(pid)) ? i - 1 : this.byId.get(pid);
      if (p === undefined) {
        this.problems.push({ node: i, problem: "missing" });
        continue;
      }
      if (p > i) this.problems.push({ node: i, problem: "forward" });
      this.parent[i] = p;
    }
    this.breakCycles();
    // Compressed children lists: count, prefix-sum, fill (file order), then sort each by time.
    const start = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      const p = this.parent[i]!;
      if (p === -1) this.roots.push(i);
      else start[p + 1]!++;
    }
    for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
    const fill = start.slice(0, n);
    const list = new Int32Array(Math.max(0, n - this.roots.length));
    for (let i = 0; i < n; i++) {
      const p = this.parent[i]!;
      if (p !== -1) list[fill[p]!++] = i;
    }
    for (let p = 0; p < n; p++) {
      const a = start[p]!;
      const b = start[p + 1]!;
      if (b - a > 1) {
        const sorted = Array.from(list.subarray(a, b)).sort((x, y) => compareTime(times[x]!, times[y]!) || x - y);
        list.set(sorted, a);
      }
    }
    this.childStart = start;
    this.childList = list;
  }

  get size(): number {
    return this.ids.length;
  }

  children(node: number): Int32Array {
    return this.childList.subarray(this.childStart[node]!, this.childStart[node + 1]!);
  }

  childCount(node: number): number {
    return this.childStart[node + 1]! - this.childStart[node]!;
  }

  private breakCycles(): void {
    const n = this.ids.length;
    // 0 = unseen, 1 = on the current walk, 2 = known to reach a root
    const state = new Uint8Array(n);
    const walk: number[] = [];
    for (let start = 0; start < n; start++) {
      if (state[start] !== 0) continue;
      let cur = start;
      while (cur !== -1 && state[cur] === 0) {
        state[cur] = 1;
        walk.push(cur);
        cur = this.parent[cur]!;
      }
      if (cur !== -1 && state[cur] === 1) {
        // `cur` is on this walk: the walk from `cur` on is a cycle.
        const cycle = walk.slice(walk.indexOf(cur));
        const first = Math.min(...cycle);
        this.parent[first] = -1;
        this.problems.push({ node: first, problem: "cycle" });
      }
      for (const w of walk) state[w] = 2;
      walk.length = 0;
    }
  }

  /** Node indices from the root to `node`. */
  pathTo(node: number): number[] {
    const path: number[] = [];
    for (let cur = node; cur !== -1; cur = this.parent[cur]!) path.push(cur);
    return path.reverse();
  }

  depth(node: number): number {
    if (!this.depthCache) {
      const depth = new Int32Array(this.ids.length).fill(-1);
      const stack: number[] = [];
      for (const r of this.roots) {
        depth[r] = 0;
        stack.push(r);
      }
      while (stack.length > 0) {
        const cur = stack.pop()!;
        for (const c of this.children(cur)) {
          depth[c] = depth[cur]! + 1;
          stack.push(c);
        }
      }
      this.depthCache = depth;
    }
    return this.depthCache[node]!;
  }

  leaves(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.ids.length; i++) if (this.childCount(i) === 0) out.push(i);
    return out;
  }

  branchPoints(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.ids.length; i++) if (this.childCount(i) > 1) out.push(i);
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

function compareTime(a: number, b: number): number {
  // pi sorts with `a - b`, which is NaN (treated as "equal") when a timestamp does not parse.
  const d = a - b;
  return Number.isNaN(d) ? 0 : d;
}
