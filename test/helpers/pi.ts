/**
 * The oracle: pi 1.6's own session module, imported by path (its package entry needs Node 22; the
 * session module runs on Node 20). Never point it at a file we care about: `loadEntriesFromFile`
 * appends a newline to a file whose last line lacks one, and `SessionManager.open` rewrites old
 * versions in place. Tests hand it copies.
 */
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
