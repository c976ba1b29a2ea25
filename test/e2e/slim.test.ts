/** slim, spawned for real: every flag in human and --json mode, refusals, backups, --out, a race with pi. */
import { execa } from "execa";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { generateBloatedSession } from "../helpers/generate.js";
import { BIN, CORPUS, fixture } from "../helpers/paths.js";
import { pi } from "../helpers/pi.js";

/** A directory with a bloated session (pi's SessionManager wrote it) and copies of fixtures. */
function sandbox(...fixtures: string[]): { dir: string; bloated: string } {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-slim-e2e-"));
  const made = generateBloatedSession({ seed: 4242, dir: mkdtempSync(join(tmpdir(), "pi-session-slim-made-")), steps: 60, payload: 6000, branching: 0.005 });
  const bloated = join(dir, "bloated.jsonl");
  copyFileSync(made, bloated);
  for (const f of fixtures) copyFileSync(fixture(f), join(dir, f));
  return { dir, bloated };
}

const contexts = (file: string) => {
  const entries = pi.parseSessionEntries(readFileSync(file, "utf8")).filter((e) => e.type !== "session");
  const parents = new Set(entries.map((e) => e.parentId));
  return entries.filter((e) => !parents.has(e.id)).map((leaf) => pi.buildSessionContext(entries, leaf.id));
};

describe("slim", () => {
  it("slims in place, keeps the original as .bak, reports bytes by kind, and no leaf's context changes", async () => {
    const { bloated } = sandbox();
    const original = readFileSync(bloated);
    const before = contexts(bloated);
    const r = await cli(["slim", bloated]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${bloated.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: slimmed [\\d.]+ [KM]B -> [\\d.]+ [KM]B \\(saved [\\d.]+ [KM]B: tool output [\\d.]+ [KM]B, .*\\); [\\d,]+ entries slimmed, [\\d,]+ live entries kept whole; the original is kept as ${bloated.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.bak\\n$`));
    expect(r.stderr).toBe("");
    expect(readFileSync(`${bloated}.bak`).equals(original)).toBe(true);
    expect(readFileSync(bloated).length).toBeLessThan(original.length);
    expect(contexts(bloated)).toEqual(before);
    expect(readFileSync(bloated, "utf8")).toContain("[removed by pi-session slim: tool output, ");
    // check finds nothing (it found nothing before), and a second run has nothing to do
    expect((await cli(["check", bloated])).exitCode).toBe(0);
    const again = await cli(["slim", bloated]);
    expect(again).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/: nothing to slim \(.*\); left untouched\n$/) });
    expect(readdirSync(join(bloated, "..")).filter((f) => f.startsWith("bloated"))).toEqual(["bloated.jsonl", "bloated.jsonl.bak"]);
  });

  it("--json reports the same, with the bytes saved by kind adding up", async () => {
    const { bloated } = sandbox();
    const size = readFileSync(bloated).length;
    const r = await cliJson(["slim", bloated]);
    expect(r.exitCode).toBe(0);
    const f = r.json.files[0];
    expect(f).toMatchObject({ file: bloated, status: "slimmed", bytesBefore: size, bytesAfter: readFileSync(bloated).length, backup: `${bloated}.bak` });
    expect(Object.keys(f.saved).sort()).toEqual(["images", "other", "summaries", "text", "thinking", "toolOutput"]);
    expect(Object.values(f.saved as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(f.bytesBefore - f.bytesAfter);
    expect(f.entriesSlimmed).toBeGreaterThan(0);
    expect(f.liveEntries).toBeGreaterThan(0);
    expect(r.json.summary).toMatchObject({ slimmed: 1 });
  });

  it("--dry-run and --check write nothing and exit 1 when something would be slimmed; a clean file exits 0", async () => {
    const { dir, bloated } = sandbox("linear.jsonl");
    const original = readFileSync(bloated);
    const dry = await cli(["slim", bloated, "--dry-run"]);
    expect(dry.exitCode).toBe(1);
    expect(dry.stdout).toMatch(/: would slim .*; nothing written\n$/);
    const check = await cliJson(["slim", bloated, "--check"]);
    expect(check.exitCode).toBe(1);
    expect(check.json.files[0].status).toBe("needs-slim");
    expect(readFileSync(bloated).equals(original)).toBe(true);
    const clean = await cli(["slim", join(dir, "linear.jsonl"), "--check"]);
    expect(clean).toMatchObject({ exitCode: 0, stdout: expect.stringContaining("nothing to slim") });
    expect(readdirSync(dir).sort()).toEqual(["bloated.jsonl", "linear.jsonl"]);
  });

  it("--min-size: smaller payloads too, read as bytes, K or M; anything else is a usage error", async () => {
    const { bloated } = sandbox();
    const big = (await cliJson(["slim", bloated, "--dry-run", "--min-size", "1M"])).json.files[0];
    const small = (await cliJson(["slim", bloated, "--dry-run", "--min-size", "64"])).json.files[0];
    expect(small.bytesBefore - small.bytesAfter).toBeGreaterThan(big.bytesBefore - big.bytesAfter);
    const bad = await cli(["slim", bloated, "--min-size", "lots"]);
    expect(bad).toMatchObject({ exitCode: 2, stdout: "", stderr: "pi-session: --min-size lots: give a size in bytes (e.g. 1024, 4K, 1M)\n" });
  });

  it("refuses a corrupted file, a v1 file and a parent cycle (exit 1, nothing written), pointing to repair or migrate", async () => {
    const { dir } = sandbox("torn-last-line.jsonl", "v1.jsonl", "cycle.jsonl");
    for (const [name, next] of [
      ["torn-last-line.jsonl", "repair"],
      ["v1.jsonl", "migrate"],
      ["cycle.jsonl", "repair"],
    ] as const) {
      const file = join(dir, name);
      const before = readFileSync(file);
      const r = await cli(["slim", file]);
      expect(r.exitCode, name).toBe(1);
      expect(r.stdout, name).toBe("");
      expect(r.stderr, name).toMatch(new RegExp(`^pi-session: ${file}: refused: .*run \`pi-session ${next}\` first[^\n]*\n$`));
      expect(readFileSync(file).equals(before), name).toBe(true);
    }
    expect(readdirSync(dir).filter((f) => f.endsWith(".bak"))).toEqual([]);
  });

  it("a directory: one table, a summary line, the worst exit code", async () => {
    const { dir } = sandbox("linear.jsonl", "v1.jsonl");
    const r = await cli(["slim", dir, "--dry-run"]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^file +before +after +result +note\n/);
    expect(r.stdout).toMatch(/bloated\.jsonl +[\d.]+ [KM]B +[\d.]+ [KM]B +would slim/);
    expect(r.stdout).toMatch(/linear\.jsonl .* nothing to slim/);
    expect(r.stdout).toMatch(/v1\.jsonl .* refused/);
    expect(r.stdout).toMatch(/\n1 nothing to slim, 1 would slim, 1 refused\n$/);
  });

  it("--out writes elsewhere, never over an existing file without --force; stdin is refused", async () => {
    const { dir, bloated } = sandbox();
    const original = readFileSync(bloated);
    const out = join(dir, "slim.jsonl");
    expect((await cli(["slim", bloated, "--out", out])).exitCode).toBe(0);
    expect(readFileSync(bloated).equals(original)).toBe(true);
    expect(existsSync(`${bloated}.bak`)).toBe(false);
    expect(readFileSync(out).length).toBeLessThan(original.length);
    const again = await cli(["slim", bloated, "--out", out]);
    expect(again.exitCode).toBe(2);
    expect(again.stdout).toBe("");
    expect(again.stderr).toBe(`pi-session: ${bloated}: refused to overwrite ${out}; pass --force to replace it\n`);
    expect((await cli(["slim", bloated, "--out", out, "--force"])).exitCode).toBe(0);
    expect((await cli(["slim", "-"])).exitCode).toBe(2);
  });

  it("aborts and changes nothing when pi appends to the file while it runs", async () => {
    const { bloated } = sandbox();
    const run = execa("node", [BIN, "slim", bloated, "--json"], { reject: false, env: { PI_SESSION_TEST_PAUSE_MS: "1500", NO_COLOR: "1" } });
    await new Promise((r) => setTimeout(r, 700));
    const before = readFileSync(bloated);
    const appended = '{"type":"message","id":"late0001","parentId":null,"timestamp":"2026-03-01T10:05:00.000Z","message":{"role":"user","content":"appended by pi"}}\n';
    appendFileSync(bloated, appended);
    const r = await run;
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(String(r.stdout)).files[0]).toMatchObject({ status: "aborted" });
    expect(readFileSync(bloated).equals(Buffer.concat([before, Buffer.from(appended)]))).toBe(true);
    expect(readdirSync(join(bloated, "..")).filter((f) => f.startsWith("bloated"))).toEqual(["bloated.jsonl"]);
  });

  it("--check --format github annotates each file that could be slimmed", async () => {
    const { bloated } = sandbox();
    const r = await cli(["slim", bloated, "--check", "--format", "github"]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^::warning file=.*bloated\.jsonl,line=1,title=needs-slim::could be slimmed /m);
  });

  it("slims the corpus file with compactions whose older summaries are behind, and pi opens it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-slim-corpus-"));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "nucbox.jsonl");
    copyFileSync(join(CORPUS, "nucbox__1d9efd24.v3.orphan-roots.compactions.jsonl"), file);
    const before = contexts(file);
    const r = await cliJson(["slim", file, "--min-size", "200"]);
    expect(r.exitCode).toBe(0);
    expect(r.json.files[0]).toMatchObject({ status: "slimmed" });
    expect(r.json.files[0].saved.summaries).toBeGreaterThan(0);
    expect(contexts(file)).toEqual(before);
    expect(pi.SessionManager.open(file).getEntries().length).toBe(175);
  });
});
