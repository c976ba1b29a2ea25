import { readdirSync, readFileSync, statSync } from "node:fs";
import { readHead } from "../../format/read/source.js";
import { homedir } from "node:os";
import { agentDatabase, agentDatabasePath, databaseFacts, databaseSessionIds, databaseTranscripts, databaseTranscriptsNamed, DATABASE_NAME, transcriptRef } from "./openclaw-db.js";
import { basename, dirname, join, resolve, sep } from "node:path";

/*
 * OpenClaw's stores (README, "OpenClaw's stores"): OpenClaw embeds pi's session manager, so its
 * transcripts are pi session files, laid out as `<root>/agents/<agent>/sessions/<sessionId>.jsonl`
 * beside a `sessions.json` that names each one (its key, label, channel, who spawned it), archives
 * of reset and deleted transcripts, copies, traces and writers' locks. This module finds them and
 * says what each file is to its owner; reading a file stays the format library's.
 */

/** Which store a session file is in. */
type Store = "pi" | "openclaw";

export const STORE_CHOICES = ["pi", "openclaw", "all"] as const;
export type StoreChoice = (typeof STORE_CHOICES)[number];

/** OpenClaw's state directories: `$OPENCLAW_STATE_DIR`, `~/.openclaw`, and the names older releases used. */
function openclawRoots(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || homedir();
  const candidates = [...(env.OPENCLAW_STATE_DIR ? [resolve(env.OPENCLAW_STATE_DIR)] : []), ...[".openclaw", ".clawdbot", ".moltbot", ".moldbot"].map((n) => join(home, n))];
  return [...new Set(candidates)].filter((dir) => isDir(join(dir, "agents")));
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function names(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/**
 * The transcripts of the OpenClaw layout that `dir` is or is inside, sorted by agent (a root, its
 * `agents/`, one agent's folder: its database's, its `sessions/` folder's and its importer folder's;
 * a `sessions/`, `agent/` or importer folder itself: what that holds), or undefined when `dir` is
 * none of these. `archives`: with archives and copies (a writer leaves them, and the database,
 * alone unless named).
 */
export function openclawTranscripts(dir: string, archives = true): string[] | undefined {
  if (isDir(join(dir, "agents"))) return agentDirs(join(dir, "agents")).flatMap((a) => agentTranscripts(a, archives));
  const name = basename(dir);
  const parent = basename(dirname(dir));
  if (name === "agents") {
    const found = agentDirs(dir);
    return found.length > 0 ? found.flatMap((a) => agentTranscripts(a, archives)) : undefined;
  }
  if (parent === "agents" && isAgentDir(dir)) return agentTranscripts(dir, archives);
  if (basename(dirname(dirname(dir))) !== "agents") return undefined;
  if (name === "sessions") return transcriptsIn(dir, archives);
  if (name === "agent" && agentDatabasePath(dirname(dir))) return archives ? databaseTranscripts(join(dir, DATABASE_NAME)) : [];
  if (name === IMPORT_FOLDER) return archives ? importedTranscripts(dir) : [];
  return undefined;
}

/** What the importer moved aside (`agents/<agent>/session-sqlite-import-archive/`). */
const IMPORT_FOLDER = "session-sqlite-import-archive";

function isAgentDir(dir: string): boolean {
  return isDir(join(dir, "sessions")) || agentDatabasePath(dir) !== undefined || isDir(join(dir, IMPORT_FOLDER));
}

function agentDirs(agents: string): string[] {
  return names(agents)
    .map((a) => join(agents, a))
    .filter(isAgentDir);
}

/** One agent's transcripts: its database's live ones (and archives kept there only), then its `sessions/` folder's, then the importer's copies and what it set aside. */
function agentTranscripts(agentDir: string, archives: boolean): string[] {
  const db = agentDatabasePath(agentDir);
  return [
    ...(db && archives ? databaseTranscripts(db) : []),
    ...transcriptsIn(join(agentDir, "sessions"), archives),
    ...(archives ? importedTranscripts(join(agentDir, IMPORT_FOLDER)) : []),
  ];
}

/**
 * The transcripts in the importer's folder: each imported one's copy
 * (`agent_<key>.<id>.jsonl.imported-<ms>`), checkpoints
 * (`archive-tier.<id>.checkpoint.<uuid>.jsonl.imported-<ms>`) and what it did not import
 * (`archive-tier.<id>.jsonl.imported-<ms>`); not the old `sessions.json`, not trajectories.
 */
function importedTranscripts(dir: string): string[] {
  return names(dir)
    .filter((n) => IMPORTED.test(n) && !/\.trajectory\.jsonl\.imported-/.test(n))
    .map((n) => `${dir}/${n}`)
    .filter((p) => !isTrajectory(p));
}

/** A file the importer moved aside: `<what>.jsonl.imported-<ms>`. */
const IMPORTED = /\.jsonl\.imported-\d+$/;
/** What the importer did not import (`archive-tier.<id>.jsonl.imported-<ms>`): the only copy now. */
const SET_ASIDE = /^archive-tier\.([^.]+(?:\.[^.]+)*?)\.jsonl\.imported-\d+$/;
/** A checkpoint the importer moved aside. */
const IMPORTED_CHECKPOINT = /^archive-tier\.(.+?)\.checkpoint\.[^.]+\.jsonl\.imported-\d+$/;

/** A live transcript, an archive (`.jsonl.reset.<time>`, `.jsonl.deleted.<time>`), or a copy (`.jsonl.bak…`, `.checkpoint.<id>.jsonl`). */
const ARCHIVE = /\.jsonl\.(reset|deleted)\.[^/]+$/;
const BACKUP = /\.jsonl\.bak(?:[-.][^/]*)?$/;
const CHECKPOINT = /\.checkpoint\.[^/]+\.jsonl$/;

/** Whether a file name in a `sessions/` folder may hold a transcript (what it holds decides: `isTrajectory`). */
function transcriptName(name: string): boolean {
  return name.endsWith(".jsonl") || ARCHIVE.test(name) || BACKUP.test(name);
}

/** An archive or a copy: what a writer given a directory leaves alone (named, it is written). */
function isArchiveOrCopy(path: string): boolean {
  const name = basename(path);
  return ARCHIVE.test(name) || BACKUP.test(name) || CHECKPOINT.test(name);
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

/** The transcripts in one OpenClaw `sessions/` folder, sorted (`archives`: with archives and copies). */
function transcriptsIn(dir: string, archives = true): string[] {
  return names(dir)
    .filter((n) => transcriptName(n) && (archives || !isArchiveOrCopy(n)))
    .map((n) => `${dir}/${n}`)
    .filter((p) => !isTrajectory(p));
}

/**
 * The transcripts of every OpenClaw root found that a FILE argument names: a session key
 * (`agent:main:main`: its transcript in the folder whose `sessions.json` holds it), else a session
 * id or the start of one. Live transcripts (`<id>.jsonl`) only; an archive or a copy where no live
 * transcript has the id.
 */
export function openclawTranscriptsNamed(query: string, env: NodeJS.ProcessEnv): string[] {
  const dirs = sessionDirsOf(env);
  // (the database holds the live transcript: a JSONL of the same session beside it is older)
  const inDatabase = databasesOf(env).flatMap((db) => databaseTranscriptsNamed(db, query));
  if (inDatabase.length > 0) return inDatabase;
  if (query.startsWith("agent:")) {
    return dirs.flatMap((dir) => {
      const ids = [...indexOf(dir)].filter(([, entries]) => entries.some((e) => e.key === query)).map(([id]) => id);
      return ids.flatMap((id) => transcriptsOf(dir, id));
    });
  }
  const live = dirs.flatMap((dir) => names(dir).filter((n) => liveName(n) && n.startsWith(query)).map((n) => `${dir}/${n}`));
  if (live.length > 0) return live;
  return dirs.flatMap((dir) => names(dir).filter((n) => n.startsWith(query) && transcriptName(n) && isArchiveOrCopy(n)).map((n) => `${dir}/${n}`));
}

/** Session id -> the live transcript, else its archives and copies, in one `sessions/` folder. */
function transcriptsOf(dir: string, id: string): string[] {
  const all = names(dir).filter((n) => sessionIdOf(n) === id && transcriptName(n));
  const live = all.filter((n) => n === `${id}.jsonl`);
  return (live.length > 0 ? live : all).map((n) => `${dir}/${n}`);
}

/** The session ids of every live transcript in the OpenClaw roots found (what completion offers). */
export function openclawSessionIds(env: NodeJS.ProcessEnv): string[] {
  return [...new Set([...databasesOf(env).flatMap(databaseSessionIds), ...sessionDirsOf(env).flatMap((dir) => names(dir).filter(liveName).map(sessionIdOf))])];
}

/** Every `sessions/` folder of the OpenClaw roots found. */
function sessionDirsOf(env: NodeJS.ProcessEnv): string[] {
  return openclawRoots(env).flatMap((root) => agentDirs(join(root, "agents")).map((a) => join(a, "sessions")));
}

/** Why each agent database of the OpenClaw roots found cannot be read, a line each: what a search by id or key could not look in. */
export function unreadableDatabases(env: NodeJS.ProcessEnv): string[] {
  return databasesOf(env).flatMap((db) => {
    try {
      agentDatabase(db);
      return [];
    } catch (error) {
      return [(error as Error).message];
    }
  });
}

/** Every agent database of the OpenClaw roots found. */
function databasesOf(env: NodeJS.ProcessEnv): string[] {
  return openclawRoots(env).flatMap((root) => agentDirs(join(root, "agents")).flatMap((a) => agentDatabasePath(a) ?? []));
}

/** A live transcript's name (`<id>.jsonl`): not a checkpoint's, not a trajectory's. */
function liveName(name: string): boolean {
  return name.endsWith(".jsonl") && !CHECKPOINT.test(name) && !name.endsWith(".trajectory.jsonl");
}

/** The session id an OpenClaw transcript's name holds, or undefined for a file outside an OpenClaw `sessions/` folder. */
export function openclawSessionId(path: string): string | undefined {
  const dir = dirname(path);
  return basename(dir) === "sessions" && basename(dirname(dirname(dir))) === "agents" ? sessionIdOf(basename(path)) : undefined;
}

/** What a session file is to its owner. For pi's own files every field but `store` is null. */
export interface StoreFacts {
  store: Store;
  agent: string | null;
  /** The session key in `sessions.json` (`agent:main:cron:<job>:run:<run>`, …). */
  key: string | null;
  /** Its label (a cron job's `Cron: <name>`). */
  label: string | null;
  /** main, cron, direct, group, slash, subagent, … (from the key). */
  kind: string | null;
  /** The cron job's id, for a cron run. */
  job: string | null;
  channel: string | null;
  /** The key of the session that spawned it (a sub-agent's). */
  spawnedBy: string | null;
  /** A transcript archived by a reset or a delete (its requests were paid for). */
  archived: "reset" | "deleted" | null;
  /** A copy's session id (a `.bak`, a checkpoint, the importer's copy of what it imported): the same entries again. */
  copyOf: string | null;
  /** Where OpenClaw keeps it: its database (`sqlite`, since 2026.8) or a file (`jsonl`, and every archive). */
  source: "sqlite" | "jsonl" | null;
  /** The session this one replaced (a reset's, a rollover's), where the database says. */
  replaces: string | null;
  /** A transcript OpenClaw's importer set aside and did not import: the only copy of its entries. */
  notImported: boolean;
  /** A database transcript in OpenClaw's cold storage: read from its archive (OpenClaw restores it before use). */
  cold: boolean;
}

const PI_FACTS: StoreFacts = { store: "pi", agent: null, key: null, label: null, kind: null, job: null, channel: null, spawnedBy: null, archived: null, copyOf: null, source: null, replaces: null, notImported: false, cold: false };

interface IndexEntry {
  key: string;
  label?: unknown;
  lastChannel?: unknown;
  spawnedBy?: unknown;
  origin?: { provider?: unknown } | null;
}

/** Each `sessions.json` read once per process: session id -> its entries there. */
const indexes = new Map<string, Map<string, IndexEntry[]>>();

function indexOf(dir: string): Map<string, IndexEntry[]> {
  let index = indexes.get(dir);
  if (index) return index;
  index = new Map();
  try {
    const raw = JSON.parse(readFileSync(join(dir, "sessions.json"), "utf8")) as Record<string, Record<string, unknown>>;
    for (const [key, v] of Object.entries(raw ?? {})) {
      if (!v || typeof v !== "object") continue;
      const ids = new Set<string>();
      if (typeof v.sessionId === "string") ids.add(v.sessionId);
      if (typeof v.sessionFile === "string") ids.add(sessionIdOf(basename(v.sessionFile)));
      for (const id of ids) {
        const list = index.get(id) ?? [];
        list.push({ key, ...(v as Omit<IndexEntry, "key">) });
        index.set(id, list);
      }
    }
  } catch {
    // no index, or one that does not read: the files say what they can
  }
  indexes.set(dir, index);
  return index;
}

/** The session id a transcript's name holds (`<id>.jsonl`, `<id>.jsonl.reset.<time>`, `<id>.checkpoint.<u>.jsonl`). */
function sessionIdOf(name: string): string {
  const at = name.search(/\.(jsonl|checkpoint\.)/);
  return at > 0 ? name.slice(0, at) : name;
}

/** A key's kind, channel and cron job: `agent:<agent>:<rest>`. */
function readKey(key: string): { kind: string | null; channel: string | null; job: string | null } {
  const parts = key.split(":");
  if (parts[0] !== "agent" || parts.length < 3) return { kind: null, channel: null, job: null };
  const rest = parts.slice(2);
  if (rest[0] === "main") return { kind: "main", channel: null, job: null };
  if (rest[0] === "cron") return { kind: "cron", channel: null, job: rest[1] ?? null };
  if (rest[0] === "subagent") return { kind: "subagent", channel: null, job: null };
  if (rest.length >= 3) return { kind: rest[1]!, channel: rest[0]!, job: null };
  if (rest[0]!.startsWith("session-")) return { kind: "session", channel: null, job: null };
  return { kind: rest[0]!, channel: null, job: null };
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** What a file is: pi's (`store` "pi"), or an OpenClaw transcript with what its folder's `sessions.json` and its name say. */
function storeFacts(path: string): StoreFacts {
  const ref = transcriptRef(path);
  if (ref) return databaseStoreFacts(ref);
  const dir = dirname(path);
  if (basename(dir) === IMPORT_FOLDER && basename(dirname(dirname(dir))) === "agents") return importedFacts(path);
  if (basename(dir) !== "sessions" || basename(dirname(dirname(dir))) !== "agents") return PI_FACTS;
  const name = basename(path);
  const id = sessionIdOf(name);
  const archive = ARCHIVE.exec(name);
  const copy = BACKUP.test(name) || CHECKPOINT.test(name);
  // (several keys name one session: a cron job's and its run's; the longest says the most)
  const entries = indexOf(dir).get(id) ?? [];
  const entry = entries.slice().sort((a, b) => b.key.length - a.key.length)[0];
  const read = entry ? readKey(entry.key) : { kind: null, channel: null, job: null };
  return {
    store: "openclaw",
    agent: basename(dirname(dir)),
    key: entry?.key ?? null,
    label: str(entries.map((e) => e.label).find((l) => str(l))),
    kind: read.kind,
    job: read.job,
    channel: str(entry?.lastChannel) ?? str(entry?.origin?.provider) ?? read.channel,
    spawnedBy: str(entry?.spawnedBy),
    archived: archive ? (archive[1] as "reset" | "deleted") : null,
    copyOf: copy ? id : null,
    source: "jsonl",
    replaces: null,
    notImported: false,
    cold: false,
  };
}

/** A transcript in an agent's database: what `session_windows` and `session_nodes` say of it. */
function databaseStoreFacts(ref: { database: string; name: string }): StoreFacts {
  const facts = databaseFacts(ref);
  const key = facts?.key ?? null;
  const read = key ? readKey(key) : { kind: null, channel: null, job: null };
  return {
    store: "openclaw",
    agent: basename(dirname(dirname(ref.database))),
    key,
    label: facts?.label ?? null,
    kind: read.kind,
    job: read.job,
    channel: facts?.channel ?? read.channel,
    spawnedBy: facts?.spawnedBy ?? null,
    archived: facts?.archived ?? null,
    copyOf: null,
    source: "sqlite",
    replaces: facts?.previous ?? null,
    notImported: false,
    cold: facts?.cold ?? false,
  };
}

/** A file in the importer's folder: a copy of what it imported (its key in the name), or a transcript it set aside. */
function importedFacts(path: string): StoreFacts {
  const name = basename(path);
  const agent = basename(dirname(dirname(path)));
  const base = { ...PI_FACTS, store: "openclaw" as const, agent, source: "jsonl" as const };
  const copy = importedCopy(name);
  if (copy) {
    // the key, its ':' written '_': the database's own key for that session is exact
    const id = copy.id;
    const db = agentDatabasePath(dirname(dirname(path)));
    const facts = db ? databaseFacts({ database: db, name: id }) : undefined;
    const key = facts?.key ?? `agent_${copy.key}`.replace(/_/g, ":");
    const read = readKey(key);
    return { ...base, key, label: facts?.label ?? null, kind: read.kind, job: read.job, channel: facts?.channel ?? read.channel, spawnedBy: facts?.spawnedBy ?? null, copyOf: id };
  }
  const checkpoint = IMPORTED_CHECKPOINT.exec(name);
  if (checkpoint) return { ...base, copyOf: checkpoint[1]! };
  const aside = SET_ASIDE.exec(name);
  return aside ? { ...base, notImported: true } : base;
}

/**
 * What a session's likely byte-for-byte copies share (one agent, one session id, one size): a live
 * transcript in the database, the importer's copy of what it imported, and a live JSONL beside
 * them. Undefined for any other file. The store-wide readers compare such files' bytes and read
 * them once when they are the same (`runUnit` in workers/tasks.ts); a key is only a guess, and
 * never what decides.
 */
function twinKey(path: string, size: number | undefined): string | undefined {
  if (size === undefined || size === 0) return undefined;
  const ref = transcriptRef(path);
  // (an archive's name, `<id>.jsonl.reset.<time>`, is not a live transcript's)
  if (ref) return ref.name.includes(".jsonl") ? undefined : `${folderOf(dirname(ref.database)).agentDir}\n${ref.name}\n${size}`;
  const dir = dirname(path);
  const { agentDir, folder, inAgents } = folderOf(dir);
  if (!inAgents) return undefined;
  const name = path.slice(dir.length + 1);
  if (folder === IMPORT_FOLDER) {
    const copy = importedCopy(name);
    return copy ? `${agentDir}\n${copy.id}\n${size}` : undefined;
  }
  return folder === "sessions" && liveName(name) ? `${agentDir}\n${sessionIdOf(name)}\n${size}` : undefined;
}

/**
 * A folder's name, the agent's folder it is in, and whether that is in an `agents` folder: asked
 * of every file a store-wide read twins, all of a store's in a few folders (kept for those).
 */
function folderOf(dir: string): { folder: string; agentDir: string; inAgents: boolean } {
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
function importedCopy(name: string): { key: string; id: string } | undefined {
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

/**
 * The session a database transcript, the importer's copy of it, or a live JSONL beside it holds,
 * whatever their sizes (one agent, one session id): what `grep` reports each match of once.
 */
export function sessionGroup(path: string): string | undefined {
  // (passed over at once: a file in neither an agent's sessions/ nor the importer's folder)
  if (!path.includes("#") && !path.includes(`${sep}${IMPORT_FOLDER}${sep}`) && !path.includes(`${sep}sessions${sep}`)) return undefined;
  return twinKey(path, 1);
}

/** Jobs with their `twinKey`s; none when no path is a database transcript (a store of the JSONL era has no twins, and is spared the keys). */
export function withTwinKeys<T extends { path: string; stamp: { size: number } | undefined }>(jobs: T[]): Array<T & { twin?: string }> {
  if (!jobs.some((j) => transcriptRef(j.path) !== undefined)) return jobs;
  return jobs.map((j) => ({ ...j, twin: twinKey(j.path, j.stamp?.size) }));
}

/** A cron run's first message: `[cron:<jobId> <name>] …` (what OpenClaw writes), for a transcript its index no longer names. */
function cronOf(text: string | null): { job: string; name: string } | undefined {
  const m = text ? /^\[cron:([^\s\]]+) ([^\]]*)\]/.exec(text) : null;
  return m ? { job: m[1]!, name: m[2]!.trim() } : undefined;
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

/**
 * `storeFacts`, and for an OpenClaw transcript its index does not name (an archive), what its
 * first user message says: a cron run's `[cron:<job> <name>]`. `firstText` is that message where
 * the caller has it; else the file's first 64 KB are read for it.
 */
export function transcriptFacts(path: string, firstText?: string | null): StoreFacts {
  const facts = storeFacts(path);
  if (facts.store !== "openclaw" || facts.kind !== null) return facts;
  const cron = cronOf(firstText === undefined ? firstUserText(path) : firstText);
  return cron ? { ...facts, kind: "cron", job: cron.job, label: facts.label ?? `Cron: ${cron.name}` } : facts;
}

/** The text of the first user message in a file's first 64 KB, or null. */
function firstUserText(path: string): string | null {
  try {
    for (const line of readHead(path, 65536).toString("utf8").split("\n")) {
      if (!line.includes('"user"')) continue;
      try {
        const e = JSON.parse(line) as { type?: unknown; message?: { role?: unknown; content?: unknown } };
        if (e.type !== "message" || e.message?.role !== "user") continue;
        const c = e.message.content;
        if (typeof c === "string") return c;
        if (Array.isArray(c)) return (c as Array<{ type?: unknown; text?: unknown }>).map((b) => (b && b.type === "text" && typeof b.text === "string" ? b.text : "")).join("");
        return null;
      } catch {
        // a line cut by the 64 KB, or not JSON: the next
      }
    }
    return null;
  } catch {
    return null;
  }
}

/**
 * The process a transcript's lock names (`<file>.lock`, `{ pid, createdAt, starttime }`: an
 * OpenClaw gateway is writing it), and whether that process runs on this machine now: its pid is
 * alive and, where the lock gives `starttime`, started when the lock says (a pid reused since is
 * not the writer). Undefined: no lock, or one that names no pid.
 */
export function lockOf(path: string): { lock: string; pid: number; live: boolean } | undefined {
  const lock = `${path}.lock`;
  let value: { pid?: unknown; starttime?: unknown };
  try {
    value = JSON.parse(readFileSync(lock, "utf8")) as typeof value;
  } catch {
    return undefined;
  }
  const pid = value?.pid;
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return undefined;
  return { lock, pid, live: alive(pid) && startedAt(pid, value.starttime) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether `pid` started at `starttime` (clock ticks after boot, /proc/<pid>/stat's 22nd field); true when either is unknown. */
function startedAt(pid: number, starttime: unknown): boolean {
  if (typeof starttime !== "number") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[19]) === starttime;
  } catch {
    return true;
  }
}

/** Whether a file in `dir` may lack something its store holds: an agent's `sessions/` beside its database, or the importer's folder. */
function lacksPossible(dir: string): boolean {
  let possible = lacksByFolder.get(dir);
  if (possible === undefined) {
    possible = basename(dir) === IMPORT_FOLDER || (basename(dir) === "sessions" && basename(dirname(dirname(dir))) === "agents" && agentDatabasePath(dirname(dir)) !== undefined);
    lacksByFolder.set(dir, possible);
  }
  return possible;
}
const lacksByFolder = new Map<string, boolean>();

/** The names in a folder, read once a process (a store's `sessions/`, asked of each of its transcripts). */
function namesIn(dir: string): ReadonlySet<string> {
  let found = folderNames.get(dir);
  if (!found) folderNames.set(dir, (found = new Set(names(dir))));
  return found;
}
const folderNames = new Map<string, Set<string>>();

/**
 * What OpenClaw's database lacks of a file (README, "OpenClaw's SQLite era"): for a live JSONL
 * transcript (`sessions/<id>.jsonl`) whose agent's database holds the same session, the entries
 * the database's transcript does not (`ids`: the file's, with their lines); for a transcript the
 * importer set aside, that it is in no database. Undefined: neither.
 */
export function databaseLacks(path: string, ids: Iterable<{ id: string; line: number }>, idsOf: (path: string) => Set<string> | undefined): { code: "openclaw-sqlite-lacks" | "openclaw-not-imported" | "openclaw-jsonl-has-more"; line?: number; message: string } | undefined {
  const ref = transcriptRef(path);
  // (most files are in folders where none of this can be: said once a folder)
  if (!ref && !lacksPossible(dirname(path))) return undefined;
  if (ref) {
    // a database transcript: the live JSONL of its session, beside it, may hold more
    const sessions = join(dirname(dirname(ref.database)), "sessions");
    const name = `${databaseFacts(ref)?.sessionId ?? ref.name}.jsonl`;
    const jsonl = join(sessions, name);
    const inFile = namesIn(sessions).has(name) ? idsOf(jsonl) : undefined;
    if (!inFile) return undefined;
    const held = new Set([...ids].map((e) => e.id));
    const more = [...inFile].filter((id) => !held.has(id)).length;
    if (more === 0) return undefined;
    return { code: "openclaw-jsonl-has-more", message: `the live JSONL of this session, ${jsonl}, holds ${more} ${more === 1 ? "entry" : "entries"} this transcript lacks` };
  }
  const dir = dirname(path);
  const name = basename(path);
  if (basename(dir) === IMPORT_FOLDER && SET_ASIDE.test(name) && !IMPORTED_CHECKPOINT.test(name)) {
    return { code: "openclaw-not-imported", message: `OpenClaw's importer did not import this transcript (${SET_ASIDE.exec(name)![1]}): it is in no database, and this file is its only copy` };
  }
  if (basename(dir) !== "sessions" || basename(dirname(dirname(dir))) !== "agents" || !liveName(name)) return undefined;
  const db = agentDatabasePath(dirname(dir));
  if (!db) return undefined;
  const id = sessionIdOf(name);
  const held = idsOf(`${db}#${id}`);
  if (!held) return undefined;
  const missing = [...ids].filter((e) => !held.has(e.id));
  if (missing.length === 0) return undefined;
  const first = missing[0]!;
  return {
    code: "openclaw-sqlite-lacks",
    line: first.line,
    message: `${missing.length} ${missing.length === 1 ? "entry" : "entries"} of session ${id} (from line ${first.line}, entry ${first.id}) ${missing.length === 1 ? "is" : "are"} not in OpenClaw's database (${db}), which holds the live transcript now`,
  };
}
