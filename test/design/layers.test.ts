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

describe("layers", () => {
  it("finds the sources", () => {
    expect(graph.length).toBeGreaterThan(40);
    expect(graph.some((g) => g.file === "commands/tree.ts" && g.imports.includes("support/read.ts"))).toBe(true);
  });

  it("the format library imports nothing above it", () => {
    for (const { file, imports } of graph.filter((g) => under("format")(g.file))) {
      const upward = imports.filter((i) => !i.startsWith("node:") && i.endsWith(".ts") && !under("format")(i));
      expect(upward, file).toEqual([]);
    }
  });

  it("renderers turn data into text: no file system, no commands, no command support", () => {
    for (const { file, imports } of graph.filter((g) => under("render")(g.file))) {
      expect(imports.filter((i) => i === "node:fs" || i === "fs" || under("commands")(i) || under("support")(i) || i === "cli.ts"), file).toEqual([]);
    }
  });

  it("no command imports another; command support imports no command", () => {
    for (const { file, imports } of graph.filter((g) => under("commands")(g.file) || under("support")(g.file))) {
      expect(imports.filter(under("commands")), file).toEqual([]);
    }
  });

  it("only cli.ts reaches the process's streams, environment and exit", () => {
    for (const { file, text } of graph.filter((g) => g.file !== "cli.ts")) {
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      expect(code.match(/process\.(stdout|stderr|stdin|env|exit|argv)\b/g) ?? [], file).toEqual([]);
    }
  });
});
