/**
 * Build step: renders `pi-session --help` once with yargs and keeps it in dist/help.txt (a
 * terminal's, 100 columns) and dist/help-piped.txt (a pipe's, unwrapped), so that the top-level
 * help (the start-up benchmark's command) is printed without loading the parser.
 */
import { writeFileSync } from "node:fs";
import { main } from "../dist/bundle/cli.js";

/** The help as `main` prints it to a terminal of 100 columns, or (`tty` false) to a pipe, unwrapped. */
async function render(tty) {
  const chunks = [];
  const log = console.log;
  // yargs prints help through console.log
  console.log = (...args) => chunks.push(args.join(" ") + "\n");
  try {
    const sink = { write: (s, cb) => (chunks.push(String(s)), cb?.(), true), once() {}, columns: 100, ...(tty ? { isTTY: true } : {}) };
    await main(["--help"], { stdout: sink, stderr: sink, env: {} });
  } finally {
    console.log = log;
  }
  return chunks.join("");
}

writeFileSync(new URL("../dist/help.txt", import.meta.url), await render(true));
writeFileSync(new URL("../dist/help-piped.txt", import.meta.url), await render(false));
