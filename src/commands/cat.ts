import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, describeFsError, ExitCode } from "../errors.js";
import type { ByteSource } from "../format/read/source.js";
import type { Sink } from "../render/sink.js";
import { openSource } from "../support/inputs/input.js";
import { resolveInput } from "../stores/index.js";

/**
 * `cat FILE`: a session's file as it is stored, wherever that is: a file's bytes, a `.zst` archive
 * decompressed, a transcript in OpenClaw's database as its lines (each row's bytes as the
 * database holds them, `event_zstd` decompressed, every branch, each with its newline), so that
 * `repair`, `slim`, `jq`, `rg` and pi itself can work on a copy. Nothing is parsed or changed:
 * even a damaged file comes out byte for byte.
 */
export interface CatOptions {
  file: string;
}

export function options(args: Args): CatOptions {
  return { file: args.string("file") };
}

/** How much is read and written at a time. */
const CHUNK = 1024 * 1024;

export interface CatResult {
  /** The session as FILE resolved it (a path, or `<database>#<session id>`). */
  file: string;
  size: number;
  source: ByteSource;
}

export function cat(options: CatOptions, ctx: Pick<CommandContext, "sessionDir" | "env">): CatResult {
  const file = resolveInput(options.file, ctx.sessionDir, ctx.env);
  if (file === "-") throw new CliError("cat reads a stored session; - (standard input) is already its own bytes");
  let source: ByteSource;
  try {
    source = openSource(file);
  } catch (error) {
    throw error instanceof CliError ? error : describeFsError(file, error);
  }
  return { file, size: source.size, source };
}

async function writeBytes(source: ByteSource, out: Sink): Promise<void> {
  try {
    for (let offset = 0; offset < source.size; ) {
      const chunk = source.read(offset, Math.min(CHUNK, source.size - offset));
      if (chunk.length === 0) break;
      await out.write(chunk);
      offset += chunk.length;
    }
  } finally {
    source.close();
  }
}

export async function run(options: CatOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = cat(options, ctx);
  if (ctx.json) {
    result.source.close();
    throw new CliError("cat prints the session's bytes as stored; --json does not apply (use `pi-session show FILE --json` for its facts)");
  }
  return { stream: (out) => writeBytes(result.source, out), exitCode: ExitCode.Ok };
}
