import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { CliError } from "../../errors.js";
import { cleanLeftovers, ConcurrentWriteError, createFile, replaceFile, TargetExistsError, type Producer } from "../../format/index.js";
import type { FileStamp } from "../../format/index.js";

/** How a writing command puts its result: in place with a backup, or to --out. */
export interface WriteOptions {
  /** A file (one input) or a directory (several) to write to instead of in place. */
  out?: string;
  /** Where backups go (default: beside the file). */
  backupDir?: string;
  /** Replace an existing --out file. */
  force?: boolean;
  /** Called between writing the new content and committing it (tests pause there: see `writerOptions`). */
  beforeCommit?: () => void;
}

export interface WriteOutcome {
  backup?: string;
  out?: string;
  /** "aborted": the file changed meanwhile; "exists": --out exists without --force. */
  error?: "aborted" | "exists";
  reason?: string;
  /** Temporary files of killed runs that were removed first. */
  cleaned: string[];
}

/**
 * Where each file's result goes under `--out DIR` (README, "Writing"): the inputs' layout, so that
 * OUT is a store as the inputs were. One directory given: its files at their paths under it;
 * several inputs: each directory's under its own name, each file given by name at the top. Two
 * files that would land on one path are refused before anything is written.
 */
export function outLayout(inputs: readonly string[], files: readonly string[], origins: ReadonlyMap<string, string>, out: string): Map<string, string> {
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

/** The folder a file's result goes to: under --out (a folder, or the file's) or the file's own. */
export function resultDir(path: string, options: WriteOptions, many: boolean, layout?: ReadonlyMap<string, string>): string {
  if (!options.out) return dirname(path);
  const mapped = layout?.get(path);
  if (mapped) return dirname(mapped);
  return many || (existsSync(options.out) && statSync(options.out).isDirectory()) ? options.out : dirname(options.out);
}

export function writeBack(path: string, stamp: FileStamp, options: WriteOptions, many: boolean, produce: Producer, layout?: ReadonlyMap<string, string>): WriteOutcome {
  // (standard input leaves no temporary files beside itself)
  const cleaned = path === "-" ? [] : cleanLeftovers(path);
  try {
    if (options.out) {
      const toDir = many || (existsSync(options.out) && statSync(options.out).isDirectory());
      const target = toDir ? (layout?.get(path) ?? join(options.out, basename(path))) : options.out;
      if (toDir) mkdirSync(dirname(target), { recursive: true });
      createFile(target, produce, { force: options.force });
      return { out: target, cleaned };
    }
    if (options.backupDir) mkdirSync(options.backupDir, { recursive: true });
    const backup = replaceFile(path, produce, { expect: stamp, backupDir: options.backupDir, beforeCommit: options.beforeCommit });
    return { backup, cleaned };
  } catch (error) {
    if (error instanceof ConcurrentWriteError) return { error: "aborted", reason: error.message, cleaned };
    if (error instanceof TargetExistsError) return { error: "exists", reason: `refused to overwrite ${error.path}; pass --force to replace it`, cleaned };
    throw error;
  }
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
        write(Buffer.from(chunk.subarray(0, n)));
        at += n;
      }
    } finally {
      closeSync(fd);
    }
  };
}
