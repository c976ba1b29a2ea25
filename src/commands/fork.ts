import { existsSync } from "node:fs";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { isDevice, isStdout, wouldReplace, writeToDevice } from "../support/writers/output.js";
import { CliError, ExitCode, shellQuote } from "../errors.js";
import { createFile, TargetExistsError } from "../format/write/atomic.js";
import { forkBlocker, planFork, sessionPathFor } from "../format/write/fork.js";
import { nodeFor, readToCopy } from "../support/inputs/read.js";
import { writeRefusal } from "../stores/index.js";

export interface ForkCommandOptions {
  file: string;
  /** Copy only the root -> leaf path (default: the whole tree). */
  leaf?: string;
  /** The new session's working directory (default: the source's). */
  cwd?: string;
  out?: string;
  force?: boolean;
}

export function options(args: Args): ForkCommandOptions {
  return { file: args.string("file"), leaf: args.optionalString("leaf"), cwd: args.optionalString("cwd"), out: args.optionalString("out"), force: args.flag("force") };
}

export interface ForkResult {
  file: string;
  id: string;
  parentSession: string;
  cwd: string;
  /** The leaf the fork was cut at, or null for a whole-tree copy. */
  leaf: string | null;
  entries: number;
}

const existsError = (target: string) => new CliError(`${target} already exists; fork never overwrites (pass --force to replace it)`);

export async function fork(options: ForkCommandOptions, ctx: CommandContext): Promise<ForkResult> {
  if (options.file === "-") throw new CliError("fork needs the source as a file (its path becomes the new session's parentSession), not - (stdin)");
  if (!options.force && wouldReplace(options.out)) throw existsError(options.out!);
  const { session, findings } = await readToCopy(options.file, ctx);
  try {
    // (a session its store keeps in a form pi cannot open, agent-core's format 4: `migrate` first)
    const refused = writeRefusal(session.name, "fork");
    if (refused !== undefined) throw new CliError(refused);
    if (!session.header) throw new CliError(`${session.name}: no session header; run \`pi-session repair ${shellQuote(session.name)}\` first`);
    // (a fork that left a damaged line out would lose what it holds: a fused line's records)
    const blocker = forkBlocker(findings);
    if (blocker) throw new CliError(`${session.name}:${blocker.line ?? 1}: refused: damaged (${blocker.message}); nothing was written; run \`pi-session repair ${shellQuote(session.name)}\` first`, ExitCode.Findings);
    const leaf = options.leaf !== undefined ? nodeFor(session, options.leaf) : undefined;
    const plan = planFork(session, { leaf, cwd: options.cwd, sourcePath: resolve(session.name) });
    const header = plan.header as { id: string; timestamp: string; cwd: string; parentSession: string };
    const toStdout = isStdout(options.out);
    const target = toStdout ? "-" : (options.out ?? sessionPathFor(ctx.sessionDir, header.cwd, header.timestamp, header.id));
    if (!options.out) mkdirSync(dirname(target), { recursive: true });
    else if (!toStdout && !existsSync(dirname(resolve(target)))) throw new CliError(`${dirname(target)}: no such directory for --out`);
    let entries = 0;
    const produce = (write: (chunk: string | Uint8Array) => void) => {
      write(JSON.stringify(plan.header) + "\n");
      entries = plan.writeEntries((line) => write(line + "\n"));
    };
    try {
      // (standard output, or a device that cannot be replaced: written as it is made)
      if (toStdout) produce(ctx.stdoutSync);
      else if (isDevice(target)) writeToDevice(target, produce);
      else createFile(target, produce, { force: options.force });
    } catch (error) {
      if (error instanceof TargetExistsError) throw existsError(target);
      throw error;
    }
    return { file: target, id: header.id, parentSession: header.parentSession, cwd: header.cwd, leaf: leaf === undefined ? null : (session.nodeId(leaf) ?? null), entries };
  } finally {
    session.close();
  }
}

export async function run(options: ForkCommandOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await fork(options, ctx);
  // (the session on stdout: what was written is said on stderr)
  return { json: result, human: `${result.file}\n`, ...(isStdout(options.out) ? { reportTo: "stderr" as const } : {}), exitCode: ExitCode.Ok };
}
