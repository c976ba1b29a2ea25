/**
 * slim at scale (`npm run test:large`, not part of `npm test`: it writes and reads some 400 MB):
 * a generated 200 MB session whose tool output is about 90 % of its bytes, with a compaction every
 * few dozen entries. slim reports what it saved (most of the file), and pi's buildSessionContext
 * for every leaf of the slimmed file deep-equals it for the original.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { cliJson } from "../helpers/cli.js";
import { largeBloated } from "../helpers/large.js";
import { pi } from "../helpers/pi.js";

it("slims a 200 MB session to a fraction, every leaf's context unchanged", { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-slim-large-"));
  const file = join(dir, "big.jsonl");
  largeBloated(file, 200);
  const out = join(dir, "slim.jsonl");
  const r = await cliJson(["slim", file, "--out", out]);
  expect(r.exitCode, r.stderr).toBe(0);
  const report = r.json.files[0];
  const size = statSync(file).size;
  expect(report).toMatchObject({ status: "slimmed", bytesBefore: size, bytesAfter: statSync(out).size });
  const saved = report.bytesBefore - report.bytesAfter;
  console.info(`slim: ${(size / 2 ** 20).toFixed(1)} MB -> ${(report.bytesAfter / 2 ** 20).toFixed(1)} MB (saved ${((100 * saved) / size).toFixed(1)} %: ${JSON.stringify(report.saved)}), ${report.entriesSlimmed} entries slimmed, ${report.liveEntries} live`);
  expect(saved / size).toBeGreaterThan(0.8);
  const before = pi.parseSessionEntries(readFileSync(file, "utf8")).filter((e) => e.type !== "session");
  const after = pi.parseSessionEntries(readFileSync(out, "utf8")).filter((e) => e.type !== "session");
  expect(after.map((e) => e.id)).toEqual(before.map((e) => e.id));
  const parents = new Set(before.map((e) => e.parentId));
  const leaves = before.filter((e) => !parents.has(e.id)).map((e) => e.id);
  expect(leaves.length).toBeGreaterThan(0);
  for (const leaf of leaves) expect(pi.buildSessionContext(after, leaf)).toEqual(pi.buildSessionContext(before, leaf));
});
