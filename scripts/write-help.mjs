/**
 * Build step: renders `pi-session --help` once with yargs and keeps it in dist/help.txt, so that
 * the top-level help (the start-up benchmark's command) is printed without loading the parser.
 */
import { writeFileSync } from "node:fs";
import { main } from "../dist/bundle/cli.js";

const chunks = [];
const log = console.log;
// yargs prints help through console.log
console.log = (...args) => chunks.push(args.join(" ") + "\n");
try {
  const sink = { write: (s, cb) => (chunks.push(String(s)), cb?.(), true), once() {}, columns: 100 };
  await main(["--help"], { stdout: sink, stderr: sink, env: {} });
} finally {
  console.log = log;
}
writeFileSync(new URL("../dist/help.txt", import.meta.url), chunks.join(""));
