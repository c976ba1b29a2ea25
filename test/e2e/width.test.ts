/**
 * Human output fits the terminal: `main` run in-process with a terminal of 60, 80, 100 and 160
 * columns (a stdout that says it is a TTY of that width), for `ls` of the corpus, `check` of the
 * fixtures, `migrate --check` / `repair --check` / `slim --check` of a directory, `usage` of the
 * corpus and of a store in Chinese and Arabic, and `tree` of a session whose branches nest 60 deep. No line is wider than the
 * terminal; the most important columns are always there; `--wide` keeps them all; piped output
 * is one layout whatever the width.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { PassThrough } from "node:stream";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { assistant, entry, header, jsonl, user } from "../helpers/builders.js";
import { cli } from "../helpers/cli.js";
import { CORPUS, FIXTURES, ROOT } from "../helpers/paths.js";

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
/** A line's width but for a path (README: a path or a command is never broken, however long: a line runs past the width for it alone). */
const widthBut = (line: string, path: string) => width(line.replace(path, ""));
const headOf = (out: string, first: string) => out.split("\n").find((l) => l.startsWith(first))!.trim().split(/\s{2,}/);

/** pi's fixtures (not the OpenClaw store among them, whose column is another case: the OpenClaw tests). */
const fixturesCopy = () => {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-width-"));
  cpSync(FIXTURES, dir, { recursive: true, filter: (from) => !from.includes("openclaw-cold") });
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
  {
    // (fixtures/events.jsonl's status, "not a session: pi's --mode json event stream", is cut, not the columns)
    name: "ls of the fixtures, one of them a long status",
    args: () => ["ls", fixturesCopy()],
    head: "id",
    mustShow: (c) => (c >= 80 ? ["id", "status", "name / first message", "last activity", "msgs", "size"] : ["id", "status"]),
    all: ["id", "name / first message", "cwd", "created", "last activity", "msgs", "branches", "size", "v", "status"],
  },
  { name: "check of a directory", args: () => ["check", fixturesCopy()], head: "file", mustShow: () => ["file", "result"], all: ["file", "v", "result", "errors", "warnings", "notes"] },
  { name: "migrate --check of a directory", args: () => ["migrate", fixturesCopy(), "--check"], head: "file", mustShow: () => ["file", "result"], all: ["file", "from", "result", "note"] },
  { name: "repair --check of a directory", args: () => ["repair", fixturesCopy(), "--check"], head: "file", mustShow: () => ["file", "result"], all: ["file", "actions", "dropped", "result", "note"] },
  { name: "slim --check of a directory", args: () => ["slim", fixturesCopy(), "--check", "--min-size", "64"], head: "file", mustShow: () => ["file", "result"], all: ["file", "before", "after", "result", "note"] },
  {
    name: "usage of the corpus by project",
    args: () => ["usage", CORPUS, "--by", "project"],
    head: "project",
    mustShow: (c) => (c >= 80 ? ["project", "requests", "input", "output", "total", "cost"] : ["project", "total", "cost"]),
    // (the corpus holds requests with no cost recorded: what they would have cost beside)
    all: ["project", "sessions", "requests", "input", "output", "cache read", "cache write", "total", "cost", "estimated", "models"],
  },
  {
    name: "usage of the corpus by session",
    args: () => ["usage", CORPUS, "--by", "session"],
    head: "session",
    // (the session's name takes the room first: at 80 columns the inherited cost gives way to it)
    mustShow: (c) => (c >= 100 ? ["session", "requests", "total", "cost", "inherited"] : c >= 80 ? ["session", "requests", "total", "cost"] : ["session", "total", "cost"]),
    all: ["session", "created", "requests", "input", "output", "cache read", "cache write", "total", "cost", "estimated", "inherited", "models"],
  },
  { name: "usage of a store in Chinese and Arabic, by model with each project", args: () => ["usage", scriptsStore(), "--by", "project", "--breakdown"], head: "project", mustShow: () => ["project", "total", "cost"], all: ["project", "sessions", "requests", "input", "output", "cache read", "cache write", "total", "cost", "models"] },
];

/** A store of two projects whose paths and models are in Chinese and Arabic (made once). */
let scripts: string | undefined;
function scriptsStore(): string {
  if (scripts) return scripts;
  scripts = mkdtempSync(join(tmpdir(), "pi-session-width-store-"));
  const usage = (n: number) => ({ input: 1000 * n, output: 100 * n, cacheRead: 5000 * n, cacheWrite: 50 * n, totalTokens: 6150 * n, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: n } });
  const projects = [
    { dir: "--home-用户-项目-网上商店的客户端和服务端--", cwd: "/home/用户/项目/网上商店的客户端和服务端", model: "通义千问-最大版本-2026", text: "总结这个库的公共接口" },
    { dir: "--home-مستخدم-مشروع-المقهى--", cwd: "/home/مستخدم/مشروع/متجر القهوة العربية على الإنترنت", model: "نموذج-عربي-كبير", text: "لخص واجهة المكتبة" },
  ];
  projects.forEach((p, k) => {
    mkdirSync(join(scripts!, p.dir), { recursive: true });
    const message = { role: "assistant", content: [{ type: "text", text: p.text }], provider: "本地", model: p.model, usage: usage(k + 1), stopReason: "stop", timestamp: 1 };
    writeFileSync(join(scripts!, p.dir, `2026-03-0${k + 1}T10-00-00-000Z_s${k}.jsonl`), jsonl(header({ id: `s${k}`, cwd: p.cwd, timestamp: `2026-03-0${k + 1}T10:00:00.000Z` }), user("a0000001", null, p.text), { ...assistant("a0000002", "a0000001", p.text), message }));
  });
  return scripts;
}

describe("output that fits the terminal", () => {
  it("usage --breakdown: a model's row keeps its indent under its project however narrow, in any script", async () => {
    for (const columns of [60, 80]) {
      const lines = (await run(["usage", scriptsStore(), "--by", "project", "--breakdown"], columns)).out.trimEnd().split("\n").map((l) => l.replace(/[\u2068\u2069]/g, ""));
      const models = lines.filter((l) => /2026|كبير/.test(l) && !/^[…/]/.test(l));
      expect(models, lines.join("\n")).toHaveLength(2);
      for (const m of models) expect(m).toMatch(/^ {2}[^ ]/);
    }
  });

  for (const c of CASES) {
    for (const columns of [60, 80, 100, 160]) {
      it(`${c.name} at ${columns} columns`, async () => {
        const { out } = await run(c.args(), columns);
        const lines = out.trimEnd().split("\n");
        // (a path and a command are never broken: a line runs past the width only for one wider than the room, alone after its lead)
        const unbroken = (line: string) => /^(\S+:\d*:?|  next: pi-session \S+ \S+)$/.test(line) && width(line.replace(/^  next: pi-session \S+ /, "").replace(/:\d*:?$/, "")) > columns - 28;
        for (const line of lines) if (!unbroken(line)) expect(width(line), line).toBeLessThanOrEqual(columns);
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

  it("the top-level help at 80 columns: each paragraph of the footer wrapped once, never mid-sentence twice", async () => {
    // (yargs prints help through console.log)
    const printed: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => printed.push(args.join(" "));
    try {
      await run(["--help"], 80);
    } finally {
      console.log = log;
    }
    const lines = printed.join("\n").split("\n");
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(80);
    const start = lines.findIndex((l) => l.startsWith("FILE is a path"));
    const end = lines.indexOf("", start);
    const paragraph = lines.slice(start, end);
    expect(paragraph.join(" ")).toBe("FILE is a path, - for stdin, or a session id (or unique prefix) or OpenClaw key looked up in the stores: pi's session directory (--session-dir, else $PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions) and OpenClaw's ($OPENCLAW_STATE_DIR, else ~/.openclaw; --session-dir takes an OpenClaw root too).");
    // (a line is only cut short where the next word would not fit)
    for (let i = 0; i + 1 < paragraph.length; i++) expect(width(paragraph[i]!) + 1 + width(paragraph[i + 1]!.split(" ")[0]!), paragraph[i]).toBeGreaterThan(80);
  });

  it("ls of an OpenClaw store in its SQLite era at 60 and 80 columns: a transcript's copy still says (copy), its archives their mark", async () => {
    const store = join(mkdtempSync(join(tmpdir(), "pi-session-width-")), "ccccx");
    cpSync(join(ROOT, "../shared/openclaw-stores-sqlite/ccccx"), store, { recursive: true });
    const json = JSON.parse((await run(["ls", store, "--json"], undefined)).out) as { sessions: Array<{ copyOf: string | null; archived: string | null }> };
    const copies = json.sessions.filter((r) => r.copyOf).length;
    const resets = json.sessions.filter((r) => r.archived === "reset").length;
    expect(copies).toBeGreaterThan(0);
    for (const columns of [60, 80]) {
      const lines = (await run(["ls", store], columns)).out.split("\n");
      expect(lines.filter((l) => l.includes("(copy)")).length, lines.join("\n")).toBe(copies);
      expect(lines.filter((l) => l.includes("(reset)")).length).toBe(resets);
      for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(columns);
      // (README: id, name, last activity, messages, size and status stay at 80 columns, in every store)
      if (columns === 80) expect(headOf(lines.join("\n"), "id")).toEqual(["id", "name / first message", "last activity", "msgs", "size", "status"]);
    }
  });

  it("path, tree, show and check of a session whose ids are UUIDs fit 60 and 80 columns; path shows an id's start, which show takes as the id", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-width-uuid-"));
    const file = join(dir, "uuids.jsonl");
    const id = (k: number) => `${(0x3c26b3ae + k).toString(16)}-91f3-4785-a687-ad8e85b49b${(10 + k).toString(16).padStart(2, "0")}`;
    // (a branch, so that show lists leaves and a branch point: a second answer to the first poll)
    const branch = jsonl(assistant("9d1e2f3a-91f3-4785-a687-ad8e85b49bff", id(0), "a second answer"));
    writeFileSync(file, Buffer.concat([jsonl(header()), ...Array.from({ length: 6 }, (_, k) => jsonl(k % 2 ? assistant(id(k), id(k - 1), "HEARTBEAT_OK") : user(id(k), k === 0 ? null : id(k - 1), "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly."))), branch]));
    for (const columns of [60, 80]) {
      for (const args of [["path", file], ["tree", file], ["show", file], ["check", file]]) {
        const { out } = await run(args, columns);
        for (const line of out.trimEnd().split("\n")) expect(widthBut(line, file), `${args[0]} at ${columns}: ${line}`).toBeLessThanOrEqual(columns);
      }
    }
    const { out } = await run(["path", file], 80);
    const shown = out.trimEnd().split("\n").at(-1)!.trim().split(/\s+/)[1]!;
    // (a start of the id, cut with …, and a preview beside it)
    expect(shown).toMatch(/^9d1e2f3a-[0-9a-f-]*…$/);
    expect(out).toContain("a second answer");
    const shownEntry = await cli(["show", file, shown.slice(0, -1), "--json"]);
    expect(JSON.parse(shownEntry.stdout).entry.id).toBe("9d1e2f3a-91f3-4785-a687-ad8e85b49bff");
  });

  it("migrate of a folder at 60 and 80 columns: why a file was refused, and what to run, reads whole (wrapped under its note, never cut)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-width-refused-"));
    for (const f of ["fused.jsonl", "newer-version.jsonl", "v1.jsonl"]) cpSync(join(FIXTURES, f), join(dir, f));
    for (const columns of [60, 80]) {
      const { out } = await run(["migrate", dir, "--check"], columns);
      const lines = out.trimEnd().split("\n");
      for (const l of lines) expect(width(l)).toBeLessThanOrEqual(columns);
      const joined = out.replace(/\n {10,}/g, " ");
      expect(joined).toContain("damaged (line 3: a record and a torn fragment on one line); run `pi-session repair` first");
      expect(joined).toContain("version 4 is newer than this tool's 3; upgrade pi-session");
      // (a note is never cut: no line of the table ends in an ellipsis; a path may lose its folders)
      for (const l of lines) expect(l).not.toMatch(/…$/);
    }
  });

  it("ls at 80 columns: a row always says which file it is (a file with no session by its name, copies of one session by what tells their names apart)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-width-rows-"));
    const session = jsonl(header({ id: "0f1e2d3c-aaaa-4000-8000-000000000001" }), user("u0000001", null, "the same question"));
    writeFileSync(join(dir, "2026-03-01T10-00-00-000Z_0f1e2d3c-aaaa-4000-8000-000000000001.jsonl"), session);
    writeFileSync(join(dir, "2026-03-01T10-00-00-000Z_0f1e2d3c-aaaa-4000-8000-000000000001.v3.jsonl"), session);
    writeFileSync(join(dir, "notes.jsonl"), "not a session\n");
    const { code, out } = await run(["ls", dir], 80);
    expect(code).toBe(0);
    const lines = out.trimEnd().split("\n").slice(1);
    expect(lines).toHaveLength(3);
    expect(new Set(lines).size).toBe(3);
    expect(lines.some((l) => /^-\s+notes\.jsonl\s/.test(l))).toBe(true);
    expect(lines.some((l) => l.includes("(…jsonl)"))).toBe(true);
    expect(lines.some((l) => l.includes("(…v3.jsonl)"))).toBe(true);
    for (const l of lines) expect(width(l)).toBeLessThanOrEqual(80);
  });

  it("every command's --help at 80 columns: no line wider", async () => {
    for (const command of ["ls", "show", "tree", "path", "context", "check", "migrate", "repair", "fork", "export", "slim", "usage", "grep", "cat", "diff", "completion"]) {
      const printed: string[] = [];
      const log = console.log;
      console.log = (...args: unknown[]) => printed.push(args.join(" "));
      let out: string;
      try {
        out = (await run([command, "--help"], 80)).out;
      } finally {
        console.log = log;
      }
      const lines = `${printed.join("\n")}\n${out}`.split("\n");
      expect(lines.length, command).toBeGreaterThan(5);
      for (const line of lines) expect(width(line), `${command}: ${line}`).toBeLessThanOrEqual(80);
      // (each example, pasted line by line, runs as written: a comment's every line a comment, a command whole)
      const examples = lines.slice(lines.indexOf("Examples:") + 1);
      for (const line of examples.slice(0, examples.indexOf(""))) expect(line, `${command}: ${line}`).toMatch(/^ {2}(# |pi-session )/);
    }
  });

  it("a finding's file:line and its next step are never broken, however long the path: each pastes as it is", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "pi-session-width-")), "--home-someone-with-a-long-name-projects-a-project-with-a-long-name--");
    mkdirSync(dir);
    const file = join(dir, "2026-03-01T10-00-00-000Z_0f1e2d3c-aaaa-4000-8000-000000000001.jsonl");
    cpSync(join(FIXTURES, "fused.jsonl"), file);
    for (const columns of [60, 80]) {
      const lines = (await run(["check", file], columns)).out.split("\n");
      expect(lines, lines.join("\n")).toContain(`${file}:3:`);
      expect(lines).toContain(`  next: pi-session repair ${file}`);
    }
  });

  it("tree's previews take the room a line has: at 100 columns a long message is shown to the edge, not stopped at 60", async () => {
    const file = join(ROOT, "../shared/openclaw-stores/ccccx/agents/main/sessions/4cd0abc6-56b7-41af-ad24-4dfe17acb43c.jsonl");
    for (const columns of [80, 100, 160]) {
      const lines = (await run(["tree", file], columns)).out.trimEnd().split("\n");
      for (const l of lines) expect(width(l), l).toBeLessThanOrEqual(columns);
      // (a line whose preview was cut reaches within a few columns of the edge)
      const cut = lines.filter((l) => l.endsWith("…"));
      expect(cut.length, `${columns}`).toBeGreaterThan(0);
      for (const l of cut) expect(width(l), l).toBeGreaterThanOrEqual(columns - 4);
    }
  });

  it("path on a terminal names its columns in a head line (the first is the file's line); piped, the lines alone", async () => {
    const terminal = (await run(["path", join(FIXTURES, "linear.jsonl")], 80)).out.split("\n");
    expect(terminal[0]).toMatch(/^line {2}id +kind +time +preview$/);
    expect(terminal[1]).toMatch(/^ {3}2 {2}a0000001 {2}model_change/);
    expect((await run(["path", join(FIXTURES, "linear.jsonl")], undefined)).out).toMatch(/^2 {2}a0000001 {2}model_change/);
  });

  it("context of the corpus at 80 columns: no line wider, a tool call's indented lines included", async () => {
    let lines = 0;
    for (const file of readdirSync(CORPUS).filter((f) => f.endsWith(".jsonl")).slice(0, 16)) {
      const { out } = await run(["context", join(CORPUS, file)], 80);
      for (const line of out.split("\n")) expect(width(line), `${file}: ${line}`).toBeLessThanOrEqual(80);
      lines += out.split("\n").length;
    }
    expect(lines).toBeGreaterThan(1000);
  });

  it("--help names what an option takes (--cwd PATH, --limit N), its description at its column or on the line under it", async () => {
    for (const columns of [80, undefined]) {
      const printed: string[] = [];
      const log = console.log;
      console.log = (...args: unknown[]) => printed.push(args.join(" "));
      try {
        await run(["ls", "--help"], columns);
      } finally {
        console.log = log;
      }
      const lines = printed.join("\n").split("\n");
      expect(lines).toContainEqual(expect.stringMatching(/^ {6}--cwd PATH {2,}only sessions whose working directory is PATH/));
      expect(lines).toContainEqual(expect.stringMatching(/^ {6}--limit N {2,}show at most N sessions$/));
      const dir = lines.findIndex((l) => /^ {6}--session-dir DIR/.test(l));
      expect(dir).toBeGreaterThan(0);
      // (no room beside it: the description under it, at the column the others start at)
      const column = lines.find((l) => l.startsWith("      --json"))!.indexOf("print");
      expect(lines[dir + 1]!.indexOf("the store")).toBe(column);
      if (columns) for (const l of lines) expect(width(l), l).toBeLessThanOrEqual(columns);
    }
  });

  it("piped, a command's --help wraps nothing: an example is one line, whole", async () => {
    for (const command of ["cat", "diff", "usage", "grep"]) {
      const printed: string[] = [];
      const log = console.log;
      console.log = (...args: unknown[]) => printed.push(args.join(" "));
      try {
        await run([command, "--help"], undefined);
      } finally {
        console.log = log;
      }
      const lines = printed.join("\n").split("\n");
      const examples = lines.slice(lines.indexOf("Examples:") + 1);
      for (const line of examples.slice(0, examples.indexOf(""))) expect(line, `${command}: ${line}`).toMatch(/^ {2}(# |pi-session )/);
    }
    const cat = await cli(["cat", "--help"]);
    expect(cat.stdout).toContain("pi-session cat 4cd0abc6 | jq -c 'select(.type == \"compaction\")'\n");
  });

  it("a table cuts a file's path from its folders, so that its name reads from the start (the id ls shows)", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "pi-session-width-")), "--home-someone-with-a-long-name-projects-a-project-with-a-long-name--");
    mkdirSync(dir);
    const names = ["2026-03-01T10-00-00-000Z_0f1e2d3c-aaaa-4000-8000-000000000001.jsonl", "2026-03-02T10-00-00-000Z_9c8b7a6d-bbbb-4000-8000-000000000002.jsonl"];
    for (const [k, name] of names.entries()) writeFileSync(join(dir, name), jsonl(header({ id: name.slice(25, -6) }), user(`a000000${k}`, null, "hi")));
    for (const args of [["check", dir], ["migrate", dir, "--check"]]) {
      const rows = (await run(args, 80)).out.split("\n").filter((l) => l.includes("_"));
      expect(rows, args[0]).toHaveLength(2);
      for (const [k, row] of rows.entries()) expect(row, args[0]).toMatch(new RegExp(`^(…/)?${names[k]!.slice(0, 30)}`));
    }
  });

  it("show at 80 columns keeps each label with its value, and names the file once under its findings", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "pi-session-width-")), `--${"a-long-folder-name-".repeat(5)}--`);
    mkdirSync(dir);
    const file = join(dir, "2026-03-01T10-00-00-000Z_0f1e2d3c-aaaa-4000-8000-000000000001.jsonl");
    const big = { ...assistant("a0000002", "a0000001", "ok"), message: { ...assistant("a0000002", "a0000001", "ok").message, usage: { input: 1_560, output: 46_964, cacheRead: 25_101_148, cacheWrite: 981_976, totalTokens: 26_131_648, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 19.87 } } } };
    writeFileSync(file, jsonl(header(), user("a0000001", null, "hi"), big, "not json", "also not json"));
    const out = (await run(["show", file], 80)).out;
    const lines = out.trimEnd().split("\n");
    for (const line of lines) expect(widthBut(line, file), line).toBeLessThanOrEqual(80);
    const tokens = lines.slice(lines.findIndex((l) => l.startsWith("Tokens")), lines.findIndex((l) => l.startsWith("Cost")));
    expect(tokens.length, tokens.join("\n")).toBeGreaterThan(1);
    for (const pair of ["input 1,560", "output 46,964", "cache read 25,101,148", "cache write 981,976", "total 26,131,648"]) expect(tokens.some((l) => l.includes(pair)), pair).toBe(true);
    const findings = lines.slice(lines.findIndex((l) => l.startsWith("Findings")) + 1);
    expect(findings.filter((l) => /^line \d+: error line-invalid-json/.test(l))).toHaveLength(2);
    expect(findings.join("").split(file.slice(1, 40)).length - 1, findings.join("\n")).toBe(1);
  });

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
        for (const line of lines) expect(widthBut(line, file), `${args.join(" ")} at ${columns}: ${line}`).toBeLessThanOrEqual(columns);
        // every entry or leaf is still there, with its id
        for (const id of piped.map((l) => /[ual]\d{7}/.exec(l)?.[0]).filter(Boolean)) expect(lines.some((l) => l.includes(id!)), `${id} at ${columns}`).toBe(true);
      }
    }
  });

  it("show FILE ENTRY and diff (two leaves, two files) fit 60, 80, 100 and 160 columns, in Arabic and Chinese sessions too", async () => {
    // (named from the repository, as a user names them: a file's path is never cut, so an absolute
    // one, as long as the folder a clone lies in makes it, would not be the output's width)
    const tools = relative(process.cwd(), join(FIXTURES, "tools.jsonl"));
    const displaced = relative(process.cwd(), join(FIXTURES, "pairing-displaced.jsonl"));
    const branched = relative(process.cwd(), join(FIXTURES, "branched.jsonl"));
    for (const args of [["show", tools, "t0000002"], ["show", tools, "t0000004"], ["diff", tools, "t0000003", "t0000029"], ["diff", branched, "b0000007", "b000000b"], ["diff", branched, displaced]]) {
      for (const columns of [60, 80, 100, 160]) {
        const lines = (await run(args, columns)).out.trimEnd().split("\n");
        expect(lines.length, args.join(" ")).toBeGreaterThan(2);
        for (const line of lines) expect(width(line), `${args.join(" ")} at ${columns}: ${line}`).toBeLessThanOrEqual(columns);
      }
    }
  });

  it("diff's rule lines (── role ───) are cut as rules at 60 and 80 columns, never said as content left out", async () => {
    for (const columns of [60, 80]) {
      const lines = (await run(["diff", join(FIXTURES, "branched.jsonl"), "b0000004", "b000000b"], columns)).out.trimEnd().split("\n");
      const rules = lines.filter((l) => /^[-+ ]── \S+ ─/.test(l));
      expect(rules.length, `${columns}`).toBeGreaterThan(0);
      for (const rule of rules) {
        expect(rule, `${columns}`).toMatch(/ ───+$/);
        expect(width(rule), `${columns}`).toBe(columns);
      }
    }
  });

  it("repair DIR's table at 80 columns keeps each backup's name whole in its note (the note wraps between words)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-width-repair-"));
    for (const f of ["fused-whole.jsonl", "fused.jsonl", "torn-last-line.jsonl", "linear.jsonl", "cycle.jsonl"]) cpSync(join(FIXTURES, f), join(dir, f));
    const { out } = await run(["repair", dir], 80);
    const lines = out.trimEnd().split("\n");
    const table = lines.slice(lines.findIndex((l) => l.startsWith("file ")));
    expect(table.length).toBeGreaterThan(5);
    for (const line of table) expect(width(line), line).toBeLessThanOrEqual(80);
    for (const f of ["fused-whole.jsonl", "fused.jsonl", "torn-last-line.jsonl", "cycle.jsonl"]) expect(out, f).toMatch(new RegExp(`backup\\s+${f.replace(/\./g, "\\.")}\\.bak\\n`));
  });

  it("ls of the corpus at 80 and 100 columns: a row a session, its status whole (what does not fit goes on under it, never cut)", async () => {
    const sessions = JSON.parse((await run(["ls", CORPUS, "--json"], undefined)).out).sessions as Array<{ status: string }>;
    for (const columns of [80, 100]) {
      const { out } = await run(["ls", CORPUS], columns);
      const lines = out.trimEnd().split("\n");
      expect(lines.filter((l) => !l.startsWith(" "))).toHaveLength(1 + sessions.length);
      for (const l of lines) expect(width(l)).toBeLessThanOrEqual(columns);
      expect(out).not.toMatch(/(invalid|not a sess)[^\n]*…/);
      // (each status reads whole: its first line in the row, the rest under it)
      const statuses = out.replace(/\n {20,}/g, " ");
      for (const s of new Set(sessions.map((x) => x.status))) expect(statuses, s).toContain(s);
    }
  });
});

/**
 * Text in every script: Chinese, Japanese, Korean, Arabic (right to left), emoji (sequences
 * joined by ZWJ, flags, skin tones), letters with combining marks. Cut anywhere by code points,
 * these would split a character; cut by code units, they would run past the edge.
 */
const SCRIPTS = [
  "我叫张三，请记住。今天我们讨论会话文件的结构和修复方法，还有很多细节需要确认。",
  "セッションファイルの木構造を確認してください、ブランチが三つあります。",
  "세션 파일을 복구하고 모든 가지를 확인해 주세요 감사합니다",
  "سوي لي موقع بسمعك وبصري مع صفحة رئيسية وقائمة طعام كاملة للمقهى",
  "👨‍👩‍👧‍👦 family 🇯🇵🇫🇷🇧🇷 flags 👍🏽👍🏿 tones 🧑‍💻 coder ✅ done 😊😊😊😊😊😊",
  "Ünïcödé café naïve résumé — e\u0301 a\u0300 o\u0302 combining marks everywhere, and more of them",
];

/** A branched session whose every text, label and name is in another script. */
function scriptsSession(): string {
  const records: Array<Record<string, unknown>> = [header(), entry("session_info", "n0000001", null, { name: `${SCRIPTS[0]} ${SCRIPTS[4]}` })];
  let parent = "n0000001";
  SCRIPTS.forEach((text, k) => {
    const u = `u${String(k).padStart(7, "0")}`;
    const a = `a${String(k).padStart(7, "0")}`;
    records.push(user(u, parent, `${text} ${text}`), assistant(a, u, `${SCRIPTS[(k + 3) % SCRIPTS.length]} ${text}`));
    // a dead-end retry beside each answer, so that every level is a branch point
    records.push(assistant(`r${String(k).padStart(7, "0")}`, u, SCRIPTS[(k + 1) % SCRIPTS.length]!));
    records.push(entry("label", `l${String(k).padStart(7, "0")}`, a, { targetId: a, label: SCRIPTS[(k + 2) % SCRIPTS.length] }));
    parent = `l${String(k).padStart(7, "0")}`;
  });
  const file = join(mkdtempSync(join(tmpdir(), "pi-session-scripts-")), "scripts.jsonl");
  writeFileSync(file, jsonl(...records));
  return file;
}

const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });
const graphemesOf = (text: string) => Array.from(segmenter.segment(text), (s) => s.segment);
/** Every character the session's texts hold, and the ones our drawing adds. */
const WHOLE = new Set([...SCRIPTS.flatMap(graphemesOf), ..."…├─└│┆←→·⁨⁩—\u2068\u2069"]);

describe("lines that fit the terminal in every script", () => {
  const commands = [["tree"], ["path"], ["path", "--leaves"], ["show"], ["check"], ["context"]];
  for (const args of commands) {
    it(`${args.join(" ")} of a session in Chinese, Japanese, Korean, Arabic and emoji fits 60, 80, 100 and 160 columns, never cutting inside a character`, async () => {
      const file = scriptsSession();
      const piped = (await run([args[0]!, file, ...args.slice(1)], undefined)).out;
      for (const columns of [60, 80, 100, 160]) {
        const { out } = await run([args[0]!, file, ...args.slice(1)], columns);
        for (const line of out.trimEnd().split("\n")) {
          expect(widthBut(line, file), `${args.join(" ")} at ${columns}: ${line}`).toBeLessThanOrEqual(columns);
          for (const g of graphemesOf(line)) if (/[^\x20-\x7e]/.test(g)) expect(WHOLE.has(g), `a split character ${JSON.stringify(g)} in: ${line}`).toBe(true);
        }
        // a right-to-left preview is isolated on a terminal, so that it cannot move its line
        if (args[0] !== "check" && args[0] !== "context" && out.includes("سوي")) expect(out).toMatch(/\u2068[^\u2069\n]*سوي/);
      }
      // piped: one layout, whatever the width, and no isolates of ours
      expect((await run([args[0]!, file, ...args.slice(1)], undefined)).out).toBe(piped);
      expect(piped).not.toMatch(/[\u2068\u2069]/);
    });
  }

  it("a dry run's diff stays readable on a terminal: each line cut to the width at its change, saying what it left out; piped or --full, the whole diff", async () => {
    const long = JSON.stringify(user("a0000002", "a0000001", "x".repeat(9000)));
    const file = join(mkdtempSync(join(tmpdir(), "pi-session-diff-")), "long.jsonl");
    writeFileSync(file, jsonl(header(), user("a0000001", null, "short"), `${long}\r`, user("a0000003", "a0000002", "after")));
    const piped = (await run(["repair", file, "--dry-run"], undefined)).out;
    expect(piped).toContain(`-${long}\r`.replace("\r", "\\r"));
    expect(piped).toContain(`+${long}\n`);
    for (const columns of [60, 80, 100, 160]) {
      const { out, code } = await run(["repair", file, "--dry-run"], columns);
      expect(code).toBe(1);
      const lines = out.trimEnd().split("\n");
      for (const line of lines) expect(widthBut(line, file), `at ${columns}: ${line}`).toBeLessThanOrEqual(columns);
      // the removed and the added line show where they differ (the CR), and how much was left out
      expect(lines.find((l) => l.startsWith("-…"))).toMatch(/:\d+}}\\r… \(8\.\d KB more\)$/);
      expect(lines.find((l) => l.startsWith("+…"))).toMatch(/:\d+}}… \(8\.\d KB more\)$/);
      expect(out).toMatch(/^ {2}\(1 unchanged line\)$/m);
    }
    // (the report under the diff wraps on a terminal; the diff itself is the piped one)
    const diffOf = (out: string) => out.split("\n").filter((l) => /^(Index: |=+$|--- |\+\+\+ |@@ |[-+]| \{)/.test(l)).join("\n");
    expect(diffOf((await run(["repair", file, "--dry-run", "--full"], 80)).out)).toBe(diffOf(piped));
    expect(diffOf(piped)).toMatch(/^Index: .*\n=+\n--- .*\n\+\+\+ .*\n@@ -1,4 \+1,4 @@\n/);
    expect(diffOf(piped).split("\n")).toHaveLength(10);
  });
});

describe("at 80 columns a key, a label, a header, a path or a command never reads as another, nor is broken", () => {
  /** A session of four models whose names differ only past their 16th character. */
  function modelsStore(): string {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-width-models-"));
    const usage = (cost: number) => ({ input: 1000, output: 200, cacheRead: 5000, cacheWrite: 100, totalTokens: 6300, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } });
    const models: Array<[string, string, number]> = [["anthropic", "claude-opus-4-1-20250805", 92.13], ["anthropic", "claude-sonnet-4-5-20250929", 30.33], ["openrouter", "anthropic/claude-opus-4.1", 1.2], ["openrouter", "anthropic/claude-sonnet-4.5", 0.7]];
    const records = [header({ id: "019ebb22-69c0-77df-8480-5618f0660c02" })];
    models.forEach(([provider, model, cost], k) => {
      const a = assistant(`a000000${k}`, k === 0 ? null : `a000000${k - 1}`, "ok");
      records.push({ ...a, message: { ...(a.message as object), provider, model, usage: usage(cost) } });
    });
    writeFileSync(join(dir, "2026-03-01T10-00-00-000Z_019ebb22-69c0-77df-8480-5618f0660c02.jsonl"), jsonl(...records));
    return dir;
  }

  it("usage --by model: every model's key reads whole, or cut keeping both its ends, and no two alike", async () => {
    const store = modelsStore();
    for (const columns of [60, 80]) {
      const lines = (await run(["usage", store, "--by", "model"], columns)).out.trimEnd().split("\n");
      for (const l of lines) expect(width(l), l).toBeLessThanOrEqual(columns);
      const keys = lines.slice(1, 5).map((l) => l.split(/ {2,}/)[0]!);
      expect(new Set(keys).size, keys.join("\n")).toBe(4);
      for (const key of ["anthropic/claude-opus-4-1-20250805", "anthropic/claude-sonnet-4-5-20250929", "openrouter/anthropic/claude-opus-4.1", "openrouter/anthropic/claude-sonnet-4.5"]) expect(keys, `${columns}`).toContain(key);
      // (the cost stays beside each)
      expect(lines[1]).toContain("$92.13");
    }
    // (cut only where nothing else can give way: both ends kept)
    const narrow = (await run(["usage", store, "--by", "model"], 40)).out.trimEnd().split("\n");
    const cut = narrow.slice(1, 5).map((l) => l.split(/ {2,}/)[0]!);
    expect(new Set(cut).size, cut.join("\n")).toBe(4);
    expect(cut.find((k) => k.startsWith("openrouter") && k.endsWith("sonnet-4.5")), cut.join("\n")).toBeDefined();
  });

  it("tail --all: the label column is as wide as the widest label, and each line keeps its preview beside a turn's cost", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-width-tail-"));
    const ids = ["019ebb22-69c0-77df-8480-5618f0660c02", "019ebb22-7a10-7c31-9b02-33aa0f12de77"];
    const usage = { input: 70_000, output: 5_900, cacheRead: 0, cacheWrite: 0, totalTokens: 75_900, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.0123 } };
    ids.forEach((id, k) => {
      const a = assistant(`b000000${k}`, `u000000${k}`, `the answer of session ${k}, long enough to be cut at eighty columns`);
      writeFileSync(join(dir, `2026-12-06T10-00-0${k}-000Z_${id}.jsonl`), jsonl(header({ id }), user(`u000000${k}`, null, `question ${k}`), { ...a, message: { ...(a.message as object), usage } }));
    });
    const lines = (await run(["tail", "--all", dir, "-n", "4"], 80)).out.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    for (const l of lines) {
      expect(width(l), l).toBeLessThanOrEqual(80);
      // (a label of 8 characters, not padded to 12, then the entry's id: its line number gives way below 100 columns)
      expect(l).toMatch(/^[0-9a-f]{8} {2}[ub]000000\d /);
    }
    for (const l of lines.filter((x) => x.includes("tok"))) expect(l, l).toMatch(/75\.9k tok \$0\.0123 {2}the answer of s/);
    // (at 100 columns and more, the line number too)
    for (const l of (await run(["tail", "--all", dir, "-n", "4"], 100)).out.trimEnd().split("\n")) expect(l).toMatch(/^[0-9a-f]{8} {2}\s*\d+ {2}[ub]000000\d /);
  });

  it("diff FILE LEAF LEAF: the two contexts' headers say which leaf each is", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "pi-session-width-")), "--home-someone-with-a-long-name-projects-a-project-with-a-long-name--");
    mkdirSync(dir);
    const file = join(dir, "2026-03-01T10-00-00-000Z_0f1e2d3c-bbbb-4000-8000-000000000001.jsonl");
    cpSync(join(FIXTURES, "branched.jsonl"), file);
    for (const columns of [60, 80]) {
      const lines = (await run(["diff", file, "b0000007", "b000000b"], columns)).out.split("\n");
      for (const l of lines) expect(width(l), l).toBeLessThanOrEqual(columns);
      expect(lines.find((l) => l.startsWith("--- ") && l.includes("@"))).toMatch(/^--- ….* @ b0000007$/);
      expect(lines.find((l) => l.startsWith("+++ ") && l.includes("@"))).toMatch(/^\+\+\+ ….* @ b000000b$/);
    }
  });

  it("check's line for one file, show's File and Cwd rows, and its next steps hold their path and command whole", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "pi-session-width-")), "--home-someone-with-a-long-name-projects-a-project-with-a-long-name--");
    mkdirSync(dir);
    const file = join(dir, "2026-03-01T10-00-00-000Z_0f1e2d3c-aaaa-4000-8000-000000000001.jsonl");
    cpSync(join(FIXTURES, "fused.jsonl"), file);
    for (const columns of [60, 80]) {
      const checked = (await run(["check", file], columns)).out.split("\n");
      expect(checked, checked.join("\n")).toContain(`${file}:`);
      expect(checked).toContain("    invalid (1 error, 0 warnings)");
      const shown = (await run(["show", file], columns)).out.split("\n");
      expect(shown, shown.join("\n")).toContain(`File          ${file}`);
      // (its next step, the command that mends it, whole on a line of its own)
      expect(shown).toContain(`    pi-session repair ${file}`);
      // (a line runs past the width only for a path or a command, alone after its lead)
      for (const l of shown) if (!l.includes(file)) expect(width(l), l).toBeLessThanOrEqual(columns);
    }
  });
});
