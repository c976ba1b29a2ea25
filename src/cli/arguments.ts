/**
 * The arguments on their way through yargs: `-` (stdin) and what follows `--` cross the parser
 * marked, and are given back as they were.
 */

/** yargs turns a lone `-` (stdin) into "", so it crosses the parser under another name. */
const STDIN_ARG = "\u0000stdin";
/** An argument after `--`, marked so that yargs reads it as a positional whatever it starts with. */
const LITERAL_ARG = "\u0000arg:";

/**
 * The arguments as yargs is given them: `-` (stdin) marked, and `--` ending the options as in
 * every Unix tool: what follows it is positional (a file named `-odd.jsonl`, a grep pattern
 * starting with `-`), even where it looks like an option.
 */
export function forParser(argv: readonly string[]): string[] {
  const end = argv.indexOf("--");
  // (grep's -e PATTERN: the value is the pattern, whatever it starts with)
  const grep = argv.find((a) => !a.startsWith("-")) === "grep";
  const options = (end < 0 ? argv : argv.slice(0, end)).map((a, i, all) => (a === "-" ? STDIN_ARG : grep && i > 0 && (all[i - 1] === "-e" || all[i - 1] === "--regexp") ? `${LITERAL_ARG}${a}` : a));
  const positionals = end < 0 ? [] : argv.slice(end + 1).map((a) => (a === "-" ? STDIN_ARG : `${LITERAL_ARG}${a}`));
  return [...options, ...positionals];
}

/** The arguments before `--`: what the checks of options look at. */
export function optionArgs(argv: readonly string[]): string[] {
  const end = argv.indexOf("--");
  return end < 0 ? [...argv] : argv.slice(0, end);
}

/** An argument as it was given (`forParser` undone). */
function restored(v: unknown): unknown {
  if (v === STDIN_ARG) return "-";
  return typeof v === "string" && v.startsWith(LITERAL_ARG) ? v.slice(LITERAL_ARG.length) : v;
}

/** Options normalised once between yargs and the command: `-` and arguments after `--` restored. */
export function normalise(argv: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(argv)) {
    out[k] = Array.isArray(v) ? v.map(restored) : restored(v);
  }
  return out;
}
