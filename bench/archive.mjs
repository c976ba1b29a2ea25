/**
 * `archive` (issue 58's measure): the benchmark's store of real-shaped sessions (the one `usage`
 * and `grep` are timed on) archived whole (each session compressed, read back and checked by
 * SHA-256, recorded, then removed), in MB/s of sessions, beside `zstd -3` compressing the same
 * files in the same run (what a user would run instead; it neither checks nor removes). Both work
 * on fresh copies; the store itself is left as it is.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const fmt = (n, d = 0) => (n === undefined ? "-" : n.toFixed(d));
const OLD = new Date("2026-01-01T00:00:00Z");

function copyOf(store) {
  const dir = join(mkdtempSync(join(tmpdir(), "pi-session-bench-archive-")), "sessions");
  cpSync(store, dir, { recursive: true });
  let bytes = 0;
  const files = [];
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!f.isFile()) continue;
    const path = join(f.parentPath, f.name);
    // (as a store's old sessions are: archive leaves what was written in the last minutes)
    utimesSync(path, OLD, OLD);
    bytes += statSync(path).size;
    files.push(path);
  }
  return { dir, bytes, files };
}

export function archiveReport({ store, runs }) {
  let zstd = true;
  try {
    execFileSync("zstd", ["--version"], { stdio: "ignore" });
  } catch {
    zstd = false;
  }
  let ours;
  let theirs;
  let bytes = 0;
  let count = 0;
  let failures = 0;
  for (let round = 0; round < runs; round++) {
    const a = copyOf(store);
    bytes = a.bytes;
    count = a.files.length;
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [join(ROOT, "bin/pi-session.js"), "archive", a.dir, "--json"], { encoding: "utf8", maxBuffer: 1 << 28, env: { ...process.env, XDG_CACHE_HOME: join(dirname(a.dir), "cache") } });
    const ms = performance.now() - t0;
    const moved = r.status === 0 ? JSON.parse(r.stdout).summary.archived : 0;
    if (moved !== count) failures++;
    ours = ours === undefined ? ms : Math.min(ours, ms);
    rmSync(dirname(a.dir), { recursive: true, force: true });
    if (zstd) {
      const z = copyOf(store);
      const t1 = performance.now();
      spawnSync("zstd", ["-3", "-q", "-f", "--rm", ...z.files], { stdio: "ignore" });
      const zms = performance.now() - t1;
      theirs = theirs === undefined ? zms : Math.min(theirs, zms);
      rmSync(dirname(z.dir), { recursive: true, force: true });
    }
  }
  const mbs = (ms) => (ms === undefined ? undefined : bytes / 2 ** 20 / (ms / 1000));
  let text = `## archive, a store of ${count} sessions (${fmt(bytes / 2 ** 20)} MB), Node ${process.versions.node}\n\n| contender | time ms | MB/s | vs zstd -3 |\n| --- | ---: | ---: | ---: |\n`;
  if (theirs !== undefined) text += `| zstd -3 --rm (compresses and removes; no check, no manifest) | ${fmt(theirs)} | ${fmt(mbs(theirs))} | 1.00 |\n`;
  text += `| pi-session archive (compressed, read back and checked, recorded, removed) | ${fmt(ours)} | ${fmt(mbs(ours))} | ${theirs !== undefined ? (ours / theirs).toFixed(2) : "-"} |\n`;
  if (failures > 0) text += `\n(archive moved fewer sessions than the store holds in ${failures} round(s))\n`;
  return { text: text + "\n", failures };
}
