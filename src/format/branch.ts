import { buildContext, type BuiltContext } from "./context.js";
import type { Session } from "./reader.js";
import type { AnyEntry } from "./types.js";

/** The entries from the root to `node` (pass two reads just these lines). */
export function pathEntries(session: Session, node: number): AnyEntry[] {
  return session.entries(session.tree.pathTo(node));
}

/** The context pi would rebuild with `node` as the leaf (`-1`: the empty context before any entry). */
export function contextAt(session: Session, node: number): BuiltContext {
  return buildContext(node === -1 ? [] : pathEntries(session, node));
}

export class EntryNotFoundError extends Error {
  constructor(
    readonly query: string,
    readonly candidates: string[] = [],
  ) {
    super(candidates.length > 1 ? `entry id prefix \`${query}\` is ambiguous: ${candidates.slice(0, 5).join(", ")}${candidates.length > 5 ? ", …" : ""}` : `no entry \`${query}\``);
  }
}

/** The node an entry id (or unique id prefix) names. */
export function resolveEntry(session: Session, query: string): number {
  const exact = session.nodeOf(query);
  if (exact !== undefined) return exact;
  const matches = session.nodesWithPrefix(query);
  if (matches.length === 1) return matches[0]!;
  throw new EntryNotFoundError(query, matches.map((n) => session.nodeRecord(n).id!));
}
