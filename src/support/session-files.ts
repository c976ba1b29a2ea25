import { readdirSync, statSync, type Dirent } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { describeFsError } from "../errors.js";

/*
 * Where sessions are and which files they are: needed before any session is read (the parser's
 * defaults, a warm `ls` that reads none), so kept apart from the format library, which every
 * other import of input.ts loads (BENCHMARKS.md, "the format library at start-up").
 */

/** The session directory: `--session-dir`, else pi's environment variables, else `~/.pi/agent/sessions`. */
export function sessionDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return resolve(flag);
  if (env.PI_CODING_AGENT_SESSION_DIR) return resolve(env.PI_CODING_AGENT_SESSION_DIR);
  if (env.PI_CODING_AGENT_DIR) return resolve(env.PI_CODING_AGENT_DIR, "sessions");
  return join(homedir(), ".pi", "agent", "sessions");
}

/** Every `.jsonl` file directly in `dir` and in its project folders (`dir/--cwd--/*.jsonl`), sorted. */
export function listSessionFiles(dir: string): string[] {
  const out: string[] = [];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    throw describeFsError(dir, error);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
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
    if (isFile && entry.name.endsWith(".jsonl")) out.push(path);
    else if (isDir) {
      let inner: string[];
      try {
        inner = readdirSync(path);
      } catch {
        continue;
      }
      // A plain concatenation: `path` is already normal, and `join` per file is measurable with thousands.
      for (const f of inner.sort()) if (f.endsWith(".jsonl")) out.push(`${path}/${f}`);
    }
  }
  return out;
}

