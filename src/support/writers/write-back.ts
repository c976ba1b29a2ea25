import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { describeWriteError } from "../../errors.js";
import { basename, dirname, join, relative, resolve } from "node:path";
import { CliError } from "../../errors.js";
import { cleanLeftovers, ConcurrentWriteError, createFile, RejectedOutputError, replaceFile, stampOf, TargetExistsError, type Producer } from "../../format/write/atomic.js";
import type { FileStamp } from "../../format/write/atomic.js";
import { isDevice, isStdout, writeToDevice } from "./output.js";

/** How a writing command puts its result in place (`--out`'s target is decided per file: `outTargets`). */
export interface WriteOptions {
  /** Where backups go (default: beside the file). */
  backupDir?: string;
  /** Replace an existing --out file. */
  force?: boolean;
  /** Called between writing the new content and committing it (tests pause there: see `writerOptions`). */
  beforeCommit?: () => void;
  /** Standard output, for `--out -`. */
  stdout?: (chunk: string | Uint8Array) => void;
  /**
   * Reads the new content before it is put in place (throwing `RejectedOutputError` abandons the
   * write): a file's temporary file; what goes to standard output is held and read before any of it
   * is written.
   */
  check?: (written: { file: string } | { bytes: Buffer }) => void;
  /** false: replacing a file in place keeps no backup. */
  backup?: boolean;
  /** A file `--force` replaces is kept as a backup (`migrate`'s v3 copy: pi may have gone on with it). */
  keepReplaced?: boolean;
}

export interface WriteOutcome {
  backup?: string;
  out?: string;
  /** What was written to stdout (`--out -`). */
  written?: Buffer;
  /** "aborted": the file changed meanwhile; "exists": --out exists without --force; "rejected": `check` refused the new content. */
  error?: "aborted" | "exists" | "rejected";
  reason?: string;
  /** Temporary files of killed runs that were removed first. */
  cleaned: string[];
}

/**
 * Where each file's result goes under `--out DIR` (docs/commands.md, "Writing"): the inputs' layout, so that
 * OUT is a store as the inputs were. One directory given: its files at their paths under it;
 * several inputs: each directory's under its own name, each file given by name at the top. Two
 * files that would land on one path are refused before anything is written.
 */
function outLayout(inputs: readonly string[], files: readonly string[], origins: ReadonlyMap<string, string>, out: string): Map<string, string> {
  const alone = inputs.length === 1 && new Set(origins.values()).size === 1;
  const targets = new Map<string, string>();
  const taken = new Map<string, string>();
  for (const file of files) {
    const from = origins.get(file);
    const rel = from === undefined ? basename(file) : alone ? relative(from, file) : join(basename(resolve(from)), relative(from, file));
    const target = join(out, rel);
    const other = taken.get(target);
    if (other !== undefined && other !== file) throw new CliError(`--out: ${other} and ${file} would both be written to ${target}; give them in separate runs, or pass the folders that hold them`);
    taken.set(target, file);
    targets.set(file, target);
  }
  return targets;
}

/** Where a file's result goes with `--out`: the file, and whether it lies in `--out`'s folder (made as needed). */
export interface OutTarget {
  file: string;
  inDir: boolean;
}

/**
 * The `--out` target of each input file, decided once for the run: a folder (several files, or
 * `--out` names a folder) holds them in the inputs' layout (`outLayout`); else `--out` is the file.
 */
export function outTargets(out: string, inputs: readonly string[], files: readonly string[], origins: ReadonlyMap<string, string>, many: boolean): (path: string) => OutTarget {
  if (isStdout(out) || isDevice(out)) {
    if (many) throw new CliError(`--out ${out} takes one session's output; give one file, or a folder for --out`);
    return () => ({ file: out, inDir: false });
  }
  if (!many && !(existsSync(out) && statSync(out).isDirectory())) return () => ({ file: out, inDir: false });
  const layout = outLayout(inputs, files, origins, out);
  return (path) => ({ file: layout.get(path) ?? join(out, basename(path)), inDir: true });
}

/** Writes `path`'s new content to `target` (`--out`), or in its place keeping a backup. */
export function writeBack(path: string, stamp: FileStamp, options: WriteOptions, produce: Producer, target: OutTarget | undefined): WriteOutcome {
  // (standard input leaves no temporary files beside itself)
  const cleaned = path === "-" ? [] : cleanLeftovers(path);
  try {
    const check = options.check;
    const checkFile = check ? (temp: string) => check({ file: temp }) : undefined;
    if (target && isStdout(target.file) && options.stdout) {
      // (what went to stdout is kept, to be judged as a file written would be read back; with a check, read before any is written)
      const chunks: Buffer[] = [];
      const stdout = options.stdout;
      produce((chunk) => {
        if (!check) stdout(chunk);
        chunks.push(Buffer.from(chunk));
      });
      const written = Buffer.concat(chunks);
      if (check) {
        check({ bytes: written });
        stdout(written);
      }
      return { out: "-", written, cleaned };
    }
    if (target && isDevice(target.file)) {
      if (check) {
        // (a device is written as it is: the content is made and read first)
        const chunks: Buffer[] = [];
        produce((chunk) => chunks.push(Buffer.from(chunk)));
        const bytes = Buffer.concat(chunks);
        check({ bytes });
        writeToDevice(target.file, (write) => write(bytes));
      } else writeToDevice(target.file, produce);
      return { out: target.file, cleaned };
    }
    if (target) {
      if (target.inDir) makeDirectory(dirname(target.file), "--out's folder");
      if (options.force && options.keepReplaced && existsSync(target.file)) {
        if (options.backupDir) makeDirectory(options.backupDir, "the backup folder");
        const backup = replaceFile(target.file, produce, { expect: stampOf(target.file), backupDir: options.backupDir, beforeCommit: options.beforeCommit, check: checkFile });
        return { out: target.file, ...(backup ? { backup } : {}), cleaned };
      }
      createFile(target.file, produce, { force: options.force, check: checkFile });
      return { out: target.file, cleaned };
    }
    if (options.backupDir) makeDirectory(options.backupDir, "the backup folder");
    const backup = replaceFile(path, produce, { expect: stamp, backupDir: options.backupDir, beforeCommit: options.beforeCommit, backup: options.backup, check: checkFile });
    return { ...(backup ? { backup } : {}), cleaned };
  } catch (error) {
    if (error instanceof RejectedOutputError) return { error: "rejected", reason: error.message, cleaned };
    if (error instanceof ConcurrentWriteError) return { error: "aborted", reason: error.message, cleaned };
    if (error instanceof TargetExistsError) return { error: "exists", reason: `refused to overwrite ${error.path}; pass --force to replace it`, cleaned };
    throw error;
  }
}

/**
 * A folder made with those above it that are missing (`mkdir -p`), one at a time: Node's recursive
 * `mkdirSync` never returns for a path the kernel will not make (`/proc/x`). What stops it is one
 * line naming the folder.
 */
function makeDirectory(dir: string, what: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); ; ) {
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw refused(error, dir, what);
      missing.unshift(at);
      const up = dirname(at);
      if (up === at) break;
      at = up;
      continue;
    }
    if (!isDir) throw new CliError(`cannot make ${what} ${dir}: ${at} is a file, not a folder; give another place`);
    break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw refused(error, dir, what);
    }
  }
}

function refused(error: unknown, dir: string, what: string): CliError {
  const e = error as NodeJS.ErrnoException;
  // (ENOENT where the folder above exists: a file system that makes no folders there, as /proc)
  const why = e.code === "ENOENT" ? "the file system there makes no folders" : (describeWriteError(error)?.message.split(": ")[1]?.split(";")[0] ?? e.code ?? e.message);
  return new CliError(`cannot make ${what} ${dir}: ${why}; give another place`);
}

/** A file's bytes as they are: what `--out` gets of a file that needs no change, so that OUT holds every file. */
export function copyOf(path: string): Producer {
  return (write) => {
    const fd = openSync(path, "r");
    try {
      const chunk = Buffer.allocUnsafe(1 << 20);
      for (let at = 0; ; ) {
        const n = readSync(fd, chunk, 0, chunk.length, at);
        if (n === 0) break;
        // (the writer takes each chunk before the next read: it is written or copied into a batch)
        write(chunk.subarray(0, n));
        at += n;
      }
    } finally {
      closeSync(fd);
    }
  };
}
