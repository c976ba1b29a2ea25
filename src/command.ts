import type { Args } from "./args.js";
import type { ExitCode } from "./errors.js";
import type { Sink } from "./render/sink.js";
import type { Style } from "./render/style.js";
import type { StoreRun } from "./stores/index.js";

/**
 * What every command gets from the CLI layer: how output is styled and which form it takes, and
 * the only ways a command reaches the process (stdin, the environment, stderr). Nothing below
 * cli.ts touches `process`.
 */
export interface CommandContext {
  style: Style;
  json: boolean;
  /** `--jsonl`: a list-shaped command writes one JSON value a line. */
  jsonl: boolean;
  sessionDir: string;
  env: NodeJS.ProcessEnv;
  /** Standard input, read whole once (several arguments may name `-`). */
  stdin: () => Promise<Buffer>;
  /** A progress bar on stderr when it is a TTY; a no-op otherwise. */
  progress: (done: number, total: number, label?: string) => void;
  /** One diagnostic line on stderr. */
  warn: (message: string) => void;
  /** The command's own output written to stdout as it is made (`--out -`), each chunk taken before it returns; a closed stdout throws `OutputClosed`. */
  stdoutSync: (chunk: string | Uint8Array) => void;
  /** A status line on stderr when it is a terminal, redrawn in place (undefined: cleared); a no-op otherwise. */
  status: (line: string | undefined) => void;
  /** How wide stderr's terminal is (a status line is cut to it). */
  statusColumns: number;
  /** Aborted when the user interrupts (Ctrl-C, SIGTERM, SIGHUP): a command that runs until then listens; asked for, it keeps the process from being killed by the first. */
  interrupted: () => AbortSignal;
  /** What the command opens of the stores (databases, caches kept), closed when it is done. */
  run: StoreRun;
}

/**
 * What a command hands back: its JSON document and its human text, or, for output that may be
 * large, a function that streams the one asked for; and its exit code.
 */
export interface CommandOutcome {
  json?: unknown;
  /** With `--jsonl`: the values, one a line (streamed commands check `ctx.jsonl` themselves). */
  jsonl?: () => Iterable<unknown>;
  human?: string;
  stream?: (out: Sink) => Promise<void>;
  /** "stderr": stdout carries the command's own output (`--out -`), so its report goes to stderr. */
  reportTo?: "stderr";
  /**
   * Notes for stderr once the output is written, a line each: what the person reads after the
   * report it is about (`usage`'s price file to fill in, `redact`'s backups that still hold a
   * secret).
   */
  after?: string | string[];
  exitCode: ExitCode;
}

/**
 * A command module (src/commands/<name>.ts) as the CLI loads it. Besides these two, each exports
 * its options type, the function that does the work and returns data (callable without a
 * terminal), and the renderer of that data for people.
 */
export interface CommandModule<O> {
  /** The parsed arguments as this command's options: normalised once, here. */
  options(args: Args): O;
  /** Does the work and picks the output (`--json`, `--jsonl` or human) and the exit code. */
  run(options: O, ctx: CommandContext): Promise<CommandOutcome>;
}
