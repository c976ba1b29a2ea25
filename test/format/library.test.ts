/**
 * The library's face (docs/reference.md, "The library"): the package's entry exports what its table
 * lists, no more and no less, and its example does what it says on a fixture.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as library from "../../src/format/index.js";

const README = readFileSync(new URL("../../docs/reference.md", import.meta.url), "utf8");
const INDEX = readFileSync(new URL("../../src/format/index.ts", import.meta.url), "utf8");

/** The names docs/reference.md's table of the library lists. */
function documented(): string[] {
  const section = README.slice(README.indexOf("## The library"), README.indexOf("\n## ", README.indexOf("## The library") + 1));
  const rows = section.split("\n").filter((l) => /^\| [a-z]/.test(l) && !l.startsWith("| For"));
  return rows.flatMap((row) => [...row.split("|")[2]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
}

/** Every name index.ts exports, values and types. */
function exported(): string[] {
  const code = INDEX.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  return [...code.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) => m[1]!.split(",").map((s) => s.trim().replace(/^type\s+/, "").split(" as ").at(-1)!.trim()).filter(Boolean));
}

describe("the library", () => {
  it("exports what README documents, and only that", () => {
    const names = documented();
    expect(names.length).toBeGreaterThan(40);
    expect(new Set(names).size).toBe(names.length);
    expect([...exported()].sort()).toEqual([...names].sort());
    // (and every value among them is there at run time: a type is not)
    for (const name of Object.keys(library)) expect(names, name).toContain(name);
    for (const name of ["openSession", "contextAt", "Validator", "planRepair", "writeRepair", "sentAt", "grepFile", "readFileUsage"]) expect(typeof (library as Record<string, unknown>)[name], name).toBe("function");
  });

  it("README's example: a session opened, its context at the leaf, its findings", async () => {
    const session = await library.openSession(new URL("../../fixtures/branched.jsonl", import.meta.url).pathname);
    try {
      const context = library.contextAt(session, session.leafNode);
      expect(context.messages.length).toBeGreaterThan(0);
      expect(session.entry(session.leafNode).type).toBe("label"); // (the fixture ends with a label: pi resumes after it)
      const findings = new library.Validator().findings(session);
      expect(library.countBySeverity(findings).error).toBe(0);
    } finally {
      session.close();
    }
  });
});
