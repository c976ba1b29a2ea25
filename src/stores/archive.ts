import { existsSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { isDir } from "./common/openclaw-layout.js";

/*
 * Where a store's sessions are archived (`archive`, `restore`, `--archived`; docs/commands.md,
 * "archive"): a folder beside what it archives, laid out as the store is, each session compressed
 * (`<its path in the store>.zst`), with a manifest of what moved. pi's session directory (or any
 * folder of sessions) is archived into `archive/` beside it (`~/.pi/agent/archive/` for
 * `~/.pi/agent/sessions/`); an OpenClaw root into `archive/` inside it, where OpenClaw reads nothing.
 * Listed, an archive folder is a store of the same kind: every command reads its `.zst` sessions.
 */

/** The manifest's name in an archive folder: a JSON line an action (not `.jsonl`: no store lists it as a session). */
export const MANIFEST = "manifest.ndjson";

/** The OpenClaw root `path` lies in (a folder holding `agents/`, `path` inside one of its agents), if any. */
function openclawRootOf(path: string): string | undefined {
  const parts = resolve(path).split(sep);
  for (let i = parts.length - 2; i > 0; i--) {
    if (parts[i] !== "agents") continue;
    const root = parts.slice(0, i).join(sep) || sep;
    if (isDir(join(root, "agents"))) return root;
  }
  return undefined;
}

/** What a session at `path` is archived relative to, and where: its store's root (`sessionDir` for pi's, an OpenClaw root), else the folder given that holds it, else its own folder. */
export function archiveOf(path: string, sessionDir: string, given: readonly string[] = []): { root: string; archive: string } {
  const full = resolve(path);
  const claw = openclawRootOf(full);
  if (claw) return { root: claw, archive: join(claw, "archive") };
  const under = (dir: string) => full.startsWith(resolve(dir) + sep);
  const folder = given.find(under);
  const root = folder !== undefined ? resolve(folder) : under(sessionDir) ? resolve(sessionDir) : dirname(full);
  return { root, archive: join(dirname(root), "archive") };
}

/** Where the session at `path` goes in its archive folder. */
export function archivedPath(path: string, place: { root: string; archive: string }): string {
  return join(place.archive, `${relative(place.root, resolve(path))}.zst`);
}

/** The archive folder of a store's root or folder (`--archived`), where there is one. */
export function archiveFolderOf(dir: string): string | undefined {
  const full = resolve(dir);
  // (an OpenClaw root, or a folder inside one: the root's; any other folder: the one beside it)
  const claw = isDir(join(full, "agents")) ? full : openclawRootOf(join(full, "x"));
  const archive = claw ? join(claw, "archive") : join(dirname(full), "archive");
  return existsSync(archive) && archive !== full && basename(full) !== "archive" ? archive : undefined;
}
