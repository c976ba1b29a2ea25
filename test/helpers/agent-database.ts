/**
 * An OpenClaw agent's database made by a test: the three tables pi-session reads, with the columns
 * it reads of each (as schema 23 has them), at `<dir>/agents/main/agent/openclaw-agent.sqlite`.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { DatabaseSync } from "node:sqlite";
import { dirname, join } from "node:path";

const TABLES = `CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq)) STRICT;
  CREATE TABLE session_windows (session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL, previous_session_id TEXT, reason TEXT, channel TEXT, chat_type TEXT, spawned_by TEXT, display_name TEXT) STRICT;
  CREATE TABLE session_nodes (session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL, label TEXT, display_name TEXT, spawned_by TEXT) STRICT;`;

/** A new store under the system's temporary folder (`prefix` names it) and its agent's database, open to write (`wal`: in WAL mode, as a gateway keeps it). */
export function agentDatabase(prefix: string, wal = false): { root: string; path: string; db: DatabaseSync } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const path = join(root, "agents/main/agent/openclaw-agent.sqlite");
  mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec(`${wal ? "PRAGMA journal_mode = WAL;\n" : ""}${TABLES}`);
  return { root, path, db };
}
