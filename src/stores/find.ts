import { existsSync, statSync, type Stats } from "node:fs";
import { dirname, join, relative } from "node:path";
import { CliError, describeFsError } from "../errors.js";
import type { Others, Store } from "./common/store.js";
import { refOf } from "./open.js";
import { STORES } from "./registry.js";
import { archivePlacesOf, inside, readManifest, type ManifestLine } from "./archive.js";
import { storedVersion, v3Copy } from "./describe.js";

/*
 * Where sessions are and which files they are (docs/commands.md, "Commands"): needed before any session is
 * read (the parser's defaults, a warm `ls` that reads none), so kept apart from the format
 * library, which every other import of the readers loads (BENCHMARKS.md, "the format library at
 * start-up"). Each store says what it keeps (`STORES`); this puts them together.
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
  for (const store of STORES) {
    const others = othersThan(store, archives);
    const listed = store.list(dir, archives, others);
    if (listed) return listed;
  }
  return [];
}

/** What the stores but `store` say of a folder or a file inside one of its folders. */
function othersThan(store: Store, archives: boolean): Others {
  const rest = STORES.filter((s) => s !== store);
  const none: Others = { list: () => undefined, passOver: () => false, among: () => [] };
  const askedAmong = rest.filter((s) => s.among);
  return {
    list: (dir) => {
      for (const other of rest) {
        const listed = other.list(dir, archives, none);
        if (listed) return listed;
      }
      return undefined;
    },
    passOver: (path) => rest.some((s) => s.passOver?.(path) === true),
    among: (dir, names) => (askedAmong.length === 0 ? [] : askedAmong.flatMap((s) => s.among!(dir, names))),
  };
}

/** The session id a path names, as its store says (undefined: none). */
export function idOf(path: string): string | undefined {
  for (const store of STORES) {
    const id = store.idOf(path);
    if (id !== undefined) return id;
  }
  return undefined;
}

/**
 * Expands the arguments: files as given, directories into their session files. A directory that
 * holds none is added to `empty`; `origins` hears which directory each file came from (for
 * `--out`'s layout); `archives: false` leaves OpenClaw's archives and copies out of directories.
 */
export function expandInputs(args: string[], sessionDir: string, found: { empty?: string[]; origins?: Map<string, string>; named?: Map<string, string>; archives?: boolean; env?: NodeJS.ProcessEnv } = {}): string[] {
  const { empty = [], origins, named, archives = true, env } = found;
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
    } else {
      // (a session named by its id, a prefix or a key: `named` keeps how, for the commands said about it)
      const path = resolveInput(arg, sessionDir, env);
      if (named && path !== arg) named.set(path, arg);
      out.push(path);
    }
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
  if (ref.kind === "transcript" && existsSync(ref.container)) return inContainer(arg, ref);
  if (arg.includes("/") || arg.endsWith(".jsonl")) throw describeFsError(arg, Object.assign(new Error(), { code: "ENOENT" }));
  const byKey = arg.startsWith("agent:");
  const where = { piDir: dir, env };
  const matches = [...new Set(STORES.flatMap((s) => s.named(arg, where)))];
  const exact = matches.filter((f) => idOf(f) === arg);
  if (exact.length === 1 || matches.length === 1) return (exact[0] ?? matches[0])!;
  if (matches.length > 1) {
    // (the files named, so that one can be picked: copies and snapshots of a session share its id)
    const named = matches.slice(0, 4).map((f) => `${idOf(f)} in ${f}`).join(", ");
    const more = matches.length > 4 ? `, and ${matches.length - 4} more` : "";
    const oneId = new Set(matches.map(idOf)).size === 1;
    // (one session in several files: what each is, where that tells them apart: an agent-core
    // original pi cannot open, and the v3 copy migrate wrote of it)
    const what = (f: string) => (storedVersion(f) === undefined ? f : `${f} (agent-core's format 4${v3Copy(f)?.current ? ", migrated: pi opens its v3 copy" : ""})`);
    throw new CliError(oneId ? `session ${byKey ? "key" : "id"} \`${byKey ? arg : idOf(matches[0]!)}\` is in ${matches.length} files (${matches.slice(0, 4).map(what).join(", ")}${more}); give the file's path` : `session id prefix \`${arg}\` is ambiguous (${matches.length} sessions: ${named}${more}); give more characters, or the file's path`);
  }
  // (a session archived: where it went, and how it comes back, rather than "no such session")
  const archived = byKey ? undefined : archivedNamed(arg, dir, env);
  if (archived && archived.found.length > 0) throw new CliError(archivedMessage(arg, archived.found));
  const looked = env ? `${dir} or an OpenClaw store found ($OPENCLAW_STATE_DIR, ~/.openclaw; --session-dir names another store's root)` : dir;
  // (a database that could not be read was not searched: said, with why, or the session seems not to be)
  const unsearched = [...(env ? STORES.flatMap((s) => s.unsearched?.(env) ?? []) : []), ...(archived?.missing ?? []).map((f) => `${f} (an archive folder --to recorded, not there now)`)];
  const not = unsearched.length > 0 ? `; not searched: ${unsearched.join("; ")}` : "";
  throw new CliError(`${arg}: no such file, and no session ${byKey ? "key" : "id starting with it"} in ${looked}; run \`pi-session ls\` to find sessions${not}`);
}

/** What to say of a session id (or prefix) that names archived sessions only. */
function archivedMessage(arg: string, found: readonly ArchivedSession[]): string {
  const ids = [...new Set(found.map((f) => f.line!.id))];
  if (ids.length > 1) return `${arg}: no session of that id here, and it names ${ids.length} archived sessions (${ids.slice(0, 4).join(", ")}${ids.length > 4 ? ", …" : ""}); give more of the id, or run \`pi-session ls --archived\``;
  const { path, line } = found.at(-1)!;
  return `${arg}: archived on ${line!.time.slice(0, 10)} to ${path}; read-only commands read that path as it is, and \`pi-session restore ${ids[0]}\` puts it back where it was`;
}

/** A session in an archive folder: the archive's path, the folder, and what the manifest records of it (none: a `.zst` there no line names). */
export interface ArchivedSession {
  path: string;
  folder: string;
  line?: ManifestLine;
}

/**
 * The sessions archived from `dir` (a store's root, or any folder of sessions), wherever they went
 * (`archivePlacesOf`: beside it, in it, and where `--to` took them): what a folder's archive holds
 * for every command (`ls --archived`, `usage`, `grep`, `restore`, `show`, lineage). `missing`:
 * archive folders a manifest names that are not there now (a disk not mounted).
 */
export function archivedSessions(dir: string): { sessions: ArchivedSession[]; missing: Array<{ folder: string; recordedIn: string }> } {
  const { places, missing } = archivePlacesOf(dir);
  const sessions: ArchivedSession[] = [];
  const seen = new Set<string>();
  for (const place of places) {
    for (const held of archiveHolds(place.folder)) {
      // (a folder beside others' holds theirs too: only what its manifest says came from inside \`dir\`)
      if (seen.has(held.path) || !(place.whole || (held.line !== undefined && inside(held.line.path, dir)))) continue;
      seen.add(held.path);
      sessions.push(held);
    }
  }
  return { sessions, missing };
}

/** The sessions an archive folder holds, each with what its manifest records of it. */
export function archiveHolds(folder: string): ArchivedSession[] {
  const manifest = readManifest(folder);
  return listSessionFiles(folder).map((path) => {
    const line = manifest.get(relative(folder, path));
    return { path, folder, ...(line?.action === "archive" ? { line } : {}) };
  });
}

/**
 * The archived sessions of the stores found (pi's session directory, and with `env` OpenClaw's
 * roots) whose recorded id is `query` or starts with it; `missing`: archive folders recorded that
 * are not there now, where they might be.
 */
export function archivedNamed(query: string, piDir: string, env?: NodeJS.ProcessEnv): { found: ArchivedSession[]; missing: string[] } {
  const roots = env ? storeRoots(piDir, env, "all") : existsSync(piDir) ? [piDir] : [];
  const missing = new Set<string>();
  const found = roots.flatMap((root) => {
    const archived = archivedSessions(root);
    for (const m of archived.missing) missing.add(m.folder);
    return archived.sessions.filter((s) => s.line?.id != null && s.line.id.startsWith(query));
  });
  const exact = found.filter((s) => s.line!.id === query);
  return { found: exact.length > 0 ? exact : found, missing: [...missing] };
}

/**
 * A session of a container named `<container>#<id>`, where the id may be the start of one, as ids
 * are everywhere: the one session of that container it names; the name as given where none is
 * (the reader says what is wrong with it).
 */
function inContainer(arg: string, ref: { container: string; id: string }): string {
  const ids = (f: string) => {
    const r = refOf(f);
    return r.kind === "transcript" && r.container === ref.container ? r.id : undefined;
  };
  const held = listSessionFiles(dirname(ref.container)).filter((f) => ids(f)?.startsWith(ref.id));
  if (held.length === 0 || held.some((f) => ids(f) === ref.id)) return arg;
  if (held.length === 1) return held[0]!;
  const named = held.slice(0, 4).map(ids).join(", ");
  throw new CliError(`session id prefix \`${ref.id}\` is ambiguous in ${ref.container} (${held.length} sessions: ${named}${held.length > 4 ? `, and ${held.length - 4} more` : ""}); give more characters`);
}

/**
 * The session files of a store-wide command (`usage`, `grep`): files and directories given
 * (default: the session directory, every project), each once; `named`: those given one by one,
 * not found in a directory; `empty`: the directories given that hold no session file;
 * `archived`: the sessions archived from those directories (`archivedSessions`), among `files`
 * only with `archived` true; `missing`: archive folders recorded that are not there.
 */
export function storeInputs(
  inputs: readonly string[],
  sessionDir: string,
  env: NodeJS.ProcessEnv,
  store: StoreChoice = "all",
  archived = false,
): { files: string[]; named: Set<string>; empty: string[]; archived: string[]; missing: Array<{ folder: string; recordedIn: string }> } {
  const kept: string[] = [];
  const missing: Array<{ folder: string; recordedIn: string }> = [];
  const archiveOf = (dir: string) => {
    const found = archivedSessions(dir);
    missing.push(...found.missing);
    const paths = found.sessions.map((s) => s.path);
    kept.push(...paths);
    return archived ? paths : [];
  };
  if (inputs.length === 0) {
    // (no input: pi's session directory and every OpenClaw root found, as --store narrows them)
    const roots = storeRoots(sessionDir, env, store);
    if (roots.length === 0) throw new CliError(noStoreMessage(sessionDir, store));
    const listed = roots.map((root) => ({ root, files: listSessionFiles(root) }));
    const files = [...new Set([...listed.flatMap((l) => l.files), ...roots.flatMap(archiveOf)])];
    return { files, named: new Set(), empty: listed.filter((l) => l.files.length === 0).map((l) => l.root), archived: [...new Set(kept)], missing };
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
    const archivedHere = dir ? archiveOf(input) : [];
    // (a folder whose sessions are all archived is not empty to --archived)
    if (dir && found.length === 0 && archivedHere.length === 0) empty.push(input);
    for (const f of found) {
      files.add(f);
      if (!dir) named.add(f);
    }
    for (const f of archivedHere) files.add(f);
  }
  return { files: [...files], named, empty, archived: [...new Set(kept)], missing };
}

/** What to say of a directory given that holds no session file, with where pi keeps them when that is inside it. */
export function emptyDirectoryNote(dir: string): string {
  const stored = emptyStoreNote(dir);
  if (stored) return stored;
  const inner = join(dir, "sessions");
  const hint = existsSync(inner) ? `; pi keeps them in ${inner}: give that` : "";
  return `${dir}: no session files in it or in its project folders${hint}`;
}

/** What a store says of a folder of its own that holds no session file (OpenClaw's, whose transcripts are in its databases), or undefined. */
function emptyStoreNote(dir: string): string | undefined {
  for (const store of STORES) {
    const note = store.emptyNote?.(dir);
    if (note) return note;
  }
  return undefined;
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
  // (pi's directory first, as it always was listed)
  return [...new Set([...chosen(choice)].reverse().flatMap((s) => s.roots?.({ piDir, env }) ?? []))];
}

/**
 * The environment a command runs in, `--session-dir` given: where another store takes that
 * directory as its root (an OpenClaw state directory), the store finds it there, as it would
 * `$OPENCLAW_STATE_DIR`; else the environment as it is.
 */
export function sessionDirEnv(flag: string | undefined, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!flag) return env;
  for (const store of STORES) {
    const adopted = store.rootEnv?.(flag, env);
    if (adopted) return adopted;
  }
  return env;
}

/** The stores `--store` chooses. */
function chosen(choice: StoreChoice): readonly Store[] {
  return choice === "all" ? STORES : STORES.filter((s) => s.name === choice);
}

/** What to say when no store was found, naming where each was looked for. */
export function noStoreMessage(piDir: string, choice: StoreChoice): string {
  const looked = [...chosen(choice)].reverse().flatMap((s) => (s.lookedFor ? [s.lookedFor(piDir)] : []));
  const missing = looked.length === 1 ? `${looked[0]} is not there` : looked.length === 2 ? `neither ${looked[0]} nor ${looked[1]} is there` : `none of ${looked.slice(0, -1).join(", ")} or ${looked.at(-1)} is there`;
  return `no session store found: ${missing}; give session files or directories`;
}
