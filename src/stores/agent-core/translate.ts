import { isDeepStrictEqual } from "node:util";
import type { Format4Entry, Format4Session } from "./format4.js";

/*
 * A format-4 session as the lines of a pi v3 session (README.md beside this file), so that every
 * reader of this tool reads it as it reads pi's files, and `migrate` writes it for pi 1.6: each
 * branch's context, as pi 1.6's `buildSessionContext` builds it from these lines, is the one
 * agent-core's own `buildSessionContext` builds from the session.
 *
 * - Each entry keeps its id, its parent and its fields; its time is written as pi writes one.
 * - A turn agent-core leaves out of the context (an assistant message that ended `error`, `aborted`
 *   or `deferred`) is followed by a `context_edit` omitting it, its children moved under the edit.
 * - A compaction carries the messages it keeps (`retainedTail`); pi keeps the entries from
 *   `firstKeptEntryId`: that is the entry on the compaction's branch whose message starts the tail
 *   (found by comparing messages, as pi would build them, from the compaction back). A tail no
 *   branch entry starts is said (`unmatched`).
 * - Labels, the session's name, and where the current branch (`main`) stands: values in format 4,
 *   entries in v3. They are written last, one after another under `main`'s tip, so that pi's
 *   current leaf (its file's last entry) is that tip: where `main` has neither label nor name to
 *   carry and its tip is not the last entry, a label entry that sets none is written there.
 */

/** The branch pi resumes: agent-core's first lane. */
const CURRENT_BRANCH = "main";

/** A v3 entry written here that the session does not hold (an edit, a label, a name): its id, made from what it stands for. */
const madeId = (what: string, of: string) => `${of}:${what}`;

/** Stop reasons agent-core leaves out of the context (`isContextMessage` in its session/context.js). */
const LEFT_OUT = new Set(["error", "aborted", "deferred"]);

type Message = Record<string, unknown>;

function isLeftOut(message: unknown): boolean {
  const m = message as Message | null | undefined;
  return !!m && m.role === "assistant" && LEFT_OUT.has(m.stopReason as string);
}

/** What an entry contributes to a kept range as pi builds one from the v3 lines (`entryMessages`, with the omission edits). */
function keptMessages(entry: Format4Entry): Message[] {
  switch (entry.type) {
    case "message": {
      const m = entry.message as Message | null | undefined;
      if (!m || typeof m !== "object" || isLeftOut(m) || m.role === "system") return [];
      return [m];
    }
    case "branch_summary":
      return entry.summary ? [{ role: "branchSummary", summary: entry.summary, fromId: entry.fromId ?? null, timestamp: entry.timestamp }] : [];
    default:
      // (an older compaction in the kept range contributes nothing to pi; a custom entry nothing to either)
      return [];
  }
}

/** What the translation says of the session beyond its lines: compactions whose kept messages pi cannot be given. */
export interface Translation {
  lines: string;
  /** Compactions whose retained tail no entry of their branch starts: pi keeps from the closest, and the context differs. */
  unmatched: Array<{ id: string; kept: number; tail: number }>;
  /** How many entries the translation added (omission edits, labels, the name, the current leaf). */
  added: number;
  /** Line of the translation (1-based) -> the line of the session's file it comes from (0: none, a line the translation adds, or a database's). */
  sourceLines: Int32Array;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The entry on compaction `c`'s branch whose message, as pi keeps it, starts `c`'s retained tail
 * (the messages agent-core keeps of it); `id: null` where the tail keeps nothing. Where no entry
 * starts it, the closest that does start a part of it (`matched`: how many of the tail's last
 * messages pi keeps from there), else null.
 */
function firstKept(c: Format4Entry, byId: ReadonlyMap<string, Format4Entry>): { id: string | null; matched: number; tail: number } {
  const tail = (Array.isArray(c.retainedTail) ? (c.retainedTail as unknown[]) : []).filter((m) => !isLeftOut(m)) as Message[];
  let j = tail.length - 1;
  let closest: string | null = null;
  for (let at = c.parentId === null ? undefined : byId.get(c.parentId); at && j >= 0; at = at.parentId === null ? undefined : byId.get(at.parentId)) {
    const messages = keptMessages(at);
    let k = messages.length - 1;
    while (k >= 0 && j >= 0 && isDeepStrictEqual(messages[k], tail[j])) {
      k--;
      j--;
    }
    if (k >= 0) break;
    if (messages.length > 0) closest = at.id;
  }
  return { id: closest, matched: tail.length - 1 - j, tail: tail.length };
}

/** The session as v3 lines (see the top of this file). */
export function translate(session: Format4Session): Translation {
  const byId = new Map(session.entries.map((e) => [e.id, e]));
  const out: string[] = [];
  const header: Record<string, unknown> = { type: "session", version: 3, id: session.id, timestamp: iso(session.createdAt), cwd: session.cwd ?? "" };
  if (session.legacyParentSessionPath !== null) header.parentSession = session.legacyParentSessionPath;
  out.push(JSON.stringify(header));
  const sources: number[] = [0, 1];
  // an entry's children hang under the edit that follows it, where one does
  const parentOf = new Map<string, string>();
  const unmatched: Translation["unmatched"] = [];
  let added = 0;
  let last: string | null = null;
  let latest = session.createdAt;
  for (const entry of session.entries) {
    const { id, parentId, seq: _seq, timestamp, type, ...fields } = entry;
    const parent = parentId === null ? null : (parentOf.get(parentId) ?? parentId);
    const v3: Record<string, unknown> = { type, id, parentId: parent, timestamp: iso(timestamp) };
    if (type === "compaction") {
      const { retainedTail: _tail, ...rest } = fields;
      const kept = firstKept(entry, byId);
      if (kept.matched < kept.tail) unmatched.push({ id, kept: kept.matched, tail: kept.tail });
      Object.assign(v3, { summary: rest.summary, firstKeptEntryId: kept.id ?? id }, rest);
    } else if (type === "branch_summary") {
      Object.assign(v3, fields, { fromId: fields.fromId ?? null });
    } else Object.assign(v3, fields);
    out.push(JSON.stringify(v3));
    sources.push(session.lineOf.get(id) ?? 0);
    last = id;
    latest = Math.max(latest, timestamp);
    if (type === "message" && isLeftOut(entry.message)) {
      const edit = madeId("omitted", id);
      out.push(JSON.stringify({ type: "context_edit", id: edit, parentId: id, timestamp: iso(timestamp), targetId: id, replacement: null }));
      sources.push(session.lineOf.get(id) ?? 0);
      parentOf.set(id, edit);
      last = edit;
      added++;
    }
  }
  // labels, the name, and the current branch's tip: written last, under that tip
  const tip = session.tips.get(CURRENT_BRANCH);
  let at: string | null = tip === undefined ? last : tip === null ? null : (parentOf.get(tip) ?? tip);
  const chain: Array<Record<string, unknown>> = [];
  for (const [target, label] of session.labels) if (byId.has(target)) chain.push({ type: "label", id: madeId("label", target), targetId: target, label });
  if (session.name !== undefined) chain.push({ type: "session_info", id: madeId("name", session.id), name: session.name });
  // (where main stands elsewhere than the last entry with nothing to carry there: a label entry that
  // sets none; before the first entry (a tip of null), one with no parent, whose context is empty)
  if (chain.length === 0 && at !== last && session.entries.length > 0) chain.push({ type: "label", id: madeId("current", at ?? session.id), targetId: at ?? session.entries[0]!.id });
  for (const entry of chain) {
    out.push(JSON.stringify({ type: entry.type, id: entry.id, parentId: at, timestamp: iso(latest), ...Object.fromEntries(Object.entries(entry).filter(([k]) => k !== "type" && k !== "id")) }));
    sources.push(0);
    at = entry.id as string;
    added++;
  }
  return { lines: `${out.join("\n")}\n`, unmatched, added, sourceLines: Int32Array.from(sources) };
}
