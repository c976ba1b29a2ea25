/**
 * An OpenClaw store as its owners have them (cron runs are many and small): a few thousand
 * transcripts under `<root>/agents/<agent>/sessions/`, replaying the small real transcripts of
 * ../shared/openclaw-stores (each copy its own session: a new id, its times moved on), with a
 * `sessions.json` naming each (cron jobs with labels), some archived by a reset, some with a
 * checkpoint copy. On it, each a whole process:
 *
 * - `usage ROOT` cold (an empty cache) and warm against the Rust ccusage's `ccusage openclaw
 *   daily` (its native binary), with what each reports and why they differ;
 * - `ls ROOT` warm (median of 15) against Node's own start.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rng } from "./generate.mjs";
import { warmCache } from "./measure.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const STORES = join(ROOT, "../shared/openclaw-stores");
const require = createRequire(import.meta.url);

const uuid = (r) => "xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx".replace(/x/g, () => Math.floor(r() * 16).toString(16));

/** The store: `count` transcripts, each a small real one with a new id, its times `k` hours on. */
export function generateOpenclawStore({ dir, count, seed }) {
  const r = rng(seed);
  const sources = [];
  for (const store of existsSync(STORES) ? readdirSync(STORES) : []) {
    const sessions = join(STORES, store, "agents", "main", "sessions");
    if (!existsSync(sessions)) continue;
    for (const name of readdirSync(sessions)) {
      const path = join(sessions, name);
      if (name.endsWith(".json") || name.endsWith(".lock") || statSync(path).size > 64 * 1024) continue;
      sources.push(readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)));
    }
  }
  if (sources.length === 0) return false;
  const jobs = Array.from({ length: 12 }, (_, k) => ({ id: uuid(r), name: `job ${k + 1}` }));
  for (const agent of ["main", "ops"]) mkdirSync(join(dir, "agents", agent, "sessions"), { recursive: true });
  const index = { main: {}, ops: {} };
  for (let k = 0; k < count; k++) {
    const agent = k % 5 === 4 ? "ops" : "main";
    const id = uuid(r);
    const shift = k * 3_600_000;
    const job = jobs[k % jobs.length];
    const lines = sources[k % sources.length].map((e, i) => {
      const moved = typeof e.timestamp === "string" && !Number.isNaN(Date.parse(e.timestamp)) ? { ...e, timestamp: new Date(Date.parse(e.timestamp) + shift).toISOString() } : e;
      return i === 0 && e.type === "session" ? { ...moved, id } : moved;
    });
    const text = lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
    const sessions = join(dir, "agents", agent, "sessions");
    const archived = r() < 0.1;
    writeFileSync(join(sessions, archived ? `${id}.jsonl.reset.${new Date(1_770_000_000_000 + shift).toISOString().replace(/:/g, "-")}` : `${id}.jsonl`), text);
    if (!archived && r() < 0.03) writeFileSync(join(sessions, `${id}.checkpoint.${uuid(r)}.jsonl`), text);
    if (!archived) index[agent][`agent:${agent}:cron:${job.id}:run:${id}`] = { sessionId: id, updatedAt: Date.parse(lines.at(-1).timestamp ?? "2026-01-01"), label: `Cron: ${job.name}` };
  }
  for (const agent of ["main", "ops"]) writeFileSync(join(dir, "agents", agent, "sessions", "sessions.json"), JSON.stringify(index[agent]));
  return true;
}

function rustCcusage() {
  try {
    const launcher = require.resolve("ccusage/package.json");
    const native = join(dirname(createRequire(launcher).resolve(`@ccusage/ccusage-${process.platform}-${process.arch}/package.json`)), "bin", "ccusage");
    if (!existsSync(native)) return undefined;
    chmodSync(native, 0o755);
    return { native, version: JSON.parse(readFileSync(launcher, "utf8")).version };
  } catch {
    return undefined;
  }
}

function timed(command, args, env = {}) {
  const t0 = performance.now();
  const r = spawnSync(command, args, { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - t0;
  // (grep -c exits 1 when nothing matched: a result, not a failure)
  return r.status === 0 || (r.status === 1 && args.includes("-c")) ? { ms, stdout: r.stdout } : { ms, error: (r.stderr || r.stdout).trim().split("\n").slice(-1)[0] || `exit ${r.status}` };
}

function medianMs(command, args, env = {}) {
  const times = [];
  for (let i = 0; i < 15; i++) times.push(timed(command, args, env).ms);
  return times.sort((a, b) => a - b)[7];
}

const fmt = (n, d = 0) => (n === undefined ? "-" : n.toFixed(d));

export function openclawReport({ dataDir, sessions, runs }) {
  const root = join(dataDir, `openclaw-${sessions}`);
  if (!existsSync(root) && !generateOpenclawStore({ dir: root, count: sessions, seed: 11 })) {
    return { text: "## OpenClaw store\n\n(skipped: ../shared/openclaw-stores, whose transcripts the store replays, is not here)\n\n", failures: 0 };
  }
  const files = readdirSync(root, { recursive: true }).map(String).filter((f) => /\.jsonl($|\.)/.test(f)).map((f) => join(root, f));
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const rust = rustCcusage();
  const bin = join(ROOT, "bin/pi-session.js");
  const cache = mkdtempSync(join(tmpdir(), "pi-session-bench-openclaw-"));
  let peer;
  let cold;
  let warm;
  const best = (a, b) => (!a || a.error ? b : b.error ? a : b.ms < a.ms ? b : a);
  for (let round = 0; round < runs; round++) {
    warmCache(files);
    if (rust) peer = best(peer, timed(rust.native, ["openclaw", "daily", "--open-claw-path", root, "--offline", "--json"]));
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(cache);
    cold = best(cold, timed(process.execPath, [bin, "usage", root, "--json"], { XDG_CACHE_HOME: cache }));
    warm = best(warm, timed(process.execPath, [bin, "usage", root, "--json"], { XDG_CACHE_HOME: cache }));
  }
  // grep's floor: a literal that is nowhere, and a rare one, against rg (Debian's package, where installed)
  const hasRg = spawnSync("rg", ["--version"]).status === 0;
  // (the store replays seven small transcripts: a literal of one of them is in one transcript in seven)
  const searches = [["a literal that is nowhere", "zqxjkvbwpy-nowhere"], ["a literal in one transcript in seven", "GitHub Release"]].map(([what, needle]) => {
    let ours;
    let theirs;
    for (let round = 0; round < runs; round++) {
      ours = best(ours, timed(process.execPath, [bin, "grep", "-F", "-c", needle, root]));
      if (hasRg) theirs = best(theirs, timed("rg", ["-F", "-c", needle, root]));
    }
    return { what, ours, theirs };
  });
  timed(process.execPath, [bin, "ls", root, "--limit", "20"], { XDG_CACHE_HOME: cache });
  const lsWarm = medianMs(process.execPath, [bin, "ls", root, "--limit", "20"], { XDG_CACHE_HOME: cache });
  const node0 = medianMs(process.execPath, ["-e", "0"]);
  rmSync(cache, { recursive: true, force: true });
  const judge = (ok) => (sessions >= 2000 ? (ok ? "met" : "MISSED") : "(set for a few thousand sessions)");
  let failures = 0;
  let text = `## an OpenClaw store of ${files.length} transcripts (${fmt(bytes / 2 ** 20)} MB: small cron runs, 10 % archived, some checkpoints), best of ${runs}, Node ${process.versions.node}\n\n`;
  text += "| contender | time ms | target |\n| --- | ---: | --- |\n";
  if (peer) text += `| ccusage ${rust.version} openclaw daily (Rust, native) | ${peer.error ? `failed: ${peer.error}` : fmt(peer.ms)} | |\n`;
  for (const [name, m, target] of [
    ["pi-session usage (cold cache)", cold, peer && !peer.error ? `≤ 1.0 × Rust: ${fmt(cold.ms / peer.ms, 2)} × ${judge(cold.ms <= peer.ms)}` : ""],
    ["pi-session usage (warm cache)", warm, peer && !peer.error ? `≤ 0.2 × Rust: ${fmt(warm.ms / peer.ms, 2)} × ${judge(warm.ms <= 0.2 * peer.ms)}` : ""],
  ]) {
    if (m.error) failures++;
    text += `| ${name} | ${m.error ? `failed: ${m.error}` : fmt(m.ms)} | ${target} |\n`;
  }
  text += `| pi-session ls (warm cache), median of 15 | ${fmt(lsWarm)} | ≤ 2.5 × node -e 0 (${fmt(node0)} ms): ${fmt(lsWarm / node0, 2)} × ${judge(lsWarm <= 2.5 * node0)} |\n`;
  for (const { what, ours, theirs } of searches) {
    const found = (stdout) => (stdout ?? "").split("\n").filter(Boolean).length;
    text += `| pi-session grep -F -c, ${what} (${found(ours.stdout)} files) | ${fmt(ours.ms)} | ${theirs ? `rg -F -c ${fmt(theirs.ms)} ms (${found(theirs.stdout)} files): ${fmt(ours.ms / theirs.ms, 1)} × (≤ 10 ×) ${judge(ours.ms <= 10 * theirs.ms)}` : "(rg not installed: apt-get install ripgrep)"} |\n`;
  }
  if (!rust) text += "\n(the Rust ccusage is not installed: `npm ci` installs it, with its native package for this platform where it has one)\n";
  // what each reports: ccusage sums every file, so a checkpoint's entries count twice
  if (peer && !peer.error && !cold.error) {
    const theirs = JSON.parse(peer.stdout).totals?.totalCost;
    const ours = JSON.parse(cold.stdout).total.cost;
    const copies = files.filter((f) => f.includes(".checkpoint."));
    const copyCost = copies.reduce((n, f) => n + costOf(f), 0);
    text += `\nTotals: ours $${fmt(ours, 4)}; ccusage's $${fmt(theirs, 4)}; the ${copies.length} checkpoint copies hold $${fmt(copyCost, 4)} (counted again by ccusage: ours + copies = $${fmt(ours + copyCost, 4)}).\n`;
  }
  return { text: text + "\n", failures };
}

/** The cost an assistant message of `file` records, summed (read plainly). */
function costOf(file) {
  let n = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.includes('"assistant"')) continue;
    try {
      const e = JSON.parse(line);
      if (e.type === "message" && e.message?.role === "assistant") n += e.message.usage?.cost?.total ?? 0;
    } catch {
      // not a record
    }
  }
  return n;
}
