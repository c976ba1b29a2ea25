import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ARCHIVE_MANIFEST, isArchiveFolder } from "./common/archive-folder.js";
import { isDir } from "./common/openclaw-layout.js";

/*
 * Where sessions are archived (`archive`, `restore`, `--archived`; docs/commands.md, "archive"),
 * and what an archive folder holds: every command that asks what was archived from a folder, or
 * where a session went, asks here. An archive folder lays sessions out as their store does, each
 * compressed (`<its path in the store>.zst`), with a manifest of what moved.
 *
 * Where a session goes: an OpenClaw root's sessions into `archive/` inside the root (where OpenClaw
 * reads nothing); pi's session directory's into `archive/` beside it (`~/.pi/agent/archive/` for
 * `~/.pi/agent/sessions/`); a session in a project folder elsewhere (`--<cwd>--/`, as pi names
 * them) into `archive/` in the folder that holds the project folder, laid out as that folder is;
 * any other session into `archive/` in its own folder, beside it. Never above the folder that holds
 * the session or its project folder, except pi's own `archive/`; never into a file system's root. `--to DIR` puts them elsewhere, and the
 * folder they would have gone to records where (an `elsewhere` line of its manifest), so that what
 * was archived from a folder is found wherever it went.
 */

/** The manifest's name in an archive folder: a JSON line an action (not `.jsonl`: no store lists it as a session). */
export const MANIFEST = ARCHIVE_MANIFEST;

/** A manifest line of a session moved: what moved, where from and to, and when. */
export interface ManifestLine {
  action: "archive" | "restore";
  /** The session's path as it was (and is again, restored). */
  path: string;
  /** Its archive, relative to the archive folder. */
  archive: string;
  /** The session id, where its store gives one. */
  id: string | null;
  size: number;
  sha256: string;
  /** The archive's size. */
  compressed: number;
  /** The session's modification time (ms), given back to it when it is restored. */
  mtimeMs?: number;
  time: string;
}

/** A manifest line saying that sessions which would have been archived here went to `folder` (`archive --to`). */
export interface ElsewhereLine {
  action: "elsewhere";
  folder: string;
  time: string;
}

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

/** Whether `dir` is a file system's root (`/`, `C:\\`): nothing is archived into it. */
const isRoot = (dir: string) => dirname(dir) === dir;

/** pi's project folder (`--<cwd>--`, as pi names the folder of a working directory's sessions). */
const isProjectFolder = (dir: string) => /^--.*--$/.test(basename(dir));

/**
 * Where the session at `path` is archived, and what its place there is relative to: an OpenClaw
 * root's (`archive/` inside it); pi's session directory's (`archive/` beside it); a project folder's
 * elsewhere (`archive/` beside the project folder); else the session's own folder's (`archive/` in it).
 */
export function archiveOf(path: string, sessionDir: string): { root: string; archive: string } {
  const full = resolve(path);
  const claw = openclawRootOf(full);
  if (claw) return { root: claw, archive: join(claw, "archive") };
  const folder = dirname(full);
  const sessions = resolve(sessionDir);
  // (pi's session directory's beside it, unless that is a file system's root: then in it)
  if (full.startsWith(sessions + sep) && !isRoot(dirname(sessions))) return { root: sessions, archive: join(dirname(sessions), "archive") };
  // (a project folder elsewhere: beside it, in the folder that holds it, never above that folder)
  if (isProjectFolder(folder) && !isRoot(dirname(folder))) return { root: dirname(folder), archive: join(dirname(folder), "archive") };
  return { root: folder, archive: join(folder, "archive") };
}

/** Where the session at `path` goes in its archive folder. */
export function archivedPath(path: string, place: { root: string; archive: string }): string {
  return join(place.archive, `${relative(place.root, resolve(path))}.zst`);
}

/** An archive folder's manifest, its lines as written (a line cut short by a crash passed over: the ones before it stand). */
function manifestLines(folder: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(join(folder, MANIFEST), "utf8");
  } catch {
    return [];
  }
  const out: unknown[] = [];
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    try {
      out.push(JSON.parse(raw));
    } catch {
      // a line cut short by a crash
    }
  }
  return out;
}

/** The archive folder's manifest: each archived session's latest line (by its archive's path), in order. */
export function readManifest(folder: string): Map<string, ManifestLine> {
  const out = new Map<string, ManifestLine>();
  for (const line of manifestLines(folder) as ManifestLine[]) {
    if (line && (line.action === "archive" || line.action === "restore") && typeof line.archive === "string" && typeof line.path === "string" && typeof line.sha256 === "string") out.set(line.archive, isAbsolute(line.path) ? line : { ...line, path: placeOfRelative(folder, line) });
  }
  return out;
}

/**
 * Where a session recorded by a relative path was (earlier versions recorded a file named so as
 * given, relative to the folder `archive` ran in, which no line says): its archive lies in the
 * folder as the session lay below the place it was archived from, so that place is the archive
 * folder's own parent (an OpenClaw root, a folder's own `archive/`) or a folder beside it (pi's
 * session directory), whichever holds the session's folder and ends as the recorded path does.
 * None found: the path as recorded, which `restore` refuses to write to.
 */
function placeOfRelative(folder: string, line: ManifestLine): string {
  const below = line.archive.replace(/\.zst$/, "");
  const tail = line.path.split(/[\\/]/).filter((p) => p !== "" && p !== "." && p !== "..").join(sep);
  const parent = dirname(folder);
  let beside: string[] = [];
  try {
    beside = readdirSync(parent, { withFileTypes: true }).filter((d) => d.isDirectory() && join(parent, d.name) !== folder).map((d) => join(parent, d.name));
  } catch {
    // (the parent unreadable: only itself is tried)
  }
  for (const root of [parent, ...beside]) {
    const was = join(root, below);
    if (was.endsWith(sep + tail) && isDir(dirname(was))) return was;
  }
  return line.path;
}

/** The folders an archive folder's manifest says sessions went to instead (`archive --to`). */
export function elsewhereOf(folder: string): string[] {
  const out = new Set<string>();
  for (const line of manifestLines(folder) as ElsewhereLine[]) if (line?.action === "elsewhere" && typeof line.folder === "string" && isAbsolute(line.folder)) out.add(line.folder);
  return [...out];
}

/** The archive folder a `.zst` in one lies in: the nearest folder above it with a manifest. */
export function archiveFolderHolding(archive: string): string | undefined {
  for (let dir = dirname(resolve(archive)); dir !== dirname(dir); dir = dirname(dir)) if (existsSync(join(dir, MANIFEST))) return dir;
  return undefined;
}

/** An archive folder that may hold sessions archived from a folder, and which of its sessions are that folder's. */
export interface ArchivePlace {
  folder: string;
  /** Every session in it was archived from the folder asked of; else only those its manifest says came from inside it. */
  whole: boolean;
  /** The archive folder whose manifest sent sessions here (`--to`); undefined: a folder the layout names. */
  recordedIn?: string;
}

/**
 * The archive folders that may hold sessions archived from `dir` (a store's root, or any folder of
 * sessions): where the layout puts them (its OpenClaw root's `archive/`; `archive/` beside it, as
 * pi's session directory has it, and beside the folder holding it, for a project folder of that
 * directory; `archive/` in it and in each of its folders, where sessions of those folders went), and the folders those record that `--to` took sessions to. Folders not
 * there are left out; `missing` are those a manifest names that are not there (a disk not mounted).
 */
export function archivePlacesOf(dir: string): { places: ArchivePlace[]; missing: Array<{ folder: string; recordedIn: string }> } {
  const full = resolve(dir);
  const places: ArchivePlace[] = [];
  const seen = new Set<string>();
  const add = (place: ArchivePlace) => {
    if (seen.has(place.folder) || place.folder === full || !isDir(place.folder)) return;
    seen.add(place.folder);
    places.push(place);
  };
  const claw = isDir(join(full, "agents")) ? full : openclawRootOf(join(full, "x"));
  if (claw) add({ folder: join(claw, "archive"), whole: claw === full });
  else {
    // (an archive folder is listed as itself, never as a folder that has an archive of its own)
    if (basename(full) === "archive" && isArchiveFolder(full)) return { places, missing: [] };
    if (dirname(full) !== full) add({ folder: join(dirname(full), "archive"), whole: false });
    // (a project folder of pi's session directory: its sessions went beside the directory, as archiveOf puts them)
    if (isProjectFolder(full) && !isRoot(dirname(full)) && !isRoot(dirname(dirname(full)))) add({ folder: join(dirname(dirname(full)), "archive"), whole: false });
    if (isArchiveFolder(join(full, "archive"))) add({ folder: join(full, "archive"), whole: true });
    for (const sub of subfolders(full)) if (isArchiveFolder(join(sub, "archive"))) add({ folder: join(sub, "archive"), whole: true });
  }
  const missing: Array<{ folder: string; recordedIn: string }> = [];
  for (const place of [...places]) {
    for (const folder of elsewhereOf(place.folder)) {
      if (!isDir(folder)) missing.push({ folder, recordedIn: place.folder });
      else add({ folder, whole: false, recordedIn: place.folder });
    }
  }
  return { places, missing };
}

/** The folders in `dir` (not an archive folder among them). */
function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== "archive")
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

/** Whether `path` lies inside `dir`. */
export const inside = (path: string, dir: string) => resolve(path).startsWith(resolve(dir) + sep);
