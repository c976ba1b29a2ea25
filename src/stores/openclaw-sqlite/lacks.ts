import { basename, dirname, join } from "node:path";
import type { Finding } from "../../format/check/findings.js";
import { agentDatabasePath, IMPORT_FOLDER, IMPORTED_CHECKPOINT, liveName, names, SET_ASIDE, sessionIdOf } from "../common/openclaw-layout.js";
import { transcriptPath, transcriptRef } from "./ref.js";
import { databaseFacts } from "./transcripts.js";

/**
 * This store's own findings (docs/reference.md, "Finding codes"): what OpenClaw's importer and database say of
 * a transcript beyond its lines. Keyed by every code, as the format library's are.
 */
type LacksCode = "openclaw-sqlite-lacks" | "openclaw-not-imported" | "openclaw-jsonl-has-more";

const LACKS_INFO = {
  "openclaw-sqlite-lacks": { severity: "error", hint: "OpenClaw reads only its database now: keep a copy of what it holds (`pi-session cat ID > ID.from-sqlite.jsonl`), then bring the rest in with `openclaw doctor --session-sqlite recover`", next: "openclaw doctor --session-sqlite recover" },
  "openclaw-jsonl-has-more": { severity: "warning", hint: "this transcript is sound; the live JSONL beside it holds history it lacks (an error there): `pi-session check` that file says which entries" },
  "openclaw-not-imported": { severity: "error", hint: "OpenClaw's importer set this transcript aside: it is in no database, and OpenClaw no longer reads it; keep the file, and see `openclaw doctor --session-sqlite recover`", next: "openclaw doctor --session-sqlite recover" },
} as const satisfies Record<LacksCode, { severity: Finding["severity"]; hint: string; next?: string }>;

function lacksFinding(code: LacksCode, message: string, line?: number): Finding {
  const info: { severity: Finding["severity"]; hint: string; next?: string } = LACKS_INFO[code];
  return { code, severity: info.severity, ...(line !== undefined ? { line } : {}), message, hint: info.hint, ...(info.next !== undefined ? { next: info.next } : {}) };
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
 * What OpenClaw's database lacks of a file (docs/stores.md, "OpenClaw's SQLite era"): for a live JSONL
 * transcript (`sessions/<id>.jsonl`) whose agent's database holds the same session, the entries
 * the database's transcript does not (`ids`: the file's, with their lines); for a transcript the
 * importer set aside, that it is in no database. Undefined: neither.
 */
export function databaseLacks(path: string, ids: Iterable<{ id: string; line: number }>, idsOf: (path: string) => Set<string> | undefined): Finding | undefined {
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
    return lacksFinding("openclaw-jsonl-has-more", `the live JSONL of this session, ${jsonl}, holds ${more} ${more === 1 ? "entry" : "entries"} this transcript lacks`);
  }
  const dir = dirname(path);
  const name = basename(path);
  if (basename(dir) === IMPORT_FOLDER && SET_ASIDE.test(name) && !IMPORTED_CHECKPOINT.test(name)) {
    return lacksFinding("openclaw-not-imported", `OpenClaw's importer did not import this transcript (${SET_ASIDE.exec(name)![1]}): it is in no database, and this file is its only copy`);
  }
  if (basename(dir) !== "sessions" || basename(dirname(dirname(dir))) !== "agents" || !liveName(name)) return undefined;
  const db = agentDatabasePath(dirname(dir));
  if (!db) return undefined;
  const id = sessionIdOf(name);
  const held = idsOf(transcriptPath(db, id));
  if (!held) return undefined;
  const missing = [...ids].filter((e) => !held.has(e.id));
  if (missing.length === 0) return undefined;
  const first = missing[0]!;
  return lacksFinding("openclaw-sqlite-lacks", `${missing.length} ${missing.length === 1 ? "entry" : "entries"} of session ${id} (from line ${first.line}, entry ${first.id}) ${missing.length === 1 ? "is" : "are"} not in OpenClaw's database (${db}), which holds the live transcript now`, first.line);
}
