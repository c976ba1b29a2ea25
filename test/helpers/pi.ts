/**
 * The oracle: pi 1.6 itself, through its package entry (`@earendil-works/pi-coding-agent`, and
 * pi-ai's `api/*` export for `transformMessages`). Two of what the tests call are not exported by
 * the entry, and are imported from the very modules it loads: `loadEntriesFromFile` (pi's file
 * loader) and the usage-totals functions. Never point pi at a file we care about:
 * `loadEntriesFromFile` appends a newline to a file whose last line lacks one, and
 * `SessionManager.open` rewrites old versions in place. Tests hand it copies.
 */
import * as sm from "@earendil-works/pi-coding-agent";
import { transformMessages } from "@earendil-works/pi-ai/api/transform-messages";
import { readFileSync } from "node:fs";
// @ts-expect-error: plain JS module without types at this path (not exported by the package entry)
import { loadEntriesFromFile } from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";
// @ts-expect-error: plain JS module without types at this path (not exported by the package entry)
import * as totals from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/usage-totals.js";

type Entry = Record<string, any>;

export const pi = { ...sm, loadEntriesFromFile } as unknown as {
  buildSessionContext(entries: Entry[], leafId?: string | null, byId?: Map<string, Entry>): { messages: any[]; thinkingLevel: string; model: any };
  buildContextEntries(entries: Entry[], leafId?: string | null, byId?: Map<string, Entry>): Entry[];
  migrateSessionEntries(entries: Entry[]): void;
  parseSessionEntries(content: string): Entry[];
  loadEntriesFromFile(path: string): Entry[];
  SessionManager: any;
  CURRENT_SESSION_VERSION: number;
};


/** What pi sends for a context: pi's `convertToLlm`, then pi-ai's `transformMessages` (no id normaliser: none is set for a same-provider request). */
export function piSent(messages: any[], model: { provider?: string; api?: string; id?: string; input?: string[] }): any[] {
  return transformMessages(sm.convertToLlm(messages) as any, { input: ["text", "image"], ...model } as any);
}

/** pi's own reading of a file: its parser (which, unlike its loader, also reads headerless files), then its migration; entries only. */
export function piEntries(path: string): Entry[] {
  const all = sm.parseSessionEntries(readFileSync(path, "utf8")) as Entry[];
  const objects = all.filter((e) => e && typeof e === "object" && !Array.isArray(e));
  if (objects.some((e) => e.type === "session")) sm.migrateSessionEntries(objects);
  return objects.filter((e) => e.type !== "session");
}

/** Whether pi's parent walk from `id` would loop forever (pi has no cycle guard). */
export function piWalkLoops(byId: Map<string, Entry>, id: string): boolean {
  const seen = new Set<string>();
  let cur = byId.get(id);
  while (cur) {
    if (seen.has(cur.id)) return true;
    seen.add(cur.id);
    cur = cur.parentId ? byId.get(cur.parentId) : undefined;
  }
  return false;
}

/** pi's cost breakdown (`/session`'s by-model table): key, cost and tokens, costliest first, zero rows left out. */
export const piUsageBreakdown = totals.getUsageCostBreakdown as (entries: Entry[]) => Array<{ key: string; cost: number; tokens: number }>;

export interface PiSessionStats {
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
}

/** pi's `AgentSession.getSessionStats` (its `/session` totals), pi's own method over `entries`. */
export function piSessionStats(entries: Entry[]): PiSessionStats {
  const self = { sessionManager: { getEntries: () => entries }, getContextUsage: () => undefined };
  return (sm.AgentSession.prototype.getSessionStats as (this: unknown) => PiSessionStats).call(self);
}

/** The provider's rule, read plainly: what breaks it in a sent list of messages. */
function broken(messages: any[]): string[] {
  const out: string[] = [];
  let open: Set<string> | undefined;
  const answered = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") {
      open = new Set((Array.isArray(m.content) ? m.content : []).filter((b: any) => b?.type === "toolCall").map((b: any) => b.id));
      answered.clear();
    } else if (m.role === "toolResult") {
      if (!open?.has(m.toolCallId)) out.push(`a result for ${m.toolCallId} after no call of it`);
      else if (answered.has(m.toolCallId)) out.push(`a second result for ${m.toolCallId}`);
      else answered.add(m.toolCallId);
    } else open = undefined;
  }
  return out;
}

/**
 * Each leaf of pi's reading of a file (entries without children, and the last entry: pi's current
 * leaf) whose context, as pi sends it, breaks the provider's pairing rule, with what breaks.
 */
export function sentBreaks(file: string): Map<string, string[]> {
  const entries = piEntries(file);
  const parents = new Set(entries.map((e) => e.parentId));
  const leaves = new Set(entries.filter((e) => !parents.has(e.id)).map((e) => e.id as string));
  if (entries.length > 0) leaves.add(entries[entries.length - 1]!.id);
  const out = new Map<string, string[]>();
  for (const leaf of leaves) {
    const context = pi.buildSessionContext(entries, leaf);
    const problems = broken(piSent(context.messages, { provider: context.model?.provider, id: context.model?.modelId }));
    if (problems.length > 0) out.set(leaf, problems);
  }
  return out;
}

/**
 * `sentBreaks` for a reader that applies no context edits: OpenClaw 2026.9.6 builds its contexts
 * itself and reads no `context_edit` entry (its package never names one), so an edit is an entry
 * of no effect there. Each edit is read as a `custom` entry (kept in the tree, sending nothing).
 */
export function sentBreaksWithoutEdits(file: string): Map<string, string[]> {
  const entries = piEntries(file).map((e) => (e.type === "context_edit" ? { ...e, type: "custom", customType: "context_edit" } : e));
  const parents = new Set(entries.map((e) => e.parentId));
  const leaves = new Set(entries.filter((e) => !parents.has(e.id)).map((e) => e.id as string));
  if (entries.length > 0) leaves.add(entries[entries.length - 1]!.id);
  const out = new Map<string, string[]>();
  for (const leaf of leaves) {
    const context = pi.buildSessionContext(entries, leaf);
    const problems = broken(piSent(context.messages, { provider: context.model?.provider, id: context.model?.modelId }));
    if (problems.length > 0) out.set(leaf, problems);
  }
  return out;
}

/** The leaves of entries as pi reads them (each entry no other names as its parent), and the path to each by the parent links (ids, root first). */
export function branches(entries: Entry[]): Map<string, string[]> {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const parents = new Set(entries.map((e) => e.parentId));
  const out = new Map<string, string[]>();
  for (const leaf of entries.filter((e) => !parents.has(e.id))) {
    const path: string[] = [];
    for (let e: Entry | undefined = leaf; e; e = e.parentId ? byId.get(e.parentId) : undefined) path.unshift(e.id);
    out.set(leaf.id, path);
  }
  return out;
}
