import { readHead } from "../../format/read/source.js";

/*
 * What a session file is to its owner (docs/stores.md, "OpenClaw's stores"): the facts a row of `ls`, a
 * group of `usage`, a match of `grep` carry.
 */

/** Which store family a session is in. */
type StoreFamily = "pi" | "openclaw";

/** What a session file is to its owner. For pi's own files every field but `store` is null. */
export interface StoreFacts {
  store: StoreFamily;
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
  /**
   * A live JSONL transcript left in `sessions/` beside its agent's database (the SQLite era): the
   * same session as the database's transcript, which OpenClaw reads now (its key and label are the
   * database's); what it holds that the database lacks is the verdict's (`openclaw-sqlite-lacks`).
   */
  besideDatabase: boolean;
  /** A database transcript in OpenClaw's cold storage: read from its archive (OpenClaw restores it before use). */
  cold: boolean;
}

export const PI_FACTS: StoreFacts = { store: "pi", agent: null, key: null, label: null, kind: null, job: null, channel: null, spawnedBy: null, archived: null, copyOf: null, source: null, replaces: null, notImported: false, besideDatabase: false, cold: false };

/** A key's kind, channel and cron job: `agent:<agent>:<rest>`. */
export function readKey(key: string): { kind: string | null; channel: string | null; job: string | null } {
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

export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** A cron run's first message: `[cron:<jobId> <name>] …` (what OpenClaw writes), for a transcript its index no longer names. */
function cronOf(text: string | null): { job: string; name: string } | undefined {
  const m = text ? /^\[cron:([^\s\]]+) ([^\]]*)\]/.exec(text) : null;
  return m ? { job: m[1]!, name: m[2]!.trim() } : undefined;
}

/**
 * An OpenClaw transcript's facts with what its first user message says where its index does not
 * name it (an archive): a cron run's `[cron:<job> <name>]`. `firstText` is that message where the
 * caller has it; else the file's first 64 KB are read for it.
 */
export function withCronFacts(facts: StoreFacts, path: string, firstText?: string | null): StoreFacts {
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

