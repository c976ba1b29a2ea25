import { closeSync, openSync, readSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Read } from "./run.js";

/*
 * A format-4 session's v3 copy: the file `migrate` writes its lines to as pi's, and whether a file
 * holds those lines: exactly, or followed by more (pi opened the copy and went on, as it does with
 * the file it opens; the copy is the session now, and writing it again would lose what pi added). One answer for every command that says whether the session is
 * migrated: `migrate` (current, or a copy to write), `ls` (`migrated`, not `needs-migrate`), `show`
 * and this store's own finding (no `migrate` left to run).
 */

/**
 * The copy's name: beside a JSONL file, its name with `.v3` before `.jsonl` (the same id and
 * time: pi's name for it is taken); for a session in a database, pi's own name
 * (`<time>_<id>.jsonl`), from its header.
 */
function copyName(path: string, read: Read): string {
  if (path.endsWith(".jsonl")) return `${basename(path).slice(0, -".jsonl".length)}.v3.jsonl`;
  const text = read.bytes.toString("utf8", 0, Math.max(0, read.bytes.indexOf(0x0a)));
  const header = JSON.parse(text) as { id?: unknown; timestamp?: unknown };
  const time = typeof header.timestamp === "string" ? header.timestamp.replace(/[:.]/g, "-") : "session";
  return `${time}_${String(header.id)}.jsonl`;
}

/**
 * The session at `path`'s v3 copy: at `file` (default: beside it, by its name), and whether that
 * file begins with the session's lines as pi's (`current`), and holds more after them (`continued`).
 */
export function v3CopyOf(path: string, read: Read, file?: string): { path: string; current: boolean; continued: boolean } {
  // (a database's session is `<database>#<id>`: its copy goes in the database's folder)
  const at = file ?? join(dirname(path), copyName(path, read));
  const size = beginsWith(at, read.bytes);
  return { path: at, current: size !== undefined, continued: size !== undefined && size > read.bytes.length };
}

/**
 * The size of the file at `path` if it begins with `bytes` and goes on (if at all) at a line's
 * start: `bytes` whole lines, or the file exactly `bytes`. Only `bytes.length` of it is read.
 */
function beginsWith(path: string, bytes: Buffer): number | undefined {
  let fd: number;
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size < bytes.length) return undefined;
    if (st.size > bytes.length && bytes.length > 0 && bytes.at(-1) !== 0x0a) return undefined;
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.allocUnsafe(bytes.length);
    let got = 0;
    while (got < head.length) {
      const n = readSync(fd, head, got, head.length - got, got);
      if (n === 0) return undefined;
      got += n;
    }
    if (!head.equals(bytes)) return undefined;
    return statSync(path).size;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
