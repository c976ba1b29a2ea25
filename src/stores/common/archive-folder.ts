import { existsSync } from "node:fs";
import { join } from "node:path";

/*
 * What marks a folder as one `pi-session archive` wrote (docs/commands.md, "archive"): its
 * manifest. A store's listing passes over such a folder among its own (`archive/` in a folder of
 * sessions holds them compressed, archived: only `--archived` reads it).
 */

/** The manifest's name in an archive folder: a JSON line an action (not `.jsonl`: no store lists it as a session). */
export const ARCHIVE_MANIFEST = "manifest.ndjson";

/** Whether `dir` is an archive folder (it holds a manifest). */
export function isArchiveFolder(dir: string): boolean {
  return existsSync(join(dir, ARCHIVE_MANIFEST));
}
