import { existsSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { readHead } from "../../format/read/source.js";

/*
 * OpenClaw's layout, as both its eras leave it (docs/stores.md, "OpenClaw's stores"): a root
 * (`$OPENCLAW_STATE_DIR`, else `~/.openclaw`, or older names) holds `agents/<agent>/` folders, each
 * with `sessions/` (transcripts as JSONL files, their archives and copies, `sessions.json`), since
 * 2026.8 `agent/openclaw-agent.sqlite` (the live transcripts as rows) and the importer's
 * `session-sqlite-import-archive/`. What a file's name says of it is said here; what its bytes say,
 * the format library says.
 */

/** OpenClaw's state directories: `$OPENCLAW_STATE_DIR`, `~/.openclaw`, and the names older releases used. */
export function openclawRoots(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || homedir();
  const candidates = [...(env.OPENCLAW_STATE_DIR ? [resolve(env.OPENCLAW_STATE_DIR)] : []), ...[".openclaw", ".clawdbot", ".moltbot", ".moldbot"].map((n) => join(home, n))];
  return [...new Set(candidates)].filter((dir) => isDir(join(dir, "agents")));
}

export function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function names(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** The database's name in an agent's folder (`agents/<agent>/agent/`). */
export const DATABASE_NAME = "openclaw-agent.sqlite";

/** What the importer moved aside (`agents/<agent>/session-sqlite-import-archive/`). */
export const IMPORT_FOLDER = "session-sqlite-import-archive";

export function isAgentDir(dir: string): boolean {
  return isDir(join(dir, "sessions")) || agentDatabasePath(dir) !== undefined || isDir(join(dir, IMPORT_FOLDER));
}

export function agentDirs(agents: string): string[] {
  return names(agents)
    .map((a) => join(agents, a))
    .filter(isAgentDir);
}

/** The database of an agent's folder, when it has one. */
export function agentDatabasePath(agentDir: string): string | undefined {
  if (databasesFound.has(agentDir)) return databasesFound.get(agentDir);
  const path = join(agentDir, "agent", DATABASE_NAME);
  const found = existsSync(path) ? path : undefined;
  databasesFound.set(agentDir, found);
  return found;
}

/** Agents' folders asked whether they have a database, and the answer (each transcript and copy asks of its agent's). */
const databasesFound = new Map<string, string | undefined>();

/** Whether `path` is an agent's database file itself. */
export function isDatabaseFile(path: string): boolean {
  return basename(path) === DATABASE_NAME && basename(dirname(path)) === "agent";
}

/** A file the importer moved aside: `<what>.jsonl.imported-<ms>`. */
export const IMPORTED = /\.jsonl\.imported-\d+$/;
/** What the importer did not import (`archive-tier.<id>.jsonl.imported-<ms>`): the only copy now. */
export const SET_ASIDE = /^archive-tier\.([^.]+(?:\.[^.]+)*?)\.jsonl\.imported-\d+$/;
/** A checkpoint the importer moved aside. */
export const IMPORTED_CHECKPOINT = /^archive-tier\.(.+?)\.checkpoint\.[^.]+\.jsonl\.imported-\d+$/;

/** A live transcript, an archive (`.jsonl.reset.<time>`, `.jsonl.deleted.<time>`), or a copy (`.jsonl.bak…`, `.checkpoint.<id>.jsonl`). */
export const ARCHIVE = /\.jsonl\.(reset|deleted)\.[^/]+$/;
export const BACKUP = /\.jsonl\.bak(?:[-.][^/]*)?$/;
export const CHECKPOINT = /\.checkpoint\.[^/]+\.jsonl$/;

/** Whether a file name in a `sessions/` folder may hold a transcript (what it holds decides: `isTrajectory`). */
export function transcriptName(name: string): boolean {
  return name.endsWith(".jsonl") || ARCHIVE.test(name) || BACKUP.test(name) || ARCHIVED.test(name);
}

/** A transcript `pi-session archive` compressed into an archive folder (`<id>.jsonl.zst`). */
const ARCHIVED = /\.jsonl\.zst$/;

/** An archive or a copy: what a writer given a directory leaves alone (named, it is written). */
export function isArchiveOrCopy(path: string): boolean {
  const name = basename(path);
  return ARCHIVE.test(name) || BACKUP.test(name) || CHECKPOINT.test(name) || ARCHIVED.test(name);
}

/**
 * An OpenClaw trajectory (`<id>.trajectory.jsonl`, `traceSchema: "openclaw-trajectory"`): a trace
 * of a run, not a session; every command passes over it without a word. Its name only says where
 * to look: its first line decides.
 */
export function isTrajectory(path: string): boolean {
  if (!path.endsWith(".trajectory.jsonl")) return false;
  try {
    const first = readHead(path, 2048).toString("utf8").split("\n")[0]!;
    return /"traceSchema"\s*:\s*"openclaw-trajectory"/.test(first);
  } catch {
    return false;
  }
}

/** Every `sessions/` folder of the OpenClaw roots found. */
export function sessionDirsOf(env: NodeJS.ProcessEnv): string[] {
  return openclawRoots(env).flatMap((root) => agentDirs(join(root, "agents")).map((a) => join(a, "sessions")));
}

/** Every agent database of the OpenClaw roots found. */
export function databasesOf(env: NodeJS.ProcessEnv): string[] {
  return openclawRoots(env).flatMap((root) => agentDirs(join(root, "agents")).flatMap((a) => agentDatabasePath(a) ?? []));
}

/** A live transcript's name (`<id>.jsonl`): not a checkpoint's, not a trajectory's. */
export function liveName(name: string): boolean {
  return name.endsWith(".jsonl") && !CHECKPOINT.test(name) && !name.endsWith(".trajectory.jsonl");
}

/** The session id an OpenClaw transcript's name holds, or undefined for a file outside an OpenClaw `sessions/` folder. */
export function openclawSessionId(path: string): string | undefined {
  const dir = dirname(path);
  return basename(dir) === "sessions" && basename(dirname(dirname(dir))) === "agents" ? sessionIdOf(basename(path)) : undefined;
}

/** The session id a transcript's name holds (`<id>.jsonl`, `<id>.jsonl.reset.<time>`, `<id>.checkpoint.<u>.jsonl`). */
export function sessionIdOf(name: string): string {
  const at = name.search(/\.(jsonl|checkpoint\.)/);
  return at > 0 ? name.slice(0, at) : name;
}

/**
 * A folder's name, the agent's folder it is in, and whether that is in an `agents` folder: asked
 * of every file a store-wide read twins, all of a store's in a few folders (kept for those).
 */
export function folderOf(dir: string): { folder: string; agentDir: string; inAgents: boolean } {
  let f = folders.get(dir);
  if (!f) {
    const agentDir = dirname(dir);
    f = { folder: basename(dir), agentDir, inAgents: basename(dirname(agentDir)) === "agents" };
    if (folders.size >= 1024) folders.clear();
    folders.set(dir, f);
  }
  return f;
}
const folders = new Map<string, { folder: string; agentDir: string; inAgents: boolean }>();

/**
 * An imported transcript's copy, `agent_<key, ':' as '_'>.<id>.jsonl.imported-<ms>`: its key as the
 * name writes it and its session id, or undefined for another name. (A pattern for it backtracks
 * over the whole name at each of a store's thousands of copies.)
 */
export function importedCopy(name: string): { key: string; id: string } | undefined {
  const tail = ".jsonl.imported-";
  const at = name.lastIndexOf(tail);
  if (!name.startsWith("agent_") || at < 0 || at + tail.length === name.length) return undefined;
  for (let i = at + tail.length; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  const dot = name.lastIndexOf(".", at - 1);
  // (a key of one character at least, and an id of one at least, without a dot)
  if (dot < "agent_".length + 1 || dot === at - 1) return undefined;
  return { key: name.slice("agent_".length, dot), id: name.slice(dot + 1, at) };
}

