import { closeSync, openSync, statSync, writeSync } from "node:fs";
import type { Producer } from "../../format/write/atomic.js";
import { OutputClosed } from "../../render/sink.js";

/*
 * Where an output option (`--out`, `-o`) may point besides a file written atomically: `-` (and
 * the names of standard output: `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`) is standard output,
 * as `-` is standard input for every input; a place that is no regular file (`/dev/null`, a FIFO)
 * is written as it is, since it cannot be replaced.
 */

const STDOUT_NAMES = new Set(["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]);

/** Whether an output option names standard output. */
export const isStdout = (out: string | undefined): boolean => out !== undefined && STDOUT_NAMES.has(out);

/** Whether `out` is a place that exists and is not a regular file or a folder: a device, a FIFO, a socket. */
export function isDevice(out: string): boolean {
  try {
    const st = statSync(out);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether `out` names a file that exists and would be replaced (not standard output, nor a device,
 * which are written as they are): asked before the input is read, so that a gigabyte session is
 * not read for a write that is refused (the atomic write checks again as it renames).
 */
export function wouldReplace(out: string | undefined): boolean {
  if (out === undefined || isStdout(out)) return false;
  try {
    return statSync(out).isFile();
  } catch {
    return false;
  }
}

/** Writes what `produce` makes to the device at `out`, as it is (no temporary file, no rename). */
export function writeToDevice(out: string, produce: Producer): void {
  const fd = openSync(out, "w");
  try {
    produce((chunk) => writeFully(fd, chunk));
  } finally {
    closeSync(fd);
  }
}

/** An output place as a report names it: `-` is "standard output". */
export const outName = (out: string | undefined): string => (out === "-" ? "standard output" : (out ?? ""));

const pause = new Int32Array(new SharedArrayBuffer(4));

/** `chunk` written whole to `fd`, waiting while a pipe is full; a reader gone (EPIPE) is `OutputClosed`. */
export function writeFully(fd: number, chunk: string | Uint8Array): void {
  const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") Atomics.wait(pause, 0, 0, 1);
      else if (code === "EPIPE") throw new OutputClosed();
      else throw error;
    }
  }
}
