/**
 * The layers ARCHITECTURE.md describes, checked on the sources: who may import whom, and who may
 * touch the process. A new import that crosses a layer fails here, not in a review.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

/** Each source (relative to src/) and what it imports: other sources (relative to src/) or packages. */
const graph = sources().map((file) => {
  const text = readFileSync(file, "utf8");
  const imports = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\("([^"]+)"\)/g)].map((m) => {
    const spec = (m[1] ?? m[2])!;
    return spec.startsWith(".") ? relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, ".ts") : spec;
  });
  return { file: relative(SRC, file), text, imports };
});

const under = (dir: string) => (path: string) => path.startsWith(`${dir}/`);

/**
 * The folders of a layer, from the bottom up (ARCHITECTURE.md, "the folders"): a file may import
 * its own folder and the floors below it, never a floor above nor a folder beside it on its floor.
 * The layer's own root (its `index.ts`, render's shared pieces) is its own floor: the bottom one
 * for render, whose export folder builds on its widths and units; the top one for format, whose
 * `index.ts` is the library's one face.
 */
const FLOORS: Record<string, { root: "bottom" | "top"; floors: string[][] }> = {
  format: { root: "top", floors: [["common"], ["schema"], ["read"], ["session"], ["context", "usage", "grep", "redact"], ["check", "search"], ["write"]] },
  // (a store is a folder on the middle floor, beside the others: a new store is a new folder there)
  stores: { root: "top", floors: [["common"], ["pi", "agent-core", "openclaw-jsonl", "openclaw-sqlite"], ["openclaw"]] },
  support: { root: "bottom", floors: [["inputs"], ["ls", "usage", "grep", "writers", "search"], ["redact"], ["workers", "follow"], ["listing"]] },
  render: { root: "bottom", floors: [["export"], ["terminal"]] },
};

/** `format/read/scanner.ts` -> `read`; a file at the layer's root -> "" (undefined outside the layer). */
function folderOf(layer: string, path: string): string | undefined {
  if (!under(layer)(path)) return undefined;
  const rest = path.slice(layer.length + 1).split("/");
  return rest.length === 1 ? "" : rest[0];
}

/** A folder's floor in its layer: the root's, or its place in the list. */
function floorOf(layer: string, folder: string): number {
  const { root, floors } = FLOORS[layer]!;
  if (folder === "") return root === "bottom" ? -1 : floors.length;
  return floors.findIndex((f) => f.includes(folder));
}

/** The file-level import cycles: each strongly connected set of sources of more than one file (or a file importing itself). */
function cycles(): string[][] {
  const edges = new Map(graph.map((g) => [g.file, g.imports.filter((i) => i.endsWith(".ts"))]));
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(set.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("layers", () => {
  it("finds the sources", () => {
    expect(graph.length).toBeGreaterThan(40);
    expect(graph.some((g) => g.file === "commands/tree.ts" && g.imports.includes("support/inputs/read.ts"))).toBe(true);
  });

  it("the format library imports nothing above it", () => {
    for (const { file, imports } of graph.filter((g) => under("format")(g.file))) {
      const upward = imports.filter((i) => !i.startsWith("node:") && i.endsWith(".ts") && !under("format")(i));
      expect(upward, file).toEqual([]);
    }
  });

  it("the stores sit on the format library: they import nothing of render, support, the commands or the CLI", () => {
    for (const { file, imports } of graph.filter((g) => under("stores")(g.file))) {
      const upward = imports.filter((i) => i.endsWith(".ts") && (under("render")(i) || under("support")(i) || under("commands")(i) || i === "cli.ts" || under("cli")(i) || i === "command.ts"));
      expect(upward, file).toEqual([]);
    }
  });

  it("nothing outside the stores reaches past their face (src/stores/index.ts), nor takes a transcript's name apart", () => {
    for (const { file, imports, text } of graph.filter((g) => !under("stores")(g.file))) {
      expect(imports.filter((i) => under("stores")(i) && i !== "stores/index.ts"), file).toEqual([]);
      // (a transcript in a database is named `<database>#<id>`: only its store parses that)
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      expect(code.match(/transcriptRef|\.(?:split|indexOf|lastIndexOf|includes)\("#"\)/g) ?? [], file).toEqual([]);
    }
  });

  it("a store is a folder and one line in stores/registry.ts: the face asks the registry, never a store's folder", () => {
    const faces = graph.filter((g) => folderOf("stores", g.file) === "");
    expect(faces.map((g) => g.file)).toContain("stores/registry.ts");
    for (const { file, imports } of faces.filter((g) => g.file !== "stores/registry.ts" && g.file !== "stores/index.ts")) {
      const reached = imports.filter((i) => under("stores")(i) && !["", "common"].includes(folderOf("stores", i)!));
      expect(reached, file).toEqual([]);
    }
    // (each store's folder gives one Store, registered once)
    const registry = graph.find((g) => g.file === "stores/registry.ts")!;
    const registered = registry.imports.filter((i) => under("stores")(i) && folderOf("stores", i) !== "common").map((i) => folderOf("stores", i));
    expect(new Set(registered).size).toBe(registered.length);
    expect(registered.length).toBeGreaterThanOrEqual(2);
  });

  it("renderers turn data into text: no file system, no commands, no command support", () => {
    for (const { file, imports } of graph.filter((g) => under("render")(g.file))) {
      expect(imports.filter((i) => i === "node:fs" || i === "fs" || under("commands")(i) || under("support")(i) || i === "cli.ts" || under("cli")(i)), file).toEqual([]);
    }
  });

  it("no command imports another; command support imports no command; only the CLI imports cli/", () => {
    for (const { file, imports } of graph.filter((g) => under("commands")(g.file) || under("support")(g.file))) {
      expect(imports.filter(under("commands")), file).toEqual([]);
    }
    for (const { file, imports } of graph.filter((g) => g.file !== "cli.ts" && !under("cli")(g.file))) {
      expect(imports.filter(under("cli")), file).toEqual([]);
    }
  });

  it("every folder of format, stores, support and render has its floor", () => {
    for (const layer of Object.keys(FLOORS)) {
      const folders = new Set(graph.map((g) => folderOf(layer, g.file)).filter((f): f is string => f !== undefined && f !== ""));
      expect(folders.size, layer).toBeGreaterThan(0);
      for (const folder of folders) expect(floorOf(layer, folder), `${layer}/${folder}/ is on no floor of FLOORS`).toBeGreaterThanOrEqual(0);
    }
  });

  it("a folder imports only its own and those below it", () => {
    for (const layer of Object.keys(FLOORS)) {
      for (const { file, imports } of graph.filter((g) => under(layer)(g.file))) {
        const from = folderOf(layer, file)!;
        const wrong = imports.filter((i) => {
          const to = folderOf(layer, i);
          if (to === undefined || to === from) return false;
          return floorOf(layer, to) >= floorOf(layer, from);
        });
        expect(wrong, file).toEqual([]);
      }
    }
  });

  it("no import circle, however small", () => {
    expect(cycles()).toEqual([]);
  });

  it("the checks above see what they check: a floor's order and a circle are caught", () => {
    // the test's own rules, on what they are given: an upward import, and a two-file circle
    expect(floorOf("format", "write")).toBeGreaterThan(floorOf("format", "read"));
    expect(floorOf("format", "")).toBeGreaterThan(floorOf("format", "write"));
    expect(floorOf("support", "")).toBeLessThan(floorOf("support", "inputs"));
    expect(folderOf("format", "format/read/scanner.ts")).toBe("read");
    expect(folderOf("format", "format/index.ts")).toBe("");
    expect(folderOf("format", "render/table.ts")).toBeUndefined();
    graph.push({ file: "format/x-a.ts", text: "", imports: ["format/x-b.ts"] }, { file: "format/x-b.ts", text: "", imports: ["format/x-a.ts"] });
    try {
      expect(cycles()).toEqual([["format/x-a.ts", "format/x-b.ts"]]);
    } finally {
      graph.splice(-2, 2);
    }
  });

  it("only cli.ts reaches the process's streams, environment and exit", () => {
    for (const { file, text } of graph.filter((g) => g.file !== "cli.ts")) {
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      expect(code.match(/process\.(stdout|stderr|stdin|env|exit|argv)\b/g) ?? [], file).toEqual([]);
    }
  });
});
