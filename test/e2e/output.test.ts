/** Untrusted session text never reaches the terminal raw; colour follows the TTY rules; --json is pure. */
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { fixture } from "../helpers/paths.js";

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("terminal safety", () => {
  it.each([["show"], ["tree"], ["path"], ["path", "--leaves"], ["context"], ["context", "--llm"], ["show", "f0000001"]])(
    "%s neutralises escapes, carriage returns and bidi overrides",
    async (cmd, ...rest) => {
      const r = await cli([cmd, fixture("escapes.jsonl"), ...rest]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).not.toMatch(CONTROL);
      // what is shown of the text is shown escaped
      expect(r.stdout).toMatch(/\\(x1b|u001b)(\]0;pwned|\[2Jclear)/);
    },
  );

  it("ls shows titles escaped too; piped, with no isolate of ours around right-to-left text (a terminal's table has them)", async () => {
    const r = await cli(["ls", fixture(".")]);
    // (piped output is whole and plain, as tail's and grep's: a script reading a title gets its text)
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toMatch(/[\u0590-\u08ff]/);
  });
});

describe("colour", () => {
  it("is off when stdout is not a TTY, on with FORCE_COLOR or --color, off with --no-color", async () => {
    const plain = await cli(["tree", fixture("branched.jsonl")], { env: { NO_COLOR: undefined } });
    expect(plain.stdout).not.toContain("\u001b[");
    const forced = await cli(["tree", fixture("branched.jsonl")], { env: { NO_COLOR: undefined, FORCE_COLOR: "1" } });
    expect(forced.stdout).toContain("\u001b[");
    const flag = await cli(["tree", fixture("branched.jsonl"), "--color"]);
    expect(flag.stdout).toContain("\u001b[");
    const off = await cli(["tree", fixture("branched.jsonl"), "--no-color"], { env: { NO_COLOR: undefined, FORCE_COLOR: "1" } });
    expect(off.stdout).not.toContain("\u001b[");
  });

  it("does not move the columns of a table: ls in colour is ls without it, once the codes are gone", async () => {
    const plain = await cli(["ls", fixture("."), "--no-cache", "--no-color"]);
    const coloured = await cli(["ls", fixture("."), "--no-cache", "--color"]);
    expect(coloured.stdout).toContain("\u001b[");
    // eslint-disable-next-line no-control-regex
    expect(coloured.stdout.replace(/\u001b\[[0-9;]*m/g, "")).toBe(plain.stdout);
  });

  it("--json is one JSON document with no colour, whatever the environment", async () => {
    for (const cmd of [["show"], ["tree"], ["path"], ["context"], ["check"]]) {
      const r = await cli([cmd[0]!, fixture("escapes.jsonl"), "--json"], { env: { FORCE_COLOR: "1" } });
      expect(() => JSON.parse(r.stdout)).not.toThrow();
      expect(r.stdout).not.toContain("\u001b[");
    }
  });
});
