/**
 * package.json's scripts name the files they run: each one must exist. A path vitest is given
 * that matches no file is left out without a word (the fuzz script ran one of its three suites
 * for a while after two moved).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;

describe("package.json's scripts", () => {
  it("name only files and folders that exist", () => {
    const named = Object.entries(scripts).flatMap(([name, command]) => (command.match(/(?:^|\s)((?:test|bench|scripts)\/[^\s"'&|;]+)/g) ?? []).map((p) => ({ name, path: p.trim() })));
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter(({ path }) => !existsSync(join(ROOT, path)))).toEqual([]);
  });
});
