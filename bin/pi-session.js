#!/usr/bin/env node
import { readFileSync } from "node:fs";

/**
 * The top-level help is rendered at build time (dist/help.txt) for a pipe or a terminal at least
 * 100 columns wide, so printing it needs no parser; everything else goes to `main`.
 */
function prerenderedHelp(args) {
  if (args.length !== 1 || (args[0] !== "--help" && args[0] !== "-h") || (process.stdout.columns ?? 100) < 100) return undefined;
  try {
    return readFileSync(new URL("../dist/help.txt", import.meta.url), "utf8");
  } catch {
    return undefined; // not built with it: the parser renders it
  }
}

const args = process.argv.slice(2);
const help = prerenderedHelp(args);
if (help !== undefined) {
  process.stdout.write(help);
} else {
  const { main } = await import("../dist/bundle/cli.js");
  const code = await main(args);
  // Done: exit now rather than let Node drain V8's pending tasks first (garbage collection it
  // scheduled while working: BENCHMARKS.md, "exiting at once"). Only with the output all written: stdout to
  // a file, a TTY or (on Linux) a pipe is written synchronously; anything queued drains first.
  if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit(code);
  process.exitCode = code;
}
