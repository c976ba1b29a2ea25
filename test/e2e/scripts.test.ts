/**
 * What scripts and CI rely on (README, "Exit codes"): `--` ends the options, `grep -e` takes a
 * pattern that starts with `-`, a closed pipe ends a command with exit 0, and a gate given a
 * directory with no session file fails instead of passing on nothing.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { BIN, CORPUS, fixture } from "../helpers/paths.js";
import { pi } from "../helpers/pi.js";

const work = mkdtempSync(join(tmpdir(), "pi-session-scripts-"));

describe("-- ends the options", () => {
  it("a file whose name starts with - is read after --", async () => {
    copyFileSync(fixture("linear.jsonl"), join(work, "-odd.jsonl"));
    const r = await cli(["check", "--", "-odd.jsonl"], { cwd: work });
    expect(r).toMatchObject({ exitCode: 0, stderr: "" });
    expect(r.stdout).toContain("-odd.jsonl: ok");
    // without --, it is an option yargs does not know: a usage error
    expect((await cli(["check", "-odd.jsonl"], { cwd: work })).exitCode).toBe(2);
  });

  it("grep's pattern after --, or after -e, may start with - (and a pattern in Chinese is counted)", async () => {
    const file = join(work, "dash.jsonl");
    const lines = [
      { type: "session", version: 3, id: "dash", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
      { type: "message", id: "d0000001", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "text", text: "run it with --force, 张三 said" }], timestamp: 1 } },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    expect(await cli(["grep", "-F", "-c", "--", "--force", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    expect(await cli(["grep", "-F", "-c", "--", "张三", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    expect(await cli(["grep", "-c", "-e", "--for.e", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    expect(await cli(["grep", "-c", "--regexp=--force", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    const json = await cliJson(["grep", "-e", "-nowhere", file]);
    expect(json.exitCode).toBe(1);
    const none = await cli(["grep"]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/^pi-session: `grep` needs PATTERN, .* -e PATTERN for one that starts with -\n$/);
  });
});

describe("grep reads patterns and roles as rg users expect", () => {
  it("regular expressions are Unicode: \\p{L} is a letter, . is a whole emoji; a plain RegExp's escapes still read", async () => {
    const file = join(work, "unicode.jsonl");
    const lines = [
      { type: "session", version: 3, id: "uni", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
      { type: "message", id: "u0000001", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "text", text: "😀" }], timestamp: 1 } },
      { type: "message", id: "u0000002", parentId: "u0000001", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "user", content: [{ type: "text", text: "مرحبا a-b" }], timestamp: 2 } },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    expect(await cli(["grep", "-c", "^.$", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    expect(await cli(["grep", "-c", "\\p{Script=Arabic}+", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    expect(await cli(["grep", "-c", "a\\-b", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
    expect(await cli(["grep", "-c", "-F", "a-b", file])).toMatchObject({ exitCode: 0, stdout: `${file}:1\n` });
  });

  it("an unknown --role is a usage error naming the roles (and the one meant)", async () => {
    for (const [role, near] of [["tool", "toolResult"], ["Assistant", "assistant"], ["bogus", undefined]] as const) {
      const r = await cli(["grep", ".", "--role", role, fixture("linear.jsonl")]);
      expect(r.exitCode, role).toBe(2);
      expect(r.stderr).toBe(`pi-session: unknown --role \`${role}\`${near ? ` (did you mean ${near}?)` : ""}; the roles are user, assistant, toolResult, bashExecution, custom, system, compaction, branch_summary, custom_message, session_info, label\n`);
    }
  });

  it("--json gives each session's title, and --color highlights piped matches", async () => {
    const json = await cliJson(["grep", "src", fixture("linear.jsonl")]);
    expect(json.json.withMatches[0].title).toBe("List src");
    const colored = await cli(["grep", "--color", "src", fixture("linear.jsonl")]);
    expect(colored.stdout).toContain("List the files in \u001b[1m\u001b[31msrc\u001b[39m\u001b[22m/ please.");
    expect((await cli(["grep", "src", fixture("linear.jsonl")])).stdout).not.toContain("\u001b[");
  });
});

describe("valid JSON written with spaces reads as the compact form does", () => {
  // as Python's json.dumps writes it: `{"type": "message", "id": …}`
  const spaced = (text: string) =>
    text
      .split("\n")
      // (JSON.stringify escapes a newline in a string, so every raw newline is between tokens)
      .map((l) => (l.trim() ? JSON.stringify(JSON.parse(l), null, 1).replace(/\n */g, " ") : l))
      .join("\n");
  const names = ["linear.jsonl", "branched.jsonl", "compacted.jsonl", "tools.jsonl", "harness.jsonl"];
  const compactDir = join(work, "compact");
  const spacedDir = join(work, "spaced");
  beforeAll(() => {
    mkdirSync(compactDir, { recursive: true });
    mkdirSync(spacedDir, { recursive: true });
    for (const name of names) {
      const text = readFileSync(fixture(name), "utf8");
      writeFileSync(join(compactDir, name), text);
      writeFileSync(join(spacedDir, name), spaced(text));
    }
  });
  const commands = [["tree"], ["path"], ["path", "--leaves"], ["show"], ["context"], ["context", "--llm"], ["check"], ["export"], ["grep", "."], ["tree", "--json"], ["show", "--json"]];
  for (const name of names) {
    it(`${name}: every command's output`, async () => {
      expect(readFileSync(join(spacedDir, name), "utf8")).toContain('": "');
      for (const args of commands) {
        const at = args[0] === "grep" ? 2 : 1;
        const run = (dir: string) => cli([...args.slice(0, at), join(dir, name), ...args.slice(at)], { cwd: dir });
        const [a, b] = [await run(compactDir), await run(spacedDir)];
        const same = (s: string, dir: string) => s.split(dir).join("DIR").replace(/"size": \d+|\d+(\.\d+)? [KM]?B\b|"(offset|bytes|length)": \d+/g, "#");
        expect(same(b.stdout, spacedDir), `${args.join(" ")} ${name}`).toBe(same(a.stdout, compactDir));
        expect(b.exitCode, `${args.join(" ")} ${name}`).toBe(a.exitCode);
      }
    });
  }
});

describe("noise: one finding for a file-wide trait, a repeated line said as such", () => {
  it("a CRLF file gives one line-crlf finding and one repair action, with the count and the first lines", async () => {
    const file = join(work, "crlf.jsonl");
    writeFileSync(file, readFileSync(fixture("linear.jsonl"), "utf8").replace(/\n/g, "\r\n"));
    const checked = await cliJson(["check", file]);
    const crlf = checked.json.files[0].findings.filter((f: { code: string }) => f.code === "line-crlf");
    expect(crlf).toEqual([expect.objectContaining({ line: 1, severity: "info", message: "8 lines end with CR LF (lines 1, 2, 3, 4, 5, …)" })]);
    // (a note: annotated with --verbose)
    const github = await cli(["check", file, "--format", "github", "--verbose"]);
    expect(github.stdout.split("\n").filter((l) => l.includes("line-crlf"))).toHaveLength(1);
    const repaired = await cliJson(["repair", file]);
    expect(repaired.json.files[0].actions).toEqual([expect.objectContaining({ code: "crlf-normalized", line: 1, message: "CRLF line ends made LF on 8 lines (lines 1, 2, 3, 4, 5, …)" })]);
    expect(readFileSync(file, "utf8")).toBe(readFileSync(fixture("linear.jsonl"), "utf8"));
  });

  it("a line written twice is said to repeat the line before, not only to share its id", async () => {
    const file = join(work, "repeat.jsonl");
    const lines = readFileSync(fixture("linear.jsonl"), "utf8").trimEnd().split("\n");
    writeFileSync(file, [...lines, lines[lines.length - 1]].join("\n") + "\n");
    const r = await cli(["check", file]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(`${file}:9: error id-duplicate: line 9 repeats line 8 exactly (id \`a0000007\`)`);
  });
});

describe("standard input", () => {
  it("check - gives hints that run: repair - --out FILE, which repairs the stream", async () => {
    const input = readFileSync(fixture("fused.jsonl"));
    const checked = await cli(["check", "-"], { input });
    expect(checked.exitCode).toBe(1);
    expect(checked.stdout).toContain("<stdin>:3: error line-fused: a record and a torn fragment on one line\n");
    expect(checked.stdout).toContain("\n  next: pi-session repair - --out FIXED.jsonl\n");
    expect(checked.stdout).not.toContain("'<stdin>'");
    const out = join(work, "fixed.jsonl");
    const repaired = await cli(["repair", "-", "--out", out], { input });
    expect(repaired.exitCode, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain(`<stdin>: repaired (3 actions, 1 line dropped, 4 records kept); written to ${out}; it now passes check`);
    expect((await cli(["check", out])).exitCode).toBe(0);
    const without = await cli(["repair", "-"], { input });
    expect(without.exitCode).toBe(2);
    expect(without.stderr).toBe("pi-session: repair reads standard input only with --out FILE (where the repaired session goes): pi-session repair - --out FIXED.jsonl\n");
  });
});

describe("a session named by its id", () => {
  it("check's next step names it as the user did (an id prefix), so that it runs where check ran; --json says how it was named", async () => {
    const dir = mkdtempSync(join(work, "named-"));
    mkdirSync(join(dir, "--w--"));
    const file = join(dir, "--w--", "2026-03-01T10-00-00-000Z_019ebb22-aaaa-4000-8000-000000000001.jsonl");
    copyFileSync(fixture("fused.jsonl"), file);
    const env = { PI_CODING_AGENT_SESSION_DIR: dir };
    const byId = await cli(["check", "019ebb22"], { env });
    expect(byId.exitCode).toBe(1);
    expect(byId.stdout).toContain("\n  next: pi-session repair 019ebb22\n");
    expect(byId.stdout).toContain(`${file}:3: error line-fused`);
    expect((await cliJson(["check", "019ebb22"], { env })).json.files[0].as).toBe("019ebb22");
    // (named by its path: the path)
    expect((await cli(["check", file], { env })).stdout).toContain(`\n  next: pi-session repair ${file}\n`);
    // the step runs as written
    expect((await cli(["repair", "019ebb22"], { env })).exitCode).toBe(0);
  });
});

describe("- is standard output for every output option", () => {
  it("repair - --out -, export -o -, migrate --out -, fork --out -: the output on stdout, the report on stderr, no file named -", async () => {
    const dir = mkdtempSync(join(work, "stdout-"));
    const input = readFileSync(fixture("fused.jsonl"));
    const repaired = await cli(["repair", "-", "--out", "-"], { input, cwd: dir });
    expect(repaired.exitCode, repaired.stderr).toBe(0);
    expect(repaired.stderr).toContain("<stdin>: repaired (3 actions, 1 line dropped, 4 records kept); written to standard output; it now passes check");
    writeFileSync(join(dir, "fixed.jsonl"), repaired.stdout);
    expect((await cli(["check", join(dir, "fixed.jsonl")])).exitCode).toBe(0);
    const json = await cli(["repair", "-", "--out", "-", "--json"], { input, cwd: dir });
    expect(JSON.parse(json.stderr).files[0]).toMatchObject({ status: "repaired", out: "-" });
    expect(json.stdout).toBe(repaired.stdout);

    const exported = await cli(["export", fixture("linear.jsonl"), "-o", "-"], { cwd: dir });
    expect(exported.exitCode).toBe(0);
    expect(exported.stdout).toBe((await cli(["export", fixture("linear.jsonl")])).stdout);
    for (const name of ["/dev/stdout", "/dev/fd/1"]) expect((await cli(["export", fixture("linear.jsonl"), "-o", name], { cwd: dir })).stdout, name).toBe(exported.stdout);
    const devNull = await cli(["export", fixture("linear.jsonl"), "-o", "/dev/null"], { cwd: dir });
    expect(devNull).toMatchObject({ exitCode: 0, stdout: "/dev/null\n" });

    const before = readFileSync(fixture("v1.jsonl"));
    const migrated = await cli(["migrate", fixture("v1.jsonl"), "--out", "-"], { cwd: dir });
    expect(migrated.exitCode, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout.split("\n")[0]!)).toMatchObject({ type: "session", version: 3 });
    expect(migrated.stderr).toContain("written to standard output");
    expect(readFileSync(fixture("v1.jsonl")).equals(before)).toBe(true);

    const forked = await cli(["fork", fixture("linear.jsonl"), "--out", "-"], { cwd: dir });
    expect(forked.exitCode, forked.stderr).toBe(0);
    expect(JSON.parse(forked.stdout.split("\n")[0]!)).toMatchObject({ type: "session", parentSession: fixture("linear.jsonl") });
    expect(forked.stderr).toBe("-\n");

    // several sessions cannot share one stream
    const many = await cli(["migrate", fixture("v1.jsonl"), fixture("v2-hook.jsonl"), "--out", "-"], { cwd: dir });
    expect(many.exitCode).toBe(2);
    expect(many.stderr).toContain("--out - takes one session's output");
    expect(readdirSync(dir)).toEqual(["fixed.jsonl"]);
  });
});

describe("messages a new user meets", () => {
  it("a mistyped command gets a suggestion, an invalid choice names the choices, --limit 0 says what it hides", async () => {
    const typo = await cli(["lss"]);
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toMatch(/^pi-session: unknown command `lss` \(did you mean ls\?\); the commands are ls, /);
    expect((await cli(["frobnicate"])).stderr).not.toContain("did you mean");
    const format = await cli(["export", fixture("linear.jsonl"), "--format", "pdf"]);
    expect(format).toMatchObject({ exitCode: 2, stderr: "pi-session: --format is one of md, json, html, jsonl, not `pdf`; see pi-session export --help\n" });
    const dir = join(work, "limit");
    mkdirSync(dir, { recursive: true });
    copyFileSync(fixture("linear.jsonl"), join(dir, "linear.jsonl"));
    const none = await cli(["ls", dir, "--limit", "0", "--no-cache"]);
    expect(none.stdout).toBe(`1 session in ${dir}, none shown (--limit 0)\n`);
  });
});

describe("a header repair synthesizes says where each value came from", () => {
  it("the cwd comes from the other sessions in the folder before the folder's lossy name, and ls --cwd then finds it", async () => {
    const cwd = "/data/data/com.termux/files/home/projects/earth-0";
    const store = join(work, "termux");
    const folder = join(store, "--data-data-com.termux-files-home-projects-earth-0--");
    mkdirSync(folder, { recursive: true });
    const linear = readFileSync(fixture("linear.jsonl"), "utf8").trimEnd().split("\n");
    for (const k of [1, 2, 3]) {
      const head = { ...JSON.parse(linear[0]!), id: `0f1e2d3c-0000-4000-8000-00000000000${k}`, cwd };
      writeFileSync(join(folder, `2026-03-0${k}T10-00-00-000Z_${head.id}.jsonl`), [JSON.stringify(head), ...linear.slice(1)].join("\n") + "\n");
    }
    const headless = join(folder, "2026-03-09T10-00-00-000Z_0f1e2d3c-0000-4000-8000-000000000009.jsonl");
    writeFileSync(headless, linear.slice(1).join("\n") + "\n");
    const r = await cli(["repair", headless]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${headless}:1: header-synthesized: no header: synthesized one (id 0f1e2d3c-0000-4000-8000-000000000009 from the file name, timestamp 2026-03-09T10:00:00.000Z from the file name, cwd ${cwd} from the 3 other sessions in its folder)`);
    expect(JSON.parse(readFileSync(headless, "utf8").split("\n")[0]!).cwd).toBe(cwd);
    const listed = await cliJson(["ls", store, "--cwd", cwd, "--no-cache"]);
    expect(listed.json.sessions.map((s: { path: string }) => s.path)).toContain(headless);
  });

  it("alone in its folder, the cwd comes from the folder's name, and the report says it is lossy", async () => {
    const folder = join(work, "alone", "--home-ada-my-app--");
    mkdirSync(folder, { recursive: true });
    const headless = join(folder, "notes.jsonl");
    writeFileSync(headless, readFileSync(fixture("linear.jsonl"), "utf8").split("\n").slice(1).join("\n"));
    const r = await cli(["repair", headless]);
    expect(r.stdout).toMatch(/cwd \/home\/ada\/my\/app from the folder's name \(pi's encoding of it is lossy\)\)/);
    expect(r.stdout).toContain("from a hash of the file's name and first entry");
  });
});

describe("a write the machine refuses", () => {
  it("export -o, repair --out and fork --out into a place that cannot be written: one line naming it, exit 2, no internal error", async () => {
    // (a path through a file: refused for root too, as CI runs)
    const file = join(work, "plain-file");
    writeFileSync(file, "x");
    const broken = join(work, "broken.jsonl");
    copyFileSync(fixture("fused.jsonl"), broken);
    for (const args of [["export", fixture("linear.jsonl"), "-o", join(file, "out.md")], ["repair", broken, "--out", join(file, "out.jsonl")], ["fork", fixture("linear.jsonl"), "--out", join(file, "out.jsonl")]]) {
      const r = await cli(args);
      expect(r.exitCode, args[0]).toBe(2);
      expect(r.stderr, args[0]).toBe(`pi-session: cannot write in ${file}: a part of the path is not a directory; check that the directory exists and that you can write to it, or give another place (--out, -o, --backup-dir)\n`);
    }
    expect(readFileSync(broken).equals(readFileSync(fixture("fused.jsonl")))).toBe(true);
  });
});

describe("a closed pipe", () => {
  let big: string;
  beforeAll(() => {
    big = join(work, "big.jsonl");
    const lines = [JSON.stringify({ type: "session", version: 3, id: "big", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" })];
    for (let i = 0; i < 20_000; i++) {
      lines.push(JSON.stringify({ type: "message", id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, timestamp: "2026-01-01T00:00:00.000Z", message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: `message ${i} ${"about the salt ".repeat(8)}` }] } }));
    }
    writeFileSync(big, lines.join("\n") + "\n");
  });

  for (const args of [["tree"], ["path"], ["context"], ["export"], ["grep", "-F", "salt"], ["path", "--jsonl"], ["tree", "--json"]]) {
    it(`${args.join(" ")} | head -1 exits 0 under pipefail, quietly`, async () => {
      const command = [BIN, ...args.slice(0, args[0] === "grep" ? 3 : 1), big, ...args.slice(args[0] === "grep" ? 3 : 1)].map((a) => `'${a}'`).join(" ");
      const r = await execa("bash", ["-o", "pipefail", "-c", `node ${command} | head -1`], { reject: false, env: { NO_COLOR: "1" } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.split("\n")).toHaveLength(1);
      expect(r.stderr).toBe("");
    });
  }
});

describe("ls piped, and ids shared by copies", () => {
  it("piped, ls prints each id whole, and show finds the session by it", async () => {
    const dir = join(work, "store-ids");
    const project = join(dir, "--work-app--");
    mkdirSync(project, { recursive: true });
    const id = "0f1e2d3c-0000-4000-8000-000000000001"; // (linear.jsonl's own id, named as pi names its file)
    copyFileSync(fixture("linear.jsonl"), join(project, `2026-03-01T10-00-00-000Z_${id}.jsonl`));
    const listed = await cli(["ls", dir]);
    const first = listed.stdout.split("\n")[1]!.split(/ +/)[0]!;
    expect(first).toBe(id);
    expect((await cli(["show", first, "--session-dir", dir])).exitCode).toBe(0);
  });

  it("an id or prefix that names several files lists them, so that one can be given", async () => {
    const dir = join(work, "store-copies");
    const id = "0f1e2d3c-0000-4000-8000-00000000beef";
    const paths = ["--work-a--", "--work-b--"].map((p) => join(dir, p, `2026-03-01T10-00-00-000Z_${id}.jsonl`));
    for (const p of paths) {
      mkdirSync(join(p, ".."), { recursive: true });
      copyFileSync(fixture("linear.jsonl"), p);
    }
    const same = await cli(["show", id, "--session-dir", dir]);
    expect(same.exitCode).toBe(2);
    expect(same.stderr).toBe(`pi-session: session id \`${id}\` is in 2 files (${paths.join(", ")}); give the file's path\n`);
    const other = join(dir, "--work-a--", "2026-03-01T11-00-00-000Z_0f1e2d3c-1111-4000-8000-000000000000.jsonl");
    copyFileSync(fixture("linear.jsonl"), other);
    const prefix = await cli(["show", "0f1e2d3c", "--session-dir", dir]);
    expect(prefix.exitCode).toBe(2);
    expect(prefix.stderr).toContain("session id prefix `0f1e2d3c` is ambiguous (3 sessions: ");
    expect(prefix.stderr).toContain(`0f1e2d3c-1111-4000-8000-000000000000 in ${other}`);
    expect(prefix.stderr).toContain("give more characters, or the file's path");
  });
});

describe("an id ls shows finds its session, whatever its file is named", () => {
  it("a copy named otherwise (earth-0__019ebb22.snapA.v3.jsonl): show, check and tail find it by the id and a prefix ls shows; beside the original, both are named", async () => {
    const dir = join(work, "store-renamed");
    mkdirSync(dir, { recursive: true });
    const copy = join(dir, "earth-0__019ebb22.snapA.v3.jsonl");
    copyFileSync(join(CORPUS, "earth-0__019ebb22.snapA.v3.jsonl"), copy);
    const listed = await cliJson(["ls", dir]);
    const id = listed.json.sessions[0].id as string;
    expect(id).toBe("019ebb22-69c0-77df-8480-5618f0660c02");
    for (const name of [id, id.slice(0, 8)]) {
      const shown = await cliJson(["show", name, "--session-dir", dir]);
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(shown.json.file).toBe(copy);
      const human = await cli(["show", name, "--session-dir", dir]);
      expect(human.stdout).toMatch(new RegExp(`^File +${copy.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} `, "m"));
    }
    expect((await cli(["check", id.slice(0, 8), "--session-dir", dir])).exitCode).toBe(0);
    expect((await cli(["tail", id.slice(0, 8), "-n", "1", "--session-dir", dir])).exitCode).toBe(0);
    // (the same session under pi's name beside it: the id names both files, and says which)
    const original = join(dir, `2026-06-12T09-00-00-000Z_${id}.jsonl`);
    copyFileSync(copy, original);
    const both = await cli(["show", id, "--session-dir", dir]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toBe(`pi-session: session id \`${id}\` is in 2 files (${original}, ${copy}); give the file's path\n`);
  });
});

describe("- reads evenly: standard input where a session is read, a clear error where a folder or an archive is wanted", () => {
  it("tail - shows standard input's last entries (-f: nothing more comes, said); ls - and restore - say what they take instead of looking for a file named -", async () => {
    const input = readFileSync(fixture("tools.jsonl"));
    const tail = await cli(["tail", "-", "-n", "2"], { input });
    expect(tail.exitCode, tail.stderr).toBe(0);
    expect(tail.stdout).toBe((await cli(["tail", fixture("tools.jsonl"), "-n", "2"])).stdout);
    const json = await cliJson(["tail", "-", "-n", "2"], { input });
    expect(json.json.file).toBe("<stdin>");
    expect(json.json.entries.map((e: { line: number }) => e.line)).toEqual([29, 30]);
    const follow = await cli(["tail", "-", "-f"], { input });
    expect(follow).toMatchObject({ exitCode: 2, stdout: "" });
    expect(follow.stderr).toBe("pi-session: - (standard input) is read once and nothing more is written to it, so there is nothing to follow: `pi-session tail -` (without -f) shows its last entries\n");
    const dir = mkdtempSync(join(work, "dash-"));
    const ls = await cli(["ls", "-"], { input, cwd: dir });
    expect(ls).toMatchObject({ exitCode: 2, stdout: "" });
    expect(ls.stderr).toBe("pi-session: ls lists a folder of sessions; - (standard input) is one session: `pi-session show -` summarises it\n");
    const restore = await cli(["restore", "-"], { input, cwd: dir });
    expect(restore).toMatchObject({ exitCode: 2, stdout: "" });
    expect(restore.stderr).toContain("- (standard input) is no archive: give an archive's path or an archived session's id");
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("a directory with no session file", () => {
  it("check and the writers' --check say so on stderr and exit 2; a writer without --check says so", async () => {
    const empty = join(work, "empty");
    mkdirSync(join(empty, "sessions"), { recursive: true });
    const checked = await cli(["check", empty]);
    expect(checked.exitCode).toBe(2);
    expect(checked.stderr).toBe(`pi-session: ${empty}: no session files in it or in its project folders; pi keeps them in ${join(empty, "sessions")}: give that\n`);
    // (a gate that checked nothing reports nothing on stdout: no "checked 0 files")
    expect(checked.stdout).toBe("");
    expect((await cli(["check", empty, "--format", "github"])).stdout).toBe("");
    expect((await cliJson(["check", empty])).json.emptyDirectories).toEqual([empty]);
    for (const writer of ["migrate", "repair", "slim"]) {
      const gate = await cli([writer, empty, "--check"]);
      expect(gate.exitCode, writer).toBe(2);
      expect(gate.stderr, writer).toContain(`${empty}: no session files in it`);
    }
    // every other command: nothing to do, said on stderr, nothing on stdout (no header-only table), exit as for nothing wrong
    for (const [args, code] of [[["repair", empty], 0], [["migrate", empty], 0], [["slim", empty], 0], [["usage", empty], 0], [["grep", "x", empty], 1], [["ls", empty], 0], [["tail", "--all", empty], 0]] as const) {
      const r = await cli([...args]);
      expect(r.exitCode, args[0]).toBe(code);
      expect(r.stderr, args[0]).toContain(`${empty}: no session files in it`);
      expect(r.stdout, args[0]).toBe("");
    }
    // (ls --json: the document, its list empty; what is missing said on stderr all the same)
    const listed = await cliJson(["ls", empty]);
    expect(listed.json.sessions).toEqual([]);
    expect(listed.stderr).toContain(`${empty}: no session files in it`);
    // a directory that holds sessions passes as before
    const full = join(work, "full");
    mkdirSync(full);
    copyFileSync(fixture("linear.jsonl"), join(full, "linear.jsonl"));
    expect((await cli(["check", full])).exitCode).toBe(0);
    expect((await cli(["migrate", full, "--check"])).exitCode).toBe(0);
  });
});

describe("two sessions concatenated into one file", () => {
  it("check says where the second begins and its id; repair writes it to a file of its own named as pi names it, keeping both", async () => {
    const dir = join(work, "concatenated");
    mkdirSync(dir);
    const file = join(dir, "both.jsonl");
    const first = readFileSync(fixture("linear.jsonl"));
    // the second session with a torn last line, so that its own repair is numbered by the whole file's lines
    const second = readFileSync(fixture("branched.jsonl"), "utf8");
    const secondLines = second.split("\n").filter(Boolean);
    writeFileSync(file, Buffer.concat([first, Buffer.from(second + '{"type":"message","id":"torn')]));
    const firstLineCount = first.toString().split("\n").length - 1;
    const at = firstLineCount + 1;
    const secondId = (JSON.parse(secondLines[0]!) as { id: string }).id;

    const checked = await cliJson(["check", file]);
    expect(checked.exitCode).toBe(1);
    const finding = checked.json.files[0].findings.find((f: { code: string }) => f.code === "session-concatenated");
    expect(finding).toMatchObject({ severity: "error", line: at });
    expect(finding.message).toContain(`id ${secondId}`);

    const before = readFileSync(file);
    const planned = await cli(["repair", "--check", file]);
    expect(planned.exitCode).toBe(1);
    expect(planned.stdout).toContain(`${file}:${at}: session-split: another session begins here (id ${secondId}`);
    expect(planned.stdout).toContain(`${file}:${at + secondLines.length}: torn-dropped`);
    expect(readFileSync(file)).toEqual(before);

    const repaired = await cliJson(["repair", file]);
    expect(repaired.exitCode, repaired.stderr).toBe(0);
    const r = repaired.json.files[0];
    expect(r.status).toBe("repaired");
    const name = `${(JSON.parse(secondLines[0]!) as { timestamp: string }).timestamp.replace(/[:.]/g, "-")}_${secondId}.jsonl`;
    expect(r.sessions).toEqual([{ line: at, id: secondId, file: join(dir, name) }]);
    // the first session is the file, the second its own file, every byte of each kept; the original is the backup
    expect(readFileSync(file)).toEqual(first);
    expect(readFileSync(join(dir, name), "utf8")).toBe(second);
    expect(readFileSync(r.backup)).toEqual(before);
    for (const f of [file, join(dir, name)]) {
      const copy = join(work, "pi-copy.jsonl");
      copyFileSync(f, copy);
      const opened = pi.SessionManager.open(copy);
      expect(opened.getHeader().id).toBe((JSON.parse(readFileSync(f, "utf8").split("\n")[0]!) as { id: string }).id);
      expect(opened.getEntries().length).toBe(readFileSync(f, "utf8").split("\n").filter(Boolean).length - 1);
    }
    expect((await cli(["check", file, join(dir, name)])).exitCode).toBe(0);
  });

  it("a later header that continues the session (its next entry has a parent) is not a second session", async () => {
    const r = await cliJson(["check", fixture("header-not-first.jsonl")]);
    expect(r.json.files[0].findings.map((f: { code: string }) => f.code)).not.toContain("session-concatenated");
  });
});

describe("--out DIR is a store as the inputs were", () => {
  it("migrate keeps the project folders, puts each input folder under its name, and copies current files", async () => {
    const root = join(work, "out-layout");
    const project = "--home-ada-p--";
    for (const [dir, name, from] of [["a", "s.jsonl", "v1.jsonl"], ["a", "current.jsonl", "linear.jsonl"], ["b", "s.jsonl", "v2-hook.jsonl"]] as const) {
      mkdirSync(join(root, dir, project), { recursive: true });
      copyFileSync(fixture(from), join(root, dir, project, name));
    }
    const both = await cliJson(["migrate", "a", "b", "--out", "OUT"], { cwd: root });
    expect(both.exitCode, both.stderr).toBe(0);
    expect(both.json.files.map((f: { out: string }) => f.out).sort()).toEqual([`OUT/a/${project}/current.jsonl`, `OUT/a/${project}/s.jsonl`, `OUT/b/${project}/s.jsonl`]);
    // the current file is there byte for byte; the migrated ones are v3 and pass check
    expect(readFileSync(join(root, "OUT/a", project, "current.jsonl"))).toEqual(readFileSync(fixture("linear.jsonl")));
    expect((await cliJson(["migrate", "--check", "OUT/a", "OUT/b"], { cwd: root })).exitCode).toBe(0);
    // one folder: its layout directly under OUT
    const one = await cli(["migrate", "a", "--out", "ONE"], { cwd: root });
    expect(one.exitCode).toBe(0);
    expect(one.stdout).toContain(`copied -> ONE/${project}/current.jsonl`);
    expect(readFileSync(join(root, "ONE", project, "s.jsonl"), "utf8")).toContain('"version":3');
    // two files of one name: refused before anything is written
    const clash = await cli(["migrate", `a/${project}/s.jsonl`, `b/${project}/s.jsonl`, "--out", "CLASH"], { cwd: root });
    expect(clash.exitCode).toBe(2);
    expect(clash.stderr).toBe(`pi-session: --out: a/${project}/s.jsonl and b/${project}/s.jsonl would both be written to CLASH/s.jsonl; give them in separate runs, or pass the folders that hold them\n`);
    expect(() => readFileSync(join(root, "CLASH", "s.jsonl"))).toThrow();
  });

  it("repair and slim to --out copy a file they leave as it is", async () => {
    const root = join(work, "out-copy");
    mkdirSync(join(root, "in"), { recursive: true });
    copyFileSync(fixture("linear.jsonl"), join(root, "in", "clean.jsonl"));
    copyFileSync(fixture("fused.jsonl"), join(root, "in", "fused.jsonl"));
    const repaired = await cliJson(["repair", "in", "--out", "R"], { cwd: root });
    expect(repaired.json.files.map((f: { status: string; out: string }) => `${f.status} ${f.out}`).sort()).toEqual(["clean R/clean.jsonl", "repaired R/fused.jsonl"]);
    expect(readFileSync(join(root, "R", "clean.jsonl"))).toEqual(readFileSync(fixture("linear.jsonl")));
    const slimmed = await cliJson(["slim", join(root, "in", "clean.jsonl"), "--out", join(root, "S.jsonl")]);
    expect(slimmed.json.files[0]).toMatchObject({ status: "clean", out: join(root, "S.jsonl") });
    expect(readFileSync(join(root, "S.jsonl"))).toEqual(readFileSync(fixture("linear.jsonl")));
  });
});

describe("--help reads as a reader copies from it", () => {
  it("no type tags run into descriptions; --jsonl and --version only where they apply; examples whole, each under its comment", async () => {
    const check = (await cli(["check", "--help"])).stdout;
    const show = (await cli(["show", "--help"])).stdout;
    for (const text of [check, show]) {
      expect(text).not.toMatch(/\[boolean\]|\[array\]|\[required\]|\[default: \[\]\]|\(default: \)/);
      expect(text).not.toContain("--version");
      const lines = text.split("\n");
      const examples = lines.slice(lines.indexOf("Examples:") + 1).filter(Boolean);
      expect(examples.length).toBeGreaterThan(1);
      for (const [i, line] of examples.entries()) expect(line).toMatch(i % 2 === 0 ? /^ {2}# \S/ : /^ {2}pi-session (check|show) \S/);
    }
    expect(check).toContain("--jsonl");
    expect(show).not.toContain("--jsonl");
    expect(check).toMatch(/--format +text, or github: .*\(text, github; default: text\)/s);
    expect((await cli(["--version"])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("completion --help is help, not the script; completion offers the session directory's ids", async () => {
    const help = await cli(["completion", "--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/^pi-session completion\n/);
    expect(help.stdout).not.toContain("###-begin");
    const dir = join(work, "completion-sessions", "--home-ada-p--");
    mkdirSync(dir, { recursive: true });
    copyFileSync(fixture("linear.jsonl"), join(dir, "2026-03-01T10-00-00-000Z_0f1e2d3c-aaaa-4000-8000-000000000001.jsonl"));
    copyFileSync(fixture("linear.jsonl"), join(dir, "2026-03-02T10-00-00-000Z_9c8b7a6d-bbbb-4000-8000-000000000002.jsonl"));
    const env = { PI_CODING_AGENT_SESSION_DIR: join(work, "completion-sessions") };
    const all = (await cli(["--get-yargs-completions", "show", ""], { env })).stdout.split("\n");
    expect(all).toEqual(expect.arrayContaining(["0f1e2d3c-aaaa-4000-8000-000000000001", "9c8b7a6d-bbbb-4000-8000-000000000002", "--json"]));
    expect((await cli(["--get-yargs-completions", "show", "9c"], { env })).stdout).toBe("9c8b7a6d-bbbb-4000-8000-000000000002\n");
    const diff = (await cli(["--get-yargs-completions", "diff", ""], { env })).stdout.split("\n");
    expect(diff).toEqual(expect.arrayContaining(["0f1e2d3c-aaaa-4000-8000-000000000001", "--stat", "--full"]));
    const repair = (await cli(["--get-yargs-completions", "repair", ""], { env })).stdout.split("\n");
    expect(repair).toContain("--out");
    expect(repair.filter((c) => /^--.$/.test(c))).toEqual([]);
  });
});

describe("pi's --mode json output", () => {
  it("show of one saved among pi's sessions does not send the user to where it already is", async () => {
    const dir = join(work, "events-sessions");
    mkdirSync(join(dir, "--p--"), { recursive: true });
    const inside = join(dir, "--p--", "events.jsonl");
    copyFileSync(fixture("events.jsonl"), inside);
    const env = { PI_CODING_AGENT_SESSION_DIR: dir };
    const there = await cli(["show", inside], { env });
    expect(there.exitCode).toBe(2);
    expect(there.stderr).toMatch(/^pi-session: .*events\.jsonl:1: not a pi session file: pi's --mode json event stream .*pi never writes one into its session directory/);
    expect(there.stderr).not.toContain("pi keeps its sessions");
    const elsewhere = await cli(["show", fixture("events.jsonl")], { env });
    expect(elsewhere.stderr).toContain(`pi keeps its sessions in ${dir} (run \`pi-session ls\`)`);
  });
});

describe("a cost no provider recorded", () => {
  it("show says so, as usage does, rather than $0.0000; a recorded cost is shown", async () => {
    const none = await cli(["show", join(CORPUS, "coffee-shop__019f300b.v3.multimodel.jsonl")]);
    expect(none.stdout).toMatch(/^Cost +- no cost recorded$/m);
    expect(none.stdout).not.toContain("$0.0000");
    expect((await cliJson(["show", join(CORPUS, "coffee-shop__019f300b.v3.multimodel.jsonl")])).json.cost).toBe(0);
    expect((await cli(["show", fixture("linear.jsonl")])).stdout).toMatch(/^Cost +\$\d+\.\d{4}$/m);
  });

  it("usage --format csv leaves the cost empty where the table says - (requests, no cost recorded), and keeps a recorded one", async () => {
    const file = join(CORPUS, "coffee-shop__019f300b.v3.multimodel.jsonl");
    const table = await cli(["usage", file, "--by", "model"]);
    const csv = (await cli(["usage", file, "--by", "model", "--format", "csv"])).stdout.trimEnd().split("\r\n");
    const head = csv[0]!.split(",");
    const rows = csv.slice(1).map((l) => l.split(","));
    const unpriced = rows.filter((r) => r[head.indexOf("cost")] === "");
    expect(unpriced.length).toBeGreaterThan(0);
    for (const r of unpriced) expect(Number(r[head.indexOf("requests")])).toBeGreaterThan(0);
    expect(table.stdout).toMatch(/ - /);
    const [pricedHead, pricedRow] = (await cli(["usage", fixture("linear.jsonl"), "--format", "csv"])).stdout.trimEnd().split("\r\n").map((l) => l.split(","));
    expect(Number(pricedRow![pricedHead!.indexOf("cost")])).toBeGreaterThan(0);
  });
});
