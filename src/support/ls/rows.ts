import { type SessionStamp, idFromFileName, refOf, storedVersion, type StoreFacts } from "../../stores/index.js";
import { countBySeverity } from "../../format/check/findings.js";
import { Validator } from "../../format/check/validate.js";
import { CURRENT_VERSION, messageText, type AgentMessage } from "../../format/schema/types.js";
import { messageGist, sessionName } from "../../format/session/labels.js";
import { sessionTimes } from "../../format/session/times.js";
import { openPath, unreadableReason } from "../inputs/input.js";
import { sessionFindings } from "../inputs/verdict.js";

type SessionStatus = "ok" | "needs-migrate" | "migrated" | "invalid: 1 error" | `invalid: ${number} errors` | "unreadable" | typeof NOT_A_SESSION | typeof EVENT_STREAM;

/** A file in the session directory that holds no session: empty, or another JSONL file. */
const NOT_A_SESSION = "not a session";
/** pi's `--mode json` output, saved beside the sessions. */
const EVENT_STREAM = "not a session: pi's --mode json event stream";

/** A listed session; `ls` adds what its file is to its store (`StoreFacts`: pi's, or an OpenClaw transcript's key, label, kind, …). */
export interface SessionRow extends Partial<Omit<StoreFacts, "archived">> {
  /** Archived: by OpenClaw on a reset or a delete (`reset`, `deleted`), or into an archive folder by `pi-session archive` (`archive`, with `archive`'s details); null: not. */
  archived?: StoreFacts["archived"] | "archive";
  path: string;
  id: string | null;
  /** The session name, else the first user message. */
  title: string | null;
  cwd: string | null;
  created: string | null;
  /** ISO time of its last activity (`sessionTimes`: its last user/assistant message, never before its creation; else the file's mtime). */
  modified: string | null;
  messages: number;
  branches: number;
  size: number;
  version: number | null;
  /** The session it was forked or cloned from, as its header records it (pi's `parentSession`: a path), or null. */
  parentSession: string | null;
  /** `needs-migrate`: pi cannot open it as it is; `migrated`: nor as stored (agent-core's format 4), but its v3 copy (`v3Copy`) is up to date. */
  status: SessionStatus;
  /** A migrated session's v3 copy, the file pi opens (set as listed: the copy is another file). */
  v3Copy?: string;
  errors: number;
  /** A session in an archive `pi-session archive` wrote (`ls --archived`): its folder, when it was archived and from where (as its manifest records), and the archive's bytes (`size` is the session's). */
  archive?: { folder: string; from: string | null; archivedAt: string | null; compressed: number };
  /** Why a file is unreadable: one line naming it (never cached: an unreadable file is read again). */
  error?: string;
}

/** One session's row (`scanSession`, then `sessionRow`). */
export async function describeSession(path: string, stamp: SessionStamp | undefined): Promise<SessionRow> {
  return sessionRow(await scanSession(path), path, stamp);
}

/** What a session's bytes say for its row (a file byte for byte the same says the same), or why it cannot be read. */
export type ScannedSession = { facts: Omit<SessionRow, "path" | "id" | "size" | "modified">; headerId: string | null; activity: number; bytes?: number } | { error: string };

/** A session's row: what its bytes say (`scanSession`), with its path and stamp (size, and the time last activity falls back on; a compressed archive's size is the session's it holds). */
export function sessionRow(scanned: ScannedSession, path: string, stamp: SessionStamp | undefined): SessionRow {
  const size = ("bytes" in scanned ? scanned.bytes : undefined) ?? stamp?.size ?? 0;
  const mtime = stamp?.mtimeMs ?? 0;
  if ("error" in scanned) {
    return { path, id: idFromFileName(path) ?? null, title: null, cwd: null, created: null, modified: mtime ? new Date(mtime).toISOString() : null, messages: 0, branches: 0, size, version: null, parentSession: null, status: "unreadable", errors: 0, error: scanned.error };
  }
  const { title, cwd, created, messages, branches, version, parentSession, status, errors } = scanned.facts;
  const modified = Number.isNaN(scanned.activity) ? mtime : scanned.activity;
  return { path, id: scanned.headerId ?? idFromFileName(path) ?? null, title, cwd, created, modified: modified ? new Date(modified).toISOString() : null, messages, branches, size, version, parentSession, status, errors };
}

/**
 * What a session's bytes say for its row (`sessionRow`), from a skim of its lines: its status is
 * `check`'s verdict (the validator's findings, counted as `check` counts them), read from the
 * skeletons the scanner gives of its messages; only other entries and the first user message are
 * parsed. Its times are `sessionTimes`' (last activity never before creation). A file that cannot
 * be read is its error, naming `path`.
 */
export async function scanSession(path: string): Promise<ScannedSession> {
  let name: string | undefined;
  // (the row says the error count: the notes, which cost a read each, are left out)
  const validator = new Validator({ notes: false });
  try {
    const session = await openPath(path, {
      skim: true,
      skimUsage: false,
      onRecord: (entry, record) => {
        validator.onRecord(entry, record);
        if (entry.type === "session_info") name = sessionName(entry);
      },
    });
    try {
      const errors = countBySeverity(sessionFindings(session, validator, path)).error;
      const h = session.header;
      let messages = 0;
      let firstUser = -1;
      for (let node = 0; node < session.tree.size; node++) {
        const { type, role } = session.nodeKind(node);
        if (type !== "message") continue;
        messages++;
        if (role === "user" && firstUser < 0) firstUser = node;
      }
      let title = name;
      if (title === undefined && firstUser >= 0) {
        const m = session.entry(firstUser).message as AgentMessage | undefined;
        // (what the person wrote: an OpenClaw channel message without its envelope)
        title = (m && messageGist(messageText(m))) || undefined;
      }
      // (a session its store keeps in a form pi cannot open, agent-core's format 4: that version, and migrate)
      const stored = storedVersion(path);
      const version = stored ?? (h ? session.version : null);
      const kind = session.size === 0 ? "other" : session.fileKind;
      const status: SessionStatus =
        kind === "event-stream" ? EVENT_STREAM : kind === "other" ? NOT_A_SESSION : errors === 1 ? "invalid: 1 error" : errors > 0 ? `invalid: ${errors} errors` : version !== null && version !== CURRENT_VERSION && (stored !== undefined || version < CURRENT_VERSION) ? "needs-migrate" : "ok";
      return {
        headerId: typeof h?.id === "string" ? h.id : null,
        // (a compressed archive: the session's size is what it holds, not what the archive weighs)
        ...(refOf(path).kind === "archive" ? { bytes: session.size } : {}),
        // (NaN: neither a header's time nor a message's, and the file's mtime is its path's: `sessionRow`)
        activity: sessionTimes(session).lastActivity,
        facts: {
          // a title is a preview: the first 200 characters are plenty (and keep the cache small)
          title: title === undefined ? null : title.length > 200 ? title.slice(0, 200) : title,
          cwd: typeof h?.cwd === "string" ? h.cwd : null,
          created: typeof h?.timestamp === "string" ? h.timestamp : null,
          messages: kind === "session" ? messages : 0,
          branches: kind === "session" ? session.tree.leaves().length : 0,
          version,
          parentSession: typeof h?.parentSession === "string" && h.parentSession !== "" ? h.parentSession : null,
          status,
          errors,
        },
      };
    } finally {
      session.close();
    }
  } catch (error) {
    return { error: unreadableReason(path, error) };
  }
}
