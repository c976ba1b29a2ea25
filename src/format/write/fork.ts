import { crypto } from "../common/builtins.js";
import { join, resolve } from "node:path";
import { applyLabel } from "../session/labels.js";
import type { Session } from "../session/session.js";
import type { Finding } from "../check/findings.js";
import { CURRENT_VERSION, type AnyEntry } from "../schema/types.js";

/**
 * A new session from an existing one (`fork`): the whole tree, or with a leaf, only the
 * root -> leaf path with the labels on it re-created after it, as pi's `createBranchedSession`
 * does. Entries of v1/v2 sources are written upgraded (pi would copy them unmigrated under a v3
 * header, which pi then cannot read as a tree).
 */

export interface ForkOptions {
  /** The leaf node for a path-only fork; undefined for the whole tree. */
  leaf?: number;
  /** The new session's cwd (default: the source's). */
  cwd?: string;
  /** Absolute path of the source (the new header's `parentSession`). */
  sourcePath: string;
  /** For tests: fixed id and time. */
  id?: string;
  now?: Date;
}

export interface ForkPlan {
  header: Record<string, unknown>;
  /** Writes the entries (one JSON line each) through `write`; returns how many. */
  writeEntries: (write: (line: string) => void) => number;
}

/** pi's folder name for a cwd inside the sessions directory. */
export function sessionFolderName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** pi's file name for a session: `<timestamp with : and . as ->_<id>.jsonl`. */
export function sessionFileName(timestamp: string, id: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`;
}

/** Where pi would keep a new session of `cwd`. */
export function sessionPathFor(sessionsDir: string, cwd: string, timestamp: string, id: string): string {
  return join(sessionsDir, sessionFolderName(resolve(cwd)), sessionFileName(timestamp, id));
}

/**
 * What stops a fork, as it stops `migrate` and `slim`: a damaged line (torn, fused, not JSON) or
 * tree would be left out of the copy, where `repair` keeps what it holds (a fused line's records).
 */
export function forkBlocker(findings: readonly Finding[]): Finding | undefined {
  return findings.find((f) => f.severity === "error" && !f.causedBy && f.code !== "version-unsupported");
}

export function planFork(session: Session, options: ForkOptions): ForkPlan {
  const id = options.id ?? crypto().randomUUID();
  const timestamp = (options.now ?? new Date()).toISOString();
  const sourceCwd = typeof session.header?.cwd === "string" ? session.header.cwd : resolve(".");
  const header = { type: "session", version: CURRENT_VERSION, id, timestamp, cwd: options.cwd !== undefined ? resolve(options.cwd) : sourceCwd, parentSession: options.sourcePath };
  return { header, writeEntries: options.leaf === undefined ? (write) => writeWholeTree(session, write) : (write) => writeBranch(session, options.leaf!, id, write) };
}

/** The whole tree, in file order; v3 lines copied as they are, older ones as v3 entries. */
function writeWholeTree(session: Session, write: (line: string) => void): number {
  const legacy = session.version < CURRENT_VERSION;
  let n = 0;
  for (let node = 0; node < session.tree.size; node++) {
    write(legacy ? JSON.stringify(session.entry(node)) : session.nodeBytes(node).toString("utf8"));
    n++;
  }
  for (const move of session.leafMoves) {
    // harness leaf records are not tree nodes; keep them (in place would need a merge: after)
    write(JSON.stringify(session.loadRecord(session.record(move.index))));
    n++;
  }
  return n;
}

/**
 * The root -> leaf path: labels taken out of it, parents re-chained, a compaction's first kept
 * entry moved off a label that was taken out; then the labels on the path re-created after it.
 */
function writeBranch(session: Session, leaf: number, forkId: string, write: (line: string) => void): number {
  const kept: AnyEntry[] = [];
  const replacementByLabelId = new Map<string, string>();
  let pendingLabels: string[] = [];
  let parentId: string | null = null;
  for (const entry of session.entries(session.tree.pathTo(leaf))) {
    if (entry.type === "label") {
      pendingLabels.push(entry.id);
      continue;
    }
    for (const l of pendingLabels) replacementByLabelId.set(l, entry.id);
    pendingLabels = [];
    if (entry.type === "compaction") {
      const fk = entry.firstKeptEntryId as string;
      kept.push({ ...entry, parentId, firstKeptEntryId: fk === entry.id ? entry.id : (replacementByLabelId.get(fk) ?? fk) });
    } else {
      kept.push({ ...entry, parentId });
    }
    parentId = entry.id;
  }
  for (const e of kept) write(JSON.stringify(e));
  return kept.length + writeLabels(session, kept, forkId, write);
}

/**
 * The labels on the path's entries as pi resolves them over the whole session (last set wins, a
 * clear removes), in the order pi's map holds them, each a new label entry chained after the path
 * (ids derived from the fork's id: the same fork twice writes the same labels).
 */
function writeLabels(session: Session, kept: AnyEntry[], forkId: string, write: (line: string) => void): number {
  const labels = new Map<string, { label: string; timestamp: string }>();
  for (let node = 0; node < session.tree.size; node++) {
    if (session.nodeKind(node).type !== "label") continue;
    const e = session.entry(node);
    applyLabel(labels, e, (label) => ({ label, timestamp: e.timestamp }));
  }
  const onPath = new Set(kept.map((e) => e.id));
  let prev: string | null = kept[kept.length - 1]?.id ?? null;
  let n = 0;
  for (const [targetId, { label, timestamp: ts }] of labels) {
    if (!onPath.has(targetId)) continue;
    let labelId = "";
    for (let k = 0; !labelId || onPath.has(labelId); k++) labelId = crypto().createHash("sha256").update(`${forkId}:${targetId}:${k}`).digest("hex").slice(0, 8);
    onPath.add(labelId);
    write(JSON.stringify({ type: "label", id: labelId, parentId: prev, timestamp: ts, targetId, label }));
    prev = labelId;
    n++;
  }
  return n;
}
