import { describe, expect, it } from "vitest";
import { TreeIndex } from "../../src/format/index.js";

interface Node {
  id: string | undefined;
  parentId: string | null | undefined;
  time: number;
}
const node = (id: string | undefined, parentId: string | null | undefined, time = 0): Node => ({ id, parentId, time });
const tree = (nodes: Node[]) =>
  new TreeIndex(
    nodes.map((n) => n.id),
    nodes.map((n) => n.parentId),
    Float64Array.from(nodes.map((n) => n.time)),
  );
const ids = (t: TreeIndex, nodes: ArrayLike<number>) => Array.from(nodes, (n) => t.ids[n]);

describe("TreeIndex", () => {
  it("links parents, orders children by time then file order, keeps roots in file order", () => {
    const t = tree([node("r", null), node("b", "r", 30), node("a", "r", 10), node("c", "r", 10), node("r2", null)]);
    expect(ids(t, t.roots)).toEqual(["r", "r2"]);
    expect(ids(t, t.children(0))).toEqual(["a", "c", "b"]);
    expect(t.problems).toEqual([]);
  });

  it("makes orphans and self-parents roots and reports them", () => {
    const t = tree([node("r", null), node("o", "gone"), node("s", "s")]);
    expect(ids(t, t.roots)).toEqual(["r", "o", "s"]);
    expect(t.problems).toEqual([
      { node: 1, problem: "missing" },
      { node: 2, problem: "self" },
    ]);
  });

  it("breaks a cycle at its first entry in file order, and finishes", () => {
    const t = tree([node("r", null), node("a", "c"), node("b", "a"), node("c", "b"), node("d", "c")]);
    expect(t.problems).toEqual(expect.arrayContaining([{ node: 1, problem: "cycle" }]));
    expect(ids(t, t.roots)).toEqual(["r", "a"]);
    expect(ids(t, t.pathTo(4))).toEqual(["a", "b", "c", "d"]);
  });

  it("resolves duplicate ids to the last holder, as pi does", () => {
    const t = tree([node("r", null), node("x", "r"), node("x", "r"), node("y", "x")]);
    expect(t.duplicates.get("x")).toEqual([1, 2]);
    expect(t.parent[3]).toBe(2);
  });

  it("reports a parent that comes later in the file", () => {
    const t = tree([node("r", null), node("a", "b"), node("b", "r")]);
    expect(t.problems).toEqual([{ node: 1, problem: "forward" }]);
    expect(ids(t, t.pathTo(1))).toEqual(["r", "b", "a"]);
  });

  it("handles a 200k-entry linear session without recursion", () => {
    const n = 200_000;
    const nodes = Array.from({ length: n }, (_, i) => node(`e${i}`, i === 0 ? null : `e${i - 1}`, i));
    const t = tree(nodes);
    expect(t.depth(n - 1)).toBe(n - 1);
    expect(t.pathTo(n - 1).length).toBe(n);
    expect(t.leaves()).toEqual([n - 1]);
    let count = 0;
    for (const _ of t.walk()) count++;
    expect(count).toBe(n);
  });

  it("lists leaves and branch points", () => {
    const t = tree([node("r", null), node("a", "r"), node("b", "r"), node("c", "a")]);
    expect(ids(t, t.leaves())).toEqual(["b", "c"]);
    expect(ids(t, t.branchPoints())).toEqual(["r"]);
  });
});
