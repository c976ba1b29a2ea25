import { existsSync, mkdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
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

export function writeBack(path: string, stamp: FileStamp, options: WriteOptions, many: boolean, produce: Producer): WriteOutcome {
  // (standard input leaves no temporary files beside itself)
  const cleaned = path === "-" ? [] : cleanLeftovers(path);
  try {
    if (options.out) {
      const toDir = many || (existsSync(options.out) && statSync(options.out).isDirectory());
      if (toDir) mkdirSync(options.out, { recursive: true });
      const target = toDir ? join(options.out, basename(path)) : options.out;
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
