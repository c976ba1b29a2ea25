/**
 * `grep` end to end: what it prints piped and on a terminal, its ripgrep-style flags, its filters,
 * its exit codes (0 found, 1 none, 2 error) and what it says about what it could not search.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import stringWidth from "string-width";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { assistant, entry, header, jsonl, user } from "../helpers/builders.js";
import { cli, cliJson } from "../helpers/cli.js";
import { CORPUS, fixture } from "../helpers/paths.js";

const work = mkdtempSync(join(tmpdir(), "pi-session-grep-e2e-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const store = fixture("usage-store");
const APP = `${store}/--work-app--/2026-03-07T22-10-00-000Z_019cca9e-6f3a-7a10-9c2e-1f0c2d4b7a01.jsonl`;
const FORK = `${store}/--work-app--/2026-03-08T09-00-00-000Z_019ccd02-1b7e-7c44-8a31-6e2f9d0c5b12.jsonl`;
const LIB = `${store}/--work-lib--/2026-03-09T10-00-00-000Z_019cd2f0-44a9-7d03-b6e8-2a7c1e9f0d23.jsonl`;
const grep = (args: string[], env: Record<string, string> = {}) => cli(["grep", ...args], { env: { TZ: "UTC", ...env } });

/** Runs `main` with a stdout that says it is a terminal `columns` wide. */
async function onTerminal(args: string[], columns: number): Promise<string> {
  const chunks: Buffer[] = [];
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns });
  stdout.on("data", (c: Buffer) => chunks.push(c));
  const stderr = new PassThrough();
  stderr.resume();
  await main(args, { stdout, stderr, env: { NO_COLOR: "1", TZ: "UTC", PI_SESSION_THREADS: "1" } });
  return Buffer.concat(chunks).toString("utf8");
}

describe("grep, piped", () => {
  it("an entry a line: file:line:id:role: snippet; exit 0", async () => {
    const r = await grep(["-F", "checkout total", store]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${APP}:3:a0000002:user: Why does the checkout total drift by a cent?\n${FORK}:3:a0000002:user: Why does the checkout total drift by a cent?\n`);
  });

  it("an entry's id, and a path, are shown with their control characters escaped, never obeyed, piped and on a terminal", async () => {
    const dir = join(work, "\u001b[31mred");
    mkdirSync(dir, { recursive: true });
    const id = "\u001b[2J\u001b]0;owned\u0007";
    writeFileSync(join(dir, "e.jsonl"), jsonl(header({ id: "esc-ids" }), user(id, null, "escape probe one")));
    const r = await grep(["probe", dir]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(r.stdout).toBe(`${join(work, "\\x1b[31mred")}/e.jsonl:2:\\x1b[2J\\x1b]0;owned\\x07:user: escape probe one\n`);
    const out = await onTerminal(["grep", "probe", dir], 100);
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(out).toMatch(/^ +2 +\\x1b\[2J\\x1b\]0; +user +/m);
    // (a line pi skips, said on stderr with the command that mends it: the path quoted as $'…')
    writeFileSync(join(dir, "torn.jsonl"), `${JSON.stringify(header({ id: "torn" }))}\n{"type":"message","id":"t1","message":{"role":"user","content":"probe\n`);
    const torn = await grep(["probe", join(dir, "torn.jsonl")]);
    expect(torn.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(torn.stderr).toContain(`run \`pi-session repair $'${join(work, "\\x1b[31mred")}/torn.jsonl'\``);
  });

  it("nothing found: exit 1 and no output; a bad expression: exit 2 naming it", async () => {
    const none = await grep(["zzqqxxjj", store]);
    expect(none.exitCode).toBe(1);
    expect(none.stdout).toBe("");
    const bad = await grep(["(unclosed", store]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^pi-session: "\(unclosed" is not a regular expression \(.*\); give -F to search for it as it is\n$/);
    expect((await grep(["-F", "(unclosed", store])).exitCode).toBe(1);
  });

  it("-l the files, -c a count a session, -m at most N a session", async () => {
    expect((await grep(["-l", "decimal|中文", store])).stdout).toBe(`${FORK}\n${LIB}\n`);
    // (the app session: the question, the answer, the file read, the fix and the summary; its fork holds three of them and adds one)
    expect((await grep(["-c", "-i", "TOTAL", store])).stdout).toBe(`${APP}:5\n${FORK}:4\n`);
    expect((await grep(["-m", "1", "-i", "total", store])).stdout.trimEnd().split("\n")).toHaveLength(2);
  });

  it("-i, -w and what is searched: text, tool calls' arguments, tool results, summaries; never ids or timestamps", async () => {
    expect((await grep(["-w", "cart", store])).stdout).toMatch(/:4:a0000003:assistant: .*src\/cart\.ts/);
    expect((await grep(["-w", "car", store])).exitCode).toBe(1);
    const r = await cliJson(["grep", "cents", APP]);
    expect(r.json.matches.map((m: any) => [m.line, m.role, m.field])).toEqual([
      [6, "assistant", "text"],
      [9, "assistant", "text"],
      [10, "compaction", "summary"],
    ]);
    expect((await cliJson(["grep", "src/cart", APP])).json.matches.map((m: any) => m.field)).toEqual(["tool.arguments.path"]);
    expect((await grep(["a0000003", store])).exitCode).toBe(1);
    expect((await grep(["2026-03-07T22", store])).exitCode).toBe(1);
    expect((await grep(["cacheRead", store])).exitCode).toBe(1);
  });

  it("filters: --role, --tool, --since/--until, --cwd, --branch current", async () => {
    const roles = async (args: string[]) => (await cliJson(["grep", ...args, store])).json.matches.map((m: any) => m.role);
    expect(await roles(["-i", "total", "--role", "assistant"])).toEqual(["assistant", "assistant", "assistant", "assistant"]);
    expect(await roles(["-i", "total", "--role", "user,compaction"])).toEqual(["user", "compaction", "user"]);
    expect(await roles(["-i", "total", "--role", "user", "--role", "toolResult"])).toEqual(["user", "toolResult", "user", "toolResult"]);
    expect(await roles(["cart", "--tool", "read"])).toEqual(["assistant", "assistant"]);
    expect((await grep(["cart", "--tool", "bash", store])).exitCode).toBe(1);
    expect((await cliJson(["grep", "-i", "total", "--since", "2026-03-08", store])).json.matches.map((m: any) => m.timestamp.slice(0, 10))).toEqual(["2026-03-08", "2026-03-08", "2026-03-08"]);
    expect((await grep(["-i", "total", "--until", "2026-03-07", "--timezone", "Asia/Tokyo", store])).exitCode).toBe(1);
    expect((await cliJson(["grep", ".", "--cwd", "/work/lib", store])).json.total).toEqual({ sessions: 1, matches: 2 });
    // the fork's current branch leaves the parent's later turns; the parent's branch holds them
    const dir = join(work, "branches");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "b.jsonl"), jsonl(header({ id: "br" }), user("b0000001", null, "the question"), assistant("b0000002", "b0000001", "first answer, abandoned"), assistant("b0000003", "b0000001", "second answer, kept")));
    expect((await cliJson(["grep", "answer", dir])).json.total.matches).toBe(2);
    expect((await cliJson(["grep", "answer", "--branch", "current", dir])).json.matches.map((m: any) => m.id)).toEqual(["b0000003"]);
  });

  it("--json and --jsonl: a match with its file, session, line, id, type, role, time, field, offsets and snippet", async () => {
    const j = await cliJson(["grep", "decimal", store]);
    expect(j.exitCode).toBe(0);
    expect(j.json.matches[0]).toEqual({ file: FORK, session: "019ccd02-1b7e-7c44-8a31-6e2f9d0c5b12", line: 7, id: "b0000001", type: "message", role: "user", timestamp: "2026-03-08T09:00:30.000Z", field: "text", start: 15, end: 22, snippet: "Instead: use a decimal library." });
    const l = await grep(["decimal", store, "--jsonl"]);
    expect(l.stdout.trimEnd().split("\n").map((x) => JSON.parse(x))).toEqual(j.json.matches);
  });

  it("with -i, a line pi skips is said only when it could hold the match, in Chinese and Arabic too (a line without the characters is not)", async () => {
    const dir = join(work, "broken-cjk");
    mkdirSync(dir, { recursive: true });
    const torn = JSON.stringify(user("c0000002", "c0000001", "数据 and موقع in a torn line"));
    const other = JSON.stringify(user("c0000003", "c0000001", "nothing of either here"));
    writeFileSync(join(dir, "s.jsonl"), Buffer.concat([jsonl(header({ id: "broken-cjk" }), user("c0000001", null, "数据 موقع")), Buffer.from(`${other.slice(0, -5)}\n${torn.slice(0, -5)}\n`)]));
    for (const q of ["数据", "موقع", "数"]) {
      const r = await grep(["-F", "-i", q, dir]);
      expect(r.exitCode, q).toBe(0);
      expect(r.stderr, q).toBe(`pi-session: ${join(dir, "s.jsonl")}:4: 1 line pi skips could hold a match (line 4), not searched; run \`pi-session repair ${join(dir, "s.jsonl")}\`\n`);
    }
    // (the corpus's concatenated file: its line 440 holds no Chinese)
    const corpus = await grep(["-F", "-i", "数据", join(CORPUS, "pi-mono-history__session.v1.concat-corrupt.jsonl")]);
    expect([corpus.exitCode, corpus.stderr]).toEqual([1, ""]);
  });

  it("what it cannot search is said on stderr: lines pi skips that could hold a match, files that hold no session, files it cannot read (exit 2)", async () => {
    const dir = join(work, "broken");
    mkdirSync(dir, { recursive: true });
    const NEEDLE = "QUJDREVGR0hJ";
    const torn = JSON.stringify(user("c0000002", "c0000001", `the ${NEEDLE} in a torn line`));
    const imageOnly = JSON.stringify({ ...user("c0000003", "c0000001", "x"), message: { role: "user", content: [{ type: "image", data: `AAAA${NEEDLE}AAAA`, mimeType: "image/png" }] } });
    writeFileSync(join(dir, "s.jsonl"), Buffer.concat([jsonl(header({ id: "broken" }), user("c0000001", null, `a ${NEEDLE} here`)), Buffer.from(`${torn.slice(0, -5)}\n${imageOnly.slice(0, -5)}\n`)]));
    const r = await grep([NEEDLE, dir, fixture("events.jsonl")]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`s\\.jsonl:2:c0000001:user: a ${NEEDLE} here\n$`));
    // the torn line holds the needle in its text; the cut image line only in its base64: not said
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      `pi-session: ${fixture("events.jsonl")}: not a session (pi's --mode json event stream), not searched; run \`pi-session check ${fixture("events.jsonl")}\``,
      `pi-session: ${join(dir, "s.jsonl")}:3: 1 line pi skips could hold a match (line 3), not searched; run \`pi-session repair ${join(dir, "s.jsonl")}\``,
    ]);
    const missing = await grep(["needle", "/nonexistent/x.jsonl"]);
    expect(missing.exitCode).toBe(2);
    const empty = join(work, "no-sessions");
    mkdirSync(empty, { recursive: true });
    const none = await grep(["needle", empty]);
    expect([none.exitCode, none.stdout, none.stderr]).toEqual([1, "", `pi-session: ${empty}: no session files in it or in its project folders\n`]);
  });
});

describe("grep's titles, whoever wrote the JSON", () => {
  /** JSON as Python's json.dumps writes it: a space after each colon and comma. */
  const spaced = (v: unknown): string =>
    Array.isArray(v) ? `[${v.map(spaced).join(", ")}]` : v && typeof v === "object" ? `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${spaced(x)}`).join(", ")}}` : JSON.stringify(v);
  const file = (name: string, records: Array<Record<string, unknown>>) => {
    const path = join(work, name);
    writeFileSync(path, records.map((r) => `${spaced(r)}\n`).join(""));
    return path;
  };

  it("a session's name and first user message are its title in a file not written as pi writes JSON: v1, v3, and v3 with a damaged line; as ls says", async () => {
    const v3 = [
      header({ id: "spaced-3", timestamp: "2026-05-01T08:00:00.000Z" }),
      user("a0000001", null, "first words of the person"),
      assistant("a0000002", "a0000001", "the answer holds zzspaced"),
      entry("session_info", "a0000003", "a0000002", { name: "MYNAME" }),
    ];
    const v1 = [
      { type: "session", id: "spaced-1", timestamp: "2026-05-01T08:00:00.000Z", cwd: "/work" },
      { type: "message", timestamp: "2026-05-01T08:00:01.000Z", message: { role: "user", content: "first words of the person", timestamp: 1777622401000 } },
      { type: "message", timestamp: "2026-05-01T08:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: "the answer holds zzspaced" }], provider: "anthropic", model: "claude", stopReason: "stop", timestamp: 1777622402000 } },
    ];
    const named = [file("spaced-v3.jsonl", v3), file("spaced-v1.jsonl", v1)];
    const damaged = join(work, "spaced-damaged.jsonl");
    writeFileSync(damaged, `${v3.slice(0, 2).map((r) => `${spaced(r)}\n`).join("")}{"type": "message", "id": "torn\n${v3.slice(2).map((r) => `${spaced(r)}\n`).join("")}`);
    for (const [path, title] of [[named[0]!, "MYNAME"], [named[1]!, "first words of the person"], [damaged, "MYNAME"]] as const) {
      const listed = (await cliJson(["ls", path])).json.sessions[0];
      expect(listed.title, path).toBe(title);
      const json = await cliJson(["grep", "zzspaced", path]);
      expect(json.exitCode, path).toBe(0);
      expect(json.json.withMatches[0].title, path).toBe(title);
      const human = await onTerminal(["grep", "zzspaced", path], 120);
      expect(human.split("\n")[1], path).toBe(`${title} · 2026-05-01 08:00`);
    }
  });
});

describe("grep on a terminal", () => {
  let dir: string;
  beforeAll(() => {
    dir = join(work, "scripts");
    mkdirSync(dir, { recursive: true });
    copyFileSync(LIB, join(dir, "zh.jsonl"));
    copyFileSync(join(CORPUS, "coffee-shop__019f300b.v3.multimodel.jsonl"), join(dir, "ar.jsonl"));
    writeFileSync(join(dir, "esc.jsonl"), jsonl(header({ id: "esc" }), user("d0000001", null, "needle \u001b]0;pwned\u0007 \u001b[2J \u202e reversed")));
  });

  it.each([60, 80, 100, 120, 160])("grouped by session, a line per entry, no line wider than %i columns, the match kept in view", async (columns) => {
    for (const pattern of ["中文", "الموقع", "needle"]) {
      const out = await onTerminal(["grep", pattern, dir], columns);
      const lines = out.trimEnd().split("\n");
      expect(lines.length, pattern).toBeGreaterThan(2);
      for (const line of lines) expect(stringWidth(line.replace(/[\u2068\u2069]/g, "")), `${pattern}: ${line}`).toBeLessThanOrEqual(columns);
      expect(out).toContain(pattern);
      expect(out).not.toMatch(/[\u001b\u0007\u202e]/);
    }
  });

  it("each session: its file, its title and when it began, then its entries", async () => {
    const out = await onTerminal(["grep", "中文", dir], 120);
    expect(out.split("\n").slice(0, 3)).toEqual([expect.stringMatching(/zh\.jsonl$/), "用中文总结这个库的公共接口。 · 2026-03-09 10:00", expect.stringMatching(/^ +2 +c0000001 +user +03-09 10:00 +用中文总结这个库的公共接口。$/)]);
  });

  it("a right-to-left title is isolated and cut before its time, which stays at the end", async () => {
    writeFileSync(join(dir, "rtl.jsonl"), jsonl(header({ id: "rtl", timestamp: "2026-04-01T08:00:00.000Z" }), user("e0000001", null, `لخص واجهة المكتبة ${"وأضف الأمثلة ".repeat(20)}zzneedle`)));
    const out = await onTerminal(["grep", "zzneedle", join(dir, "rtl.jsonl")], 60);
    const about = out.split("\n")[1]!;
    expect(about).toMatch(/^\u2068لخص واجهة المكتبة .*…\u2069 · 2026-04-01 08:00$/);
    expect(stringWidth(about.replace(/[\u2068\u2069]/g, ""))).toBeLessThanOrEqual(60);
  });
});
