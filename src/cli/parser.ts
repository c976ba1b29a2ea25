import yargs, { type Argv, type Options } from "yargs";
import { Args } from "../args.js";
import { BUILD } from "../build-info.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError } from "../errors.js";
import { currentRun, sessionDir, storeSessionIds } from "../stores/index.js";
import { hardWrap } from "../render/width.js";
import { normalise, VALUE_OPTIONS } from "./arguments.js";
import { COMMANDS, JSONL_OPTION } from "./commands.js";
import { makeContext } from "./context.js";
import type { Io } from "./io.js";
import { checkOutputOptions, checkRepeated, checkValuesGiven, usageMessage, type DeclaredOptions } from "./usage-errors.js";

/** The yargs parser, built from the list of commands, its help shaped as a reader copies from it. */

// (a paragraph is one line: yargs wraps it to the terminal, and a line break of ours would break it twice)
const EPILOG = `Exit codes:
  0  done, nothing wrong (warnings alone are not a failure)
  1  problems found or work left (check found errors)
  2  usage error, missing or unreadable input, refused write

FILE is a path, - for stdin, or a session id (or unique prefix) or OpenClaw key looked up in the stores: pi's session directory (--session-dir, else $PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions) and OpenClaw's ($OPENCLAW_STATE_DIR, else ~/.openclaw; --session-dir takes an OpenClaw root too).

pi-session COMMAND --help shows a command's options and examples.`;

/**
 * A command's help as a reader copies from it: each example a comment line, then the command
 * whole on its own line (yargs' two columns wrap a long command into its left one); an option's
 * choices and default said in its description (yargs' "[boolean] [default: false]" tags are
 * hidden: they ran into descriptions, and told nothing a flag's name does not).
 */
function helpShaped(y: Argv, width: number | null): Argv {
  const example = y.example.bind(y);
  const option = y.option.bind(y);
  const shaped = y as Argv & { example: typeof y.example; option: typeof y.option };
  shaped.example = ((command: string, description?: string) => {
    // (a comment wrapped by us, each line a comment: yargs would wrap its second half into a line that, pasted, runs)
    if (description) for (const line of width === null ? [description] : hardWrap(description, width - 6)) example(`# ${line}`, "");
    return example(command, "");
  }) as typeof y.example;
  shaped.option = ((key: string, opt?: Options) => {
    if (typeof key !== "string" || !opt || typeof opt !== "object") return option(key as never, opt as never);
    const said: string[] = [];
    if (opt.choices) said.push((opt.choices as readonly unknown[]).join(", "));
    if (opt.default !== undefined && opt.type !== "boolean" && !(Array.isArray(opt.default) && opt.default.length === 0)) said.push(`default: ${String(opt.default)}`);
    return option(key, said.length > 0 && typeof opt.describe === "string" ? { ...opt, describe: `${opt.describe} (${said.join("; ")})` } : opt);
  }) as typeof y.option;
  return shaped;
}

/**
 * What the shell completes: yargs' commands and options without the one-letter aliases it also
 * offers as `--o`, and, where a command takes sessions, the ids of those in the session directory.
 */
function completionsFor(current: string, argv: Record<string, unknown>, defaults: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const options = defaults.filter((c) => !/^--[^-:]([:]|$)/.test(c));
  const command = (argv._ as unknown[] | undefined)?.[0];
  if (typeof command !== "string" || command === "ls" || command === "completion" || current.startsWith("-")) return options;
  // (pi's session directory's, and OpenClaw's transcripts': `show ID` finds them too)
  const ids = storeSessionIds(sessionDir(argv.sessionDir as string | undefined, env), env);
  return [...options, ...[...new Set(ids.filter((id) => id.startsWith(current)))].sort().slice(0, 500)];
}

/**
 * Before running a command, yargs formats that command's whole help text and keeps it, in case a
 * failure later wants to show it (`cacheHelpMessage`). Our failures never show help (the `fail`
 * handler in `buildParser` turns every one into a one-line message), and that formatting (cliui layout,
 * Unicode string widths) is a noticeable part of every run (BENCHMARKS.md, "yargs' help cache"). So it
 * is switched off through yargs' internal usage instance (yargs is pinned; if the internals move,
 * this does nothing and help is cached as before). `--help` itself formats help as always.
 */
function skipHelpCaching(parser: Argv): void {
  const usage = usageOf(parser);
  if (usage && typeof usage.cacheHelpMessage === "function") usage.cacheHelpMessage = () => {};
}

type Usage = { cacheHelpMessage?: () => void; help?: () => string };

/** yargs' internal usage instance (yargs is pinned; undefined if its internals move). */
function usageOf(parser: Argv): Usage | undefined {
  const internals = (parser as unknown as { getInternalMethods?: () => { getUsageInstance?: () => Usage | undefined } }).getInternalMethods?.();
  return internals?.getUsageInstance?.();
}

/**
 * A help text with each option that takes a value shown with what it takes (`--cwd DIR`): where
 * the name and its placeholder leave no room before the description's column, the description
 * starts on the line under them, at its column (its lines as yargs wrapped them, none wider).
 */
function withPlaceholders(help: string): string {
  const out: string[] = [];
  for (const line of help.split("\n")) {
    // (an option's line: `  -o, --out` or `      --cwd`, then its description's column)
    const m = /^( {2}(?:-\w, | {4})--([\w-]+))( {2,})(\S.*)?$/.exec(line);
    const placeholder = m ? VALUE_OPTIONS[m[2]!] : undefined;
    if (!m || !placeholder) {
      out.push(line);
      continue;
    }
    const named = `${m[1]} ${placeholder}`;
    const column = m[1]!.length + m[3]!.length;
    if (named.length + 2 <= column) out.push(`${named.padEnd(column)}${m[4] ?? ""}`.trimEnd());
    else out.push(named, ...(m[4] ? [`${" ".repeat(column)}${m[4]}`] : []));
  }
  return out.join("\n");
}

/** Help printed with its options' placeholders (`withPlaceholders`). */
function showPlaceholders(parser: Argv): void {
  const usage = usageOf(parser);
  if (!usage || typeof usage.help !== "function") return;
  const help = usage.help.bind(usage);
  usage.help = () => withPlaceholders(help());
}

export function buildParser(io: Io, onOutcome: (o: CommandOutcome, ctx: CommandContext) => void, argv: readonly string[] = []): Argv {
  const argv_ = argv;
  const helpWidth = io.stdout.isTTY ? Math.min(100, io.stdout.columns ?? 100) : null;
  let parser = yargs()
    .scriptName("pi-session")
    .usage("$0 <command> [options]\n\nInspect, validate and repair pi coding-agent session files.")
    .option("json", { type: "boolean", default: false, describe: "print one JSON document on stdout" })
    .option("jsonl", JSONL_OPTION)
    .option("color", { type: "boolean", describe: "colour output (default: on a TTY; honours NO_COLOR, FORCE_COLOR)" })
    .option("session-dir", { type: "string", describe: "the store to read for ids, keys, ls, usage, grep and search: pi's session directory, or an OpenClaw state directory (as $OPENCLAW_STATE_DIR)" })
    .option("debug", { type: "boolean", default: false, describe: "print stack traces for unexpected errors" })
    .epilog(EPILOG)
    .strict()
    .demandCommand(1, "give a command")
    .completion("completion", "Print a shell completion script (bash/zsh)", (current: string, argv: Record<string, unknown>, fallback: (done: (err: unknown, completions: string[] | undefined) => void) => void, done: (completions: string[]) => void) => {
      fallback((_error, completions) => done(completionsFor(current, argv, completions ?? [], io.env)));
    })
    .help()
    .alias("h", "help")
    .version(BUILD.version)
    // (on a terminal, to its width; piped, nothing wrapped: an example stays one line, whole)
    .wrap(helpWidth)
    .exitProcess(false)
    .fail((msg, err) => {
      // yargs wraps errors thrown while it parses (e.g. by a coerce) in its own YError.
      if (err && err.name === "YError") throw new CliError(err.message.includes("pi-session --help") ? err.message : usageMessage(err.message, argv));
      if (err) throw err;
      throw new CliError(usageMessage(msg, argv));
    });
  skipHelpCaching(parser);
  showPlaceholders(parser);
  // (not in yargs' types; see `helpShaped`)
  (parser as unknown as { usageConfiguration(config: Record<string, boolean>): unknown }).usageConfiguration({ "hide-types": true });
  for (const spec of COMMANDS) {
    // (--version is the program's, and --jsonl is for list-shaped commands: each said only where it applies)
    parser = parser.command(spec.command, spec.describe, (y) => {
      const built = spec.builder(helpShaped(y.version(false), helpWidth));
      const all = spec.jsonl ? built : built.option("jsonl", { ...JSONL_OPTION, hidden: true });
      const declared = (all as unknown as { getOptions(): DeclaredOptions }).getOptions();
      // (before yargs reads the values: a value's own check, a count's, would see a list of them)
      checkRepeated(declared, argv_, spec.repeatable);
      checkValuesGiven(declared, argv_, spec);
      return all;
    }, async (argv) => {
      checkOutputOptions(spec, argv);
      const ctx = makeContext(argv, io, currentRun());
      const command = await spec.load();
      onOutcome(await command.run(command.options(new Args(normalise(argv as Record<string, unknown>))), ctx), ctx);
    });
  }
  return parser;
}
