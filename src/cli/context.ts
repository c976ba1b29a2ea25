import type { CommandContext } from "../command.js";
import { writeFully } from "../support/writers/output.js";
import { Progress } from "../render/progress.js";
import { makeStyle } from "../render/style.js";
import { sessionDir, sessionDirEnv, type StoreRun } from "../stores/index.js";
import type { Io } from "./io.js";

/** What a command is given of the process: its style, its streams, its progress bar and its run. */

function colorEnabled(flag: unknown, io: Io): boolean {
  if (typeof flag === "boolean") return flag;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force !== "false";
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "") return false;
  return !!io.stdout.isTTY;
}

/** Each run's progress bar, by its `Io`: an error the run ends with clears a frame first, as a warning does. */
const bars = new WeakMap<Io, Progress>();

/** A line on stderr, on a line of its own should a frame of the progress bar be up. */
export function say(io: Io, line: string): void {
  io.stderr.write(`${bars.get(io)?.aside() ?? ""}${line}\n`);
}

export function makeContext(argv: Record<string, unknown>, io: Io, run: StoreRun): CommandContext {
  const json = argv.json === true;
  const jsonl = argv.jsonl === true;
  const github = argv.format === "github";
  let bar: Progress | undefined;
  let stdin: Promise<Buffer> | undefined;
  let interrupted: AbortSignal | undefined;
  let statusUp = false;
  // (a terminal that reports no size, as a pty made without one: $COLUMNS, as `tput cols` reads it)
  const columns = io.stdout.columns || (io.stdout.isTTY ? Number.parseInt(io.env.COLUMNS ?? "", 10) || undefined : undefined);
  return {
    style: makeStyle(!json && !jsonl && !github && colorEnabled(argv.color, io), columns ?? 100, {
      ...(io.stdout.isTTY && columns ? { terminalWidth: columns, ...(io.stdout.rows ? { terminalRows: io.stdout.rows } : {}) } : {}),
      wide: argv.wide === true,
    }),
    json,
    jsonl,
    sessionDir: sessionDir(argv.sessionDir as string | undefined, io.env),
    env: sessionDirEnv(argv.sessionDir as string | undefined, io.env),
    stdin: () => (stdin ??= readAll(io.stdin)),
    progress: (done, total, label = "") => {
      if (!io.stderr.isTTY) return;
      if (!bar) bars.set(io, (bar = new Progress(Math.max(20, (io.stderr.columns ?? 80) - 1))));
      const text = bar.update(done, total, label, (io.now ?? Date.now)());
      if (text !== "") io.stderr.write(text);
    },
    warn: (message) => say(io, `pi-session: ${message}`),
    status: (line) => {
      if (!io.stderr.isTTY || (line === undefined && !statusUp)) return;
      io.stderr.write(line === undefined ? "\r\x1b[K" : `\r${line}\x1b[K`);
      statusUp = line !== undefined;
    },
    statusColumns: io.stderr.columns ?? 80,
    interrupted: () => {
      if (interrupted) return interrupted;
      const controller = new AbortController();
      io.onInterrupt?.(() => controller.abort());
      return (interrupted = controller.signal);
    },
    stdoutSync: syncWriter(io.stdout),
    run,
  };
}

/** Everything `stream` yields, as one buffer (none: an empty one). */
async function readAll(stream: AsyncIterable<Buffer | string> | undefined): Promise<Buffer> {
  const chunks: Buffer[] = [];
  if (stream) for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * Writes to `stream` synchronously, where it has a file descriptor (the process's stdout: a pipe, a
 * file, a terminal), each chunk taken whole before it returns, waiting while a pipe is full; a
 * stream without one (a test's) is written as a stream.
 */
function syncWriter(stream: Io["stdout"]): (chunk: string | Uint8Array) => void {
  const fd = (stream as { fd?: unknown }).fd;
  if (typeof fd !== "number") return (chunk) => void stream.write(chunk);
  return (chunk) => writeFully(fd, chunk);
}
