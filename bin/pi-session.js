#!/usr/bin/env node
// This file is read by whatever Node runs it, however old, so it uses nothing newer than what
// Node 14 parses and loads, and imports nothing until it knows the Node will do: an old Node is
// told so in one line, not with a syntax error from the bundle.

/** pi's own floor (its package's `engines`), and so this tool's: package.json says the same. */
const NEEDS = [22, 19, 0];

function oldNode(version) {
  const have = version.split(".").map(Number);
  for (let i = 0; i < NEEDS.length; i++) if ((have[i] || 0) !== NEEDS[i]) return (have[i] || 0) < NEEDS[i];
  return false;
}

if (oldNode(process.versions.node)) {
  process.stderr.write(
    `pi-session: needs Node >= ${NEEDS.join(".")} (the floor pi itself has); this is Node ${process.versions.node} (${process.execPath}). ` +
      "Install Node 22.19 or newer (24 is the current LTS: https://nodejs.org/, or your system's package manager, nvm, fnm or volta), then run it again.\n",
  );
  process.exit(2);
}

/**
 * Node 24's V8 makes code on its helper threads (Sparkplug's, and Maglev's code and deoptimisation
 * data; Node 22's does neither by default), and a helper that needs a garbage collection for it
 * waits for this thread to make one. Exiting joins the helpers without making it: the process then
 * hangs for good with its work done (seen in a benchmark run: the main thread in
 * NodePlatform::Shutdown, a helper in CollectionBarrier::AwaitCollectionBackground; Node's
 * issues 54918 and 64274). With these off, V8 makes its code on this thread and no helper waits
 * on it. Set before anything of the tool's is loaded; Node 22 is not told (a flag a V8 does not
 * know is an error line on stderr).
 */
if (Number(process.versions.node.split(".")[0]) >= 24) {
  const { setFlagsFromString } = process.getBuiltinModule("node:v8");
  setFlagsFromString("--no-concurrent-sparkplug --no-maglev-build-code-on-background --no-maglev-deopt-data-on-background");
}

// (built-ins as Node's own modules, not ES imports, whose facades read every export: BENCHMARKS.md,
// "built-ins on demand"; Node 22.3 and later have `getBuiltinModule`)
const { homedir } = process.getBuiltinModule("node:os");
const { join } = process.getBuiltinModule("node:path");

/**
 * V8's compiled code for the bundle is kept on disk between runs, beside the `ls` index
 * (BENCHMARKS.md, "the compile cache"). Nothing is written where the folder cannot be; a cache
 * that is damaged or from another build is only a slower start: Node checks each entry against
 * the source and its own version. `--no-cache` writes nothing to the cache folder, this included;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off, as for any Node program.
 */
function compileCacheDir() {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "pi-session", "compile");
}

const args = process.argv.slice(2);
const options = args.includes("--") ? args.slice(0, args.indexOf("--")) : args;
const nodeModule = process.getBuiltinModule("node:module");
if (!options.includes("--no-cache")) {
  try {
    nodeModule.enableCompileCache?.(compileCacheDir());
  } catch {
    // a home that cannot be found: no cache, the same run
  }
}

/**
 * The top-level help is rendered at build time (dist/help.txt for a terminal at least 100 columns
 * wide, dist/help-piped.txt for a pipe), so printing it needs no parser; everything else goes to `main`.
 */
async function prerenderedHelp(args) {
  if (args.length !== 1 || (args[0] !== "--help" && args[0] !== "-h") || (process.stdout.columns ?? 100) < 100) return undefined;
  const { readFileSync } = process.getBuiltinModule("node:fs");
  try {
    return readFileSync(new URL(process.stdout.isTTY ? "../dist/help.txt" : "../dist/help-piped.txt", import.meta.url), "utf8");
  } catch {
    return undefined; // not built with it: the parser renders it
  }
}

const help = await prerenderedHelp(args);
if (help !== undefined) {
  process.stdout.write(help);
} else {
  const { main } = await import("../dist/bundle/cli.js");
  const code = await main(args);
  // Done: exit now rather than let Node drain V8's pending tasks first (garbage collection it
  // scheduled while working: BENCHMARKS.md, "exiting at once"). Only with the output all written: stdout to
  // a file, a TTY or (on Linux) a pipe is written synchronously; anything queued drains first.
  if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) {
    // the compile cache is written as the process exits; an exit this early is one
    nodeModule.flushCompileCache?.();
    process.exit(code);
  }
  process.exitCode = code;
}
