import { CliError, describeWriteError, ExitCode } from "./errors.js";
import { forParser, optionArgs } from "./cli/arguments.js";
import { COMPLETION_HELP } from "./cli/commands.js";
import { say } from "./cli/context.js";
import type { Io } from "./cli/io.js";
import { buildParser } from "./cli/parser.js";
import { checkGithubFormat } from "./cli/usage-errors.js";
import type { CommandOutcome } from "./command.js";
import { OutputClosed, streamSink, writeJsonLines } from "./render/sink.js";
import { beginRun } from "./stores/index.js";

/**
 * The command line: every command and flag is registered from one list (cli/commands.ts); each
 * command's module is imported only when it runs, so `--help` stays fast. This file alone touches
 * the process.
 */

export type { Io } from "./cli/io.js";

/** The process's interruptions handed to `listener`, once each (a second Ctrl-C kills as it would). */
function onInterrupt(listener: () => void): void {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, listener);
}

/**
 * The process's own streams. Standard input is looked up only when a command reads it (`-`):
 * `process.stdin` of a file or /dev/null makes a file stream, which loads `fs.promises` and
 * readline with it (BENCHMARKS.md, "built-ins on demand").
 */
const processIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  get stdin() {
    return process.stdin;
  },
  onInterrupt,
});

/** Runs the command line; returns the exit code (never calls `process.exit`). */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const debug = optionArgs(argv).includes("--debug");
  // (what the command opens of the stores: closed when it is done, whatever happens)
  const run = beginRun();
  try {
    checkGithubFormat(optionArgs(argv));
    // (yargs' completion command prints its script for --help too)
    if (argv[0] === "completion" && optionArgs(argv).some((a) => a === "--help" || a === "-h")) {
      io.stdout.write(COMPLETION_HELP);
      return ExitCode.Ok;
    }
    let outcome: CommandOutcome | undefined;
    let json = false;
    let jsonl = false;
    const parser = buildParser(
      io,
      (o, ctx) => {
        outcome = o;
        json = ctx.json;
        jsonl = ctx.jsonl;
      },
      optionArgs(argv),
    );
    // (no command at all: the help, which lists them, rather than a line saying one is missing)
    if (argv.length === 0) {
      await parser.parseAsync(["--help"]);
      return ExitCode.Usage;
    }
    await parser.parseAsync(forParser(argv));
    if (!outcome) return ExitCode.Ok; // --help, --version, completion
    const done: CommandOutcome = outcome;
    // A closed pipe (as in `| head`) is not an error: the sink stops writing.
    const sink = streamSink(done.reportTo === "stderr" ? io.stderr : io.stdout);
    if (done.stream) await done.stream(sink);
    else if (jsonl && done.jsonl) await writeJsonLines(sink, done.jsonl());
    else await sink.write(json ? JSON.stringify(done.json, null, 2) + "\n" : (done.human ?? ""));
    await sink.flush();
    for (const note of [done.after ?? []].flat()) say(io, `pi-session: ${note}`);
    return done.exitCode;
  } catch (error) {
    // (the reader went away, as `| head` does: what it read was all it wanted)
    if (error instanceof OutputClosed) return ExitCode.Ok;
    // (a write the machine refused is the user's environment, not an internal error)
    const refused = error instanceof CliError ? error : describeWriteError(error);
    if (refused) {
      say(io, `pi-session: ${refused.message}`);
      return refused.exitCode;
    }
    if (debug) say(io, (error as Error)?.stack ?? String(error));
    else say(io, `pi-session: internal error: ${(error as Error)?.message ?? String(error)} (run again with --debug for details)`);
    return ExitCode.Usage;
  } finally {
    run.close();
  }
}
