import { CliError } from "../errors.js";
import { VALUE_OPTIONS } from "./arguments.js";
import { COMMAND_NAMES, COMMANDS, name, type CommandSpec } from "./commands.js";

/** What was wrong with a command line, said as a one-line usage error. */

/** How many single-character edits turn `a` into `b` (for "did you mean"). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** yargs' parse errors, reworded to say what was wrong, what was expected and an example. */
export function usageMessage(msg: string, argv: readonly string[]): string {
  const command = argv.find((a) => !a.startsWith("-"));
  const known = command !== undefined && COMMAND_NAMES.includes(command);
  const unknown = /^Unknown arguments?: (.*)$/.exec(msg);
  if (unknown && !known && command !== undefined) {
    const near = COMMAND_NAMES.find((name) => editDistance(name, command) <= (name.length > 3 ? 2 : 1));
    return `unknown command \`${command}\`${near ? ` (did you mean ${near}?)` : ""}; the commands are ${COMMAND_NAMES.join(", ")} (see pi-session --help)`;
  }
  const invalid = /^Invalid values:\s*Argument: ([\w-]+), Given: "([^"]*)", Choices: (.*)$/s.exec(msg);
  if (invalid) {
    const choices = invalid[3]!.split(",").map((c) => c.trim().replace(/^"|"$/g, ""));
    return `--${invalid[1]} is one of ${choices.join(", ")}, not \`${invalid[2]}\`; see pi-session ${known ? `${command} ` : ""}--help`;
  }
  if (unknown) {
    const names = unknown[1]!.split(", ").map((n) => (argv.some((a) => a === `--${n}` || a.startsWith(`--${n}=`)) ? `option --${n}` : `argument \`${n}\``));
    return `unexpected ${names.join(", ")} for \`${command}\`; see pi-session ${command} --help`;
  }
  if (/^Not enough non-option arguments/.test(msg) && known) {
    const spec = COMMANDS.find((c) => c.command.split(" ")[0] === command);
    if (spec?.needs) return `\`${command}\` needs ${spec.needs}`;
    return `\`${command}\` needs ${spec?.command.split(" ").filter((w) => w.startsWith("<")).join(" ").toUpperCase().replace(/[<>]/g, "").replace("..", "...")} (a path, - for stdin, or a session id); e.g. pi-session ${command} session.jsonl`;
  }
  return `${msg}; see pi-session ${known ? `${command} ` : ""}--help`;
}

/** Output options that do not go together, or not with this command: a usage error naming them. */
export function checkOutputOptions(spec: CommandSpec, argv: Record<string, unknown>): void {
  if (argv.json === true && argv.jsonl === true) throw new CliError("--json and --jsonl conflict: --json prints one JSON document, --jsonl one JSON value a line; give one");
  if (argv.jsonl === true && !spec.jsonl) {
    throw new CliError(`--jsonl is for the commands whose output is a list (${COMMANDS.filter((c) => c.jsonl).map(name).join(", ")}); \`${name(spec)}\` prints one document: use --json`);
  }
  if (argv.literal === true && argv.format === "json") throw new CliError("--literal changes how Markdown and HTML show message text; JSON holds the text as it is: drop --literal, or give --format md or html");
  if (argv.format === "csv" && (argv.json === true || argv.jsonl === true)) throw new CliError(`--format csv and --${argv.json === true ? "json" : "jsonl"} conflict: give one`);
  if (argv.format !== "github") return;
  if (argv.json === true || argv.jsonl === true) throw new CliError(`--format github and --${argv.json === true ? "json" : "jsonl"} conflict: give one`);
  if (spec.annotates === "with --check" && argv.check !== true) throw new CliError(`--format github goes with --check for \`${name(spec)}\` (it annotates what is left to do and writes nothing); e.g. pi-session ${name(spec)} sessions/ --check --format github`);
}

/**
 * `--format github` given to a command that reports no findings: yargs would call the option
 * unknown (or an invalid format), so it is caught first and named.
 */
export function checkGithubFormat(argv: readonly string[]): void {
  const at = argv.findIndex((a, i) => a === "--format=github" || a === "-f=github" || ((a === "--format" || a === "-f") && argv[i + 1] === "github"));
  const command = argv.find((a) => !a.startsWith("-"));
  const spec = COMMANDS.find((c) => name(c) === command);
  if (at < 0 || !spec || spec.annotates) return;
  const annotating = COMMANDS.filter((c) => c.annotates).map((c) => (c.annotates === "always" ? name(c) : `${name(c)} --check`));
  throw new CliError(`--format github is for the commands that report findings (${annotating.join(", ")}); \`${name(spec)}\` has none to annotate`);
}

/** What yargs was told of a command's options (its `getOptions()`): the kinds that take no single value, and the aliases. */
export interface DeclaredOptions {
  /** Every option declared, by its name (and its aliases'). */
  key: Record<string, unknown>;
  array: string[];
  boolean: string[];
  count: string[];
  alias: Record<string, string[]>;
  /** The values an option is one of, where it has choices. */
  choices?: Record<string, readonly unknown[]>;
}

/**
 * An option that takes one value given more than once (`usage --by model --by day`): a usage
 * error naming the values, where a command would keep one and say nothing. Flags, options that
 * take a list and those a command adds up (`repeatable`) are left alone; nothing after `--` is an
 * option.
 */
export function checkRepeated(options: DeclaredOptions, argv: readonly string[], repeatable: readonly string[] = []): void {
  const canonical = new Map<string, string>();
  for (const [key, aliases] of Object.entries(options.alias)) for (const a of [key, ...aliases]) canonical.set(a, key);
  const many = new Set([...options.array, ...options.boolean, ...options.count, ...repeatable].flatMap((k) => [k, ...(options.alias[k] ?? [])]));
  const given = new Map<string, { as: string; values: string[] }>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    const m = /^--?([^=]+)(?:=(.*))?$/s.exec(arg);
    if (!m || arg === "-" || /^-\d/.test(arg)) continue;
    // (`-abc` is three flags: never one that takes a value here)
    if (!arg.startsWith("--") && m[1]!.length > 1) continue;
    const name = m[1]!;
    if (many.has(name) || name.startsWith("no-")) continue;
    const key = canonical.get(name) ?? name;
    const value = m[2] ?? (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("-") ? argv[i + 1]! : "");
    const seen = given.get(key) ?? { as: arg.startsWith("--") ? `--${name}` : `-${name}`, values: [] };
    seen.values.push(value);
    given.set(key, seen);
  }
  for (const { as, values } of given.values()) {
    if (values.length > 1) throw new CliError(`${as} given ${values.length} times (${values.map((v) => (v === "" ? "-" : v)).join(", ")}): it takes one value; give it once`);
  }
}

/**
 * An option that takes a value given none (`archive --dry-run --to`, `--to=`, `ls --limit` last):
 * a usage error naming it and what it takes, where yargs would give the command "" (the current
 * folder, for `--to`; 0, for a count) and say nothing. A value that starts with `-` and a digit is
 * one (`forParser` gave it to its option), and so is anything after grep's `-e`; nothing after
 * `--` is an option.
 */
export function checkValuesGiven(options: DeclaredOptions, argv: readonly string[], spec: CommandSpec): void {
  const canonical = new Map<string, string>();
  for (const [key, aliases] of Object.entries(options.alias)) for (const a of [key, ...aliases]) canonical.set(a, key);
  const takesNone = new Set([...options.boolean, ...options.count, ...options.array].flatMap((k) => [k, ...(options.alias[k] ?? [])]));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    const m = /^(--?)([^=]+)(=(.*))?$/s.exec(arg);
    if (!m || arg === "-" || /^-\d/.test(arg) || (m[1] === "-" && m[2]!.length > 1)) continue;
    const given = m[2]!;
    const key = canonical.get(given) ?? given;
    // (grep's -e PATTERN takes what follows whatever it starts with: the pattern)
    if (takesNone.has(given) || given.startsWith("no-") || !(key in options.key) || key === "regexp") continue;
    const next = argv[i + 1];
    const missing = m[3] !== undefined ? m[4] === "" : next === undefined || next === "--" || (next.startsWith("-") && next !== "-" && !/^-\d/.test(next));
    if (!missing) continue;
    const as = m[1] === "--" ? `--${given}` : `-${given}`;
    const long = key.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`);
    const choices = options.choices?.[key]?.map(String);
    const takes = choices ? `one of ${choices.join(", ")}` : VALUE_OPTIONS[long];
    throw new CliError(`${as} needs a value${takes ? ` (${takes})` : ""}${next !== undefined && m[3] === undefined && next !== "--" ? `, and ${next} is an option` : ""}: e.g. ${as} ${choices?.[0] ?? VALUE_OPTIONS[long] ?? "VALUE"}; see pi-session ${name(spec)} --help`);
  }
}
