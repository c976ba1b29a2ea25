/**
 * `diff` on the benchmark's branched sessions (issue 40's target: within 2 × `context` of one leaf
 * of the same file, in bounded memory), each a fresh process, peak RSS from the kernel:
 *
 * - `diff FILE LEAF_A LEAF_B`: the first leaf and the last, of one file;
 * - `diff A B`: the file against a copy of it with three entries appended (made once, kept).
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureAll } from "./measure.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const fmt = (n, d = 0) => (n === undefined ? "-" : n.toFixed(d));

export function diffReport({ file, runs, label }) {
  const listed = spawnSync(process.execPath, [join(ROOT, "bin/pi-session.js"), "path", file, "--leaves", "--json"], { encoding: "utf8", maxBuffer: 1 << 30 });
  const { leaves: tips, currentLeaf } = JSON.parse(listed.stdout);
  const leaves = tips.map((l) => l.id);
  // (beside the session's folder, not in it: `ls (one file)` lists that folder)
  const copy = join(`${dirname(file)}-extra`, "session-appended.jsonl");
  if (!existsSync(copy)) {
    mkdirSync(dirname(copy), { recursive: true });
    copyFileSync(file, copy);
    let parent = currentLeaf;
    for (let k = 0; k < 3; k++) {
      const id = `dff0000${k}`;
      appendFileSync(copy, `${JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-12-01T00:00:00.000Z", message: { role: "user", content: `one more ${k}`, timestamp: 1 } })}\n`);
      parent = id;
    }
  }
  const [context, leavesDiff, filesDiff] = measureAll([
    { task: "cli", args: ["context", file], files: [file] },
    { task: "cli", args: ["diff", file, leaves[0], leaves[leaves.length - 1]], files: [file] },
    { task: "cli", args: ["diff", file, copy], files: [file, copy] },
  ], runs);
  let failures = 0;
  let text = `## diff, ${label}, Node ${process.versions.node}\n\n| contender | time ms | vs context | peak RSS MB | target |\n| --- | ---: | ---: | ---: | --- |\n`;
  text += `| pi-session context (the current leaf) | ${context.error ? `error: ${context.error}` : fmt(context.ms)} | 1.00 | ${fmt(context.rssMB)} | |\n`;
  for (const [name, m] of [[`diff FILE LEAF_A LEAF_B (the first and last of ${leaves.length} leaves)`, leavesDiff], ["diff A B (A, and A with three entries appended)", filesDiff]]) {
    if (m.error || context.error) {
      text += `| pi-session ${name} | error: ${m.error ?? context.error} | | | |\n`;
      failures++;
      continue;
    }
    // (judged where the other speed targets are, from 200 MB: a few MB is Node's start-up on both sides)
    const judged = statSync(file).size >= 150 * 2 ** 20;
    text += `| pi-session ${name} | ${fmt(m.ms)} | ${(m.ms / context.ms).toFixed(2)} | ${fmt(m.rssMB)} | ${judged ? `≤ 2 × context: ${m.ms <= 2 * context.ms ? "met" : "MISSED"}` : "for the record (judged from 200 MB)"} |\n`;
  }
  return { text: text + "\n", failures };
}
