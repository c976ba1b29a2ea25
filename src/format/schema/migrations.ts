import { crypto } from "../common/builtins.js";
import type { AgentMessage } from "./types.js";

/**
 * One pure function per migration step, as pi chains them: v1 -> v2 gives every entry an id and a
 * parent (the previous entry) and turns `firstKeptEntryIndex` into `firstKeptEntryId`; v2 -> v3
 * renames the message role `hookMessage` to `custom`. Each step returns a new object; keys keep
 * their order and new keys go last, as pi's in-place mutation leaves them.
 */

type Json = Record<string, unknown>;

export interface V1Links {
  id: string;
  parentId: string | null;
  /** Resolved target of `firstKeptEntryIndex`; `undefined` when it names the header or nothing. */
  firstKeptEntryId?: string | undefined;
}

/** v1 -> v2 for one non-header record. */
export function migrateEntryV1ToV2(entry: Json, links: V1Links): Json {
  const out: Json = { ...entry };
  out.id = links.id;
  out.parentId = links.parentId;
  if (out.type === "compaction") {
    if (typeof out.firstKeptEntryIndex === "number") {
      out.firstKeptEntryId = links.firstKeptEntryId;
      if (links.firstKeptEntryId === undefined && !("firstKeptEntryId" in entry)) delete out.firstKeptEntryId;
    }
    delete out.firstKeptEntryIndex;
  }
  return out;
}

/** v2 -> v3 for one non-header record. */
export function migrateEntryV2ToV3(entry: Json): Json {
  const message = entry.message as AgentMessage | undefined;
  if (entry.type !== "message" || !message || message.role !== "hookMessage") return entry;
  return { ...entry, message: { ...message, role: "custom" } };
}

export function migrateHeader(header: Json, version: number): Json {
  return { ...header, version };
}

/**
 * Deterministic 8-hex-char ids for v1 entries: derived from the session id and the line number, so
 * that migrating (or reading) the same file twice gives the same ids. **Beyond pi**, which draws
 * random ids. Collisions with ids already handed out are resolved by re-hashing with a counter.
 */
/** A v1 entry's id as first drawn (`V1IdAllocator`: before any collision is resolved). */
export function v1FirstId(sessionId: string, line: number): string {
  // (the one-shot digest: a Hash object a v1 entry was a third of reading a v1 file's ids)
  return crypto().hash("sha256", `${sessionId}:${line}`).slice(0, 8);
}

export class V1IdAllocator {
  private readonly taken = new Set<string>();

  constructor(private readonly sessionId: string) {}

  next(line: number): string {
    for (let attempt = 0; ; attempt++) {
      const id = attempt === 0 ? v1FirstId(this.sessionId, line) : crypto().hash("sha256", `${this.sessionId}:${line}:${attempt}`).slice(0, 8);
      if (!this.taken.has(id)) {
        this.taken.add(id);
        return id;
      }
    }
  }
}
