/**
 * `redact`, timed as the issue that asked for it set its targets (BENCHMARKS.md, "redact"):
 *
 * - on the benchmark's large sessions: `redact FILE -o OUT` (the copy written, read again) and
 *   `redact FILE --check`, against the naive parse of the same file (read, split, JSON.parse every
 *   line), each a fresh process (bench/child.mjs), with its peak RSS: within 4 × naive and 256 MB;
 * - on the store `usage` and `grep` are timed on: `redact STORE --check` against `grep -F` of the
 *   same store for the same strings (the rules' anchors, every one: what a gate built on grep would
 *   look for, and what `redact` reads a line for), each a whole process: within 2 ×.
 *
 * Run alone: `node bench/redact.mjs FILE... [--store DIR] [--runs N]`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { measureAll, RUN_LIMIT, stuckOr, warmCache } from "./measure.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const MB = 2 ** 20;
const fmt = (n, d = 0) => (n === undefined ? "-" : n.toFixed(d));

/** The table for the large sessions: `files` as [label, path] pairs. */
export function redactReport({ files, runs }) {
  const scratch = mkdtempSync(join(tmpdir(), "pi-session-bench-redact-"));
  let failures = 0;
  let text = `## redact, best of ${runs}, Node ${process.versions.node}\n\n`;
  text += `| session | contender | time ms | vs naive | peak RSS MB | target |\n| --- | --- | ---: | ---: | ---: | --- |\n`;
  for (const [label, file] of files) {
    const out = join(scratch, "redacted.jsonl");
    const [naive, copy, check] = measureAll([
      { task: "naive", args: [file], files: [file] },
      { task: "cli", args: ["redact", file, "-o", out, "--force"], files: [file] },
      { task: "cli", args: ["redact", file, "--check"], files: [file] },
    ], runs);
    const size = statSync(file).size;
    const judged = size >= 150 * MB && size < 300 * MB;
    text += `| ${label}, ${fmt(size / MB)} MB | naive: read, split, JSON.parse | ${naive.error ? `failed: ${naive.error}` : fmt(naive.ms)} | 1.00 | ${fmt(naive.rssMB)} | |\n`;
    for (const [name, m] of [["redact -o (written, read again)", copy], ["redact --check", check]]) {
      if (m.error) {
        failures++;
        text += `| | ${name} | failed: ${m.error} | | | |\n`;
        continue;
      }
      const ratio = naive.ms ? m.ms / naive.ms : undefined;
      const target = judged ? `≤ 4 × naive: ${ratio <= 4 ? "met" : "MISSED"}; ≤ 256 MB: ${m.rssMB <= 256 ? "met" : "MISSED"}` : "for the record (judged at 200 MB)";
      text += `| | ${name} | ${fmt(m.ms)} | ${fmt(ratio, 2)} | ${fmt(m.rssMB)} | ${target} |\n`;
    }
  }
  rmSync(scratch, { recursive: true, force: true });
  return { text: `${text}\n`, failures };
}

/** A whole process, timed (files read through first); exit 0 or 1 (a gate's answer) is a run, anything else a failure. */
function timeGate(command, args, files) {
  warmCache(files);
  const t0 = performance.now();
  const r = spawnSync(command, args, { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 512 * MB, ...RUN_LIMIT });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) return { error: stuckOr(r, (r.stderr || "").trim().split("\n").pop() || `exit ${r.status}`) };
  return { ms, status: r.status, stdout: r.stdout };
}

const best = (a, b) => (!a || a.error ? (a?.error ? a : b) : b.error ? b : { ...b, ms: Math.min(a.ms, b.ms) });

/** The table for the store: `redact --check` against `grep -F` of the rules' anchors, each a whole process. */
export async function redactStoreReport({ store, runs }) {
  const files = readdirSync(store, { recursive: true }).filter((f) => String(f).endsWith(".jsonl")).map((f) => join(store, String(f)));
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const { loadRuleSet } = await import(pathToFileURL(join(ROOT, "dist/format/redact/rules.js")).href);
  const anchors = (await loadRuleSet()).anchors;
  const scratch = mkdtempSync(join(tmpdir(), "pi-session-bench-redact-store-"));
  const patterns = join(scratch, "anchors.txt");
  writeFileSync(patterns, anchors.join("\n") + "\n");
  let ours;
  let grep;
  let one;
  for (let round = 0; round < runs; round++) {
    ours = best(ours, timeGate(process.execPath, [join(ROOT, "bin/pi-session.js"), "redact", store, "--check", "--json"], files));
    grep = best(grep, timeGate("grep", ["-r", "-F", "-c", "-f", patterns, "--include=*.jsonl", store], files));
    one = best(one, timeGate("grep", ["-r", "-F", "-c", "ghp_", "--include=*.jsonl", store], files));
  }
  rmSync(scratch, { recursive: true, force: true });
  let failures = 0;
  let text = `## redact --check over a store of ${files.length} sessions (${fmt(bytes / MB)} MB), best of ${runs}, Node ${process.versions.node}\n\n`;
  text += `| contender | time ms | vs grep -F | target | found |\n| --- | ---: | ---: | --- | --- |\n`;
  const linesWith = (m) => (m.error ? "-" : `${m.stdout.split("\n").reduce((n, l) => n + Number(/:(\d+)$/.exec(l)?.[1] ?? 0), 0)} lines`);
  text += `| grep -r -F -c -f ANCHORS (the rules' ${anchors.length} anchors) | ${grep.error ? `failed: ${grep.error}` : fmt(grep.ms)} | 1.00 | | ${linesWith(grep)} |\n`;
  text += `| grep -r -F -c ghp_ (one literal) | ${one.error ? `failed: ${one.error}` : fmt(one.ms)} | ${one.error || grep.error ? "-" : fmt(one.ms / grep.ms, 2)} | for the record | ${linesWith(one)} |\n`;
  if (ours.error) {
    failures++;
    text += `| pi-session redact --check | failed: ${ours.error} | | | |\n`;
  } else {
    const ratio = grep.error ? undefined : ours.ms / grep.ms;
    const found = JSON.parse(ours.stdout).files.reduce((n, f) => n + (f.findings?.length ?? 0), 0);
    const judge = files.length >= 200 ? (ratio <= 2 ? "met" : "MISSED") : "(set for a few hundred sessions)";
    text += `| pi-session redact --check | ${fmt(ours.ms)} | ${fmt(ratio, 2)} | ≤ 2 × grep -F: ${judge} | ${found} secrets (exit ${ours.status}) |\n`;
  }
  return { text: `${text}\n`, failures };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { store: { type: "string" }, runs: { type: "string", default: "2" } } });
  const runs = Number(values.runs);
  if (positionals.length > 0) console.log(redactReport({ files: positionals.map((f) => [f, f]), runs }).text);
  if (values.store) console.log((await redactStoreReport({ store: values.store, runs })).text);
}
