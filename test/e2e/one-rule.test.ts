/**
 * Rules that were written twice and disagreed (issue 15), each proven through the real CLI:
 * check and repair read a broken line by one salvage rule; no finding sends the user to `repair`
 * for something `repair` does not mend; the ls cache is keyed by the rules that made its rows; the
 * writers' exit codes come from data.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FINDING_INFO, type FindingCode } from "../../src/format/check/findings.js";
import { assistant, entry, header, jsonl, user } from "../helpers/builders.js";
import { cli, cliJson } from "../helpers/cli.js";
import { fixture } from "../helpers/paths.js";

function sandbox(name: string, bytes: Buffer | string): string {
  const file = join(mkdtempSync(join(tmpdir(), "pi-session-rule-")), name);
  writeFileSync(file, bytes);
  return file;
}

const u1 = JSON.stringify(user("d0000001", null, "hi"));
const u2 = user("d0000002", "d0000001", "torn");
const u3 = user("d0000003", "d0000001", "again");

describe("one salvage rule for check and repair", () => {
  it("a torn write followed by a spaced record: check says one record is recoverable, and repair keeps it", async () => {
    const torn = JSON.stringify(u2).slice(0, 60);
    const spaced = JSON.stringify(u3, null, 1).replace(/\n/g, "");
    const file = sandbox("s.jsonl", `${JSON.stringify(header())}\n${u1}\n${torn}${spaced}\n`);
    const checked = await cliJson(["check", file]);
    expect(checked.exitCode).toBe(1);
    expect(checked.json.files[0].findings).toEqual([expect.objectContaining({ code: "line-fused", line: 3, records: 1, message: "a record and a torn fragment on one line" })]);
    const repaired = await cliJson(["repair", file]);
    expect(repaired.exitCode).toBe(0);
    expect(repaired.json.files[0].actions.map((a: { code: string; line: number }) => `${a.line}:${a.code}`)).toEqual(["3:fused-split", "3:fragment-dropped"]);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(JSON.parse(lines[2]!)).toEqual(u3);
    expect(await cli(["check", file])).toMatchObject({ exitCode: 0 });
  });

  it("typeless records fused on a line are dropped by repair, as check says, and check is then clean (no circle)", async () => {
    const file = sandbox("s.jsonl", `${JSON.stringify(header())}\n${u1}\n{"a":1}{"b":2}\n`);
    const checked = await cli(["check", file]);
    expect(checked.exitCode).toBe(1);
    expect(checked.stdout).toContain(`${file}:3: error line-invalid-json: the line is not valid JSON and holds no record\n  next: pi-session repair ${file}\n`);
    const repaired = await cli(["repair", file]);
    expect(repaired.exitCode).toBe(0);
    expect(repaired.stdout).toContain(`${file}:3: invalid-dropped: not JSON, and no record could be recovered from it\n`);
    expect(repaired.stdout).toMatch(/it now passes check\n$/);
    expect(await cli(["check", file])).toMatchObject({ exitCode: 0 });
  });
});

/**
 * A file showing each finding whose next step is repair. The test fails for a code with such a
 * next step and no example here, so a new one cannot be added without proving repair mends it.
 */
const h = JSON.stringify(header());
const a1 = JSON.stringify(assistant("d0000004", "d0000001", "ok"));
const EXAMPLES: Partial<Record<FindingCode, string | Buffer>> = {
  "header-missing": `${u1}\n${a1}\n`,
  "header-not-first": `${u1}\n${h}\n${a1}\n`,
  "header-duplicate": `${h}\n${u1}\n${JSON.stringify(header({ id: "other" }))}\n${a1}\n`,
  "session-concatenated": `${h}\n${u1}\n${JSON.stringify(header({ id: "other" }))}\n${JSON.stringify(user("d0000009", null, "another"))}\n`,
  "header-invalid": `${JSON.stringify({ type: "session", version: 3, id: "x", timestamp: "2026-01-01T00:00:00.000Z" })}\n${u1}\n`,
  "line-bom": `\ufeff${h}\n${u1}\n`,
  "line-crlf": `${h}\r\n${u1}\r\n`,
  "line-invalid-json": `${h}\n${u1}\nnot json at all\n`,
  "line-fused": `${h}\n${u1}${a1}\n`,
  "line-split": `${h}\n${JSON.stringify(user("d0000001", null, "two\nlines")).replace("\\n", "\n")}\n`,
  "line-torn": `${h}\n${u1}\n${a1.slice(0, 40)}`,
  "line-no-newline": `${h}\n${u1}`,
  "line-nul": Buffer.concat([Buffer.from(`${h}\n`), Buffer.alloc(8), Buffer.from(`${u1}\n`)]),
  "line-invalid-utf8": Buffer.concat([Buffer.from(`${h}\n`), Buffer.from(u1.replace("hi", "h\u0001")).map((b) => (b === 1 ? 0xff : b)), Buffer.from("\n")]),
  "line-not-object": `${h}\n${u1}\n[1,2]\n`,
  "entry-no-type": `${h}\n${u1}\n{"id":"x","parentId":null}\n`,
  "entry-missing-id": `${h}\n${u1}\n${JSON.stringify({ ...user("x", "d0000001", "no id"), id: undefined })}\n`,
  "message-invalid": `${h}\n${u1}\n${JSON.stringify({ ...user("d0000009", "d0000001", ""), message: { content: "no role" } })}\n`,
  "id-duplicate": `${h}\n${u1}\n${JSON.stringify(user("d0000001", null, "another"))}\n`,
  "parent-missing": `${h}\n${u1}\n${JSON.stringify(user("d0000005", "zzzzzzzz", "orphan"))}\n`,
  "parent-self": `${h}\n${u1}\n${JSON.stringify(user("d0000005", "d0000005", "self"))}\n`,
  "parent-forward": `${h}\n${u1}\n${JSON.stringify(user("d0000005", "d0000006", "forward"))}\n${JSON.stringify(user("d0000006", "d0000001", "later"))}\n`,
  // the conversation: real sessions damaged as the public reports show (fixtures/README.md)
  "tool-result-orphan": readFileSync(fixture("pairing-errored-turn.jsonl")),
  "tool-result-duplicate": readFileSync(fixture("pairing-duplicate.jsonl")),
  "tool-result-no-id": readFileSync(fixture("pairing-empty-id.jsonl")),
  "compaction-keeps-result": readFileSync(fixture("pairing-compaction-cut.jsonl")),
  "parent-cycle": `${h}\n${JSON.stringify(user("d0000005", "d0000006", "a"))}\n${JSON.stringify(user("d0000006", "d0000005", "b"))}\n`,
  // the session appended to its own file again (a sync tool): its header and entries, twice over
  "lines-repeated": `${h}\n${u1}\n${a1}\n${h}\n${u1}\n${a1}\n`,
  // an edit that omits a turn holding a call, its result left in: what pi's appendContextEdit writes
  "context-edit-drops-calls": `${h}\n${u1}\n${JSON.stringify(assistant("d0000002", "d0000001", "", { message: { role: "assistant", content: [{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls" } }], provider: "anthropic", model: "claude", stopReason: "toolUse" } }))}\n${JSON.stringify(entry("message", "d0000003", "d0000002", { message: { role: "toolResult", toolCallId: "call_1", toolName: "bash", content: [{ type: "text", text: "a b" }], isError: false } }))}\n${JSON.stringify(entry("context_edit", "d0000004", "d0000003", { targetId: "d0000002", replacement: null }))}\n${JSON.stringify(user("d0000005", "d0000004", "go on"))}\n`,
};

describe("a finding's next step is repair only where repair mends it", () => {
  const codes = (Object.keys(FINDING_INFO) as FindingCode[]).filter((code) => /repair/.test((FINDING_INFO[code] as { next?: string }).next ?? ""));
  for (const code of codes) {
    it(code, async () => {
      const example = EXAMPLES[code];
      expect(example, `an example of ${code} (its next step is repair)`).toBeDefined();
      const file = sandbox("2026-01-01T00-00-00-000Z_11111111-2222-4333-8444-555555555555.jsonl", example!);
      const before = await cliJson(["check", file]);
      expect(before.json.files[0].findings.map((f: { code: string }) => f.code), "the example shows the finding").toContain(code);
      const repaired = await cliJson(["repair", file]);
      expect(repaired.json.files[0].status, JSON.stringify(repaired.json.files[0].actions)).toBe("repaired");
      expect(repaired.exitCode).toBe(0);
      const after = await cliJson(["check", file]);
      expect(after.json.files[0].findings.map((f: { code: string }) => f.code)).not.toContain(code);
      expect(after.json.files[0].errors).toBe(0);
    });
  }

  it("when repair cannot reach a clean file it lists what remains, and no hint sends the user back to it", async () => {
    // a harness leaf that points nowhere: repair mends the fused line but not the leaf
    const file = sandbox("s.jsonl", `${h}\n${u1}${a1}\n${JSON.stringify(entry("leaf", "l0000001", "d0000004", { targetId: "nowhere" }))}\n`);
    const r = await cli(["repair", file]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(`${file}:4: error leaf-target-missing: targetId \`nowhere\` does not exist`);
    expect(r.stdout).toMatch(/repaired \(.*\), but 1 error that repair does not mend remains \(listed above\)\n$/);
    const check = await cli(["check", file]);
    expect(check.exitCode).toBe(1);
    expect(check.stdout).not.toMatch(/repair/);
  });
});

describe("the ls cache", () => {
  it("is keyed by the build that wrote it: a row planted under another build is not shown", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-cache-key-"));
    copyFileSync(fixture("linear.jsonl"), join(dir, "s.jsonl"));
    const cache = mkdtempSync(join(tmpdir(), "pi-session-cache-"));
    const env = { XDG_CACHE_HOME: cache };
    await cli(["ls", dir], { env });
    const index = join(cache, "pi-session", "ls-index.json");
    const text = readFileSync(index, "utf8");
    const [head, ...rest] = text.split("\n");
    const meta = JSON.parse(head!);
    expect(meta.build).toMatch(/^\d+\.\d+\.\d+\+[0-9a-f]{16}$/);
    // the same build trusts a planted row (same length: the index gives each row's byte range)...
    const planted = rest.join("\n").replace('"status":"ok"', '"status":"XX"');
    writeFileSync(index, `${head}\n${planted}`);
    expect((await cliJson(["ls", dir], { env })).json.sessions[0].status).toBe("XX");
    // ...but not one written under other rules: the row is described afresh
    writeFileSync(index, `${JSON.stringify({ ...meta, build: `${meta.build.split("+")[0]}+0000000000000000` })}\n${planted}`);
    expect((await cliJson(["ls", dir], { env })).json.sessions[0].status).toBe("ok");
    expect(JSON.parse(readFileSync(index, "utf8").split("\n")[0]!).build).toBe(meta.build);
  });
});

describe("writers' exit codes come from data", () => {
  it("an existing --out is exit 2 (refusal output-exists); a refused file is exit 1 (refusal content)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-exit-"));
    const broken = join(dir, "fused.jsonl");
    copyFileSync(fixture("fused.jsonl"), broken);
    const out = join(dir, "out.jsonl");
    writeFileSync(out, "keep me\n");
    for (const command of ["repair", "migrate"]) {
      const source = command === "repair" ? broken : fixture("v1.jsonl");
      const r = await cliJson([command, source, "--out", out]);
      expect(r.exitCode, command).toBe(2);
      expect(r.json.files[0]).toMatchObject({ status: "refused", refusal: "output-exists" });
      expect(readFileSync(out, "utf8")).toBe("keep me\n");
    }
    const refused = await cliJson(["migrate", broken]);
    expect(refused.exitCode).toBe(1);
    expect(refused.json.files[0]).toMatchObject({ status: "refused", refusal: "content" });
  });
});
