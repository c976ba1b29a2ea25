/**
 * What the command line knows of options before yargs reads them (`forParser`: a value that starts
 * with `-` and a digit is its option's) and what help names each value by, held to what the
 * commands declare: every option that takes a free value is in `VALUE_OPTIONS`, and every
 * one-letter name of one in `SHORT_VALUE_OPTIONS`, naming it.
 */
import yargs from "yargs";
import { describe, expect, it } from "vitest";
import { SHORT_VALUE_OPTIONS, VALUE_OPTIONS } from "../../src/cli/arguments.js";
import { COMMANDS } from "../../src/cli/commands.js";

interface Declared {
  key: Record<string, unknown>;
  boolean: string[];
  count: string[];
  array: string[];
  alias: Record<string, string[]>;
  choices: Record<string, unknown[]>;
}

describe("the options that take a value", () => {
  it("are every command's options of a free value, by their names and one-letter names", () => {
    const kebab = (k: string) => k.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`);
    const seen = new Set<string>();
    for (const spec of COMMANDS) {
      const o = (spec.builder(yargs()) as unknown as { getOptions(): Declared }).getOptions();
      const positionals = [...spec.command.matchAll(/[<[]([\w-]+)/g)].map((m) => m[1]!);
      const none = new Set([...o.boolean, ...o.count, ...o.array, ...Object.keys(o.choices), ...positionals]);
      for (const key of Object.keys(o.key)) {
        if (none.has(key) || key.length === 1 || /[A-Z]/.test(key) || key === "help" || key === "version") continue;
        seen.add(key);
        expect(VALUE_OPTIONS[kebab(key)], `${spec.command}: --${key}`).toBeDefined();
        for (const a of o.alias[key] ?? []) if (a.length === 1) expect(SHORT_VALUE_OPTIONS[a], `${spec.command}: -${a}`).toBe(key);
      }
      for (const [short, long] of Object.entries(SHORT_VALUE_OPTIONS)) if (o.key[long] !== undefined) expect(o.alias[long] ?? [], `${spec.command}: -${short}`).toContain(short);
    }
    // (and nothing named there that no command takes)
    for (const name of Object.keys(VALUE_OPTIONS)) if (name !== "session-dir") expect(seen.has(name), name).toBe(true);
  });
});
