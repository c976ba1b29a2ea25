/**
 * `export --format jsonl`: one branch as a pi session file, as pi's own `/export` writes it
 * (`serializeSessionBranch` in pi 1.6): the same lines but for the header's time of export.
 */
import { execa } from "execa";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
// @ts-expect-error: plain JS module without types at this path (not exported by the package entry)
import { serializeSessionBranch } from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-export.js";
import { BIN, corpusFiles, fixture } from "../helpers/paths.js";
import { pi } from "../helpers/pi.js";

const withoutTime = (text: string) => text.replace(/^(\{"type":"session","version":3,"id":[^\n]*?"timestamp":)"[^"]+"/, '$1"T"');

function piExport(file: string): string {
  const copy = join(mkdtempSync(join(tmpdir(), "pi-session-export-jsonl-")), "s.jsonl");
  copyFileSync(file, copy);
  return serializeSessionBranch(pi.SessionManager.open(copy)) as string;
}

describe("export --format jsonl", () => {
  // (left out: a header alone, which export refuses as having nothing to export; and a Windows
  // cwd, which pi resolves against its own working directory on Linux where we keep it as written)
  const v3 = corpusFiles().filter((f) => readFileSync(f, "utf8").startsWith('{"type":"session","version":3') && !/header-only|windows-cwd/.test(f));
  const files = [fixture("linear.jsonl"), fixture("branched.jsonl"), fixture("compacted.jsonl"), ...v3.slice(0, 8)];

  it.each(files)("%s: pi's /export of the current branch, line for line", async (file) => {
    const r = await execa("node", [BIN, "export", file, "--format", "jsonl"], { reject: false, stripFinalNewline: false });
    expect(r.exitCode).toBe(0);
    expect(withoutTime(r.stdout)).toBe(withoutTime(piExport(file)));
    const header = JSON.parse(r.stdout.split("\n")[0]!) as { timestamp: string };
    expect(Math.abs(Date.parse(header.timestamp) - Date.now())).toBeLessThan(60_000);
  });

  it("another leaf's branch, to a file that loads in pi with every entry", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-export-jsonl-"));
    const leaves = JSON.parse((await cli(["path", fixture("branched.jsonl"), "--leaves", "--json"])).stdout).leaves as Array<{ id: string; depth: number }>;
    const other = leaves.find((l) => !(l as { current?: boolean }).current) ?? leaves[0]!;
    const out = join(dir, "branch.jsonl");
    const r = await cli(["export", fixture("branched.jsonl"), "--leaf", other.id, "--format", "jsonl", "-o", out]);
    expect(r.exitCode).toBe(0);
    const entries = pi.SessionManager.open(out).getEntries() as Array<{ id: string; parentId: string | null }>;
    expect(entries.at(-1)!.id).toBe(other.id);
    expect(entries.map((e, i) => e.parentId === (i === 0 ? null : entries[i - 1]!.id))).not.toContain(false);
  });

  it("--redact with --format jsonl writes the branch as `redact` writes the session: pi loads it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-export-jsonl-"));
    const out = join(dir, "redacted.jsonl");
    // (linear.jsonl's cwd is /home/ada: the user name is what there is to replace)
    const r = await cli(["export", fixture("linear.jsonl"), "--format", "jsonl", "--redact", "-o", out]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("pi-session: redacted 1 secret in the session (user-name 1), as `pi-session redact` writes it\n");
    expect(readFileSync(out, "utf8")).not.toContain("/home/ada");
    expect(JSON.parse(readFileSync(out, "utf8").split("\n")[0]!).cwd).toMatch(/^\/home\/«redacted:user-name:[0-9a-f]{4,}»\/project$/);
    expect(pi.SessionManager.open(out).getEntries().length).toBeGreaterThan(1);
  });
});
