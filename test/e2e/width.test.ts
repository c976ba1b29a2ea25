/**
 * Human output fits the terminal: `main` run in-process with a terminal of 60, 80, 100 and 160
 * columns (a stdout that says it is a TTY of that width), for `ls` of the corpus, `check` of the
 * fixtures, `migrate --check` / `repair --check` / `slim --check` of a directory, and `tree` of a
 * session whose branches nest 60 deep. No line is wider than the
 * terminal; the most important columns are always there; `--wide` keeps them all; piped output
 * is one layout whatever the width.
 */
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { assistant, entry, header, jsonl, user } from "../helpers/builders.js";
import { CORPUS, FIXTURES } from "../helpers/paths.js";

async function run(args: string[], columns: number | undefined): Promise<{ code: number; out: string }> {
  const chunks: Buffer[] = [];
  const stdout = Object.assign(new PassThrough(), columns === undefined ? {} : { isTTY: true, columns });
  stdout.on("data", (c: Buffer) => chunks.push(c));
  const stderr = new PassThrough();
  stderr.resume();
  const cache = mkdtempSync(join(tmpdir(), "pi-session-width-cache-"));
  const code = await main(args, { stdout, stderr, env: { NO_COLOR: "1", XDG_CACHE_HOME: cache, PI_SESSION_THREADS: "1" } });
  return { code, out: Buffer.concat(chunks).toString("utf8") };
}

/** Display width, the zero-width isolates around right-to-left cells left out. */
const width = (line: string) => stringWidth(line.replace(/[\u2068\u2069]/g, ""));
const headOf = (out: string, first: string) => out.split("\n").find((l) => l.startsWith(first))!.trim().split(/\s{2,}/);

const fixturesCopy = () => {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-width-"));
  cpSync(FIXTURES, dir, { recursive: true });
  return dir;
};

const CASES: Array<{ name: string; args: () => string[]; head: string; mustShow: (columns: number) => string[]; all: string[] }> = [
  {
    name: "ls of the corpus",
    args: () => ["ls", CORPUS],
    head: "id",
    mustShow: (c) => (c >= 80 ? ["id", "status", "name / first message", "last activity", "msgs", "size"] : ["id", "status"]),
    all: ["id", "name / first message", "cwd", "created", "last activity", "msgs", "branches", "size", "v", "status"],
  },
  { name: "check of a directory", args: () => ["check", fixturesCopy()], head: "file", mustShow: () => ["file", "result"], all: ["file", "v", "result", "errors", "warnings", "notes"] },
  { name: "migrate --check of a directory", args: () => ["migrate", fixturesCopy(), "--check"], head: "file", mustShow: () => ["file", "result"], all: ["file", "from", "result", "note"] },
  { name: "repair --check of a directory", args: () => ["repair", fixturesCopy(), "--check"], head: "file", mustShow: () => ["file", "result"], all: ["file", "actions", "dropped", "result", "note"] },
  { name: "slim --check of a directory", args: () => ["slim", fixturesCopy(), "--check", "--min-size", "64"], head: "file", mustShow: () => ["file", "result"], all: ["file", "before", "after", "result", "note"] },
];

describe("output that fits the terminal", () => {
  for (const c of CASES) {
    for (const columns of [60, 80, 100, 160]) {
      it(`${c.name} at ${columns} columns`, async () => {
        const { out } = await run(c.args(), columns);
        const lines = out.trimEnd().split("\n");
        for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(columns);
        const head = headOf(out, c.head);
        // (a head may be cut with an ellipsis when its column shrinks)
        for (const h of c.mustShow(columns)) expect(head.some((x) => x === h || (x.endsWith("…") && h.startsWith(x.slice(0, -1)))), `${h} at ${columns}: ${head.join(" | ")}`).toBe(true);
      });
    }
    it(`${c.name}: --wide draws every column, and piped output is one layout at any width`, async () => {
      const wide = await run([...c.args(), "--wide"], 60);
      expect(headOf(wide.out, c.head)).toEqual(c.all);
      const piped = await run(c.args(), undefined);
      expect(headOf(piped.out, c.head)).toEqual(c.all);
    });
  }

  /** A session whose branches nest `depth` deep: each user turn has an answer and a retry, the retry goes on. */
  function deepSession(depth: number): string {
    const records = [header()];
    let parent: string | null = null;
    for (let d = 0; d < depth; d++) {
      const id = `u${String(d).padStart(7, "0")}`;
      records.push(user(id, parent, `question ${d}: ${"why ".repeat(30)}`));
      records.push(assistant(`a${String(d).padStart(7, "0")}`, id, `answer ${d}: ${"because ".repeat(30)}`));
      parent = id;
    }
    const last = `a${String(depth - 1).padStart(7, "0")}`;
    records.push(entry("label", "l0000001", last, { targetId: last, label: "the deepest answer, a long label to cut" }));
    const file = join(mkdtempSync(join(tmpdir(), "pi-session-width-")), "deep.jsonl");
    writeFileSync(file, jsonl(...records));
    return file;
  }

  it("tree of a session nested 60 deep fits 60, 80, 100 and 160 columns; piped, it is drawn whole", async () => {
    const file = deepSession(60);
    const piped = (await run(["tree", file], undefined)).out.trimEnd().split("\n");
    const widest = Math.max(...piped.map(width));
    expect(widest).toBeGreaterThan(160);
    expect(piped.some((l) => /^…\d+ /.test(l))).toBe(false);
    for (const columns of [60, 80, 100, 160]) {
      const lines = (await run(["tree", file], columns)).out.trimEnd().split("\n");
      expect(lines).toHaveLength(piped.length);
      for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(columns);
      // every entry keeps its id, in the same order; deep lines say how many levels are not drawn
      expect(lines.map((l) => /[ua]\d{7}/.exec(l)?.[0])).toEqual(piped.map((l) => /[ua]\d{7}/.exec(l)?.[0]));
      expect(lines.find((l) => l.includes("a0000059"))).toMatch(/^…\d+ .*a0000059 assistant \[the deepest/);
      expect(lines.at(-1)).toMatch(/^…\d+ .*l0000001 label ← current leaf/);
    }
    // --wide: the branches drawn whole on a terminal too (each line's drawing up to its id as piped)
    const upToId = (l: string) => l.slice(0, l.search(/[ual]\d{7}/));
    const wide = (await run(["tree", file, "--wide"], 60)).out.trimEnd().split("\n");
    expect(wide.map(upToId)).toEqual(piped.map(upToId));
  });

  it("path, path --leaves and show fit 60, 80, 100 and 160 columns, long labels and totals included", async () => {
    const file = deepSession(60);
    for (const args of [["path", file], ["path", file, "--leaves"], ["show", file]]) {
      const piped = (await run(args, undefined)).out.trimEnd().split("\n");
      expect(Math.max(...piped.map(width)), args.join(" ")).toBeGreaterThan(60);
      for (const columns of [60, 80, 100, 160]) {
        const lines = (await run(args, columns)).out.trimEnd().split("\n");
        for (const line of lines) expect(width(line), `${args.join(" ")} at ${columns}: ${line}`).toBeLessThanOrEqual(columns);
        // every entry or leaf is still there, with its id
        for (const id of piped.map((l) => /[ual]\d{7}/.exec(l)?.[0]).filter(Boolean)) expect(lines.some((l) => l.includes(id!)), `${id} at ${columns}`).toBe(true);
      }
    }
  });

  it("ls of the corpus at 80 and 100 columns is one line a session", async () => {
    const sessions = (await run(["ls", CORPUS, "--json"], undefined)).out;
    const count = JSON.parse(sessions).sessions.length as number;
    for (const columns of [80, 100]) {
      const { out } = await run(["ls", CORPUS], columns);
      expect(out.trimEnd().split("\n")).toHaveLength(1 + count);
    }
  });
});
