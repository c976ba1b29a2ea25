#!/usr/bin/env node
/**
 * `npm run bench`: generates seeded inputs and times, in one run and the same way (a fresh process
 * each, peak RSS from the kernel): the naive baseline (read, split, JSON.parse every line), pi
 * 1.6's own path (loadEntriesFromFile + buildSessionContext; SessionManager.listAll for stores) and
 * each pi-session command. Prints ratios against the baselines measured in this run.
 *
 *   npm run bench                      # 200 MB sessions of every shape, a 5,000-session store (ls, search)
 *   npm run bench -- --size 1024       # one size (MB); repeat --size for several
 *   npm run bench -- --shape corpus    # one shape (fat, corpus, heartbeat); repeatable
 *   npm run bench -- --quick           # small sizes, for CI: proves the benchmark runs
 *   npm run bench -- --store 0         # skip the store
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { generateLargeSession, generateReplayedSession, generateStore } from "./generate.mjs";
import { librariesReport } from "./libraries.mjs";
import { better, measureAll, RUN_LIMIT, runOnce, warmCache } from "./measure.mjs";
import { complexityReport } from "./complexity.mjs";
import { storeReport } from "./store.mjs";
import { BUILDS, builtAt } from "./builds.mjs";
import { databaseTranscriptReport, openclawReport } from "./openclaw.mjs";
import { diffReport } from "./diff.mjs";
import { tailReport } from "./tail.mjs";
import { archiveReport } from "./archive.mjs";
import { redactReport, redactStoreReport } from "./redact.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const USAGE = `usage: npm run bench -- [options]

  --size MB      a session size to generate and time (repeatable; default 200)
  --shape NAME   fat (1-5 KB lines and base64 images), corpus (entry sizes as in ../shared/corpus,
                 ~1.3 KB), heartbeat (~0.5 KB, frequent compactions), gateway (~0.5 KB, UUID ids,
                 an OpenClaw gateway's heartbeats; memory judged an entry) or replayed (a real
                 session from ../shared/corpus replayed, its tool call ids repeating); repeatable;
                 default all
  --store N      sessions in the store for ls (default 5000; 0 skips it)
  --usage-store N  sessions in the generated store ls, usage, grep and search are timed on, against
                 ccusage, ripgrep and the earlier builds (default 300 of about 1 MB each; quick 20;
                 0 skips it)
  --real-store MB  megabytes of the store of real sessions the same are timed on (../shared/corpus
                 and the shared OpenClaw stores copied with fresh ids; default 300; quick 8; 0 skips it)
  --no-builds    leave out the earlier builds the store-wide commands are timed against
                 (bench/builds.mjs; each built once into the data directory; quick leaves them out)
  --openclaw N   transcripts in the OpenClaw store usage and ls are timed on (default 3000; quick 100; 0 skips it)
  --complexity N the complexity table's N: each command at N and 4N entries of the stress shapes
                 (default 100000; 0 skips it)
  --runs N       rounds; each contender's fastest counts (default 2)
  --quick        small sizes and one round, for CI: proves the benchmark runs
  --data DIR     where generated inputs are kept (default bench-data/, reused across runs)
  --skip-pi      leave pi's own path out
  --skip-slim    leave out slim's sessions (mostly tool output behind compactions)
  --skip-redact  leave out redact (the sessions written redacted, the store checked against grep -F)
  --help         this text`;

let values;
try {
  ({ values } = parseArgs({
    options: {
      size: { type: "string", multiple: true },
      shape: { type: "string", multiple: true },
      store: { type: "string" },
      "usage-store": { type: "string" },
      "real-store": { type: "string" },
      "no-builds": { type: "boolean", default: false },
      openclaw: { type: "string" },
      complexity: { type: "string" },
      quick: { type: "boolean", default: false },
      runs: { type: "string" },
      data: { type: "string" },
      "skip-pi": { type: "boolean", default: false },
      "skip-slim": { type: "boolean", default: false },
      "skip-redact": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  }));
} catch (error) {
  console.error(`bench: ${error.message}\n\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const quick = values.quick;
const sizes = (values.size ?? (quick ? ["4"] : ["200"])).map(Number);
// "replayed": pi-mono's large-session fixture from ../shared/corpus replayed with fresh entry ids
// (tool call ids repeat), as issue 24 found `check` slow on it; left out where the corpus is not.
const REPLAY_SOURCE = join(ROOT, "../shared/corpus/pi-mono__large-session.v1.jsonl");
// "gateway": an OpenClaw gateway's heartbeat transcript with UUID ids, the shape memory is judged on
// (issue 60): each command's peak RSS is also measured on the same shape a quarter the size, and
// the growth an entry between them printed beside the budget.
const SHAPES = ["fat", "corpus", "heartbeat", "gateway", ...(existsSync(REPLAY_SOURCE) ? ["replayed"] : [])];
const MEMORY_SHAPE = "gateway";
/** Bytes an entry each command's peak RSS may grow by (docs/reference.md, "Large sessions"). */
const ENTRY_BUDGET = 64;
const shapes = values.shape ?? (quick ? ["corpus"] : SHAPES);
for (const s of shapes) {
  if (!SHAPES.includes(s)) {
    console.error(`bench: unknown shape ${s}; the shapes are ${SHAPES.join(", ")}\n\n${USAGE}`);
    process.exit(2);
  }
}
const storeCount = Number(values.store ?? (quick ? 200 : 5000));
const usageStore = Number(values["usage-store"] ?? (quick ? 20 : 300));
const realStore = Number(values["real-store"] ?? (quick ? 8 : 300));
const openclawStore = Number(values.openclaw ?? (quick ? 100 : 3000));
const complexityEntries = Number(values.complexity ?? (quick ? 20_000 : 100_000));
const runs = Number(values.runs ?? (quick ? 1 : 2));
const dataDir = values.data ?? join(ROOT, "bench-data");
mkdirSync(dataDir, { recursive: true });

if (!existsSync(join(ROOT, "dist/cli.js"))) execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });

const fmt = (n, d = 0) => (n === undefined ? "-" : n.toFixed(d));
const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : "-");

const COMMANDS = [
  { name: "tree", args: (f) => ["tree", f], shape: true },
  { name: "tree --jsonl", args: (f) => ["tree", f, "--jsonl"], shape: true, record: true },
  { name: "path", args: (f) => ["path", f], shape: true },
  { name: "path --leaves", args: (f) => ["path", f, "--leaves"], shape: true },
  { name: "ls (one file)", args: (f) => ["ls", dirname(f), "--no-cache"], shape: true },
  { name: "context --json", args: (f) => ["context", f, "--json"], shape: false },
  { name: "show", args: (f) => ["show", f], shape: false },
  { name: "check", args: (f) => ["check", f], shape: false },
  { name: "export (md)", args: (f) => ["export", f], shape: false },
  { name: "repair --check", args: (f) => ["repair", f, "--check"], shape: false },
  { name: "migrate --check", args: (f) => ["migrate", f, "--check"], shape: false },
];

console.log(`# pi-session benchmark\n`);
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}; best of ${runs} run(s); wall time of a fresh process each\n`);

const MB = 2 ** 20;
let failures = 0;
/**
 * The session of `shape`, `layout` and `size` MB (generated once, kept in the data directory), and
 * its entry count.
 */
function sessionFile(shapeName, branched, size) {
  const dir = join(dataDir, `${shapeName}-${branched ? "branched" : "linear"}-${size}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `session.jsonl`);
  const meta = join(dir, "entries.json");
  if (!existsSync(file) || !existsSync(meta)) {
    const seed = Math.round(size * 2) + (branched ? 1 : 0);
    const made = shapeName === "replayed" ? generateReplayedSession({ source: REPLAY_SOURCE, path: file, sizeMB: size, branched, seed }) : generateLargeSession({ path: file, sizeMB: size, seed, branched, shape: shapeName });
    writeFileSync(meta, JSON.stringify({ entries: made.entries }));
  }
  return { file, entries: JSON.parse(readFileSync(meta, "utf8")).entries };
}

/**
 * What the index costs an entry, two ways. In memory: the heap and array buffers after a full GC
 * with the session open as `path --leaves` has it, less the same with a one-entry session open
 * (bench/child.mjs, task "index"): exact, and what the index alone holds. As RSS: the peak RSS of
 * `path --leaves` on this session less that on a session of the same shape a quarter its size,
 * divided by the entries between them (fixed costs cancel out); reported
 * only where those entries' index is well above the few MB that RSS varies between runs.
 */
function indexCost(shapeName, branched, size, big, bigRss) {
  const tiny = join(dataDir, "index-base.jsonl");
  if (!existsSync(tiny)) writeFileSync(tiny, `${JSON.stringify({ type: "session", version: 3, id: "base", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" })}\n${JSON.stringify({ type: "message", id: "00000001", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } })}\n`);
  const r = spawnSync(process.execPath, ["--expose-gc", join(ROOT, "bench/child.mjs"), "index", big.file, tiny], { encoding: "utf8" });
  const inMemory = r.status === 0 ? JSON.parse(r.stdout.trim().split("\n").pop()).result.bytesPerEntry : undefined;
  const between = big.entries - Math.round(big.entries / 4);
  if (between * 40 < 16 * MB) return { inMemory };
  const small = sessionFile(shapeName, branched, size / 4);
  const rss = measureAll([{ task: "cli", args: ["path", small.file, "--leaves"], files: [small.file] }], 2)[0].rssMB;
  return { inMemory, rss: ((bigRss - rss) * MB) / (big.entries - small.entries), smallRss: rss };
}

for (const size of sizes.filter((s) => s > 0)) {
  for (const shapeName of shapes) {
    for (const branched of [false, true]) {
      const layout = branched ? "branched" : "linear";
      const { file, entries } = sessionFile(shapeName, branched, size);
      const bytes = statSync(file).size;
      const files = [file];
      // pi reads a session as one string: past V8's ~512 MiB limit it cannot (and 4 GB would not
      // fit its 2.4 × memory either); it is left out there, as --skip-pi leaves it out everywhere.
      const piCan = !values["skip-pi"] && bytes < 512 * MB;
      const results = measureAll([
        { task: "naive", args: [file], files },
        ...(piCan ? [{ task: "pi", args: [file], files }] : []),
        ...COMMANDS.map((c) => ({ task: "cli", args: c.args(file), files })),
        { task: "check-rules", args: [file, "with"], files },
        { task: "check-rules", args: [file, "without"], files },
      ], runs);
      const naive = results.shift();
      const pi = piCan ? results.shift() : { error: values["skip-pi"] ? "skipped" : "cannot read a file past 512 MiB (one string)" };
      const [withRules, withoutRules] = results.splice(COMMANDS.length, 2);
      // (the memory shape: each command again on a session of the shape a quarter the size)
      const quarter = shapeName === MEMORY_SHAPE ? sessionFile(shapeName, branched, size / 4) : undefined;
      const small = quarter ? measureAll(COMMANDS.map((c) => ({ task: "cli", args: c.args(quarter.file), files: [quarter.file] })), runs) : undefined;
      const huge = bytes >= 3 * 1024 * MB;
      const oneGB = bytes >= 900 * MB && bytes < 1536 * MB;
      const judged = bytes >= 150 * MB && bytes < 300 * MB;
      console.log(`## ${shapeName}, ${layout}, ${fmt(bytes / MB)} MB, ${entries.toLocaleString("en-US")} entries (${fmt(bytes / entries)} bytes each), Node ${process.versions.node}\n`);
      const growth = small ? ` | RSS growth an entry (from ${fmt(statSync(quarter.file).size / MB)} MB, ${quarter.entries.toLocaleString("en-US")} entries)` : "";
      console.log(`| contender | time ms | vs naive | vs pi | peak RSS MB${growth} | target |`);
      console.log(`| --- | ---: | ---: | ---: | ---:${small ? " | ---:" : ""} | --- |`);
      console.log(`| naive: read, split, JSON.parse | ${naive.error ? `failed: ${naive.error}` : fmt(naive.ms)} | 1.00 | ${ratio(naive.ms, pi.ms)} | ${fmt(naive.rssMB)}${small ? " | " : ""} | |`);
      console.log(`| pi: loadEntriesFromFile + buildSessionContext | ${pi.error ? pi.error : fmt(pi.ms)} | ${ratio(pi.ms, naive.ms)} | 1.00 | ${fmt(pi.rssMB)}${small ? " | " : ""} | |`);
      for (const [k, c] of COMMANDS.entries()) {
        const m = results[k];
        if (m.error) {
          console.log(`| pi-session ${c.name} | error: ${m.error} | | | | |`);
          failures++;
          continue;
        }
        // The targets (BENCHMARKS.md, "Targets"), judged in this run against baselines measured here:
        // at 200 MB, tree-shape commands ≤ 0.8 × naive, full-read ones ≤ 1.0 × naive and ≤ 0.5 × pi;
        // at 1 GB, peak RSS ≤ 256 MB; at 4 GB, completing under 1 GB. Other sizes are for the record.
        const vsNaive = naive.ms ? m.ms / naive.ms : undefined;
        const checks = [];
        if (judged && !c.record) {
          checks.push(c.shape ? ["≤ 0.8 × naive", vsNaive <= 0.8] : ["≤ 1.0 × naive", vsNaive <= 1.0]);
          if (!c.shape && pi.ms) checks.push(["≤ 0.5 × pi", m.ms <= 0.5 * pi.ms]);
        }
        if (oneGB) checks.push(["RSS ≤ 256", m.rssMB <= 256]);
        if (huge) checks.push(["completes, RSS < 1 GB", m.rssMB < 1024]);
        // (an entry's growth: judged where the entries between the two sessions outweigh the RSS noise, from a gigabyte)
        const perEntry = small && !small[k].error ? ((m.rssMB - small[k].rssMB) * MB) / (entries - quarter.entries) : undefined;
        if (perEntry !== undefined && oneGB) checks.push([`≤ ${ENTRY_BUDGET} bytes an entry`, perEntry <= ENTRY_BUDGET]);
        const target = checks.length === 0 ? "for the record" : checks.map(([t, ok]) => `${t}: ${ok ? "met" : "MISSED"}`).join("; ");
        console.log(`| pi-session ${c.name} | ${fmt(m.ms)} | ${vsNaive === undefined ? "-" : vsNaive.toFixed(2)} | ${ratio(m.ms, pi.ms)} | ${fmt(m.rssMB)}${small ? ` | ${fmt(perEntry)}` : ""} | ${target} |`);
      }
      const leaves = results[COMMANDS.findIndex((c) => c.name === "path --leaves")];
      if (!leaves.error) {
        const cost = indexCost(shapeName, branched, size, { file, entries }, leaves.rssMB);
        const judge = (n) => (n <= 64 ? "met" : "MISSED");
        // (a few thousand entries are outweighed by the tables' first allocation: judged from 100,000)
        console.log(`\nindex: ${fmt(cost.inMemory)} bytes an entry in memory (heap and arrays after GC, path --leaves' session) — target ≤ 64: ${entries >= 100_000 ? judge(cost.inMemory) : "for the record (under 100,000 entries)"}`);
        if (cost.rss !== undefined) console.log(`index as RSS: ${fmt(cost.rss)} bytes an entry (path --leaves peaks at ${fmt(leaves.rssMB)} MB here and ${fmt(cost.smallRss)} MB on a session of this shape a quarter the size) — target ≤ 64: ${judge(cost.rss)}`);
        else console.log(`index as RSS: not measured (the index of the ${(entries - Math.round(entries / 4)).toLocaleString("en-US")} entries a quarter-size session lacks is within the RSS noise between runs)`);
      }
      // The conversation rules (SPEC §8: they add at most 10 % to `check`), judged at 200 MB.
      if (withRules.error || withoutRules.error) {
        console.log(`\nconversation rules: error: ${withRules.error ?? withoutRules.error}`);
        failures++;
      } else {
        const cost = withRules.ms / withoutRules.ms;
        console.log(`\nconversation rules: check's read of the session ${cost.toFixed(2)} × the same without them (${fmt(withRules.ms)} against ${fmt(withoutRules.ms)} ms, a fresh process each: no message handed on, no pairing walk) — target ≤ 1.10: ${judged ? (cost <= 1.1 ? "met" : "MISSED") : "for the record (judged at 200 MB)"}`);
      }
      console.log("");
    }
  }
}

if (complexityEntries > 0) {
  const { text, failures: superlinear } = complexityReport({ dataDir, entries: complexityEntries, runs: quick ? 1 : Math.max(runs, 2) });
  console.log(text);
  failures += superlinear;
}

// slim: on sessions that are mostly tool output behind compactions (what it is for), written to
// --out (the bench data stays as it is). Target (issue 14): within 1.5 × naive at 200 MB; the
// peak RSS bound of every command at 1 GB.
if (!values["skip-slim"]) {
  for (const size of sizes.filter((s) => s > 0)) {
    const dir = join(dataDir, `bloated-linear-${size}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "session.jsonl");
    const meta = join(dir, "entries.json");
    if (!existsSync(file) || !existsSync(meta)) {
      const made = generateLargeSession({ path: file, sizeMB: size, seed: Math.round(size * 2) + 5, shape: "bloated" });
      writeFileSync(meta, JSON.stringify({ entries: made.entries }));
    }
    const bytes = statSync(file).size;
    const out = join(mkdtempSync(join(tmpdir(), "pi-session-bench-slim-")), "slimmed.jsonl");
    const [naive, slim, dry] = measureAll([
      { task: "naive", args: [file], files: [file] },
      { task: "cli", args: ["slim", file, "--out", out, "--force"], files: [file] },
      { task: "cli", args: ["slim", file, "--dry-run"], files: [file] },
    ], runs);
    const after = existsSync(out) ? statSync(out).size : undefined;
    rmSync(dirname(out), { recursive: true, force: true });
    const judged = bytes >= 150 * MB && bytes < 300 * MB;
    const oneGB = bytes >= 900 * MB && bytes < 1536 * MB;
    console.log(`## slim: mostly tool output behind compactions, ${fmt(bytes / MB)} MB -> ${after === undefined ? "-" : fmt(after / MB, 1)} MB, Node ${process.versions.node}\n`);
    console.log(`| contender | time ms | vs naive | peak RSS MB | target |`);
    console.log(`| --- | ---: | ---: | ---: | --- |`);
    console.log(`| naive: read, split, JSON.parse | ${naive.error ? `failed: ${naive.error}` : fmt(naive.ms)} | 1.00 | ${fmt(naive.rssMB)} | |`);
    for (const [name, m] of [["slim --out (writes the file)", slim], ["slim --dry-run", dry]]) {
      if (m.error) {
        console.log(`| pi-session ${name} | error: ${m.error} | | | |`);
        failures++;
        continue;
      }
      const checks = [];
      if (judged && naive.ms) checks.push(["≤ 1.5 × naive", m.ms <= 1.5 * naive.ms]);
      if (oneGB) checks.push(["RSS ≤ 256", m.rssMB <= 256]);
      const target = checks.length === 0 ? "for the record" : checks.map(([t, ok]) => `${t}: ${ok ? "met" : "MISSED"}`).join("; ");
      console.log(`| pi-session ${name} | ${fmt(m.ms)} | ${ratio(m.ms, naive.ms)} | ${fmt(m.rssMB)} | ${target} |`);
    }
    console.log("");
  }
}

// redact: each shape's linear session written redacted and checked, against naive parse (issue 78:
// within 4 × naive and 256 MB at 200 MB).
if (!values["skip-redact"]) {
  for (const size of sizes.filter((s) => s > 0)) {
    const { text, failures: f } = redactReport({ files: shapes.map((s) => [`${s}, linear`, sessionFile(s, false, size).file]), runs });
    console.log(text);
    failures += f;
  }
}

// diff: two leaves of one branched session, and two sessions, against context of one leaf.
for (const size of sizes.filter((s) => s > 0)) {
  const { file } = sessionFile(shapes.includes("corpus") ? "corpus" : shapes[0], true, size);
  const { text, failures: f } = diffReport({ file, runs, label: `${shapes.includes("corpus") ? "corpus" : shapes[0]}, branched, ${fmt(statSync(file).size / MB)} MB` });
  console.log(text);
  failures += f;
}

// The same session as one transcript in OpenClaw's database, against the file.
if (openclawStore > 0) {
  for (const size of sizes.filter((s) => s > 0)) {
    const shape = shapes.includes("corpus") ? "corpus" : shapes[0];
    const { file } = sessionFile(shape, true, size);
    const { text, failures: f } = databaseTranscriptReport({ file, runs, label: `${shape}, branched, ${fmt(statSync(file).size / MB)} MB` });
    console.log(text);
    failures += f;
  }
}

// Start-up: whole processes, median of 15.
function median(cmd, args, env = {}) {
  const times = [];
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    spawnSync(cmd, args, { stdio: "ignore", env: { ...process.env, ...env }, ...RUN_LIMIT });
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[7];
}
if (storeCount > 0) {
  // pi lists every project folder of its agent directory's `sessions`.
  const agentDir = join(dataDir, `store-${storeCount}`);
  const store = join(agentDir, "sessions");
  if (!existsSync(store)) generateStore({ dir: store, count: storeCount, seed: 9 });
  const cache = mkdtempSync(join(tmpdir(), "pi-session-bench-cache-"));
  const env = { XDG_CACHE_HOME: cache };
  // In rounds, as for sessions: pi, then ours on an empty cache (which fills it), then ours warm.
  let pi;
  let cold;
  let warm;
  const sessions = readdirSync(store, { recursive: true }).filter((f) => String(f).endsWith(".jsonl")).map((f) => join(store, String(f)));
  for (let round = 0; round < runs; round++) {
    pi = better(pi, runOnce("pi-list", [], { PI_CODING_AGENT_DIR: agentDir }, sessions));
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(cache);
    cold = better(cold, runOnce("cli", ["ls", store, "--limit", "20"], env, sessions));
    warm = better(warm, runOnce("cli", ["ls", store, "--limit", "20"], env, sessions));
  }
  console.log(`## ls over a store of ${storeCount} sessions, Node ${process.versions.node}\n`);
  console.log(`| contender | time ms | vs pi | peak RSS MB | target |`);
  console.log(`| --- | ---: | ---: | ---: | --- |`);
  console.log(`| pi: SessionManager.listAll | ${fmt(pi.ms)} | 1.00 | ${fmt(pi.rssMB)} | |`);
  // The targets are set for 5,000 sessions; a smaller store (--quick) is timed for the record.
  const judge = (ok) => (storeCount >= 5000 ? `: ${ok ? "met" : "MISSED"}` : " (set for 5,000 sessions)");
  // warm, as a user runs it: the whole command (bin/pi-session.js), median of 15, beside Node's own start
  warmCache(sessions);
  const warmBin = median(process.execPath, [join(ROOT, "bin/pi-session.js"), "ls", store, "--limit", "20"], env);
  const node0 = median(process.execPath, ["-e", "0"]);
  console.log(`| pi-session ls (cold cache) | ${fmt(cold.ms)} | ${ratio(cold.ms, pi.ms)} | ${fmt(cold.rssMB)} | ≥ 5× faster than pi (${fmt(pi.ms / cold.ms, 2)} ×)${judge(pi.ms / cold.ms >= 5)} |`);
  console.log(`| pi-session ls (warm cache) | ${fmt(warm.ms)} | ${ratio(warm.ms, pi.ms)} | ${fmt(warm.rssMB)} | |`);
  console.log(`| bin/pi-session.js ls (warm cache), median of 15 | ${fmt(warmBin)} | | | ≤ 2.5 × node -e 0 (${fmt(node0)} ms, median of 15: ${ratio(warmBin, node0)} ×)${judge(warmBin <= 2.5 * node0)} |`);
  // search over the same store: its index built once (timed for the record), then, nothing
  // changed, as a user runs it (the whole command, median of 15) beside Node's own start
  const built = runOnce("cli", ["search", "test", store, "--limit", "20"], env, sessions);
  const warmSearch = median(process.execPath, [join(ROOT, "bin/pi-session.js"), "search", "test", store, "--limit", "20"], env);
  console.log(`| pi-session search (its index built) | ${built.error ? `failed: ${built.error}` : fmt(built.ms)} | | ${fmt(built.rssMB)} | |`);
  console.log(`| bin/pi-session.js search, nothing changed, median of 15 | ${fmt(warmSearch)} | | | ≤ 3 × node -e 0 (${ratio(warmSearch, node0)} ×)${judge(warmSearch <= 3 * node0)} |`);
  if (built.error) failures++;
  rmSync(cache, { recursive: true, force: true });
  console.log("");
}

if (usageStore > 0 || realStore > 0) {
  // the earlier builds the store-wide commands are held against (bench/builds.mjs), built once
  const builds = quick || values["no-builds"] ? [] : BUILDS.map((b) => ({ ...b, ...builtAt(dataDir, b.commit) }));
  const { text, failures: f } = storeReport({ dataDir, sessions: usageStore, sizeMB: usageStore, realMB: realStore, runs, builds });
  console.log(text);
  failures += f;
}
if (usageStore > 0) {
  // redact --check: the same store, against grep -F of the rules' anchors (issue 78: within 2 ×)
  if (!values["skip-redact"]) {
    const gate = await redactStoreReport({ store: join(dataDir, `store-usage-${usageStore}-${usageStore}`, "sessions"), runs });
    console.log(gate.text);
    failures += gate.failures;
  }
  // archive: the same store, each session compressed, checked and removed, against zstd -3
  const archived = archiveReport({ store: join(dataDir, `store-usage-${usageStore}-${usageStore}`, "sessions"), runs });
  console.log(archived.text);
  failures += archived.failures;
}

if (openclawStore > 0) {
  const { text, failures: f } = openclawReport({ dataDir, sessions: openclawStore, runs });
  console.log(text);
  failures += f;
}

// tail -f: idle, and following a writer of 100 entries a second, beside GNU tail
{
  const { text, failures: f } = await tailReport({ quick });
  console.log(text);
  failures += f;
}

// Named libraries not used as they are (cli-table3, ndjson), against what is used instead.
console.log(await librariesReport({ quick }));

const node0 = median(process.execPath, ["-e", "0"]);
const help = median(process.execPath, [join(ROOT, "bin/pi-session.js"), "--help"]);
console.log(`## start-up, Node ${process.versions.node}\n`);
console.log(`| command | median ms | vs node -e 0 | target |`);
console.log(`| --- | ---: | ---: | --- |`);
console.log(`| node -e 0 | ${fmt(node0)} | 1.00 | |`);
console.log(`| pi-session --help | ${fmt(help)} | ${ratio(help, node0)} | < 2×: ${help < 2 * node0 ? "met" : "MISSED"} |`);

if (failures > 0) {
  console.error(`${failures} command(s) failed`);
  process.exitCode = 1;
}
