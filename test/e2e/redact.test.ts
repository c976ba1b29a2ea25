/**
 * `redact`: a copy of a session with every secret replaced, and `redact --check`, the gate. Secrets
 * of real shapes (made at test time from pieces: test/helpers/secrets.ts) are planted in every place
 * a session keeps text; what is checked, each against pi 1.6 where pi has a say: none left, nor 12
 * characters of one, in the copy or in anything printed; look-alikes, ids, call ids, times,
 * signatures and images kept; the same lines, types, ids, parents, roles, blocks and call ids; pi
 * loads the copy and every leaf's context has the same messages; a second run finds nothing; one
 * placeholder a secret; the gate's lines and exit codes; every store.
 */
import { createHash } from "node:crypto";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { PassThrough } from "node:stream";
import { zstdCompressSync } from "node:zlib";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { agentDatabase } from "../helpers/agent-database.js";
import { cli } from "../helpers/cli.js";
import { corpusFiles, fixture, ROOT } from "../helpers/paths.js";
import { branches, pi, piEntries } from "../helpers/pi.js";
import { generatedKeys, opensshKey } from "../helpers/private-keys.js";
import { ENV_SECRET, GIVEN_SECRET, leaked, LOOK_ALIKES, plantedSession, USER } from "../helpers/secrets.js";

type Rec = Record<string, any>;

const ENV = { OPENAI_API_KEY: ENV_SECRET };
const scratch = () => mkdtempSync(join(tmpdir(), "pi-session-redact-"));
const lines = (file: string): Rec[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const rawLines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);
const count = (text: string, piece: string) => text.split(piece).length - 1;

/** Everything planted that must not be left: each secret, the environment's, the one given. */
function secretsOf(planted: Array<{ secret: string }>): string[] {
  return [...planted.map((p) => p.secret), ENV_SECRET, GIVEN_SECRET];
}

/** What a message is to the model, less its text: role, blocks' types, call ids and tool names. */
function shape(m: Rec): unknown {
  const blocks = Array.isArray(m.content) ? m.content.map((b: Rec) => [b.type, b.id ?? null, b.name ?? null, b.type === "image" ? b.data : null, b.thinkingSignature ?? null]) : typeof m.content;
  return [m.role, m.toolCallId ?? null, m.toolName ?? null, blocks, m.stopReason ?? null, m.usage ?? null];
}

describe("redact: the copy", () => {
  const dir = scratch();
  const { file, planted } = plantedSession(dir);
  const out = join(dir, "shared.jsonl");
  const all = secretsOf(planted);
  let json: Rec;

  it("replaces every planted secret: none left, nor 12 characters of one, in the copy or in what is printed (human, --json, --jsonl)", async () => {
    const r = await cli(["redact", file, "-o", out, "--secret", GIVEN_SECRET, "--json"], { env: ENV });
    expect(r.exitCode, r.stderr).toBe(0);
    json = JSON.parse(r.stdout);
    const copy = readFileSync(out, "utf8");
    expect(leaked(copy, all)).toBeUndefined();
    expect(copy).not.toContain(USER);
    expect(leaked(r.stdout + r.stderr, all)).toBeUndefined();
    expect(r.stdout + r.stderr).not.toContain(USER);
    // (the original is left as it is: every secret still in it)
    for (const s of all) expect(readFileSync(file, "utf8")).toContain(JSON.stringify(s).slice(1, -1));
    const human = await cli(["redact", file, "-o", join(dir, "again.jsonl"), "--secret", GIVEN_SECRET], { env: ENV });
    const jsonl = await cli(["redact", file, "-o", join(dir, "again2.jsonl"), "--secret", GIVEN_SECRET, "--jsonl"], { env: ENV });
    for (const x of [human, jsonl]) {
      expect(x.exitCode, x.stderr).toBe(0);
      expect(leaked(x.stdout + x.stderr, all)).toBeUndefined();
      expect(x.stdout + x.stderr).not.toContain(USER);
    }
    expect(human.stdout).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: replaced \\d+ secrets \\(`));
    expect(human.stderr).toContain("resuming a redacted session in pi or OpenClaw sends its placeholders to the model");
    const rows = jsonl.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(rows.length).toBe(json.files[0].findings.length);
    expect(Object.keys(rows[0]).sort()).toEqual(["entry", "field", "file", "kind", "line", "placeholder", "rule"]);
  });

  it("finds each kind, and says where: line, entry, field, rule and placeholder (never the value)", () => {
    const f = json.files[0];
    expect(f.status).toBe("redacted");
    const kinds = new Set(f.findings.map((x: Rec) => x.kind));
    for (const p of planted) expect(kinds, p.name).toContain(p.kind);
    for (const k of ["env-variable", "secret", "user-name"]) expect(kinds).toContain(k);
    const src = lines(file);
    for (const x of f.findings as Rec[]) {
      expect(Object.keys(x).sort()).toEqual(["entry", "field", "kind", "line", "placeholder", "rule"]);
      expect(x.entry).toBe(src[x.line - 1]!.id);
      expect(x.placeholder).toMatch(new RegExp(`^«redacted:${x.kind}:[0-9a-f]{4,}»$`));
    }
    // every place a session keeps text
    const fields = new Set(f.findings.map((x: Rec) => `${src[x.line - 1]!.type}:${String(x.field).replace(/\[\d+\]/g, "[]")}`));
    for (const where of ["session:cwd", "message:message.content", "message:message.content[].thinking", "message:message.content[].text", "message:message.content[].arguments.command", "message:message.content[].arguments.env.TOKEN", "message:message.details.stdout", "compaction:summary", "branch_summary:summary", "custom_message:content", "custom:data.secret", "custom:data.nested[].value", "label:label", "session_info:name"]) expect(fields, where).toContain(where);
    expect(f.findings.find((x: Rec) => x.kind === "env-variable").rule).toBe("env OPENAI_API_KEY");
  });

  it("keeps look-alikes, ids, call ids, times, signatures and images; the same lines, types, ids, parents, roles, blocks and call ids; lines without a secret byte for byte", () => {
    const a = lines(file);
    const b = lines(out);
    expect(b.length).toBe(a.length);
    const copy = readFileSync(out, "utf8");
    const original = readFileSync(file, "utf8");
    for (const look of Object.values(LOOK_ALIKES)) expect(count(copy, look), look.slice(0, 20)).toBe(count(original, look));
    for (const [i, e] of a.entries()) {
      const r = b[i]!;
      expect([r.type, r.id, r.parentId, r.timestamp, r.targetId, r.firstKeptEntryId, r.fromId, r.customType]).toEqual([e.type, e.id, e.parentId, e.timestamp, e.targetId, e.firstKeptEntryId, e.fromId, e.customType]);
      if (e.message) expect(shape(r.message)).toEqual(shape(e.message));
    }
    const ra = rawLines(file);
    const rb = rawLines(out);
    const clean = ra.map((l, i) => [l, i] as const).filter(([l]) => leaked(l, secretsOf(planted)) === undefined && !l.includes(USER));
    expect(clean.length).toBeGreaterThan(1);
    for (const [l, i] of clean) expect(rb[i]).toBe(l);
    // changed lines are written as pi writes a record
    for (const [i, l] of rb.entries()) expect(l).toBe(JSON.stringify(JSON.parse(l)), `line ${i + 1}`);
  });

  it("pi 1.6 loads the copy, and every leaf's context holds the same messages", () => {
    const a = piEntries(file);
    const b = piEntries(out);
    expect(b.map((e) => [e.type, e.id, e.parentId])).toEqual(a.map((e) => [e.type, e.id, e.parentId]));
    const leaves = [...branches(a).keys()];
    // (the last message, the branch's, and the label: entries nothing names as its parent)
    expect(leaves.length).toBe(3);
    for (const leaf of leaves) {
      const ca = pi.buildSessionContext(a, leaf);
      const cb = pi.buildSessionContext(b, leaf);
      expect(cb.messages.map(shape), leaf).toEqual(ca.messages.map(shape));
      expect(cb.messages.length).toBeGreaterThan(2);
    }
    const copy = join(scratch(), "open.jsonl");
    copyFileSync(out, copy);
    expect(pi.SessionManager.open(copy).getEntries().length).toBe(a.length);
  });

  it("one placeholder a secret, the same throughout; fresh in each run", async () => {
    const copy = readFileSync(out, "utf8");
    const placeholders = new Map<string, Set<string>>();
    for (const m of copy.matchAll(/«redacted:([a-z0-9-]+):([0-9a-f]+)»/g)) placeholders.set(m[1]!, (placeholders.get(m[1]!) ?? new Set()).add(m[0]));
    // one secret of each kind was planted: one placeholder of each kind
    for (const [kind, seen] of placeholders) expect([kind, seen.size]).toEqual([kind, 1]);
    const suffixes = [...placeholders.values()].map((s) => [...s][0]!.split(":")[2]);
    expect(new Set(suffixes).size).toBe(suffixes.length);
    const again = readFileSync(join(dir, "again.jsonl"), "utf8");
    const gh = (t: string) => /«redacted:github-token:[0-9a-f]+»/.exec(t)![0];
    expect(gh(again)).not.toBe(gh(copy));
  });

  it("is idempotent: the copy holds nothing to find (check exits 0), and redacting it again writes the same bytes", async () => {
    const check = await cli(["redact", out, "--check", "--secret", GIVEN_SECRET], { env: ENV });
    expect([check.exitCode, check.stdout]).toEqual([0, `${out}: no secrets found; left untouched\n`]);
    const twice = join(dir, "twice.jsonl");
    const r = await cli(["redact", out, "-o", twice, "--secret", GIVEN_SECRET], { env: ENV });
    expect(r.exitCode).toBe(0);
    expect(readFileSync(twice).equals(readFileSync(out))).toBe(true);
  });
});

describe("redact --check: the gate", () => {
  it("exits 1 naming each file:line and rule, the secret never; 0 on a clean session; --format github annotates; a folder without sessions exits 2", async () => {
    const dir = scratch();
    const { file, planted } = plantedSession(dir);
    const r = await cli(["redact", file, "--check"], { env: ENV });
    expect(r.exitCode).toBe(1);
    expect(leaked(r.stdout + r.stderr, secretsOf(planted))).toBeUndefined();
    const named = new Set(r.stdout.split("\n").filter((l) => l.startsWith(`${file}:`) && !l.startsWith(`${file}: `)).map((l) => Number(/^[^:]+:(\d+):/.exec(l)![1])));
    const holding = rawLines(file).flatMap((l, i) => (leaked(l, secretsOf(planted).slice(0, -1)) !== undefined || l.includes(USER) ? [i + 1] : []));
    expect([...named].sort((a, b) => a - b)).toEqual(holding);
    expect(r.stdout).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: github-token \\(secretlint-rule-github; entry 00000002, message\\.content\\)$`, "m"));
    expect(r.stdout).toContain(`holds `);
    const gh = await cli(["redact", dir, "--check", "--format", "github"], { env: ENV });
    expect(gh.exitCode).toBe(1);
    const annotations = gh.stdout.split("\n").filter((l) => l.startsWith("::error "));
    expect(annotations.length).toBeGreaterThan(10);
    expect(annotations[0]).toMatch(/^::error file=[^,]+planted\.jsonl,line=1,title=user-name::a secret \(user-name, found by cwd\) in entry 0199aa00/);
    expect(leaked(gh.stdout, secretsOf(planted))).toBeUndefined();
    const clean = join(dir, "clean.jsonl");
    writeFileSync(clean, rawLines(fixture("tools.jsonl")).join("\n") + "\n");
    const ok = await cli(["redact", clean, "--check"]);
    expect([ok.exitCode, ok.stdout, ok.stderr]).toEqual([0, `${clean}: no secrets found; left untouched\n`, ""]);
    const empty = scratch();
    const none = await cli(["redact", empty, "--check"]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain(empty);
  });
});

describe("redact --check on a terminal", () => {
  /** `args` run with standard output a terminal `columns` wide (as width.test.ts runs them). */
  async function onTerminal(args: string[], columns: number): Promise<{ code: number; out: string }> {
    const chunks: Buffer[] = [];
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns });
    stdout.on("data", (c: Buffer) => chunks.push(c));
    const stderr = new PassThrough();
    stderr.resume();
    const code = await main(args, { stdout, stderr, env: { ...ENV, NO_COLOR: "1", PI_SESSION_THREADS: "1", XDG_CACHE_HOME: scratch() } });
    return { code, out: Buffer.concat(chunks).toString("utf8") };
  }

  it("a summary by rule (rule, kind, findings, sessions), then each file's lines on one line cut to fit (… N more); within 80 columns; piped, a line a finding as before", async () => {
    const dir = scratch();
    const { file } = plantedSession(dir);
    // (a session in a project folder, its path too long for 80 columns, two lines in three naming the user's home: hundreds to list)
    const deep = join(dir, "--home-mkowalski-code-app--");
    mkdirSync(deep, { recursive: true });
    const many = join(deep, "2026-03-01T10-00-00-000Z_0199aa00-1111-7222-8333-444455556666.jsonl");
    const entries: Rec[] = [{ type: "session", version: 3, id: "0199aa00-1111-7222-8333-444455556667", timestamp: "2026-01-01T00:00:00.000Z", cwd: `/home/${USER}/code/app` }];
    for (let k = 1; k <= 300; k++) entries.push({ type: "message", id: `m${k}`, parentId: k === 1 ? null : `m${k - 1}`, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: k % 3 === 0 ? "nothing here" : `open /home/${USER}/code/app/f${k}.ts`, timestamp: k } });
    writeFileSync(many, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
    const json = JSON.parse((await cli(["redact", dir, "--check", "--json"], { env: ENV })).stdout);
    const { code, out } = await onTerminal(["redact", dir, "--check"], 80);
    expect(code).toBe(1);
    const shown = out.trimEnd().split("\n");
    for (const l of shown) expect(stringWidth(l), l).toBeLessThanOrEqual(80);
    // (the summary: one row a rule and kind, its findings and sessions as --json counts them)
    expect(shown[0]!.trim().split(/\s{2,}/)).toEqual(["rule", "kind", "findings", "sessions"]);
    const expected = new Map<string, [number, Set<string>]>();
    for (const f of json.files) for (const x of f.findings) {
      const row = expected.get(`${x.rule} ${x.kind}`) ?? [0, new Set<string>()];
      row[0]++;
      row[1].add(f.file);
      expected.set(`${x.rule} ${x.kind}`, row);
    }
    // (a rule's name cut to fit keeps its start and end: `secretlint-r…abase-connection-string`)
    const whole = (cell: string, kind: string) => [...expected.keys()].find((k) => k.endsWith(` ${kind}`) && (k === `${cell} ${kind}` || (cell.includes("…") && k.startsWith(cell.split("…")[0]!) && k.slice(0, -kind.length - 1).endsWith(cell.split("…")[1]!))))!.slice(0, -kind.length - 1);
    const rows = shown.slice(1, 1 + expected.size).map((l) => l.trim().split(/\s{2,}/)).map((r) => [whole(r[0]!, r[1]!), ...r.slice(1)]);
    expect(new Map(rows.map((r) => [`${r[0]} ${r[1]}`, [Number(r[2]), Number(r[3])]]))).toEqual(new Map([...expected].map(([k, [n, files]]) => [k, [n, files.size]])));
    expect(rows.find((r) => r[0] === "cwd")).toEqual(["cwd", "user-name", String(expected.get("cwd user-name")![0]), "2"]);
    // (each file a line: its first lines that hold a secret, in order, and how many more)
    const manyLines = [...new Set<number>(json.files.find((f: Rec) => f.file === many).findings.map((x: Rec) => x.line))].sort((a, b) => a - b);
    expect(manyLines.length).toBe(201);
    // (its name too long beside any line at 80 columns: cut, its start kept, as the table below cuts it)
    const manyRow = shown.find((l) => l.startsWith("2026-03-01T10-00-00-000Z_0199aa00"))!;
    const m = /^(.+)…:([\d, ]+) … (\d+) more$/.exec(manyRow)!;
    expect(m, manyRow).not.toBeNull();
    expect(many.endsWith(`/${m[1]!}`) || basename(many).startsWith(m[1]!)).toBe(true);
    const listed = m[2]!.split(", ").map(Number);
    expect(listed).toEqual(manyLines.slice(0, listed.length));
    expect(listed.length + Number(m[3])).toBe(manyLines.length);
    // (a list that fits is whole; the path gives way first, its file name kept)
    const plantedRow = shown.find((l) => /planted\.jsonl:\d/.test(l))!;
    const [path, list] = plantedRow.split(".jsonl:");
    expect(path!.startsWith("…/") && file.endsWith(path!.slice(1) + ".jsonl")).toBe(true);
    expect(list).toBe([...new Set<number>(json.files.find((f: Rec) => f.file === file).findings.map((x: Rec) => x.line))].sort((a, b) => a - b).join(", "));
    // (no line a finding: 400 findings, some 30 lines)
    expect(shown.length).toBeLessThan(40);
    expect(out).not.toContain("(cwd; entry");
    // (piped, every finding a line, as before)
    const piped = await cli(["redact", dir, "--check"], { env: ENV });
    const findingRows = piped.stdout.split("\n").filter((l) => /^[^ ]+\.jsonl:\d+: [a-z-]+ \(/.test(l));
    expect(findingRows.length).toBe(json.files.reduce((n: number, f: Rec) => n + f.findings.length, 0));
    expect(piped.stdout).not.toMatch(/^rule +kind/m);
  });
});

describe("redact --check over a store, on worker threads", () => {
  /** What a report says less its placeholders' suffixes: each placeholder numbered in the order first met (a run's key is its own). */
  function unkeyed(json: Rec): Rec {
    const seen = new Map<string, number>();
    for (const f of json.files) for (const x of f.findings ?? []) x.placeholder = `${x.placeholder.split(":")[1]}#${seen.get(x.placeholder) ?? seen.set(x.placeholder, seen.size).get(x.placeholder)}`;
    return json;
  }

  it("reports what one thread reads, in the same order; one secret reads the same in every session, whichever thread read it", async () => {
    // (more sessions than a chunk of the pool's, so that the threads share them; one key in all, one of its own in each, a few clean, one not a session)
    const store = join(scratch(), "sessions");
    mkdirSync(store);
    const shared = plantedSession(store, "s000.jsonl").planted.find((p) => p.name === "github")!.secret;
    for (let k = 1; k < 80; k++) {
      const name = `s${String(k).padStart(3, "0")}.jsonl`;
      if (k % 10 === 3) copyFileSync(fixture("tools.jsonl"), join(store, name));
      else if (k === 41) writeFileSync(join(store, name), "not a session\n");
      else plantedSession(store, name, k % 7 === 0 ? 1 : k + 1);
      if (k % 10 !== 3 && k !== 41) writeFileSync(join(store, name), readFileSync(join(store, name), "utf8").replace('"content":"here are my keys', `"content":"${shared} here are my keys`));
    }
    const run = (threads: string, json: boolean) => cli(["redact", store, "--check", ...(json ? ["--json"] : [])], { env: { ...ENV, PI_SESSION_THREADS: threads } });
    const [one, two, oneHuman, twoHuman] = await Promise.all([run("1", true), run("2", true), run("1", false), run("2", false)]);
    for (const r of [one, two, oneHuman, twoHuman]) expect(r.exitCode, r.stderr).toBe(1);
    // (human output names no placeholder: the same, byte for byte)
    expect(twoHuman.stdout).toBe(oneHuman.stdout);
    expect(twoHuman.stderr).toBe(oneHuman.stderr);
    const b = JSON.parse(two.stdout);
    expect(b.files.map((f: Rec) => f.file)).toEqual(readdirSync(store).sort().map((f) => join(store, f)));
    expect(unkeyed(b)).toEqual(unkeyed(JSON.parse(one.stdout)));
    expect(b.summary).toEqual({ redacted: 0, clean: 8, "needs-redact": 71, refused: 1, aborted: 0, unreadable: 0 });
    // (the key planted in every session has one placeholder in all of them, sessions past the first chunk included)
    const first = JSON.parse(two.stdout).files[0].findings.find((x: Rec) => x.kind === "github-token" && x.field === "message.content").placeholder;
    const holding = JSON.parse(two.stdout).files.filter((f: Rec) => (f.findings ?? []).some((x: Rec) => x.placeholder === first));
    expect(holding.length).toBe(71);
    expect(leaked(one.stdout + two.stdout + oneHuman.stdout + twoHuman.stdout, [shared])).toBeUndefined();
  });
});

describe("redact: where the copy goes", () => {
  it("--in-place replaces the file, keeping no copy of it (no .bak, no temporary file); a backup already beside it is named on stderr", async () => {
    const dir = scratch();
    const { file, planted } = plantedSession(dir);
    writeFileSync(`${file}.bak`, readFileSync(file));
    const r = await cli(["redact", file, "--in-place"], { env: ENV });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["planted.jsonl", "planted.jsonl.bak"]);
    expect(leaked(readFileSync(file, "utf8"), secretsOf(planted).slice(0, -1))).toBeUndefined();
    expect(r.stdout).toContain("replaced in place, no copy of the original kept");
    expect(r.stderr).toContain(`${file}.bak holds ${file} as it was, secrets and all: remove it`);
  });

  it("-o - writes the copy to standard output and the report to stderr; an existing -o is refused without --force (exit 2)", async () => {
    const dir = scratch();
    const { file, planted } = plantedSession(dir);
    const r = await cli(["redact", file, "-o", "-"], { env: ENV });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split("\n").filter(Boolean).length).toBe(rawLines(file).length);
    expect(leaked(r.stdout, secretsOf(planted).slice(0, -1))).toBeUndefined();
    expect(r.stderr).toContain("written to standard output");
    const out = join(dir, "out.jsonl");
    writeFileSync(out, "keep me\n");
    const refused = await cli(["redact", file, "-o", out]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout + refused.stderr).toContain(`refused to overwrite ${out}; pass --force to replace it`);
    expect(readFileSync(out, "utf8")).toBe("keep me\n");
    expect((await cli(["redact", file, "-o", out, "--force"])).exitCode).toBe(0);
    expect(readFileSync(out, "utf8")).not.toBe("keep me\n");
  });

  it("- reads standard input: to -o (standard output too) or with --check; alone, never in place", async () => {
    const dir = scratch();
    const { file, planted } = plantedSession(dir);
    const input = readFileSync(file);
    const r = await cli(["redact", "-", "-o", "-"], { env: ENV, input });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split("\n").filter(Boolean).length).toBe(rawLines(file).length);
    expect(leaked(r.stdout + r.stderr, secretsOf(planted).slice(0, -1))).toBeUndefined();
    expect(r.stderr).toContain("<stdin>: replaced ");
    const check = await cli(["redact", "-", "--check"], { env: ENV, input });
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toMatch(/^<stdin>:3: github-token \(secretlint-rule-github; entry 00000002, message\.content\)$/m);
    const inPlace = await cli(["redact", "-", "--in-place"], { input });
    expect([inPlace.exitCode, inPlace.stdout]).toEqual([2, ""]);
    expect(inPlace.stderr).toContain("redact reads standard input alone, and only with -o OUT (where the copy goes) or --check");
  });

  it("several sessions go to a folder, each under its name; one with nothing to replace is copied as it is", async () => {
    const dir = scratch();
    const sessions = join(dir, "sessions");
    mkdirSync(sessions);
    const { planted } = plantedSession(sessions, "a.jsonl");
    // (tools.jsonl's cwd is no home folder: nothing in it to replace)
    copyFileSync(fixture("tools.jsonl"), join(sessions, "b.jsonl"));
    const out = join(dir, "out");
    const r = await cli(["redact", sessions, "-o", out], { env: ENV });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["a.jsonl", "b.jsonl"]);
    expect(readFileSync(join(out, "b.jsonl")).equals(readFileSync(fixture("tools.jsonl")))).toBe(true);
    expect(leaked(readFileSync(join(out, "a.jsonl"), "utf8"), secretsOf(planted).slice(0, -1))).toBeUndefined();
    expect(r.stdout).toMatch(/1 redacted, 1 no secrets found\n$/);
  });

  it("an output named .zst is refused (exit 2, one line, nothing written): the copy is JSONL, to be named so and archived", async () => {
    const dir = scratch();
    const { file } = plantedSession(dir, "p.jsonl");
    const archive = join(dir, "p.jsonl.zst");
    writeFileSync(archive, zstdCompressSync(readFileSync(file)));
    for (const [out, named] of [["out.jsonl.zst", "out.jsonl"], ["out.zst", "out.jsonl"], ["OUT.JSONL.ZST", "OUT.JSONL"]] as const) {
      const r = await cli(["redact", archive, "-o", join(dir, out)], { env: ENV });
      expect([r.exitCode, r.stdout], out).toEqual([2, ""]);
      expect(r.stderr.trimEnd().split("\n"), out).toEqual([expect.stringContaining(`redact writes JSONL, not zstd: name the copy ${join(dir, named)}, then \`pi-session archive\` it`)]);
      expect(existsSync(join(dir, out)), out).toBe(false);
    }
    // (named .jsonl, the same input is written, and reads as a session)
    const ok = await cli(["redact", archive, "-o", join(dir, "out.jsonl")], { env: ENV });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(piEntries(join(dir, "out.jsonl")).length).toBe(rawLines(file).length - 1);
    // (a folder that exists is a folder, whatever its name)
    mkdirSync(join(dir, "copies.zst"));
    const folder = await cli(["redact", archive, "-o", join(dir, "copies.zst")], { env: ENV });
    expect(folder.exitCode, folder.stderr).toBe(0);
    expect(readdirSync(join(dir, "copies.zst"))).toEqual(["p.jsonl"]);
  });

  it("usage errors: no output named, two of -o/--in-place/--check, a short --secret, a --deny that is no expression", async () => {
    const f = fixture("linear.jsonl");
    for (const [args, text] of [
      [[], "redact writes a copy: give -o OUT"],
      [["-o", "x.jsonl", "--check"], "redact takes one of -o, --in-place and --check, got -o and --check"],
      [["--check", "--secret", "abc"], "--secret takes a value of 4 characters or more"],
      [["--check", "--deny", "(unclosed"], "--deny 1 is not a JavaScript regular expression"],
    ] as const) {
      const r = await cli(["redact", f, ...args]);
      expect([r.exitCode, r.stdout], args.join(" ")).toEqual([2, ""]);
      expect(r.stderr).toContain(text);
    }
  });
});

describe("redact: what it finds besides the rules", () => {
  it("--deny replaces what a pattern's first group matched; --drop-images replaces each image with a text block", async () => {
    const dir = scratch();
    const { file } = plantedSession(dir);
    const out = join(dir, "out.jsonl");
    const r = await cli(["redact", file, "-o", out, "--deny", "/commit ([0-9a-f]{40})/", "--drop-images", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const copy = readFileSync(out, "utf8");
    expect(copy).not.toContain(LOOK_ALIKES.sha1);
    expect(copy).toMatch(/commit «redacted:deny:[0-9a-f]{4,}»/);
    expect(copy).not.toContain(LOOK_ALIKES.image);
    expect(copy).toMatch(/"text":"\[image removed by pi-session redact: image\/png, 2\.9 KB\]"/);
    expect(JSON.parse(r.stdout).files[0].imagesDropped).toBe(1);
  });

  it("a variable named like a secret but too short, or a word in another's name, is no secret", async () => {
    const dir = scratch();
    const file = join(dir, "s.jsonl");
    writeFileSync(file, [{ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/srv/app" }, { type: "message", id: "m1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "keywords sessions and short", timestamp: 1 } }].map((l) => JSON.stringify(l)).join("\n") + "\n");
    const r = await cli(["redact", file, "--check"], { env: { npm_package_keywords_0: "keywords sessions", MY_TOKEN: "short" } });
    expect([r.exitCode, r.stdout]).toEqual([0, `${file}: no secrets found; left untouched\n`]);
  });
});

describe("redact: private keys", () => {
  it("every generated key a tool printed (ed25519, ed448, x25519, EC, RSA, DSA; PKCS#8, PKCS#1, SEC1, encrypted, OpenSSH) is replaced whole: nothing of its body left", async () => {
    const dir = scratch();
    const file = join(dir, "keys.jsonl");
    const keys = [...generatedKeys(), ["openssh ed25519", opensshKey()] as [string, string]];
    const call = "toolu_01keys";
    const header = { type: "session", version: 3, id: "0199bb00-1111-7222-8333-444455556666", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/srv/app" };
    const entries = [
      header,
      { type: "message", id: "m1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "show me the keys", timestamp: 1 } },
      { type: "message", id: "m2", parentId: "m1", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "assistant", content: [{ type: "toolCall", id: call, name: "bash", arguments: { command: "cat keys/*" } }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: 2 } },
      ...keys.map(([name, pem], k) => ({ type: "message", id: `r${k}`, parentId: k === 0 ? "m2" : `r${k - 1}`, timestamp: "2026-01-01T00:00:03.000Z", message: { role: "toolResult", toolCallId: call, toolName: "bash", content: [{ type: "text", text: `# ${name}\n${pem}` }], isError: false, timestamp: 3 } })),
    ];
    writeFileSync(file, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
    // (the key's newlines are `\n` in the file: JSON's escape)
    expect(readFileSync(file, "utf8")).toContain("-----BEGIN PRIVATE KEY-----\\nMC4C");
    const out = join(dir, "out.jsonl");
    const r = await cli(["redact", file, "-o", out, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const copy = readFileSync(out, "utf8");
    const bodies = keys.map(([, pem]) => pem.split("\n").filter((l) => !l.startsWith("-----") && l.length > 0).join(""));
    expect(leaked(copy, bodies)).toBeUndefined();
    for (const line of keys.flatMap(([, pem]) => pem.split("\n"))) if (line.length >= 12 && !line.startsWith("-----")) expect(copy).not.toContain(line.slice(-12));
    const results = lines(out).slice(3);
    for (const [k, [name]] of keys.entries()) expect(results[k]!.message.content[0].text, name).toMatch(/^# [^\n]+\n«redacted:private-key:[0-9a-f]{4,}»\n$/);
    const findings = JSON.parse(r.stdout).files[0].findings;
    expect(findings.length).toBe(keys.length);
    expect(new Set(findings.map((f: Rec) => f.kind))).toEqual(new Set(["private-key"]));
    const again = await cli(["redact", out, "--check"]);
    expect(again.exitCode, again.stdout).toBe(0);
  });
});

describe("redact: every store", () => {
  it("a transcript in OpenClaw's database to a JSONL copy; the database is never written", async () => {
    const { file, planted } = plantedSession();
    const { root, path, db } = agentDatabase("pi-session-redact-db-");
    const id = "0199aa00-1111-7222-8333-444455556666";
    const insert = db.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)");
    for (const [k, l] of rawLines(file).entries()) insert.run(id, k, l, k);
    // (the store's key and label for it, which an export shows: no line of the session, and redacted too)
    const key = `agent:main:tg-${planted[0]!.secret}`;
    db.prepare("INSERT INTO session_windows (session_id, session_key) VALUES (?, ?)").run(id, key);
    db.prepare("INSERT INTO session_nodes (session_key, current_session_id, label) VALUES (?, ?, ?)").run(key, id, `deploy with ${planted[0]!.secret}`);
    db.close();
    const hash = () => readdirSync(join(root, "agents/main/agent")).map((f) => `${f}:${createHash("sha256").update(readFileSync(join(root, "agents/main/agent", f))).digest("hex")}`).join();
    const before = hash();
    const out = join(scratch(), "copy");
    mkdirSync(out);
    const r = await cli(["redact", `${path}#${id}`, "-o", out], { env: ENV });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(out)).toEqual([`${id}.jsonl`]);
    const copy = readFileSync(join(out, `${id}.jsonl`), "utf8");
    expect(leaked(copy, secretsOf(planted).slice(0, -1))).toBeUndefined();
    expect(copy.split("\n").filter(Boolean).length).toBe(rawLines(file).length);
    const inPlace = await cli(["redact", `${path}#${id}`, "--in-place"]);
    expect(inPlace.exitCode).toBe(1);
    expect(inPlace.stderr).toContain("kept in OpenClaw's database, which OpenClaw alone writes; nothing was written: redact it to a copy");
    expect(inPlace.stdout).toBe("");
    const plain = await cli(["export", `${path}#${id}`]);
    expect(plain.stdout).toContain(planted[0]!.secret);
    const exported = await cli(["export", `${path}#${id}`, "--redact"], { env: ENV });
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(leaked(exported.stdout, secretsOf(planted).slice(0, -1))).toBeUndefined();
    const check = await cli(["redact", root, "--check"], { env: ENV });
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toContain(`${path}#${id}:3: github-token`);
    expect(hash()).toBe(before);
  });

  it("agent-core's format 4 to a copy of its v3 lines, its findings at the file's lines; a .zst archive to a plain copy", async () => {
    const dir = scratch();
    const src = join(fixture("agent-core"), "--home-dev-basic--");
    const name = readdirSync(src)[0]!;
    cpSync(join(src, name), join(dir, name));
    const out = join(dir, "v3.jsonl");
    const r = await cli(["redact", join(dir, name), "-o", out, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const copy = lines(out);
    expect(copy[0]).toMatchObject({ type: "session", version: 3, cwd: expect.stringMatching(/^\/home\/«redacted:user-name:[0-9a-f]+»/) });
    expect(piEntries(out).length).toBe(copy.length - 1);
    const refused = await cli(["redact", join(dir, name), "--in-place"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("agent-core's storage format 4");
    expect(refused.stdout).toBe("");
    const { file, planted } = plantedSession(dir, "p.jsonl");
    const archive = join(dir, "p.jsonl.zst");
    writeFileSync(archive, zstdCompressSync(readFileSync(file)));
    const outDir = join(dir, "out");
    mkdirSync(outDir);
    const z = await cli(["redact", archive, "-o", outDir], { env: ENV });
    expect(z.exitCode, z.stderr).toBe(0);
    expect(readdirSync(outDir)).toEqual(["p.jsonl"]);
    expect(leaked(readFileSync(join(outDir, "p.jsonl"), "utf8"), secretsOf(planted).slice(0, -1))).toBeUndefined();
  });
});

describe("redact: held-out sessions", () => {
  const SQLITE_STORES = join(ROOT, "../shared/openclaw-stores-sqlite");
  it.each(["ccccx", "archeoneocode"])("the real OpenClaw store %s (its database's transcripts and files) to copies: each loads in pi with the same entries, and a second run finds nothing", async (store) => {
    const root = join(SQLITE_STORES, store);
    const out = join(scratch(), "out");
    const r = await cli(["redact", root, "-o", out, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).files as Rec[];
    expect(files.length).toBeGreaterThan(3);
    expect(files.some((f) => String(f.file).includes(".sqlite#"))).toBe(true);
    for (const f of files) {
      expect(f.status, f.file).toMatch(/^(redacted|clean)$/);
      const src = join(scratch(), "src.jsonl");
      writeFileSync(src, (await cli(["cat", f.file])).stdout);
      const a = piEntries(src);
      const b = piEntries(f.out);
      expect(b.map((e) => [e.type, e.id, e.parentId, e.message?.role ?? null]), f.file).toEqual(a.map((e) => [e.type, e.id, e.parentId, e.message?.role ?? null]));
      for (const leaf of [...branches(a).keys()].slice(0, 3)) expect(pi.buildSessionContext(b, leaf).messages.map(shape)).toEqual(pi.buildSessionContext(a, leaf).messages.map(shape));
    }
    const again = await cli(["redact", out, "--check"]);
    expect([again.exitCode, again.stderr], again.stdout).toEqual([0, ""]);
  }, 60_000);

  it("the real corpus: every session's copy has its lines, ids and messages, and a second run finds nothing", async () => {
    const dir = scratch();
    const out = join(dir, "out");
    const r = await cli(["redact", ...corpusFiles(), "-o", out, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    for (const f of JSON.parse(r.stdout).files as Rec[]) {
      expect(f.status, f.file).toMatch(/^(redacted|clean)$/);
      // (damaged corpus files: their lines that are not JSON go, said)
      if ((f.unread ?? []).length > 0) continue;
      expect(rawLines(f.out).length, f.file).toBe(rawLines(f.file).length);
      // (ids as the file holds them: pi gives a v1 file's entries ids of its own each time it reads one)
      expect(lines(f.out).map((e) => [e.type, e.id, e.parentId, e.message?.role])).toEqual(lines(f.file).map((e) => [e.type, e.id, e.parentId, e.message?.role]));
      expect(piEntries(f.out).map((e) => [e.type, e.message?.role ?? null])).toEqual(piEntries(f.file).map((e) => [e.type, e.message?.role ?? null]));
    }
    expect((await cli(["redact", out, "--check"])).exitCode).toBe(0);
  }, 60_000);
});

describe("redact: bad input", () => {
  it("a damaged file: the records of a fused line read and redacted, each on a line; a torn last line dropped and said; nothing copied unread", async () => {
    const dir = scratch();
    const { file, planted } = plantedSession(dir);
    const raw = rawLines(file);
    // lines 3 and 4 fused; the last line cut in the middle of its secret
    const torn = raw.at(-1)!.slice(0, raw.at(-1)!.indexOf(planted[0]!.secret) + 20);
    writeFileSync(file, [...raw.slice(0, 2), raw[2]! + raw[3]!, ...raw.slice(4, -1), torn].join("\n"));
    const out = join(dir, "out.jsonl");
    const r = await cli(["redact", file, "-o", out, "--json"], { env: ENV });
    expect(r.exitCode, r.stderr).toBe(0);
    const copy = readFileSync(out, "utf8");
    expect(leaked(copy, secretsOf(planted).slice(0, -1))).toBeUndefined();
    expect(copy).not.toContain(planted[0]!.secret.slice(0, 12));
    const written = lines(out);
    expect(written.length).toBe(raw.length - 1);
    expect(written[2]!.id).toBe(JSON.parse(raw[2]!).id);
    expect(written[3]!.id).toBe(JSON.parse(raw[3]!).id);
    expect(r.stderr).toContain(`${file}:${raw.length - 1}: the last line was cut off mid-record; its ${Buffer.byteLength(torn)} bytes were not read, and were dropped`);
    expect(JSON.parse(r.stdout).files[0].unread).toEqual([{ line: 3, what: "fused", bytes: 0, records: 2 }, { line: raw.length - 1, what: "torn", bytes: Buffer.byteLength(torn), records: 0 }]);
    expect(r.stderr).toContain(`${file}:3: 2 records on one line (fused appends); written each on a line`);
    expect(leaked(r.stderr + r.stdout, secretsOf(planted))).toBeUndefined();
    // in place, what cannot be read would be lost with no copy kept: refused, the file as it was
    const before = readFileSync(file);
    const inPlace = await cli(["redact", file, "--in-place"], { env: ENV });
    expect(inPlace.exitCode).toBe(1);
    expect(inPlace.stderr).toContain(`line ${raw.length - 1} could not be read`);
    expect(inPlace.stdout).toBe("");
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("a binary file is refused (exit 1), a missing one is unreadable (exit 2): one line each, nothing written", async () => {
    const dir = scratch();
    const bin = await cli(["redact", fixture("binary.bin"), "-o", join(dir, "x.jsonl")]);
    expect(bin.exitCode).toBe(1);
    expect(bin.stderr).toContain("not a pi session file (none of its first lines is a JSON record");
    expect(bin.stdout).toBe("");
    expect(existsSync(join(dir, "x.jsonl"))).toBe(false);
    const missing = await cli(["redact", join(dir, "missing.jsonl"), "-o", join(dir, "y.jsonl")]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.split("\n").filter(Boolean).length).toBe(1);
  });
});

describe("export --redact", () => {
  it.each(["md", "html", "json", "jsonl"])("exports what redact writes (%s): nothing of a secret left, the count on stderr", async (format) => {
    const dir = scratch();
    const { file, planted } = plantedSession(dir);
    const plain = await cli(["export", file, "--format", format, "--tool-results", "full", "--thinking", "full"]);
    expect(plain.stdout).toContain(planted[0]!.secret);
    const r = await cli(["export", file, "--format", format, "--tool-results", "full", "--thinking", "full", "--redact", "--secret", GIVEN_SECRET], { env: ENV });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(leaked(r.stdout + r.stderr, secretsOf(planted))).toBeUndefined();
    expect(r.stdout).not.toContain(USER);
    expect(r.stdout).toMatch(/«redacted:github-token:[0-9a-f]{4,}»/);
    expect(r.stderr).toMatch(/^pi-session: redacted \d+ secrets in the session \(user-name \d+, /);
    if (format === "jsonl") {
      const out = join(dir, "branch.jsonl");
      writeFileSync(out, r.stdout);
      expect(pi.SessionManager.open(out).getEntries().length).toBeGreaterThan(3);
    }
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith("pi-session-redact-") && existsSync(join(tmpdir(), f, "session.jsonl")))).toEqual([]);
  });
});
