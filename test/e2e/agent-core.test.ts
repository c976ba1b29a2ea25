/**
 * agent-core's storage format 4 through the CLI (docs/stores.md, "agent-core's storage format 4"): the
 * sessions of fixtures/agent-core (made by agent-core 0.99.1's JSONL repository and the 0.87.1
 * SQLite backend: scripts/agent-core-fixtures.mjs), found in pi's session directory by id or
 * given as a path, read by every read-only command; `migrate` writes a v3 copy beside each; the
 * other writers refuse them in one line naming `migrate`. Contexts and usage are held to the
 * packages themselves in test/conformance/agent-core.test.ts.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { agentCoreJsonl, agentCoreSqlite } from "../helpers/agent-core.js";

const FIXTURES = new URL("../../fixtures/agent-core/", import.meta.url).pathname;
const DIR = ["--session-dir", FIXTURES];
const work = mkdtempSync(join(tmpdir(), "agent-core-e2e-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Row {
  path: string;
  id: string;
  title: string | null;
  version: number | null;
  status: string;
  created: string;
  cwd: string | null;
  messages: number;
  branches: number;
  size: number;
}

async function rows(): Promise<Row[]> {
  const r = await cliJson<{ sessions: Row[] }>(["ls", ...DIR, "--store", "pi", "--no-cache"]);
  expect(r.exitCode).toBe(0);
  return r.json.sessions;
}

/** A session of the fixtures: the JSONL one of a project (`cwd`), or a database's by its name; of several (a session and its forks), the first made. */
async function find(where: (r: Row) => boolean): Promise<Row> {
  const found = (await rows()).filter(where);
  expect(found.length).toBeGreaterThan(0);
  return found.sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0))[0]!;
}
const jsonl = (project: string) => find((r) => r.path.endsWith(".jsonl") && r.cwd === `/home/dev/${project}`);
const sqlite = (title: string) => find((r) => r.path.includes("/sqlite/") && r.title === title);
const shared = (title: string) => find((r) => r.path.includes("shared/sessions.sqlite#") && r.title === title);

describe("agent-core's format 4, read", () => {
  it("ls lists every session once, as version 4 needing migrate: JSONL files, per-session databases, a shared container's sessions", async () => {
    const all = await rows();
    expect(all.length).toBe(15);
    expect(all.every((r) => r.version === 4 && r.status === "needs-migrate")).toBe(true);
    expect(all.filter((r) => r.path.includes("shared/sessions.sqlite#")).length).toBe(2);
    const human = await cli(["ls", ...DIR, "--no-cache"]);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/basic session .* 4 +needs-migrate/);
    expect(human.stderr).toBe("");
    // (the crash left an operation open: a note, not an error)
    expect((await jsonl("crash")).status).toBe("needs-migrate");
  });

  it("show and check find a JSONL session and a database's by id prefix, and say what it is and what to do", async () => {
    for (const row of [await jsonl("compactions"), await find((r) => r.path.includes("/sqlite/") && !!r.title?.startsWith("question 0")), await shared("basic session")]) {
      const prefix = row.id.slice(0, 13);
      const show = await cli(["show", ...DIR, prefix]);
      expect(show.exitCode, show.stderr).toBe(0);
      expect(show.stdout).toContain(`Session       ${row.id}  (v4: agent-core's storage format, read as pi's v3 lines)`);
      expect(show.stdout).toContain("agent-core-format-4");
      const check = await cliJson(["check", ...DIR, prefix]);
      expect(check.exitCode).toBe(0);
      const findings = check.json.files[0].findings as Array<{ code: string; next?: string }>;
      expect(findings.find((f) => f.code === "agent-core-format-4")?.next).toBe("pi-session migrate FILE");
    }
  });

  it("a shared container's session is named <container>#<id prefix>; a prefix two sessions share is refused, naming both", async () => {
    const container = join(FIXTURES, "shared", "sessions.sqlite");
    const one = await shared("basic session");
    const shown = await cliJson(["show", `${container}#${one.id.slice(0, 13)}`]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.json.header.id).toBe(one.id);
    const other = await shared("first question");
    let common = 0;
    while (one.id[common] === other.id[common]) common++;
    const prefix = one.id.slice(0, common);
    const two = await cli(["show", `${container}#${prefix}`]);
    expect(two.exitCode).toBe(2);
    expect(two.stderr).toContain(`session id prefix \`${prefix}\` is ambiguous in`);
    expect(two.stderr).toContain(one.id);
  });

  it("show's tokens are the ledger's (a v3 file's upgrade: one adjustment row), as usage's", async () => {
    const row = await jsonl("upgraded");
    const [oracle] = [await agentCoreJsonl(row.path)];
    const show = await cliJson(["show", row.path]);
    const ledger = oracle!.ledger.reduce((n, r) => n + r.usage.input + r.usage.output + r.usage.cacheRead + r.usage.cacheWrite, 0);
    expect(show.json.tokens.total).toBe(ledger);
    expect(oracle!.ledger.some((r) => r.adjustment)).toBe(true);
    const usage = await cliJson(["usage", row.path, "--no-cache"]);
    expect(usage.json.total.total).toBe(ledger);
    expect(usage.json.total.cost).toBeCloseTo(show.json.cost, 10);
  });

  it("check names the file's own lines: a crash's unanswered call at the line that wrote it", async () => {
    const row = await jsonl("crash");
    const r = await cliJson(["check", row.path]);
    const call = (r.json.files[0].findings as Array<{ code: string; line?: number }>).find((f) => f.code === "tool-call-unanswered")!;
    const text = readFileSync(row.path, "utf8").split("\n")[call.line! - 1]!;
    expect(text).toContain('"role":"assistant"');
    expect(text).toContain('"toolCall"');
    expect((r.json.files[0].findings as Array<{ code: string }>).some((f) => f.code === "agent-core-operation-open")).toBe(true);
  });

  it("tree, path --leaves, context and export read a session with branches and a second lane", async () => {
    for (const row of [await jsonl("branches"), await sqlite("first question")]) {
      const tree = await cli(["tree", row.path]);
      expect(tree.exitCode, tree.stderr).toBe(0);
      expect(tree.stdout).toContain("branch_summary");
      expect(tree.stdout).toContain("on the side lane");
      const leaves = await cliJson(["path", row.path, "--leaves"]);
      expect(leaves.exitCode).toBe(0);
      expect(leaves.json.leaves.length).toBeGreaterThanOrEqual(3);
      // the current branch is main: its tip's context, agent-core's own
      const oracle = row.path.endsWith(".jsonl") ? await agentCoreJsonl(row.path) : (await agentCoreSqlite(row.path))[0]!;
      const context = await cliJson(["context", row.path]);
      expect(context.json.messages).toEqual(await oracle.context(oracle.tips.get("main")!));
      const md = await cli(["export", row.path]);
      expect(md.exitCode, md.stderr).toBe(0);
      expect(md.stdout).toContain("another way");
      expect(md.stdout).not.toContain("on the side lane");
    }
  });

  it("usage counts every ledger once over the store; grep finds in files and databases alike, at the file's line", async () => {
    const usage = await cliJson(["usage", ...DIR, "--store", "pi", "--no-cache", "--by", "session"]);
    expect(usage.exitCode).toBe(0);
    // (the forks copy no ledger rows: 12 of the 15 sessions used anything)
    expect(usage.json.sessions).toBe(15);
    expect(usage.json.rows.length).toBe(12);
    const grep = await cliJson(["grep", ...DIR, "-F", "run the slow tool"]);
    expect(grep.exitCode).toBe(0);
    const match = grep.json.matches[0];
    expect(readFileSync(match.file, "utf8").split("\n")[match.line - 1]).toContain("run the slow tool");
    const all = await cliJson(["grep", ...DIR, "-F", "-l", "first question"]);
    const files = all.json.files as string[];
    expect(files.some((f) => f.endsWith(".jsonl"))).toBe(true);
    expect(files.some((f) => f.includes("/sqlite/"))).toBe(true);
    expect(files.some((f) => f.includes("shared/sessions.sqlite#"))).toBe(true);
  });

  it("cat gives a session's lines as pi's: a v3 file", async () => {
    const row = await shared("basic session");
    const r = await cli(["cat", row.path]);
    expect(r.exitCode).toBe(0);
    const header = JSON.parse(r.stdout.slice(0, r.stdout.indexOf("\n")));
    expect(header).toMatchObject({ type: "session", version: 3, id: row.id });
  });
});

describe("agent-core's format 4, written", () => {
  it("migrate --check says each needs migrating (exit 1) and writes nothing; --dry-run says what it would write", async () => {
    const store = join(work, "check");
    cpSync(FIXTURES, store, { recursive: true });
    const check = await cliJson(["migrate", "--check", store]);
    expect(check.exitCode).toBe(1);
    expect(check.json.summary["needs-migrate"]).toBe(15);
    // (the count agrees with its number)
    expect((await cli(["migrate", "--check", store])).stdout).toMatch(/\n15 need migrating\n$/);
    const dry = await cli(["migrate", "--dry-run", join(store, "shared")]);
    expect(dry.exitCode).toBe(1);
    expect(dry.stdout).toMatch(/v4 +would migrate +13 lines/);
    expect(existsSync(join(store, "shared", "sessions.sqlite-wal"))).toBe(false);
  });

  it("migrate writes a v3 copy beside each (the original as it was); run again, each is current; a copy that differs is refused, --force replaces it", async () => {
    const store = join(work, "migrate");
    cpSync(FIXTURES, store, { recursive: true });
    const row = await jsonl("basic");
    const path = join(store, row.path.slice(FIXTURES.length));
    const before = readFileSync(path);
    const r = await cli(["migrate", path]);
    expect(r.exitCode, r.stderr).toBe(0);
    const copy = path.replace(/\.jsonl$/, ".v3.jsonl");
    expect(r.stdout).toContain(`migrated v4 -> v3`);
    expect(r.stdout).toContain(basename(copy));
    expect(readFileSync(path).equals(before)).toBe(true);
    const v3 = await cliJson(["ls", join(store, basename(path.slice(0, -basename(path).length)))]);
    expect((v3.json.sessions as Row[]).find((s) => s.path === copy)).toMatchObject({ version: 3, status: "ok" });
    const again = await cliJson(["migrate", path]);
    expect(again.exitCode).toBe(0);
    expect(again.json.files[0]).toMatchObject({ status: "current", copy });
    expect((await cli(["migrate", "--check", path])).exitCode).toBe(0);
    // (the original and its copy: one session id, in two files)
    const byId = await cli(["show", row.id.slice(0, 13), "--session-dir", store]);
    expect(byId.exitCode).toBe(2);
    expect(byId.stderr).toContain(`session id \`${row.id}\` is in 2 files`);
    expect(byId.stderr).toContain(copy);
    writeFileSync(copy, readFileSync(copy, "utf8").replace(/"basic session"/, '"renamed"'));
    const changed = await cliJson(["migrate", path]);
    expect(changed.exitCode).toBe(2);
    expect(changed.json.files[0]).toMatchObject({ status: "refused", refusal: "output-exists" });
    expect((await cli(["migrate", "--check", path])).exitCode).toBe(1);
    expect((await cli(["migrate", "--force", path])).exitCode).toBe(0);
    expect((await cliJson(["migrate", path])).json.files[0]).toMatchObject({ status: "current", copy });
    expect(readFileSync(path).equals(before)).toBe(true);
    // a database's session: pi's own name for it, in the database's folder
    const db = await shared("basic session");
    const inStore = join(store, db.path.slice(FIXTURES.length));
    const out = await cliJson(["migrate", inStore]);
    expect(out.exitCode).toBe(0);
    expect(basename(out.json.files[0].out)).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z_${db.id}\\.jsonl$`));
    const whole = await cliJson(["migrate", store]);
    expect(whole.exitCode).toBe(0);
    expect(whole.json.summary).toMatchObject({ migrated: 13, current: 4 });
    const human = await cli(["migrate", "--check", store]);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/v4 +already current +v3 copy up to date/);
  });

  it("show states the file's own size and lines (those its findings cite), what it reads as, and migrate as the next step", async () => {
    const row = await jsonl("crash");
    const bytes = readFileSync(row.path);
    const lines = bytes.toString("utf8").split("\n").length - (bytes.at(-1) === 0x0a ? 1 : 0);
    const j = await cliJson(["show", row.path]);
    expect(j.exitCode).toBe(0);
    expect(j.json).toMatchObject({ size: bytes.length, lines, version: 4, v3Copy: null });
    // (what it reads as: the lines migrate would write, as cat gives them)
    const asV3 = (await cli(["cat", row.path])).stdout;
    expect(j.json.asV3).toEqual({ size: Buffer.byteLength(asV3), lines: asV3.split("\n").length - 1 });
    // every line a finding names is one of the file's
    for (const f of j.json.findings as Array<{ line?: number }>) if (f.line !== undefined) expect(f.line).toBeLessThanOrEqual(lines);
    expect(Math.max(...(j.json.findings as Array<{ line?: number }>).map((f) => f.line ?? 0))).toBeGreaterThan(j.json.asV3.lines);
    const human = await cli(["show", row.path]);
    expect(human.stdout).toContain(`  ${(bytes.length / 1024).toFixed(0)} KB, ${lines} lines; read as pi's v3: `);
    expect(human.stdout).toMatch(/\nv3 copy +none yet \(pi-session migrate .* writes one beside it\)\n/);
    expect(human.stdout).toContain(`\nnext: pi-session migrate ${row.path}\n`);
    expect(human.stdout).not.toContain("pi-session check");
    // a database's session: its database's size (as ls gives it), no lines of its own
    const db = await sqlite("basic session");
    const dj = await cliJson(["show", db.path]);
    expect(dj.json).toMatchObject({ size: db.size, lines: null, v3Copy: null });
    expect((await cli(["show", db.path])).stdout).toMatch(/\.sqlite  \d+ KB; read as pi's v3: [\d.]+ KB, \d+ lines\n/);
  });

  it("after migrate, ls, migrate --check, show and check agree the original is migrated; a copy changed since, they agree it is not; the id names both files, each said", async () => {
    const store = join(work, "one-truth");
    cpSync(FIXTURES, store, { recursive: true });
    const list = async () => (await cliJson<{ sessions: Array<Row & { v3Copy?: string }> }>(["ls", store, "--no-cache"])).json.sessions;
    const gate = async () => new Map(((await cliJson(["migrate", "--check", store])).json.files as Array<{ file: string; status: string }>).map((f) => [f.file, f.status]));
    const crash = join(store, (await jsonl("crash")).path.slice(FIXTURES.length));
    const db = join(store, (await sqlite("basic session")).path.slice(FIXTURES.length));
    const agree = async () => {
      const rows = (await list()).filter((r) => r.version === 4);
      const statuses = await gate();
      expect(rows.length).toBe(15);
      for (const r of rows) {
        // (ls's "migrated" is migrate --check's "current", its "needs-migrate" migrate's)
        const said = [...statuses].find(([file]) => file === r.path || join(store, file.slice(store.length)) === r.path)?.[1];
        expect([r.path, r.status], r.path).toEqual([r.path, said === "current" ? "migrated" : "needs-migrate"]);
        // (show and check, of the two migrated here and one that is not)
        if (r.path !== crash && r.path !== db && r !== rows.find((x) => x.path !== crash && x.path !== db)) continue;
        const show = await cliJson(["show", r.path]);
        expect(show.json.v3Copy?.current ?? false, r.path).toBe(r.status === "migrated");
        const format4 = (show.json.findings as Array<{ code: string; next?: string }>).find((f) => f.code === "agent-core-format-4")!;
        expect(format4.next, r.path).toBe(r.status === "migrated" ? undefined : "pi-session migrate FILE");
      }
      return rows;
    };
    expect((await agree()).every((r) => r.status === "needs-migrate")).toBe(true);
    expect((await cli(["migrate", crash, db])).exitCode).toBe(0);
    const after = await agree();
    const migrated = after.filter((r) => r.status === "migrated");
    expect(migrated.map((r) => r.path).sort()).toEqual([crash, db].sort());
    const copy = crash.replace(/\.jsonl$/, ".v3.jsonl");
    expect(migrated.find((r) => r.path === crash)!.v3Copy).toBe(copy);
    const human = await cli(["ls", store, "--no-cache"]);
    expect(human.stdout).toMatch(/4 +migrated\n/);
    const show = await cli(["show", crash]);
    expect(show.stdout).toContain(`v3 copy       ${copy}  up to date: migrated, the file pi opens`);
    expect(show.stdout).not.toContain("next: pi-session migrate");
    const check = await cli(["check", crash]);
    expect(check.stdout).toContain(`migrated: its v3 copy ${copy} is up to date`);
    expect(check.stdout).not.toContain("next: pi-session migrate");
    // one id, two files: the refusal names both, and which is agent-core's original pi cannot open
    const id = basename(crash).replace(/^.*_/, "").replace(/\.jsonl$/, "");
    const byId = await cli(["show", id.slice(0, 13), "--session-dir", store]);
    expect([byId.exitCode, byId.stdout]).toEqual([2, ""]);
    expect(byId.stderr).toContain(`${crash} (agent-core's format 4, migrated: pi opens its v3 copy), ${copy}); give the file's path`);
    // the copy changed since: no longer migrated, by every command alike
    writeFileSync(copy, readFileSync(copy, "utf8").replace("warm up", "warmed up"));
    expect((await agree()).filter((r) => r.status === "migrated").map((r) => r.path)).toEqual([db]);
    expect((await cli(["show", crash])).stdout).toMatch(/\nv3 copy +\S+\.v3\.jsonl  out of date \(pi-session migrate .* --force writes it again, keeping this one as a backup\)\n/);
  });

  it("a format-4 session's requests with no cost are priced by the model their message asked, as its migrated copy's are: the same estimate, the same models named", async () => {
    const store = join(work, "priced");
    cpSync(FIXTURES, store, { recursive: true });
    const original = join(store, (await jsonl("basic")).path.slice(FIXTURES.length));
    expect((await cli(["migrate", original])).exitCode).toBe(0);
    const copy = original.replace(/\.jsonl$/, ".v3.jsonl");
    const prices = join(work, "faux-prices.json");
    const before = await cliJson(["show", original]);
    expect(before.json.unpriced.map((u: { provider: string; id: string }) => [u.provider, u.id])).toContainEqual(["faux", "faux-1"]);
    writeFileSync(prices, JSON.stringify({ faux: { "faux-1": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } } }));
    const [a, b] = [await cliJson(["show", original, "--prices", prices]), await cliJson(["show", copy, "--prices", prices])];
    expect(a.json.estimatedCost).toBeGreaterThan(0);
    expect(a.json.estimatedCost).toBeCloseTo(b.json.estimatedCost, 12);
    expect(a.json.unpriced).toEqual(b.json.unpriced);
    const u = await cliJson(["usage", original, "--prices", prices, "--no-cache"]);
    expect(u.json.total.estimatedCost).toBeCloseTo(a.json.estimatedCost, 12);
  });

  it("repair, slim and fork refuse a format-4 session in one line naming migrate, writing nothing", async () => {
    const store = join(work, "writers");
    cpSync(FIXTURES, store, { recursive: true });
    const row = await jsonl("errors");
    const path = join(store, row.path.slice(FIXTURES.length));
    const before = readFileSync(path);
    for (const command of ["repair", "slim"]) {
      const r = await cli([command, path]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("agent-core's storage format 4");
      expect(r.stderr).toContain("pi-session migrate");
    }
    const db = await shared("first question");
    const fork = await cli(["fork", join(store, db.path.slice(FIXTURES.length)), "--out", join(work, "forked.jsonl")]);
    expect(fork.exitCode).toBe(2);
    expect(fork.stderr).toContain("pi-session migrate");
    expect(readFileSync(path).equals(before)).toBe(true);
  });
  it("a v3 copy pi has continued (it begins with the translation's lines) is the migrated session: ls, migrate --check, migrate and show say so; one that differs is replaced by --force only with a backup of it kept", async () => {
    const store = join(work, "continued");
    cpSync(FIXTURES, store, { recursive: true });
    const path = join(store, (await jsonl("basic")).path.slice(FIXTURES.length));
    expect((await cli(["migrate", path])).exitCode).toBe(0);
    const copy = path.replace(/\.jsonl$/, ".v3.jsonl");
    // pi opens the copy and goes on: a user message appended under its last entry
    const written = readFileSync(copy, "utf8");
    const last = JSON.parse(written.trimEnd().split("\n").at(-1)!) as { id: string };
    const entry = { type: "message", id: "c0ffee01", parentId: last.id, timestamp: "2026-12-07T10:00:00.000Z", message: { role: "user", content: [{ type: "text", text: "and one more thing" }], timestamp: 1796637600000 } };
    writeFileSync(copy, `${written}${JSON.stringify(entry)}\n`);
    const continued = readFileSync(copy);
    const row = (await cliJson<{ sessions: Array<Row & { v3Copy?: string }> }>(["ls", store, "--no-cache"])).json.sessions.find((r) => r.path === path)!;
    expect([row.status, row.v3Copy]).toEqual(["migrated", copy]);
    expect((await cli(["migrate", "--check", path])).exitCode).toBe(0);
    const again = await cliJson(["migrate", path]);
    expect(again.exitCode).toBe(0);
    expect(again.json.files[0]).toMatchObject({ status: "current", copy });
    const human = await cli(["migrate", path]);
    expect(human.stdout).not.toContain("--force");
    expect((await cliJson(["show", path])).json.v3Copy.current).toBe(true);
    expect((await cli(["show", path])).stdout).toContain("up to date: migrated, the file pi opens");
    expect(readFileSync(copy).equals(continued)).toBe(true);
    // a copy that does not begin with the translation: refused; --force replaces it, the copy kept
    const edited = written.replace(/"basic session"/, '"renamed"');
    writeFileSync(copy, edited);
    const refused = await cliJson(["migrate", path]);
    expect(refused.exitCode).toBe(2);
    expect(refused.json.files[0]).toMatchObject({ status: "refused", refusal: "output-exists" });
    expect(refused.json.files[0].reason).toContain("--force");
    expect(refused.json.files[0].reason).toContain("kept");
    const forced = await cliJson(["migrate", "--force", path]);
    expect(forced.exitCode).toBe(0);
    expect(forced.json.files[0]).toMatchObject({ status: "migrated", backup: `${copy}.bak` });
    expect(readFileSync(`${copy}.bak`, "utf8")).toBe(edited);
    expect(readFileSync(copy, "utf8")).toBe(written);
    writeFileSync(copy, edited);
    const said = await cli(["migrate", "--force", path]);
    expect(said.stdout).toContain(`the copy it replaced is kept as ${copy}.bak.1`);
    expect(readFileSync(`${copy}.bak.1`, "utf8")).toBe(edited);
  });
});
