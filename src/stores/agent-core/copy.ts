import { readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Read } from "./run.js";

/*
 * A format-4 session's v3 copy: the file `migrate` writes its lines to as pi's, and whether a file
 * holds exactly those lines. One answer for every command that says whether the session is
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

/** The session at `path`'s v3 copy: at `file` (default: beside it, by its name), and whether that file holds exactly the session's lines as pi's. */
export function v3CopyOf(path: string, read: Read, file?: string): { path: string; current: boolean } {
  // (a database's session is `<database>#<id>`: its copy goes in the database's folder)
  const at = file ?? join(dirname(path), copyName(path, read));
  return { path: at, current: holds(at, read.bytes) };
}

/** Whether the file at `path` holds exactly `bytes`. */
function holds(path: string, bytes: Buffer): boolean {
  try {
    const st = statSync(path);
    return st.isFile() && st.size === bytes.length && readFileSync(path).equals(bytes);
  } catch {
    return false;
  }
}
