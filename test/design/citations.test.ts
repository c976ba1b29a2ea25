/**
 * Code and docs cite measured figures by name (`BENCHMARKS.md, "the bundle"`) instead of carrying
 * them: each name cited is a bold entry or a heading of BENCHMARKS.md, so a figure cannot be
 * dropped from the reference while something still leans on it. Likewise a section of README or
 * docs/ cited by its heading (`docs/commands.md, "One verdict"`) is a heading there.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../..", import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.(ts|mjs|js)$/.test(e.name) ? [join(dir, e.name)] : []));
}

describe("BENCHMARKS.md's citations", () => {
  const reference = readFileSync(join(ROOT, "BENCHMARKS.md"), "utf8");
  const named = new Set([...reference.matchAll(/\*\*([^*]+)\*\*/g), ...reference.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.toLowerCase()));
  const citing = [...files("src"), ...files("bench"), ...files("scripts"), "README.md", "ARCHITECTURE.md", ...readdirSync(join(ROOT, "docs")).map((f) => join("docs", f))];
  const cited = citing.flatMap((f) => [...readFileSync(join(ROOT, f), "utf8").replace(/\n\s*(\*|\/\/)\s*/g, " ").matchAll(/BENCHMARKS\.md, "([^"]+)"/g)].map((m) => ({ file: f, name: m[1]! })));

  it("finds the citations", () => {
    expect(cited.length).toBeGreaterThan(20);
  });

  it("each names an entry or a heading", () => {
    expect(cited.filter((c) => !named.has(c.name.toLowerCase()))).toEqual([]);
  });
});

describe("the docs' citations", () => {
  // (code and docs cite a section of README or docs/ by its heading: `docs/commands.md, "One verdict"`)
  const citing = [...files("src"), ...files("test"), ...files("bench"), ...files("scripts"), "README.md", "ARCHITECTURE.md", ...readdirSync(join(ROOT, "docs")).map((f) => join("docs", f))];
  const cited = citing.flatMap((f) => [...readFileSync(join(ROOT, f), "utf8").replace(/\n\s*(\*|\/\/)\s*/g, " ").matchAll(/\b(README|docs\/[\w-]+\.md), "([^"]+)"/g)].map((m) => ({ file: f, doc: m[1] === "README" ? "README.md" : m[1]!, name: m[2]! })));
  const headings = (doc: string) => new Set([...readFileSync(join(ROOT, doc), "utf8").matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.replace(/`/g, "").toLowerCase()));

  it("finds them", () => {
    expect(cited.length).toBeGreaterThan(20);
  });

  it("each names a heading of the page it cites (a word of one, for a command's)", () => {
    const missing = cited.filter((c) => {
      const names = headings(c.doc);
      const name = c.name.replace(/`/g, "").replace(/\s+/g, " ").toLowerCase();
      return !names.has(name) && ![...names].some((h) => h.split(/[ —]+/).includes(name));
    });
    expect(missing).toEqual([]);
  });
});
