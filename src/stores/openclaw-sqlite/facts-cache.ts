import { crypto } from "../../format/common/builtins.js";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BUILD } from "../../build-info.js";
import { sameStamp, type DatabaseStamp } from "./connection.js";
import type { Archive, Cold, DatabaseFacts, Summary, WindowFacts } from "./database.js";
import type { FactsCache } from "./run.js";
import { cacheFolder } from "../common/cache-folder.js";
import { isCount, isNumber, isString } from "../../format/common/guards.js";

/**
 * The facts cache: what an OpenClaw agent's database says of its transcripts without their rows
 * (each one's rows, bytes and newest row's time, its archives, what `session_windows` and
 * `session_nodes` say), kept by `ls` and `usage` in `$XDG_CACHE_HOME/pi-session/openclaw/`, a file
 * a database, keyed by its files' stamps (the database's and its log's size, modification time and
 * inode) and the build. A warm run over a store whose databases have not changed opens none of them:
 * each transcript's stamp, its row in `ls`, come from here and the `ls` and `usage` caches
 * (BENCHMARKS.md, "a database's facts kept"). Only facts read while the database's files were
 * still, and had been for a while, are kept (`saveDatabaseFacts`); a file that does not read back
 * whole, or another build's, is ignored and rewritten, never trusted. A database is known by its
 * absolute path: named relative to one folder in one run and absolute in the next, it is one file.
 */
const FACTS_VERSION = 2;
const MADE_BY = `${BUILD.version}+${BUILD.rules}`;

/** The file: the database's facts, a column a fact. */
interface Stored {
  version: number;
  build: string;
  path: string;
  stamp: DatabaseStamp;
  /** The transcripts with rows, in their order. */
  live: { id: string[]; rows: number[]; bytes: number[]; lastCreated: number[]; largestRow: number[] };
  /** Those in cold storage: each with its summary (`rows`, `bytes`, `lastCreated`). */
  colds: Array<Cold & { summary: Summary }>;
  archives: Archive[];
  windows: { id: string[]; facts: Array<Array<string | boolean | null>> } | null;
}

/** `WindowFacts`' fields, in the order a stored row holds them. */
const WINDOW_FIELDS = ["key", "label", "channel", "chatType", "spawnedBy", "previous", "reason", "current"] as const;

export function factsCachePath(env: NodeJS.ProcessEnv): string {
  return join(cacheFolder(env), "openclaw");
}

export class FactsFolder implements FactsCache {
  constructor(private readonly dir: string) {}

  private fileOf(absolute: string): string {
    return join(this.dir, `${crypto().createHash("sha256").update(absolute).digest("hex").slice(0, 32)}.json`);
  }

  load(path: string, stamp: DatabaseStamp): DatabaseFacts | undefined {
    const absolute = resolve(path);
    try {
      return decode(JSON.parse(readFileSync(this.fileOf(absolute), "utf8")) as Stored, absolute, stamp);
    } catch {
      // missing, torn, another build's: the database is read
      return undefined;
    }
  }

  save(path: string, stamp: DatabaseStamp, facts: DatabaseFacts): void {
    const live: Stored["live"] = { id: [], rows: [], bytes: [], lastCreated: [], largestRow: [] };
    for (const [id, s] of facts.summaries) {
      if (facts.colds.has(id)) continue;
      live.id.push(id);
      live.rows.push(s.rows);
      live.bytes.push(s.bytes);
      live.lastCreated.push(s.lastCreated);
      live.largestRow.push(s.largestRow);
    }
    const windows = facts.windows ? { id: [...facts.windows.keys()], facts: [...facts.windows.values()].map((w) => WINDOW_FIELDS.map((f) => w[f])) } : null;
    const absolute = resolve(path);
    const stored: Stored = { version: FACTS_VERSION, build: MADE_BY, path: absolute, stamp, live, colds: [...facts.colds.values()].map((c) => ({ ...c, summary: facts.summaries.get(c.sessionId)! })), archives: [...facts.archives.values()], windows };
    const file = this.fileOf(absolute);
    try {
      mkdirSync(this.dir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(stored));
      renameSync(tmp, file);
    } catch {
      // a read-only home: the next run reads the database again
    }
  }
}

const isStamp = (v: unknown): boolean => Array.isArray(v) && v.length === 3 && v.every(isNumber);

/** The facts a stored file holds for the database at `absolute` at `stamp`; throws where it holds anything else. */
function decode(s: Stored, absolute: string, stamp: DatabaseStamp): DatabaseFacts {
  if (s?.version !== FACTS_VERSION || s.build !== MADE_BY || s.path !== absolute) throw new Error("another database's or build's");
  if (!s.stamp || !isStamp(s.stamp.db) || !(s.stamp.wal === null || isStamp(s.stamp.wal)) || !sameStamp(s.stamp, stamp)) throw new Error("changed since");
  const { live } = s;
  const n = live.id.length;
  if (![live.rows, live.bytes, live.lastCreated, live.largestRow].every((c) => Array.isArray(c) && c.length === n)) throw new Error("corrupt");
  const summaries = new Map<string, Summary>();
  for (let i = 0; i < n; i++) {
    const id = live.id[i];
    if (!isString(id) || !isCount(live.rows[i]) || !isCount(live.bytes[i]) || !isNumber(live.lastCreated[i]) || !isCount(live.largestRow[i]) || summaries.has(id)) throw new Error("corrupt");
    summaries.set(id, { rows: live.rows[i]!, bytes: live.bytes[i]!, lastCreated: live.lastCreated[i]!, largestRow: live.largestRow[i]! });
  }
  const colds = new Map<string, Cold>();
  for (const { summary, ...c } of s.colds) {
    if (![c.sessionId, c.name, c.storage, c.sha256].every(isString) || ![c.bytes, c.events].every(isCount) || !isNumber(c.lastSeq) || summaries.has(c.sessionId)) throw new Error("corrupt");
    if (!isCount(summary?.rows) || !isCount(summary.bytes) || !isNumber(summary.lastCreated) || !isCount(summary.largestRow)) throw new Error("corrupt");
    colds.set(c.sessionId, c);
    summaries.set(c.sessionId, summary);
  }
  const archives = new Map<string, Archive>();
  for (const a of s.archives) {
    if (![a.name, a.sessionId, a.reason].every(isString) || typeof a.published !== "boolean") throw new Error("corrupt");
    archives.set(a.name, a);
  }
  let windows: Map<string, WindowFacts> | undefined;
  if (s.windows !== null) {
    const { id, facts } = s.windows;
    if (!Array.isArray(id) || !Array.isArray(facts) || id.length !== facts.length) throw new Error("corrupt");
    windows = new Map();
    for (let i = 0; i < id.length; i++) {
      const row = facts[i];
      if (!isString(id[i]) || !Array.isArray(row) || row.length !== WINDOW_FIELDS.length || !row.every((v, k) => (WINDOW_FIELDS[k] === "current" ? typeof v === "boolean" : v === null || isString(v)))) throw new Error("corrupt");
      windows.set(id[i]!, Object.fromEntries(WINDOW_FIELDS.map((f, k) => [f, row[k]])) as unknown as WindowFacts);
    }
  }
  return { summaries, archives, colds, windows };
}
