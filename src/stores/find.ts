import { existsSync, readdirSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { CliError, describeFsError } from "../errors.js";
import { isTrajectory, openclawSessionId } from "./common/openclaw-layout.js";
import { openclawRoots, openclawTranscripts, openclawTranscriptsNamed, unreadableDatabases } from "./openclaw/index.js";
import { idFromFileName, piSessionFiles } from "./pi/index.js";
import { refOf } from "./open.js";

/*
 * Where sessions are and which files they are (README, "Commands"): needed before any session is
 * read (the parser's defaults, a warm `ls` that reads none), so kept apart from the format
 * library, which every other import of the readers loads (BENCHMARKS.md, "the format library at
 * start-up"). Each store says what it keeps; this puts them together.
 */

export const STORE_CHOICES = ["pi", "openclaw", "all"] as const;
export type StoreChoice = (typeof STORE_CHOICES)[number];

/**
 * The session files of a directory, sorted: every `.jsonl` file directly in it and in its
 * project folders (`dir/--cwd--/*.jsonl`, pi's layout); for an OpenClaw root, or a folder inside
 * one, every transcript of its agents' `sessions/` folders, with archives and copies unless
 * `archives` is false (a writer leaves those alone unless named). A folder of such roots (OpenClaw
 * stores side by side) lists each. Trajectories are passed over.
 */
export function listSessionFiles(dir: string, archives = true): string[] {
  return openclawTranscripts(dir, archives) ?? piSessionFiles(dir, (inner) => openclawTranscripts(inner, archives), isTrajectory);
}

/**
 * Expands the arguments: files as given, directories into their session files. A directory that
 * holds none is added to `empty`; `origins` hears which directory each file came from (for
 * `--out`'s layout); `archives: false` leaves OpenClaw's archives and copies out of directories.
 */
export function expandInputs(args: string[], sessionDir: string, found: { empty?: string[]; origins?: Map<string, string>; archives?: boolean; env?: NodeJS.ProcessEnv } = {}): string[] {
  const { empty = [], origins, archives = true, env } = found;
  const out: string[] = [];
  for (const arg of args) {
    let isDir = false;
    try {
      isDir = arg !== "-" && statSync(arg).isDirectory();
    } catch {
      // not a directory: a file, an id, or missing (resolveInput says which)
    }
    if (isDir) {
      const files = listSessionFiles(arg, archives);
      if (files.length === 0) empty.push(arg);
      if (origins) for (const f of files) origins.set(f, arg);
      out.push(...files);
    } else out.push(resolveInput(arg, sessionDir, env));
  }
  return out;
}

/**
 * A command's FILE argument: a path, `-` for stdin, or a session id / unique id prefix looked up in
 * the session directory (as pi's `--session` does) and, given `env`, in the OpenClaw roots found,
 * where a session key (`agent:main:main`) names one too.
 */
export function resolveInput(arg: string, dir: string, env?: NodeJS.ProcessEnv): string {
  if (arg === "-") return arg;
  let st: Stats | undefined;
  try {
    st = statSync(arg);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw describeFsError(arg, error);
  }
  if (st) {
    if (st.isDirectory()) throw describeFsError(arg, Object.assign(new Error(), { code: "EISDIR" }));
    return arg;
  }
  // (a transcript in OpenClaw's database, as `ls` names it: the reader says what is wrong with it)
  const ref = refOf(arg);
  if (ref.kind === "transcript" && existsSync(ref.container)) return arg;
  if (arg.includes("/") || arg.endsWith(".jsonl")) throw describeFsError(arg, Object.assign(new Error(), { code: "ENOENT" }));
  let files: string[] = [];
  try {
    files = listSessionFiles(dir);
  } catch {
    // no session directory: fall through to OpenClaw's, then "not found"
  }
  const idOf = (f: string) => idFromFileName(f) ?? openclawSessionId(f);
  const byKey = arg.startsWith("agent:");
  const matches = [...files.filter((f) => idFromFileName(f)?.startsWith(arg)), ...(env ? openclawTranscriptsNamed(arg, env) : [])];
  const exact = matches.filter((f) => idOf(f) === arg);
  if (exact.length === 1 || matches.length === 1) return (exact[0] ?? matches[0])!;
  if (matches.length > 1) {
    // (the files named, so that one can be picked: copies and snapshots of a session share its id)
    const named = matches.slice(0, 4).map((f) => `${idOf(f)} in ${f}`).join(", ");
    const more = matches.length > 4 ? `, and ${matches.length - 4} more` : "";
    const oneId = new Set(matches.map(idOf)).size === 1;
    throw new CliError(oneId ? `session ${byKey ? "key" : "id"} \`${byKey ? arg : idOf(matches[0]!)}\` is in ${matches.length} files (${matches.slice(0, 4).join(", ")}${more}); give the file's path` : `session id prefix \`${arg}\` is ambiguous (${matches.length} sessions: ${named}${more}); give more characters, or the file's path`);
  }
  const where = env ? `${dir} or an OpenClaw store` : dir;
  // (a database that could not be read was not searched: said, with why, or the session seems not to be)
  const unsearched = env ? unreadableDatabases(env) : [];
  const not = unsearched.length > 0 ? `; not searched: ${unsearched.join("; ")}` : "";
  throw new CliError(`${arg}: no such file, and no session ${byKey ? "key" : "id starting with it"} in ${where}; run \`pi-session ls\` to find sessions${not}`);
}

/**
 * The session files of a store-wide command (`usage`, `grep`): files and directories given
 * (default: the session directory, every project), each once; `named`: those given one by one,
 * not found in a directory; `empty`: the directories given that hold no session file.
 */
export function storeInputs(inputs: readonly string[], sessionDir: string, env: NodeJS.ProcessEnv, store: StoreChoice = "all"): { files: string[]; named: Set<string>; empty: string[] } {
  if (inputs.length === 0) {
    // (no input: pi's session directory and every OpenClaw root found, as --store narrows them)
    const roots = storeRoots(sessionDir, env, store);
    if (roots.length === 0) throw new CliError(noStoreMessage(sessionDir, store));
    const listed = roots.map((root) => ({ root, files: listSessionFiles(root) }));
    return { files: [...new Set(listed.flatMap((l) => l.files))], named: new Set(), empty: listed.filter((l) => l.files.length === 0).map((l) => l.root) };
  }
  // (the files named one by one, as opposed to found in a directory: a file among them that holds no session is said to be left out)
  const named = new Set<string>();
  const files = new Set<string>();
  const empty: string[] = [];
  for (const input of inputs) {
    const found = expandInputs([input], sessionDir, { env });
    let dir = false;
    try {
      dir = input !== "-" && statSync(input).isDirectory();
    } catch {
      // a session id, or missing (expandInputs said which)
    }
    if (dir && found.length === 0) empty.push(input);
    for (const f of found) {
      files.add(f);
      if (!dir) named.add(f);
    }
  }
  return { files: [...files], named, empty };
}

/** What to say of a directory given that holds no session file, with where pi keeps them when that is inside it. */
export function emptyDirectoryNote(dir: string): string {
  const sqlite = sqliteStores(dir);
  if (sqlite.length > 0) return `${dir}: its live transcripts are in OpenClaw's database (${sqlite.join(", ")}), which only OpenClaw writes; read them with any read-only command, or take a file of one with \`pi-session cat ID > ID.jsonl\``;
  const inner = join(dir, "sessions");
  const hint = existsSync(inner) ? `; pi keeps them in ${inner}: give that` : "";
  return `${dir}: no session files in it or in its project folders${hint}`;
}

/** The SQLite stores newer OpenClaw releases keep transcripts in (`agents/<agent>/agent/openclaw-agent.sqlite`). */
export function sqliteStores(dir: string): string[] {
  const agents = join(dir, "agents");
  let names: string[];
  try {
    names = readdirSync(agents).sort();
  } catch {
    return [];
  }
  return names.map((a) => join(agents, a, "agent", "openclaw-agent.sqlite")).filter((p) => existsSync(p));
}

/** The files named one by one (`named`) that hold no session: a store-wide command says it left them out. */
export function namedNonSessions(files: ReadonlyArray<{ path: string; kind: string }>, named: ReadonlySet<string>): Array<{ file: string; reason?: string }> {
  return files.filter((f) => named.has(f.path) && (f.kind === "other" || f.kind === "event-stream")).map((f) => ({ file: f.path, ...(f.kind === "event-stream" ? { reason: "pi's --mode json event stream" } : {}) }));
}
/**
 * The stores a store-wide command reads when given no directory: pi's session directory and
 * every OpenClaw root found, as `choice` narrows them; a store that is absent is passed over.
 */
export function storeRoots(piDir: string, env: NodeJS.ProcessEnv, choice: StoreChoice): string[] {
  return [...(choice !== "openclaw" && isDir(piDir) ? [piDir] : []), ...(choice !== "pi" ? openclawRoots(env) : [])];
}

/** What to say when no store was found, naming where each was looked for. */
export function noStoreMessage(piDir: string, choice: StoreChoice): string {
  const pi = `pi's session directory (${piDir}; --session-dir, $PI_CODING_AGENT_SESSION_DIR or $PI_CODING_AGENT_DIR set it)`;
  const claw = "an OpenClaw root ($OPENCLAW_STATE_DIR, ~/.openclaw, ~/.clawdbot, ~/.moltbot, ~/.moldbot)";
  const missing = choice === "pi" ? `${pi} is not there` : choice === "openclaw" ? `no ${claw} is there` : `neither ${pi} nor ${claw} is there`;
  return `no session store found: ${missing}; give session files or directories`;
}


function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
