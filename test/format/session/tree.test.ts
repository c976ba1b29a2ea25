import { describe, expect, it } from "vitest";
import { openSessionBuffer, type Session } from "../../../src/format/session/session.js";
import { entry, header, jsonl } from "../../helpers/builders.js";

/** A session of bare entries: id, parent id (undefined: no key), and a timestamp in seconds. */
const tree = (nodes: Array<[id: string | undefined, parentId: string | null | undefined, time?: number]>): Session => {
  const lines = nodes.map(([id, parentId, time = 0]) => {
    const e = entry("custom", id ?? "", parentId ?? null, { timestamp: new Date(Date.UTC(2026, 0, 1) + time * 1000).toISOString() });
    if (id === undefined) delete e.id;
    if (parentId === undefined) delete e.parentId;
    return JSON.stringify(e);
  });
  return openSessionBuffer("t.jsonl", Buffer.concat([jsonl(header()), Buffer.from(lines.join("\n") + "\n")]));
};
const ids = (s: Session, nodes: ArrayLike<number>) => Array.from(nodes, (n) => s.nodeId(n));

describe("TreeIndex", () => {
  it("links parents, orders children by time then file order, keeps roots in file order", () => {
    const s = tree([["r", null], ["b", "r", 30], ["a", "r", 10], ["c", "r", 10], ["r2", null]]);
    expect(ids(s, s.tree.roots)).toEqual(["r", "r2"]);
    expect(ids(s, s.tree.children(0))).toEqual(["a", "c", "b"]);
    expect(s.tree.childCount(0)).toBe(3);
    expect(s.tree.problems).toEqual([]);
  });

  it("makes orphans and self-parents roots and reports them", () => {
    const s = tree([["r", null], ["o", "gone"], ["s", "s"]]);
    expect(ids(s, s.tree.roots)).toEqual(["r", "o", "s"]);
    expect(s.tree.problems).toEqual(expect.arrayContaining([
      { node: 1, problem: "missing" },
      { node: 2, problem: "self" },
    ]));
    expect(s.tree.problems).toHaveLength(2);
    expect(s.nodeRecord(1).parentId).toBe("gone");
    expect(s.nodeRecord(2).parentId).toBe("s");
  });

  it("breaks a cycle at its first entry in file order, and finishes", () => {
    const s = tree([["r", null], ["a", "c"], ["b", "a"], ["c", "b"], ["d", "c"]]);
    expect(s.tree.problems).toEqual(expect.arrayContaining([{ node: 1, problem: "cycle" }]));
    expect(ids(s, s.tree.roots)).toEqual(["r", "a"]);
    expect(ids(s, s.tree.pathTo(4))).toEqual(["a", "b", "c", "d"]);
    // the record still says what the file says
    expect(s.nodeRecord(1).parentId).toBe("c");
  });

  it("resolves duplicate ids to the last holder, as pi does, even one after the child", () => {
    const s = tree([["r", null], ["x", "r"], ["y", "x"], ["x", "r"]]);
    expect(s.duplicateIds.get("x")).toEqual([1, 3]);
    expect(s.tree.parent[2]).toBe(3);
    expect(s.tree.problems).toEqual([{ node: 2, problem: "forward" }]);
    expect(s.nodeOf("x")).toBe(3);
  });

  it("reports a parent that comes later in the file", () => {
    const s = tree([["r", null], ["a", "b"], ["b", "r"]]);
    expect(s.tree.problems).toEqual([{ node: 1, problem: "forward" }]);
    expect(ids(s, s.tree.pathTo(1))).toEqual(["r", "b", "a"]);
    expect(s.tree.depth(1)).toBe(2);
  });

  it("gives the entries below an entry with a later parent their depth from it", () => {
    // r <- b <- a <- c, written a, c, b: c's parent comes before c, but a's does not
    const s = tree([["r", null], ["a", "b"], ["c", "a"], ["b", "r"]]);
    expect(Array.from({ length: 4 }, (_, n) => s.tree.depth(n))).toEqual([0, 2, 3, 1]);
  });

  it("gives a few nodes' depths without the column, as the column gives them", () => {
    // branches off branches, a later parent, and leaves asked for in any order
    const shape: Array<[string, string | null]> = [["r", null], ["a", "r"], ["b", "a"], ["c", "b"], ["d", "a"], ["e", "d"], ["f", "c"], ["g", "b"], ["h", "z"], ["z", "e"], ["i", "h"], ["j", "r"]];
    const nodes = [10, 6, 7, 11, 9, 0, 3, 5, 8, 1, 2, 4, 6, 10];
    const without = tree(shape).tree.depthsOf(nodes);
    const s = tree(shape);
    expect(without).toEqual(nodes.map((n) => s.tree.depth(n)));
    expect(without).toEqual([6, 4, 3, 1, 4, 0, 3, 3, 5, 1, 2, 2, 4, 6]);
  });

  it("keeps hex ids as numbers and others as strings, and finds both, by prefix too", () => {
    const s = tree([["0badf00d", null], ["0bad0001", "0badf00d"], ["not-hex", "0bad0001"], ["ABCDEF01", "not-hex"]]);
    expect(ids(s, [0, 1, 2, 3])).toEqual(["0badf00d", "0bad0001", "not-hex", "ABCDEF01"]);
    expect(s.tree.parent[3]).toBe(2);
    expect(s.nodeOf("ABCDEF01")).toBe(3);
    expect(s.nodeOf("abcdef01")).toBeUndefined();
    expect(s.nodesWithPrefix("0bad")).toEqual([0, 1]);
    expect(s.nodesWithPrefix("0badf")).toEqual([0]);
    expect(s.nodesWithPrefix("not")).toEqual([2]);
  });

  it("handles a 200k-entry linear session without recursion", () => {
    const n = 200_000;
    const s = tree(Array.from({ length: n }, (_, i) => [`e${i}`, i === 0 ? null : `e${i - 1}`, i] as [string, string | null, number]));
    expect(s.tree.depth(n - 1)).toBe(n - 1);
    expect(s.tree.pathTo(n - 1).length).toBe(n);
    expect(s.tree.leaves()).toEqual([n - 1]);
    let count = 0;
    for (const _ of s.tree.walk()) count++;
    expect(count).toBe(n);
  });

  it("gives the pre-order a window at a time, as the whole order, on a tree of several windows", () => {
    // 150,000 entries: three windows of 65,536 places; a branch every 100 entries, a later parent near the end
    const n = 150_000;
    const nodes = Array.from({ length: n }, (_, i) => [`e${i}`, i === 0 ? null : i % 100 === 0 ? `e${i - 50}` : `e${i - 1}`, i] as [string, string | null, number]);
    nodes[n - 2]![1] = `e${n - 1}`;
    const s = tree(nodes);
    const windows: number[][] = [];
    for (const w of s.tree.preorderWindows()) windows.push(Array.from(w));
    expect(windows.map((w) => w.length)).toEqual([65_536, 65_536, n - 2 * 65_536]);
    expect(windows.flat()).toEqual(Array.from(s.tree.preorder()));
  });

  it("lists leaves and branch points", () => {
    const s = tree([["r", null], ["a", "r"], ["b", "r"], ["c", "a"]]);
    expect(ids(s, s.tree.leaves())).toEqual(["b", "c"]);
    expect(ids(s, s.tree.branchPoints())).toEqual(["r"]);
  });

  it("answers ancestry from pre-order numbers exactly as a walk up the parents does", () => {
    // random trees with every kind of parent: earlier entries, missing, self, later (forward),
    // cycles, duplicated ids
    let seed = 7;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let round = 0; round < 30; round++) {
      const n = 2 + rand(60);
      const nodes: Array<[string, string | null, number]> = [];
      for (let i = 0; i < n; i++) {
        const kind = rand(10);
        const id = rand(15) === 0 && i > 0 ? `e${rand(i)}` : `e${i}`;
        const parent = i === 0 || kind === 0 ? null : kind === 1 ? "gone" : kind === 2 ? `e${rand(n)}` : `e${rand(i)}`;
        nodes.push([id, parent, rand(5)]);
      }
      const s = tree(nodes);
      const walks = (a: number, b: number) => {
        for (let cur = b; cur !== -1; cur = s.tree.parent[cur]!) if (cur === a) return true;
        return false;
      };
      const order = Array.from(s.tree.preorder());
      expect([...order].sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => i));
      // (the order itself: each node, then its children's subtrees, children and roots in file order)
      const expected: number[] = [];
      const visit = (v: number): void => {
        expected.push(v);
        for (let c = 0; c < n; c++) if (s.tree.parent[c] === v) visit(c);
      };
      for (let r = 0; r < n; r++) if (s.tree.parent[r] === -1) visit(r);
      expect(order, `round ${round}`).toEqual(expected);
      for (let a = 0; a < n; a++) {
        let below = 0;
        for (let b = 0; b < n; b++) {
          expect(s.tree.isAncestor(a, b), `round ${round}: ${a} above ${b}`).toBe(walks(a, b));
          if (walks(a, b)) below++;
        }
        expect(s.tree.subtreeSizeOf(a)).toBe(below);
        // each parent comes before its children in pre-order
        const p = s.tree.parent[a]!;
        if (p >= 0) expect(s.tree.preorderIndex(p)).toBeLessThan(s.tree.preorderIndex(a));
      }
    }
  });
  it("answers subtree sizes and ancestry kept by chain as a walk up the parents does: long chains, a few branches, parents later in the file", () => {
    // (mostly chains: their ends are kept a chain, not a node; bushy trees above keep the column)
    let seed = 11;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (const [n, branchy] of [[3000, 50], [3000, 400], [1500, 3]] as const) {
      const nodes: Array<[string, string | null, number]> = [];
      for (let i = 0; i < n; i++) {
        const parent = i === 0 ? null : rand(branchy) === 0 ? `e${rand(i)}` : rand(500) === 0 && i + 5 < n ? `e${i + 1 + rand(4)}` : `e${i - 1}`;
        nodes.push([`e${i}`, parent, 0]);
      }
      const s = tree(nodes);
      const parent = s.tree.parent;
      const size = new Array<number>(n).fill(0);
      for (let b = 0; b < n; b++) for (let cur = b; cur !== -1; cur = parent[cur]!) size[cur]!++;
      const walks = (a: number, b: number) => {
        for (let cur = b; cur !== -1; cur = parent[cur]!) if (cur === a) return true;
        return false;
      };
      for (let a = 0; a < n; a++) expect(s.tree.subtreeSizeOf(a), `${n}/${branchy}: ${a}`).toBe(size[a]);
      for (let k = 0; k < 20000; k++) {
        const a = rand(n);
        const b = k % 2 === 0 ? rand(n) : Math.min(n - 1, a + rand(40));
        expect(s.tree.isAncestor(a, b), `${n}/${branchy}: ${a} above ${b}`).toBe(walks(a, b));
      }
    }
  });
});
