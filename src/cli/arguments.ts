/**
 * The arguments on their way through yargs: `-` (stdin) and what follows `--` cross the parser
 * marked, and are given back as they were.
 */

/** yargs turns a lone `-` (stdin) into "", so it crosses the parser under another name. */
const STDIN_ARG = "\u0000stdin";
/** An argument after `--`, marked so that yargs reads it as a positional whatever it starts with. */
const LITERAL_ARG = "\u0000arg:";

/**
 * Every option that takes a value, and what it takes as help names it (`--cwd PATH`): one word a
 * name, the same in every command (a test holds it to the commands' options).
 */
export const VALUE_OPTIONS: Readonly<Record<string, string>> = {
  agent: "NAME",
  "backup-dir": "DIR",
  cwd: "PATH",
  depth: "N",
  kind: "KIND",
  "larger-than": "SIZE",
  leaf: "ID",
  limit: "N",
  "max-count": "N",
  lines: "N",
  "min-size": "SIZE",
  "older-than": "AGE",
  out: "PATH",
  prices: "FILE",
  regexp: "PATTERN",
  role: "ROLE",
  secret: "VALUE",
  deny: "REGEX",
  to: "DIR",
  since: "DATE",
  until: "DATE",
  timezone: "ZONE",
  tool: "NAME",
  "session-dir": "DIR",
};

/** The one-letter names of options that take a value (a test holds them to the commands' aliases). */
export const SHORT_VALUE_OPTIONS: Readonly<Record<string, string>> = { n: "lines", m: "max-count", o: "out", e: "regexp", z: "timezone" };

/** A value that starts with `-` and a digit (`-1d`, `-5`): yargs would read `-1d` as the flags `-1` and `-d`. */
const DASH_DIGIT = /^-\d/;

/**
 * The arguments as yargs is given them: `-` (stdin) marked, and `--` ending the options as in
 * every Unix tool: what follows it is positional (a file named `-odd.jsonl`, a grep pattern
 * starting with `-`), even where it looks like an option. A value that starts with `-` and a
 * digit, after an option that takes one (`--older-than -1d`), is that option's, so that the
 * option's own check says what is wrong with it.
 */
export function forParser(argv: readonly string[]): string[] {
  const end = argv.indexOf("--");
  // (grep's -e PATTERN: the value is the pattern, whatever it starts with)
  const grep = argv.find((a) => !a.startsWith("-")) === "grep";
  const given = end < 0 ? argv : argv.slice(0, end);
  const options: string[] = [];
  for (let i = 0; i < given.length; i++) {
    const a = given[i]!;
    const next = given[i + 1];
    const long = a.startsWith("--") ? a.slice(2) : a.length === 2 && a[0] === "-" ? SHORT_VALUE_OPTIONS[a[1]!] : undefined;
    if (grep && i > 0 && (given[i - 1] === "-e" || given[i - 1] === "--regexp")) options.push(`${LITERAL_ARG}${a}`);
    else if (a === "-") options.push(STDIN_ARG);
    else if (long !== undefined && VALUE_OPTIONS[long] !== undefined && next !== undefined && DASH_DIGIT.test(next) && !(grep && long === "regexp")) {
      options.push(`--${long}=${next}`);
      i++;
    } else options.push(a);
  }
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
