/**
 * The oracle: pi 1.6's own session module, imported by path (its package entry needs Node 22; the
 * session module runs on Node 20). Never point it at a file we care about: `loadEntriesFromFile`
 * appends a newline to a file whose last line lacks one, and `SessionManager.open` rewrites old
 * versions in place. Tests hand it copies.
 */
// @ts-expect-error: plain JS module without types at this path
import * as totals from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/usage-totals.js";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
// @ts-expect-error: plain JS module without types at this path
import * as piMessages from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/messages.js";
// @ts-expect-error: plain JS module without types at this path
import * as piTransform from "../../node_modules/@earendil-works/pi-ai/dist/api/transform-messages.js";
// @ts-expect-error: plain JS module without types at this path
import * as sm from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";

type Entry = Record<string, any>;

export const pi = sm as {
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
  return piTransform.transformMessages(piMessages.convertToLlm(messages), { input: ["text", "image"], ...model });
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

/**
 * pi's `AgentSession.getSessionStats` (its `/session` totals), run as pi wrote it: the module that
 * holds it cannot load on Node 20 (its HTTP client needs Node 22), so the method's own text is
 * taken from pi's file and run over `entries` with pi's usage-totals functions.
 */
export const piSessionStats: (entries: Entry[]) => PiSessionStats = (() => {
  const source = readFileSync(fileURLToPath(new URL("../../node_modules/@earendil-works/pi-coding-agent/dist/core/agent-session.js", import.meta.url)), "utf8");
  const start = source.indexOf("    getSessionStats() {");
  const end = source.indexOf("\n    }\n", start);
  if (start < 0 || end < 0) throw new Error("pi's getSessionStats was not found in agent-session.js");
  const method = source.slice(start, end + 6).trim();
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const make = new Function("createUsageTotals", "addUsageToTotals", `return function ${method}`) as (c: unknown, a: unknown) => (this: unknown) => PiSessionStats;
  const fn = make(totals.createUsageTotals, totals.addUsageToTotals);
  return (entries: Entry[]) => fn.call({ sessionManager: { getEntries: () => entries }, getContextUsage: () => undefined });
})();
