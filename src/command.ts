import type { ExitCode } from "./errors.js";
import type { Sink } from "./render/sink.js";
import type { Style } from "./render/text.js";

/** What every command gets from the CLI layer: options already normalised, where to say things. */
export interface CommandContext {
  style: Style;
  json: boolean;
  /** `--jsonl`: a list-shaped command writes one JSON value a line. */
  jsonl: boolean;
  sessionDir: string;
  env: NodeJS.ProcessEnv;
  /** A progress bar on stderr when it is a TTY; a no-op otherwise. */
  progress: (done: number, total: number, label?: string) => void;
  /** One diagnostic line on stderr. */
  warn: (message: string) => void;
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
  exitCode: ExitCode;
}
