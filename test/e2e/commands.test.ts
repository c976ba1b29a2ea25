/** Every read-only command, spawned for real, in human and --json mode: stdout, stderr and exit code together. */
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { execa } from "execa";
import { cli, cliJson } from "../helpers/cli.js";
import { CORPUS, corpusFiles, fixture, fixtureFiles, FIXTURES } from "../helpers/paths.js";
import { pi } from "../helpers/pi.js";
import { assistant, header, jsonl, user } from "../helpers/builders.js";

describe("help", () => {
  it("lists every command and the exit codes", async () => {
    const r = await cli(["--help"]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    for (const c of ["ls", "show", "tree", "path", "context", "check", "migrate", "repair", "slim", "fork", "export", "diff", "completion"]) expect(r.stdout).toContain(`pi-session ${c}`);
    expect(r.stdout).toMatch(/Exit codes:[\s\S]*2 +usage error/);
  });

  it("the prerendered top-level help is the parser's own", async () => {
    const fast = await cli(["--help"]);
    const parsed = await cli(["--help", "--no-color"]); // two arguments: rendered by yargs
    expect(fast.stdout).toBe(parsed.stdout);
    expect(fast.stdout.length).toBeGreaterThan(500);
  });

  it.each(["ls", "show", "tree", "path", "context", "check", "migrate", "repair", "fork", "export", "diff"])("%s --help has an example", async (c) => {
    const r = await cli([c, "--help"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Examples:");
  });

  it("a usage error is one line on stderr and exit 2", async () => {
    for (const args of [["frobnicate"], ["show"], ["tree", fixture("linear.jsonl"), "--depth", "x"]]) {
      const r = await cli(args);
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(/^pi-session: .*(pi-session( \w+)? --help|e\.g\. pi-session \w+ )/);
    }
  });

  it("usage errors say what was wrong and what was expected", async () => {
    expect((await cli(["frob"])).stderr).toBe("pi-session: unknown command `frob`; the commands are ls, show, tree, path, context, check, migrate, repair, slim, fork, export, redact, tail, archive, restore, cat, diff, usage, grep, search, completion (see pi-session --help)\n");
    expect((await cli(["show"])).stderr).toBe("pi-session: `show` needs FILE (a path, - for stdin, or a session id); e.g. pi-session show session.jsonl\n");
    expect((await cli(["tree", "x", "--bogus"])).stderr).toBe("pi-session: unexpected option --bogus for `tree`; see pi-session tree --help\n");
    expect((await cli(["ls", "--limit", "-3"])).stderr).toBe('pi-session: --limit takes a whole number >= 0 (e.g. --limit 10), got "-3"; see pi-session --help\n');
  });

  it("an option that takes one value, given twice, is a usage error naming both (yargs kept the last); flags and lists may repeat", async () => {
    const twice = await cli(["usage", fixture("linear.jsonl"), "--by", "model", "--by=day"]);
    expect(twice.exitCode).toBe(2);
    expect(twice.stdout).toBe("");
    expect(twice.stderr).toBe("pi-session: --by given 2 times (model, day): it takes one value; give it once\n");
    const alias = await cli(["export", fixture("linear.jsonl"), "-o", "a.md", "--out", "b.md"]);
    expect(alias.exitCode).toBe(2);
    expect(alias.stderr).toContain("given 2 times (a.md, b.md)");
    // (a flag twice is still the flag; what follows -- is no option)
    expect((await cli(["check", fixture("linear.jsonl"), "--json", "--json"])).exitCode).toBe(0);
    expect((await cli(["grep", "-F", "-c", "--", "--by", fixture("linear.jsonl")])).exitCode).toBe(1);
  });

  it("pi-session alone prints the help, which lists the commands (exit 2: no command was given)", async () => {
    const r = await cli([]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toMatch(/^pi-session <command> \[options\]/);
    for (const command of ["ls", "show", "check", "repair", "usage", "grep"]) expect(r.stdout).toContain(`pi-session ${command} `);
  });

  it("completion prints a shell script", async () => {
    const r = await cli(["completion"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("complete -o bashdefault");
  });
});

describe("show", () => {
  it("lists the latest 20 leaves (and the current one) on a terminal, with a pointer to the rest; JSON lists them all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-show-"));
    const file = join(dir, "many.jsonl");
    const e = (id: string, parentId: string | null, t: number) => JSON.stringify({ type: "message", id, parentId, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, t)).toISOString(), message: { role: "user", content: `leaf ${id}`, timestamp: t } });
    // a root with 30 children; a harness leaf entry makes an old child the current leaf
    const lines = [JSON.stringify({ type: "session", version: 3, id: "many", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }), e("r0000000", null, 0)];
    for (let k = 1; k <= 30; k++) lines.push(e(`c${String(k).padStart(7, "0")}`, "r0000000", k));
    lines.push(JSON.stringify({ type: "leaf", id: "l0000001", parentId: "c0000030", timestamp: "2026-01-01T00:01:00.000Z", targetId: "c0000002" }));
    writeFileSync(file, lines.join("\n") + "\n");
    const r = await cli(["show", file]);
    expect(r.exitCode).toBe(0);
    // the current leaf first, then the latest 20 in file order
    expect(r.stdout).toContain("Leaves (30), the latest 20 and the current one\n* c0000002 ");
    expect(r.stdout.match(/^ {2}c\d{7} +depth/gm)).toHaveLength(20);
    expect(r.stdout).toContain("  c0000011 ");
    expect(r.stdout).toContain("  c0000030 ");
    expect(r.stdout).not.toContain("  c0000010 ");
    expect(r.stdout).toContain(`  … 9 more: pi-session path ${file} --leaves\n`);
    const json = await cliJson(["show", file]);
    expect(json.json.leaves).toHaveLength(30);
    expect(json.json).not.toHaveProperty("totals");
  });

  it("summarises a session", async () => {
    const r = await cli(["show", fixture("branched.jsonl")]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/Session +0f1e2d3c-0000-4000-8000-000000000002 +\(v3\)/);
    expect(r.stdout).toMatch(/Leaves \(2\)/);
    expect(r.stdout).toMatch(/\* b000000b +depth +5 .*chosen → b000000a/);
    expect(r.stdout).toMatch(/Branch points \(1\)\n +b0000002 +2 children/);
  });

  it("--json gives counts, leaves, labels and findings", async () => {
    const { json, exitCode, stderr } = await cliJson(["show", fixture("compacted.jsonl")]);
    expect(exitCode).toBe(0);
    expect(stderr).toBe("");
    expect(json.entries).toBe(15);
    expect(json.entriesByType).toMatchObject({ message: 8, compaction: 2, context_edit: 2, custom: 1, custom_message: 1, usage: 1 });
    expect(json.messagesByRole).toMatchObject({ user: 4, assistant: 2, system: 1, bashExecution: 1 });
    expect(json.compactions.map((c: { id: string }) => c.id)).toEqual(["c0000005", "c000000e"]);
    expect(json.currentLeaf).toBe("c000000f");
    expect(json.tokens.total).toBe(2 * 0 + (103 + 23) + (110 + 30));
    expect(json.cost).toBeCloseTo(0.003 + 0.01 + 0.015);
    expect(json.problems).toEqual({ errors: 0, warnings: 0, info: 0 });
  });

  it("prints one entry in full, by unique id prefix", async () => {
    const r = await cliJson(["show", fixture("linear.jsonl"), "a0000004"]);
    expect(r.exitCode).toBe(0);
    expect(r.json.line).toBe(5);
    expect(r.json.entry.message.content[2]).toEqual({ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls src" } });
    // on a terminal and piped, the entry rendered: the call as its command, and its result's line
    const human = await cli(["show", fixture("linear.jsonl"), "a0000004"]);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/^.*linear\.jsonl:5 {2}message · assistant {2}a0000004\n/);
    expect(human.stdout).toContain("→ bash $ ls src\n");
    expect(human.stdout).toMatch(/\ncalls\n {2}call_1 bash: answered in a0000005 \(line 6\)\n/);
    expect(human.stdout).not.toContain('"arguments"');
  });

  it("an entry where it stands: parent and children with their lines, its branch, its label, model, usage and cost; a result names its call", async () => {
    const tools = fixture("tools.jsonl");
    const lines = readFileSync(tools, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
    const call = lines.findIndex((e) => e.id === "t0000004") + 1;
    const result = lines.findIndex((e) => e.id === "t0000005") + 1;
    const callId = lines[call - 1].message.content.find((b: { type: string }) => b.type === "toolCall").id as string;
    const a = (await cli(["show", tools, "t0000004"])).stdout;
    expect(a).toContain(`parent    t0000003 (line ${call - 1}) `);
    expect(a).toContain(`children  t0000005 (line ${result})\n`);
    expect(a).toMatch(/branch {4}depth 3 · on the current branch \(the current leaf: t\d+ \(line \d+\)\)/);
    const u = lines[call - 1].message.usage;
    expect(a).toContain(`model     ${lines[call - 1].message.provider}/${lines[call - 1].message.model} · stop toolUse · ${u.input.toLocaleString("en-US")} in · ${u.output} out · $${u.cost.total.toFixed(4)}\n`);
    expect(a).toContain(`  ${callId} bash: answered in t0000005 (line ${result})\n`);
    const r = (await cli(["show", tools, "t0000005"])).stdout;
    expect(r).toContain(`answers   ${callId}: the call in t0000004 (line ${call})\n`);
    // a branch off the current one, and a label
    const b = (await cli(["show", fixture("branched.jsonl"), "b0000004"])).stdout;
    expect(b).toMatch(/not on the current branch|on the current branch/);
    const labelled = readFileSync(fixture("branched.jsonl"), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "label" && e.label);
    const target = labelled.at(-1).targetId as string;
    const lastLabel = readFileSync(fixture("branched.jsonl"), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "label" && e.targetId === target).at(-1);
    const shown = (await cli(["show", fixture("branched.jsonl"), target])).stdout;
    if (lastLabel.label) expect(shown).toContain(`label     ${lastLabel.label}\n`);
    else expect(shown).not.toMatch(/\nlabel /);
    const mark = (await cli(["show", fixture("branched.jsonl"), lastLabel.id])).stdout;
    expect(mark).toMatch(new RegExp(`\\nmarks +${target} \\(line \\d+\\)`));
  });

  it("a compaction shows where its kept part starts; a call with no result says so; session text cannot drive the terminal", async () => {
    const compacted = readFileSync(fixture("compacted.jsonl"), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
    const c = compacted.find((e) => e.type === "compaction" && e.firstKeptEntryId)!;
    const kept = compacted.findIndex((e) => e.id === c.firstKeptEntryId) + 1;
    const out = (await cli(["show", fixture("compacted.jsonl"), c.id])).stdout;
    expect(out).toContain(`keeps from  ${c.firstKeptEntryId} (line ${kept}) `);
    expect(out).toContain(c.summary.split("\n")[0]);
    const file = join(mkdtempSync(join(tmpdir(), "pi-session-show-")), "s.jsonl");
    const turn = assistant("a0000001", "u0000001", "running");
    writeFileSync(file, jsonl(header(), user("u0000001", null, "go \u001b]0;pwned\u0007 now"), { ...turn, message: { ...(turn.message as object), content: [{ type: "toolCall", id: "call_9", name: "bash", arguments: { command: "rm -rf \u001b[2J /tmp/x" } }], stopReason: "toolUse" } }, user("u0000002", "a0000001", "next")));
    const lonely = await cli(["show", file, "a0000001"]);
    expect(lonely.stdout).toContain("call_9 bash: no result below it (pi answers it with an error result)");
    expect(lonely.stdout).not.toMatch(/\u001b/);
    expect((await cli(["show", file, "u0000001"])).stdout).not.toMatch(/\u001b|\u0007/);
  });

  it("says a missing entry id is missing, and an ambiguous prefix is ambiguous", async () => {
    const missing = await cli(["show", fixture("linear.jsonl"), "zzzz"]);
    expect(missing.exitCode).toBe(2);
    // (one hint for every command that takes an entry: where to see the ids)
    expect(missing.stderr).toMatch(/linear\.jsonl: no entry `zzzz`; run `pi-session path .*linear\.jsonl --leaves` or `pi-session tree .*linear\.jsonl` to see the ids/);
    const ambiguous = await cli(["show", fixture("linear.jsonl"), "a00000"]);
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toMatch(/prefix `a00000` is ambiguous: a0000001, /);
  });
});

describe("tree", () => {
  it("draws branches with box characters and marks the current leaf and labels", async () => {
    const r = await cli(["tree", fixture("branched.jsonl")]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^b0000001 user Pick a name/);
    expect(lines[1]).toMatch(/^b0000002 assistant \[first idea\]/);
    expect(lines[2]).toMatch(/^├─ b0000003 user/);
    expect(r.stdout).toMatch(/└─ b0000008 branch_summary/);
    expect(r.stdout).toMatch(/b000000a assistant \[chosen\] `memo`/);
    expect(r.stdout).toMatch(/b000000b label ← current leaf/);
  });

  it("--json lists nodes with parents, children, depth and labels", async () => {
    const { json } = await cliJson(["tree", fixture("branched.jsonl")]);
    expect(json.roots).toEqual(["b0000001"]);
    expect(json.currentLeaf).toBe("b000000b");
    const byId = Object.fromEntries(json.nodes.map((n: { id: string }) => [n.id, n]));
    expect(byId.b0000002.children).toEqual(["b0000003", "b0000008"]);
    expect(byId.b0000002.label).toBe("first idea");
    expect(byId.b0000004.label).toBeNull(); // set, then cleared
    expect(byId.b000000a).toMatchObject({ depth: 4, parentId: "b0000009", kind: "message/assistant", label: "chosen" });
  });

  it("--depth stops drawing and says how much it left out; --compact folds linear runs", async () => {
    const depth = await cli(["tree", fixture("linear.jsonl"), "--depth", "2"]);
    expect(depth.stdout.trimEnd().split("\n")).toHaveLength(3);
    expect(depth.stdout).toContain("(5 deeper entries not drawn; raise --depth)");
    const compact = await cli(["tree", fixture("linear.jsonl"), "--compact"]);
    expect(compact.stdout).toMatch(/^a0000001 model_change .*\n┆ 5 entries\na0000007 session_info ← current leaf/);
  });
});

describe("path", () => {
  it("lists root to current leaf, one entry a line", async () => {
    const r = await cli(["path", fixture("branched.jsonl")]);
    expect(r.exitCode).toBe(0);
    const ids = r.stdout.trimEnd().split("\n").map((l) => l.trim().split(/\s+/)[1]);
    expect(ids).toEqual(["b0000001", "b0000002", "b0000008", "b0000009", "b000000a", "b000000b"]);
  });

  it("takes an entry and gives JSON", async () => {
    const { json } = await cliJson(["path", fixture("branched.jsonl"), "b0000004"]);
    expect(json.leaf).toBe("b0000004");
    expect(json.entries.map((e: { id: string }) => e.id)).toEqual(["b0000001", "b0000002", "b0000003", "b0000004"]);
    expect(json.entries[0]).toMatchObject({ parentId: null, line: 2, kind: "message/user" });
  });

  it("--leaves lists every tip with depth and label", async () => {
    const r = await cli(["path", fixture("branched.jsonl"), "--leaves"]);
    expect(r.stdout).toMatch(/^ {2}b0000007 +depth +6 /m);
    expect(r.stdout).toMatch(/^\* b000000b +depth +5 /m);
    const { json } = await cliJson(["path", fixture("branched.jsonl"), "--leaves"]);
    expect(json.leaves.map((l: { id: string; current: boolean }) => [l.id, l.current])).toEqual([
      ["b0000007", false],
      ["b000000b", true],
    ]);
  });
});

describe("context", () => {
  it("--json prints exactly pi's SessionContext plus activeToolNames", async () => {
    for (const name of ["compacted.jsonl", "branched.jsonl", "v1.jsonl"]) {
      const { json, exitCode } = await cliJson(["context", fixture(name)]);
      expect(exitCode).toBe(0);
      const entries = pi.parseSessionEntries(readFileSync(fixture(name), "utf8"));
      pi.migrateSessionEntries(entries);
      const body = entries.filter((e) => e.type !== "session");
      const expected = pi.buildSessionContext(body);
      expect(json).toEqual({ ...JSON.parse(JSON.stringify(expected)), activeToolNames: null });
    }
  });

  it("--json equals pi's context for every corpus file (messages copied from the file where pi passes them through)", async () => {
    for (const file of corpusFiles()) {
      const { json, exitCode } = await cliJson(["context", file]);
      expect(exitCode).toBe(0);
      const entries = pi.parseSessionEntries(readFileSync(file, "utf8"));
      pi.migrateSessionEntries(entries);
      const expected = pi.buildSessionContext(entries.filter((e) => e.type !== "session"));
      expect(json, file).toEqual({ ...JSON.parse(JSON.stringify(expected)), activeToolNames: null });
    }
  });

  it("--leaf picks another branch", async () => {
    const { json } = await cliJson(["context", fixture("branched.jsonl"), "--leaf", "b0000004"]);
    expect(json.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("renders the conversation for people", async () => {
    const r = await cli(["context", fixture("linear.jsonl")]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^model anthropic\/claude-sonnet-4-5 · thinking medium\n/);
    expect(r.stdout).toMatch(/── user ─+\nList the files in src\/ please\./);
    expect(r.stdout).toContain("[thinking] The user wants a listing.");
    expect(r.stdout).toContain("→ bash $ ls src\n");
  });

  it("shows a tool call as export does: a write's path before its content, an edit as its diff, a search by its terms, another tool as JSON", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "pi-session-context-tools-")), "tools.jsonl");
    const html = `<!DOCTYPE html>\n<html>\n${"<p>line</p>\n".repeat(40)}</html>`;
    const calls = [
      { type: "toolCall", id: "c1", name: "write", arguments: { content: html, path: "site/index.html" } },
      { type: "toolCall", id: "c2", name: "edit", arguments: { path: "app.js", edits: [{ oldText: "let a = 1;", newText: "let a = 2;" }] } },
      { type: "toolCall", id: "c3", name: "grep", arguments: { pattern: "TODO", path: "src", ignoreCase: true } },
      { type: "toolCall", id: "c4", name: "deploy", arguments: { target: "prod" } },
    ];
    const a = { ...assistant("a0000002", "u0000001", ""), message: { ...assistant("a0000002", "u0000001", "").message, content: calls, stopReason: "toolUse" } };
    writeFileSync(file, jsonl(header(), user("u0000001", null, "go"), a));
    const r = await cli(["context", file]);
    expect(r.exitCode).toBe(0);
    // (piped, the written file whole, each of its lines under the call)
    expect(r.stdout).toContain(`→ write site/index.html (43 lines)\n${html.split("\n").map((l) => `  ${l}`).join("\n")}\n`);
    expect(r.stdout).not.toMatch(/more lines/);
    expect(r.stdout).toContain("→ edit app.js (1 edit)\n  @@ -1,1 +1,1 @@\n  -let a = 1;\n  +let a = 2;\n");
    expect(r.stdout).toContain("→ grep TODO in src · ignoring case\n");
    expect(r.stdout).toContain('→ deploy {"target":"prod"}');
  });

  it("--llm shows provider-facing messages", async () => {
    const { json } = await cliJson(["context", fixture("compacted.jsonl"), "--llm"]);
    expect(json.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user", "user", "user", "assistant", "user"]);
    expect(json.messages[1].content[0].text).toMatch(/^The conversation history before this point was compacted/);
  });

  it("gives the harness's active tools", async () => {
    const { json } = await cliJson(["context", fixture("harness.jsonl")]);
    expect(json.activeToolNames).toEqual(["read"]);
    expect(json.messages.map((m: { content: Array<{ text: string }> }) => m.content[0]!.text)).toEqual(["First question", "First answer"]);
  });

  it("a --leaf that does not exist is exit 2 with a pointer to the ids", async () => {
    const r = await cli(["context", fixture("linear.jsonl"), "--leaf", "nope"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^pi-session: .*linear\.jsonl: no entry `nope`; run `pi-session path .* --leaves`/);
  });
});

describe("check", () => {
  it("exit 0 for clean files and warnings only", async () => {
    const r = await cli(["check", fixture("linear.jsonl"), fixture("orphans.jsonl")]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/orphans\.jsonl:5: warning parent-missing: parent `zzzzzzzz` does not exist/);
    expect(r.stdout).toMatch(/checked 2 files: 0 invalid, 0 errors, 1 warning\n/);
  });

  it("exit 1 with file:line findings when there are errors, the command that mends them once, and why with --verbose", async () => {
    const r = await cli(["check", fixture("cycle.jsonl")]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/cycle\.jsonl:3: error parent-cycle: parent links from here form a cycle; broken at this entry\n/);
    // (the parent later in the file that closes the cycle is said under it)
    expect(r.stdout).toMatch(/\n {4}↳ line 3: warning parent-forward: parent `d0000003` comes later in the file \(line 4\)\n/);
    expect(r.stdout.match(/next: pi-session repair \S*cycle\.jsonl\n/g)).toHaveLength(1);
    expect(r.stdout).not.toContain("pi loops forever");
    const verbose = await cli(["check", "--verbose", fixture("cycle.jsonl")]);
    expect(verbose.stdout).toMatch(/cycle\.jsonl:3: error parent-cycle: .*\n {4}pi loops forever on a parent cycle\n/);
    expect(verbose.exitCode).toBe(1);
  });

  it("walks directories and reports JSON", async () => {
    const { json, exitCode } = await cliJson(["check", FIXTURES]);
    expect(exitCode).toBe(1);
    const byName = Object.fromEntries(json.files.map((f: { file: string }) => [f.file.split("/").pop(), f]));
    expect(byName["linear.jsonl"].errors).toBe(0);
    expect(byName["fused.jsonl"].findings.map((f: { code: string }) => f.code)).toContain("line-fused");
    expect(json.summary.files).toBe(json.files.length);
    expect(json.summary.failed).toBe(json.files.filter((f: { errors: number }) => f.errors > 0).length);
  });

  it("--quiet prints errors and the summary only", async () => {
    const r = await cli(["check", "-q", fixture("orphans.jsonl"), fixture("fused.jsonl")]);
    expect(r.stdout).not.toContain("warning parent-missing");
    expect(r.stdout).not.toMatch(/orphans\.jsonl: ok/);
    expect(r.stdout).toContain("error line-fused");
  });

  it("the corpus: only the fused v1 file is invalid", async () => {
    const { json } = await cliJson(["check", CORPUS]);
    const invalid = json.files.filter((f: { errors: number }) => f.errors > 0).map((f: { file: string }) => f.file.split("/").pop());
    expect(invalid).toEqual(["pi-mono-history__session.v1.concat-corrupt.jsonl"]);
  });
});

describe("ls", () => {
  it("lists sessions with id, title, counts, version and status", async () => {
    const r = await cli(["ls", FIXTURES, "--sort", "name"]);
    expect(r.exitCode).toBe(0);
    // (fixtures/openclaw-cold is an OpenClaw store: its column, "-" for pi's files)
    expect(r.stdout).toMatch(/^id +name \/ first message +agent · kind +cwd +created +last activity +msgs +branches +size +v +status/);
    expect(r.stdout).toMatch(/0f1e2d3c-0000-4000-8000-[0-9a-f]{12} +List src +- /);
    // piped: the id whole, so that `ls | awk '{print $1}' | xargs pi-session show` works
    expect(r.stdout).toMatch(/0f1e2d3c-0000-4000-8000-[0-9a-f]{12} +List src .* ok/);
    expect(r.stdout).toMatch(/Start the refactor\. .* 1 +needs-migrate/);
    expect(r.stdout).toMatch(/invalid: \d+ errors?/);
  });

  it("lists files that hold no session as such: pi's --mode json output, an empty file, another JSONL file", async () => {
    const { json } = await cliJson(["ls", FIXTURES, "--no-cache"]);
    const status = (name: string) => json.sessions.find((s: { path: string }) => s.path.endsWith(`/${name}`))?.status;
    expect(status("events.jsonl")).toBe("not a session: pi's --mode json event stream");
    expect(status("empty.jsonl")).toBe("not a session");
    expect(status("linear.jsonl")).toBe("ok");
    const human = await cli(["ls", FIXTURES, "--no-cache"]);
    expect(human.stdout).toMatch(/not a session: pi's --mode json event stream\n/);
  });

  it("--json, --sort and --limit", async () => {
    const { json } = await cliJson(["ls", FIXTURES, "--sort", "messages", "--limit", "3"]);
    expect(json.sessions).toHaveLength(3);
    expect(json.total).toBeGreaterThan(3);
    const counts = json.sessions.map((s: { messages: number }) => s.messages);
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
    expect(json.sessions[0]).toMatchObject({ path: expect.stringContaining("fixtures/"), status: expect.any(String), branches: expect.any(Number) });
    const human = await cli(["ls", FIXTURES, "--sort", "messages", "--limit", "3"]);
    expect(human.stdout.endsWith(`\n(${json.total - 3} more; raise --limit)\n`)).toBe(true);
    // (in colour the note is dimmed on its own line)
    const coloured = await cli(["ls", FIXTURES, "--sort", "messages", "--limit", "3"], { env: { NO_COLOR: undefined, FORCE_COLOR: "1" } });
    expect(coloured.stdout).toMatch(new RegExp(`\n\u001b\\[2m\\(${json.total - 3} more; raise --limit\\)\u001b\\[22m\n$`));
  });

  it("lists many sessions on worker threads exactly as on one thread, and a warm cache gives the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-many-"));
    const names = ["linear.jsonl", "branched.jsonl", "v1.jsonl", "cycle.jsonl", "fused.jsonl", "empty.jsonl"];
    for (let i = 0; i < 150; i++) {
      const project = join(dir, `--p${i % 7}--`);
      mkdirSync(project, { recursive: true });
      copyFileSync(fixture(names[i % names.length]!), join(project, `s${String(i).padStart(3, "0")}.jsonl`));
    }
    const cache = mkdtempSync(join(tmpdir(), "pi-session-cache-"));
    const one = await cliJson(["ls", dir, "--no-cache"], { env: { PI_SESSION_THREADS: "1" } });
    // (150 small files are done before a worker would start: PI_SESSION_THREADS=2 starts one with the first file)
    const many = await cliJson(["ls", dir], { env: { XDG_CACHE_HOME: cache, PI_SESSION_THREADS: "2" } });
    const warm = await cliJson(["ls", dir], { env: { XDG_CACHE_HOME: cache } });
    expect(one.json.sessions).toHaveLength(150);
    expect(many.json).toEqual(one.json);
    expect(warm.json).toEqual(one.json);
    // Other sort keys and --cwd read every cached row: still the same as a cold run.
    for (const args of [["--sort", "messages"], ["--sort", "name", "--limit", "7"], ["--cwd", "/home/ada/project"], ["--sort", "size", "--cwd", "/work"]]) {
      const cold = await cliJson(["ls", dir, "--no-cache", ...args], { env: { PI_SESSION_THREADS: "1" } });
      expect((await cliJson(["ls", dir, ...args], { env: { XDG_CACHE_HOME: cache } })).json, args.join(" ")).toEqual(cold.json);
    }
    // A small --limit picks the first rows without sorting the rest: the same rows as a full sort.
    for (const sort of ["modified", "created", "size", "messages", "name"]) {
      const all = (await cliJson(["ls", dir, "--sort", sort], { env: { XDG_CACHE_HOME: cache } })).json;
      const few = (await cliJson(["ls", dir, "--sort", sort, "--limit", "9"], { env: { XDG_CACHE_HOME: cache } })).json;
      expect(few.sessions, sort).toEqual(all.sessions.slice(0, 9));
      expect(few.total).toBe(150);
    }
    const statuses = new Set(one.json.sessions.map((s: { status: string }) => s.status));
    expect(statuses).toEqual(new Set(["ok", "needs-migrate", "invalid: 2 errors", "invalid: 1 error", "not a session"]));
    // grep and usage on worker threads, too, as on one
    for (const args of [["grep", "-i", "the", dir], ["grep", "-c", "-F", "-i", "the", dir], ["usage", dir, "--no-cache", "--by", "session"]]) {
      const single = await cliJson(args, { env: { PI_SESSION_THREADS: "1" } });
      const threaded = await cliJson(args, { env: { PI_SESSION_THREADS: "2" } });
      expect(single.exitCode, args.join(" ")).toBe(0);
      expect(threaded.json, args.join(" ")).toEqual(single.json);
    }
  });

  it("trusts the cache only while size, mtime and inode match, and rebuilds a corrupt one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-cached-"));
    const file = join(dir, "s.jsonl");
    copyFileSync(fixture("linear.jsonl"), file);
    const cache = mkdtempSync(join(tmpdir(), "pi-session-cache-"));
    const env = { XDG_CACHE_HOME: cache };
    await cli(["ls", dir], { env });
    const index = join(cache, "pi-session", "ls-index.json");
    // A planted title (same length: the index gives each row's byte range) proves a warm run reads the cache...
    const text = readFileSync(index, "utf8");
    expect(text).toContain('"title":"List src"');
    writeFileSync(index, text.replace('"title":"List src"', '"title":"Cached!!"'));
    expect((await cliJson(["ls", dir], { env })).json.sessions[0].title).toBe("Cached!!");
    // ...a row that no longer reads back as this file's row makes the whole cache be rebuilt...
    writeFileSync(index, text.replace('"title":"List src"', '"title":"List src'));
    expect((await cliJson(["ls", dir], { env })).json.sessions[0].title).toBe("List src");
    expect(readFileSync(index, "utf8")).toBe(text);
    // ...and a changed file is described again.
    appendFileSync(file, readFileSync(fixture("linear.jsonl")).subarray(0, 0));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect((await cliJson(["ls", dir], { env })).json.sessions[0].title).toBe("List src");
    // A corrupt cache is ignored and rewritten.
    writeFileSync(index, "{not json");
    expect((await cliJson(["ls", dir], { env })).json.sessions[0].title).toBe("List src");
    expect(JSON.parse(readFileSync(index, "utf8").split("\n")[0]!).version).toBe(4);
    // --no-cache neither reads nor writes it.
    writeFileSync(index, "untouched");
    await cli(["ls", dir, "--no-cache"], { env });
    expect(readFileSync(index, "utf8")).toBe("untouched");
  });

  it("keeps the sessions of several directories in one cache, found wherever they lie in it", async () => {
    const root = mkdtempSync(join(tmpdir(), "pi-session-dirs-"));
    const [a, b] = [join(root, "a"), join(root, "b")];
    for (const [dir, names] of [[a, ["linear.jsonl", "branched.jsonl", "v1.jsonl"]], [b, ["compacted.jsonl", "linear.jsonl"]]] as const) {
      mkdirSync(dir);
      names.forEach((name, i) => copyFileSync(fixture(name), join(dir, `s${i}.jsonl`)));
    }
    const env = { XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), "pi-session-cache-")) };
    const index = join(env.XDG_CACHE_HOME, "pi-session", "ls-index.json");
    const cold = { a: (await cliJson(["ls", a, "--no-cache"])).json, b: (await cliJson(["ls", b, "--no-cache"])).json };
    expect((await cliJson(["ls", a], { env })).json).toEqual(cold.a);
    expect((await cliJson(["ls", b], { env })).json).toEqual(cold.b);
    // The last listing comes first in the file, so a's rows are no longer where its order puts them.
    const text = readFileSync(index, "utf8");
    expect(JSON.parse(text.split("\n")[0]!).count).toBe(5);
    expect(text.split("\n")[1]).toBe(join(b, "s0.jsonl"));
    writeFileSync(index, text.replaceAll('"title":"List src"', '"title":"Cached!!"'));
    const warm = (await cliJson(["ls", a], { env })).json;
    expect(warm.sessions.map((s: { title: string }) => s.title)).toContain("Cached!!");
    expect({ ...warm, sessions: warm.sessions.map((s: { title: string }) => ({ ...s, title: s.title === "Cached!!" ? "List src" : s.title })) }).toEqual(cold.a);
    // A cache cut short, or whose lengths do not add up, is rebuilt.
    for (const broken of [text.slice(0, text.length >> 1), text.replace('"count":5', '"count":4'), text.replace(/"stamps":\d+/, '"stamps":8')]) {
      writeFileSync(index, broken);
      expect((await cliJson(["ls", a], { env })).json).toEqual(cold.a);
      expect(JSON.parse(readFileSync(index, "utf8").split("\n")[0]!).count).toBeGreaterThanOrEqual(3);
    }
  });

  it("reads the session directory from flags and environment, per project, with --cwd", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-ls-"));
    const project = join(dir, "--home-ada-project--");
    mkdirSync(project);
    copyFileSync(fixture("linear.jsonl"), join(project, "2026-03-01T10-00-00-000Z_0f1e2d3c-0000-4000-8000-000000000001.jsonl"));
    copyFileSync(CORPUS + "/pi-demo__branch.v3.branch_summary.jsonl", join(dir, "other.jsonl"));
    const viaEnv = await cliJson(["ls"], { env: { PI_CODING_AGENT_SESSION_DIR: dir } });
    expect(viaEnv.json.sessions).toHaveLength(2);
    const viaAgentDir = await cli(["ls"], { env: { PI_CODING_AGENT_DIR: dir } });
    expect(viaAgentDir.exitCode).toBe(2); // $PI_CODING_AGENT_DIR/sessions does not exist
    expect(viaAgentDir.stderr).toBe(`pi-session: no session store found: neither pi's session directory (${dir}/sessions; --session-dir, $PI_CODING_AGENT_SESSION_DIR or $PI_CODING_AGENT_DIR set it) nor an OpenClaw root ($OPENCLAW_STATE_DIR, ~/.openclaw, ~/.clawdbot, ~/.moltbot, ~/.moldbot) is there; give session files or directories\n`);
    const viaFlag = await cliJson(["ls", "--session-dir", dir, "--cwd", "/home/ada/project"]);
    expect(viaFlag.json.sessions.map((s: { id: string }) => s.id)).toEqual(["0f1e2d3c-0000-4000-8000-000000000001"]);
    // the same directory resolves session ids for other commands
    const byId = await cli(["show", "0f1e2d3c", "--session-dir", dir]);
    expect(byId.exitCode).toBe(0);
    expect(byId.stdout).toContain("List src");
  });
});

describe("without WebAssembly", () => {
  it("reads every fixture and corpus file as with it (node --jitless: the JavaScript scanner)", async () => {
    const runs: string[][] = [
      ["ls", FIXTURES, "--no-cache"],
      ["ls", CORPUS, "--no-cache"],
      ["check", ...fixtureFiles(), ...corpusFiles()],
      ...corpusFiles().slice(0, 4).map((f) => ["tree", f]),
      // (previews read by the scanner's slots, and here parsed: an assistant turn that only calls
      // tools whose arguments hold a `text`)
      ["tree", join(CORPUS, "../openclaw-stores/archeoneocode/agents/main/sessions/3fb83e84-059b-4d6c-a582-91d9522c4fa3.jsonl")],
    ];
    // it really runs without: under these options this Node has no WebAssembly (Node 22 also says
    // so on stderr, Node 24 does not)
    const probe = await execa("node", ["-p", "typeof WebAssembly"], { env: { NODE_OPTIONS: "--jitless" } });
    expect(probe.stdout.trim()).toBe("undefined");
    for (const args of runs) {
      const withWasm = await cliJson(args, { env: { PI_SESSION_THREADS: "1" } });
      const without = await cliJson(args, { env: { PI_SESSION_THREADS: "1", NODE_OPTIONS: "--jitless" } });
      expect(without.json, args.join(" ")).toEqual(withWasm.json);
      expect(without.exitCode).toBe(withWasm.exitCode);
    }
  });
});
