import { readdirSync, statSync, type Dirent } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { readHead } from "../../format/read/source.js";
import { describeFsError } from "../../errors.js";
import type { Others } from "../common/store.js";
import { isArchiveFolder } from "../common/archive-folder.js";

/*
 * pi's own store (docs/commands.md, "Commands"): session files in the session directory, a folder a project
 * (`--<cwd>--/<timestamp>_<id>.jsonl`), as pi 1.6's `SessionManager` lays them out.
 */

/** The session directory: `--session-dir`, else pi's environment variables, else `~/.pi/agent/sessions`. */
export function sessionDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return resolve(flag);
  if (env.PI_CODING_AGENT_SESSION_DIR) return resolve(env.PI_CODING_AGENT_SESSION_DIR);
  if (env.PI_CODING_AGENT_DIR) return resolve(env.PI_CODING_AGENT_DIR, "sessions");
  return join(homedir(), ".pi", "agent", "sessions");
}

/**
 * The session files of a directory in pi's layout, sorted: every `.jsonl` file directly in it and
 * in its project folders (`dir/--cwd--/*.jsonl`), and what the other stores keep among each
 * folder's files (`others.among`: agent-core's databases); a folder that is not a project folder
 * is asked of the other stores first (another store laid out there: an OpenClaw root among pi's
 * folders), and a file another store passes over is no session (an OpenClaw trajectory). An
 * archive folder among them (`archive/`, its manifest) is passed over: what it holds is archived.
 */
export function piSessionFiles(dir: string, others: Others, archives = false): string[] {
  // (with archives: the sessions `archive` compressed too, `<name>.jsonl.zst`, in an archive folder laid out as pi's)
  const isSession = archives ? (name: string) => name.endsWith(".jsonl") || name.endsWith(".jsonl.zst") : (name: string) => name.endsWith(".jsonl");
  const out: string[] = [];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    throw describeFsError(dir, error);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const here: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        const st = statSync(path);
        isDir = st.isDirectory();
        isFile = st.isFile();
      } catch {
        continue;
      }
    }
    if (isFile) {
      here.push(entry.name);
      if (isSession(entry.name) && !others.passOver(path)) out.push(path);
    } else if (isDir) {
      // (an archive folder `archive` wrote holds sessions archived: `--archived` reads it, as itself)
      if (!entry.name.startsWith("--") && isArchiveFolder(path)) continue;
      // (a project folder of pi's is `--<cwd>--`; any other may be another store's root)
      const inner = entry.name.startsWith("--") ? undefined : others.list(path);
      if (inner) {
        out.push(...inner);
        continue;
      }
      let files: string[];
      try {
        files = readdirSync(path);
      } catch {
        continue;
      }
      // A plain concatenation: `path` is already normal, and `join` per file is measurable with thousands.
      for (const f of files.sort()) if (isSession(f) && !others.passOver(`${path}/${f}`)) out.push(`${path}/${f}`);
      out.push(...others.among(path, files));
    }
  }
  out.push(...others.among(dir, here));
  return out;
}

/**
 * The session id in a file name that follows pi's naming (`<timestamp>_<id>.jsonl`), or names the
 * v3 copy `migrate` writes beside a session pi cannot open as stored (`<timestamp>_<id>.v3.jsonl`).
 */
export function idFromFileName(path: string): string | undefined {
  const m = /^\d{4}-\d{2}-\d{2}T[\d-]+Z_(.+?)(?:\.v3)?\.jsonl$/.exec(basename(path));
  return m?.[1];
}

/** How much of a file's start is read for its header. */
const HEADER_BYTES = 16 * 1024;

/**
 * The session id a file's header gives (its first record, a `session` line), where the file can be
 * read and its header is whole within its first 16 KB; undefined otherwise. `ls` names every
 * session by its header, so a session in a file whose name is not pi's (a copy, a backup:
 * `earth-0__019ebb22.v3.jsonl`) is found by that id too.
 */
function headerIdOf(path: string): string | undefined {
  let head: Buffer;
  try {
    head = readHead(path, HEADER_BYTES);
  } catch {
    return undefined;
  }
  // (a byte-order mark and blank lines before it, as pi's reader passes them over)
  let start = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (start < head.length && (head[start] === 0x0a || head[start] === 0x0d || head[start] === 0x20)) start++;
  const end = head.indexOf(0x0a, start);
  if (end < 0 && head.length === HEADER_BYTES) return undefined;
  try {
    const value = JSON.parse(head.toString("utf8", start, end < 0 ? head.length : end)) as { type?: unknown; id?: unknown };
    return value?.type === "session" && typeof value.id === "string" && value.id !== "" ? value.id : undefined;
  } catch {
    return undefined;
  }
}

/** The session id of a file of pi's session directory: its name's where it is named as pi names it (pi writes the name from the header), else its header's. */
export function piSessionId(path: string): string | undefined {
  return idFromFileName(path) ?? headerIdOf(path);
}

/** How many sessions beside a file are read for the cwd they say. */
const SIBLINGS_READ = 64;

/**
 * The cwd the other sessions in `path`'s folder say (the most common), and how many say it (what
 * `repair` synthesizes a missing header's cwd from, first): pi
 * keeps one project's sessions in one folder, whose name encodes the cwd lossily (`-` stands for
 * `/`, `\\` and `:`), so what the sessions themselves say is the better source.
 */
export function cwdAround(path: string): { cwd: string; count: number } | undefined {
  let names: string[];
  try {
    names = readdirSync(dirname(path)).filter((n) => n.endsWith(".jsonl") && n !== basename(path)).sort().slice(0, SIBLINGS_READ);
  } catch {
    return undefined;
  }
  const counts = new Map<string, number>();
  for (const name of names) {
    try {
      const head = readHead(join(dirname(path), name), 16 * 1024);
      const end = head.indexOf(0x0a);
      const value = JSON.parse(head.toString("utf8", 0, end < 0 ? head.length : end)) as { type?: unknown; cwd?: unknown };
      if (value.type === "session" && typeof value.cwd === "string") counts.set(value.cwd, (counts.get(value.cwd) ?? 0) + 1);
    } catch {
      // not a session, or its header longer than the read: it says nothing
    }
  }
  let best: { cwd: string; count: number } | undefined;
  for (const [cwd, count] of counts) if (!best || count > best.count) best = { cwd, count };
  return best;
}

