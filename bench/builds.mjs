/**
 * Earlier builds of pi-session, for the store-wide tables to be timed against in the same run: a
 * change that makes a store-wide command slower says so before it lands. Each is a pinned commit of
 * this repository, taken out with `git archive` into the benchmark's data directory and built there
 * once (its own node_modules where its lockfile differs from this checkout's, else this one's).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The builds compared against. "previous release": the last build that landed (its CI passed)
 * before the work being measured; move it forward when a build lands. "2026-12-04": the build issue
 * 79 measured the store-wide commands' regressions from (cold `ls` is held within 1.15 × of it).
 */
export const BUILDS = [
  { name: "previous release", commit: "5bdb9670863b6b2a5b0f416f066237dff342e06d" },
  { name: "2026-12-04", commit: "1770f4b21e53f82164bfff345cdc31fe1945cde4" },
];

/** The path of `bin/pi-session.js` of `commit` built under `dataDir/builds/`, or an error saying why there is none. */
export function builtAt(dataDir, commit) {
  const full = spawnSync("git", ["-C", ROOT, "rev-parse", "--verify", "--quiet", `${commit}^{commit}`], { encoding: "utf8" });
  if (full.status !== 0) return { error: `commit ${commit.slice(0, 12)} is not in this clone's history (a shallow clone?)` };
  const sha = full.stdout.trim();
  const dir = join(dataDir, "builds", sha.slice(0, 12));
  const bin = join(dir, "bin/pi-session.js");
  if (existsSync(join(dir, ".built"))) return { bin, sha };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    const tar = execFileSync("git", ["-C", ROOT, "archive", "--format=tar", sha], { maxBuffer: 1 << 30 });
    execFileSync("tar", ["-x", "-C", dir], { input: tar });
    const sameLock = readFileSync(join(dir, "package-lock.json"), "utf8") === readFileSync(join(ROOT, "package-lock.json"), "utf8");
    if (sameLock) symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    else execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir, stdio: "ignore" });
    // (the build script of that commit, whatever it holds; no prepare step ran)
    execFileSync("npm", ["run", "build"], { cwd: dir, stdio: "ignore" });
    execFileSync("sh", ["-c", ": > .built"], { cwd: dir });
    return { bin, sha };
  } catch (error) {
    return { error: `could not build ${sha.slice(0, 12)}: ${String(error.message).split("\n")[0]}` };
  }
}
