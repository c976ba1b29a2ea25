import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { currentRun } from "../common/run.js";
import { ARCHIVE, BACKUP, CHECKPOINT, isArchiveOrCopy, isTrajectory, liveName, names, sessionDirsOf, sessionIdOf, transcriptName } from "../common/openclaw-layout.js";
import { readKey, str, type StoreFacts } from "../common/store-facts.js";
import { isAlive } from "../../format/common/guards.js";

/*
 * OpenClaw's JSONL era (docs/stores.md, "OpenClaw's stores"), read from OpenClaw 2026.2 to 2026.7 and what
 * an SQLite-era store keeps of it: an agent's `sessions/` folder holds each transcript as a pi
 * session file (`<id>.jsonl`), the archives a reset or a delete leaves (`.jsonl.reset.<time>`,
 * `.jsonl.deleted.<time>`, since 2026.8 zstd-compressed: `.zst`), copies (`.jsonl.bak…`,
 * `.checkpoint.<id>.jsonl`) and `sessions.json`, which names each session (its key, label, channel,
 * who spawned it); a gateway writing a transcript holds `<file>.lock`.
 */

/** The transcripts in one OpenClaw `sessions/` folder, sorted (`archives`: with archives and copies). */
export function transcriptsIn(dir: string, archives = true): string[] {
  return names(dir)
    .filter((n) => transcriptName(n) && (archives || !isArchiveOrCopy(n)))
    .map((n) => `${dir}/${n}`)
    .filter((p) => !isTrajectory(p));
}

/**
 * The transcripts of the `sessions/` folders found that a FILE argument names: a session key
 * (`agent:main:main`: its transcript in the folder whose `sessions.json` holds it), else a session
 * id or the start of one. Live transcripts (`<id>.jsonl`) only; an archive or a copy where no live
 * transcript has the id.
 */
export function jsonlTranscriptsNamed(query: string, env: NodeJS.ProcessEnv): string[] {
  const dirs = sessionDirsOf(env);
  if (query.startsWith("agent:")) {
    return dirs.flatMap((dir) => {
      const ids = [...indexOf(dir)].filter(([, entries]) => entries.some((e) => e.key === query && !e.family)).map(([id]) => id);
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

/** The session ids of the live JSONL transcripts of the `sessions/` folders found (what completion offers). */
export function jsonlSessionIds(env: NodeJS.ProcessEnv): string[] {
  return sessionDirsOf(env).flatMap((dir) => names(dir).filter(liveName).map(sessionIdOf));
}

interface IndexEntry {
  key: string;
  /** The key names the session as one it had before (a reset's predecessor: `usageFamilySessionIds`, `previousSessionId`), not as its own now. */
  family?: boolean;
  label?: unknown;
  lastChannel?: unknown;
  spawnedBy?: unknown;
  origin?: { provider?: unknown } | null;
}

/** Each `sessions.json` read once in a run (a command's; `tail -f` begins again after each read): folder -> session id -> its entries there. */
class Indexes {
  readonly of = new Map<string, Map<string, IndexEntry[]>>();
  close(): void {
    this.of.clear();
  }
}

function indexOf(dir: string): Map<string, IndexEntry[]> {
  const indexes = currentRun().of("openclaw-jsonl", () => new Indexes()).of;
  let index = indexes.get(dir);
  if (index) return index;
  index = new Map();
  try {
    const raw = JSON.parse(readFileSync(join(dir, "sessions.json"), "utf8")) as Record<string, Record<string, unknown>>;
    const add = (id: string, entry: IndexEntry) => {
      const list = index!.get(id) ?? [];
      list.push(entry);
      index!.set(id, list);
    };
    // (a store's index names thousands of sessions: its keys walked, no pair made for each)
    for (const key in raw ?? {}) {
      if (!Object.hasOwn(raw, key)) continue;
      const v = raw[key];
      if (!v || typeof v !== "object") continue;
      const ids = new Set<string>();
      if (typeof v.sessionId === "string") ids.add(v.sessionId);
      if (typeof v.sessionFile === "string") ids.add(sessionIdOf(basename(v.sessionFile)));
      // (the fields read, not the whole entry copied: an entry has dozens, its skills' prompt among them)
      const { label, lastChannel, spawnedBy, origin } = v as Omit<IndexEntry, "key">;
      for (const id of ids) add(id, { key, label, lastChannel, spawnedBy, origin, family: false });
      // (since 2026.9, the sessions a key had before a reset or a rotation: its usage family, and the one before)
      if (!Array.isArray(v.usageFamilySessionIds) && typeof v.previousSessionId !== "string") continue;
      const before = [...(Array.isArray(v.usageFamilySessionIds) ? v.usageFamilySessionIds : []), v.previousSessionId].filter((id): id is string => typeof id === "string" && !ids.has(id));
      for (const id of new Set(before)) add(id, { key, label, lastChannel, spawnedBy, origin, family: true });
    }
  } catch {
    // no index, or one that does not read: the files say what they can
  }
  indexes.set(dir, index);
  return index;
}

/** A transcript in a `sessions/` folder: what the folder's `sessions.json` and its name say. */
export function jsonlFacts(path: string): StoreFacts {
  const dir = dirname(path);
  const name = basename(path);
  const id = sessionIdOf(name);
  const archive = ARCHIVE.exec(name);
  const copy = BACKUP.test(name) || CHECKPOINT.test(name);
  // (several keys name one session: a cron job's and its run's; the longest says the most. A
  // session no key names now is the key's that names it as one it had before a reset)
  const named = indexOf(dir).get(id) ?? [];
  const own = named.filter((e) => !e.family);
  const entries = own.length > 0 ? own : named;
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
    besideDatabase: false,
    cold: false,
  };
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
  return { lock, pid, live: isAlive(pid) && startedAt(pid, value.starttime) };
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

