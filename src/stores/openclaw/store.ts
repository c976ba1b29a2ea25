import { readdirSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { CliError, shellQuote } from "../../errors.js";
import { agentDatabasePath, DATABASE_NAME, IMPORT_FOLDER, isDatabaseFile, isDir, isTrajectory, openclawSessionId } from "../common/openclaw-layout.js";
import type { Keeper, Store } from "../common/store.js";
import { existsSync } from "node:fs";
import { lockOf } from "../openclaw-jsonl/index.js";
import { DatabaseError } from "../openclaw-sqlite/connection.js";
import { factsCachePath, FactsFolder } from "../openclaw-sqlite/facts-cache.js";
import { databaseLacks } from "../openclaw-sqlite/lacks.js";
import { TranscriptFollower } from "../openclaw-sqlite/follow.js";
import { transcriptRef } from "../openclaw-sqlite/ref.js";
import { databases, databasesIn } from "../openclaw-sqlite/run.js";
import { agentDatabase, databaseTranscripts, openDatabaseTranscript, transcriptStamp } from "../openclaw-sqlite/transcripts.js";
import { sessionGroup, withTwinKeys } from "../openclaw-sqlite/twins.js";
import { openclawRoots, openclawSessionIds, openclawTranscripts, openclawTranscriptsNamed, transcriptFacts, unreadableDatabases } from "./index.js";

/** OpenClaw's stores, both eras, as one store (docs/stores.md, "OpenClaw's stores"). */
export const openclawStore: Store = {
  name: "openclaw",
  lookedFor: () => "an OpenClaw root ($OPENCLAW_STATE_DIR, ~/.openclaw, ~/.clawdbot, ~/.moltbot, ~/.moldbot)",
  roots: ({ env }) => openclawRoots(env),
  rootEnv: (dir, env) => (isDir(join(dir, "agents")) ? { ...env, OPENCLAW_STATE_DIR: resolve(dir) } : undefined),
  list: (dir, archives) => openclawTranscripts(dir, archives),
  named: (query, { env }) => (env ? openclawTranscriptsNamed(query, env) : []),
  idOf: openclawSessionId,
  sessionIds: ({ env }) => openclawSessionIds(env),
  unsearched: unreadableDatabases,
  passOver: isTrajectory,
  ref(path) {
    const t = transcriptRef(path);
    return t ? { kind: "transcript", path, container: t.database, id: t.name } : undefined;
  },
  open(path) {
    const ref = transcriptRef(path);
    if (ref) {
      try {
        return openDatabaseTranscript(ref, path);
      } catch (error) {
        throw new CliError(error instanceof DatabaseError ? error.message : `${path}: ${(error as Error).message}`);
      }
    }
    if (!isDatabaseFile(path)) return undefined;
    let count: number;
    try {
      count = databaseTranscripts(path, false).filter((p) => p !== path).length;
      agentDatabase(path);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    throw new CliError(`${path}: OpenClaw's database of an agent's transcripts (${count} live), not one transcript; name one as ${path}#<session id>, by its id or key, or give the store's folder`);
  },
  stamp(path) {
    const ref = transcriptRef(path);
    return ref ? (transcriptStamp(ref) ?? null) : undefined;
  },
  follow(path, from) {
    const ref = transcriptRef(path);
    if (!ref) return undefined;
    try {
      return TranscriptFollower.start(ref, from);
    } catch (error) {
      throw new CliError(`${path}: ${(error as Error).message}`);
    }
  },
  facts(path, firstText) {
    const facts = transcriptFacts(path, firstText);
    return facts.store === "openclaw" ? facts : undefined;
  },
  lock: lockOf,
  keeper(path) {
    // (the SQLite era: an agent with a database is the gateway's to tidy, every file of it. Its
    // importer ties each file it set aside to its inode, size and hash (moved, \`openclaw doctor
    // --session-sqlite restore\` and \`openclaw update cleanup\` no longer know it), and a live
    // JSONL beside the database is what \`openclaw doctor --session-sqlite recover\` reads)
    if (transcriptRef(path) || isDatabaseFile(path)) return TRANSCRIPTS;
    const agent = agentOf(path);
    if (agent === undefined || !agentDatabasePath(agent)) return undefined;
    return resolve(path).startsWith(join(agent, IMPORT_FOLDER) + sep) ? IMPORTED : TRANSCRIPTS;
  },
  refusal(path, command) {
    const ref = transcriptRef(path);
    // (a fork writes a new session of its own, the transcript left as it is)
    if (!ref || command === "fork") return undefined;
    return `${path}: the transcript is in OpenClaw's database, which OpenClaw alone writes; nothing was written. For a file of it: \`pi-session cat ${shellQuote(ref.name)} > ${shellQuote(`${ref.name}.jsonl`)}\`, then \`pi-session ${command}\` that file`;
  },
  findings(path, ids, idsOf) {
    const lacks = databaseLacks(path, ids, idsOf);
    return lacks ? [lacks] : [];
  },
  withTwinKeys,
  group: sessionGroup,
  emptyNote(dir) {
    const found = sqliteStores(dir);
    return found.length > 0 ? `${dir}: its live transcripts are in OpenClaw's database (${found.join(", ")}), which only OpenClaw writes; read them with any read-only command, or take a file of one with \`pi-session cat ID > ID.jsonl\`` : undefined;
  },
  keep(run, env) {
    databasesIn(run).factsCache = env ? new FactsFolder(factsCachePath(env)) : undefined;
  },
  save(run) {
    databasesIn(run).saveFacts();
  },
  readAheadWithin(paths) {
    databases().readAheadWithin(paths);
  },
};

/** What OpenClaw retires of an agent with a database: its transcripts (in the database, and the files of its `sessions/`), and what its importer set aside. */
const TRANSCRIPTS: Keeper = { owner: "OpenClaw", what: "transcripts", command: "openclaw sessions cleanup" };
const IMPORTED: Keeper = { owner: "OpenClaw", what: "files the import left", command: "openclaw update cleanup" };

/** The agent's folder (`<root>/agents/<agent>`) a file lies in, if any. */
function agentOf(path: string): string | undefined {
  for (let dir = dirname(resolve(path)); dir !== dirname(dir); dir = dirname(dir)) if (basename(dirname(dir)) === "agents") return dir;
  return undefined;
}

/** The SQLite stores newer OpenClaw releases keep transcripts in (`agents/<agent>/agent/openclaw-agent.sqlite`). */
function sqliteStores(dir: string): string[] {
  const agents = join(dir, "agents");
  let names: string[];
  try {
    names = readdirSync(agents).sort();
  } catch {
    return [];
  }
  return names.map((a) => join(agents, a, "agent", DATABASE_NAME)).filter((p) => existsSync(p));
}
