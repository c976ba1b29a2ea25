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
  process.exitCode = await main(args);
}
