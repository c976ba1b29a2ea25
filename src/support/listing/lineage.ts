import { existsSync } from "node:fs";
import { basename, relative, resolve } from "node:path";
import { readHead } from "../../format/read/source.js";
import { archivedSessions, archiveFolderHolding, archiveOf, idFromFileName, listSessionFiles, openSource, readManifest, refOf, sessionIdOf, transcriptFacts } from "../../stores/index.js";
import type { SessionRow } from "../ls/rows.js";

/*
 * Which session came from which (`ls --tree`, `show`; docs/commands.md, "Lineage"): pi's
 * `parentSession` (its `/fork` and `/clone`, and `SessionManager.forkFrom`, record the session they
 * came from), OpenClaw's spawner (`spawnedBy`: the key of the session that spawned a sub-agent) and
 * a reset's predecessor (`replaces`: the session a reset replaced). A parent is found among the
 * sessions listed by its path, else by its id (an archived session is found where it went); one
 * that is not there is said (`missing`, or `unlisted` where its file is there but was not listed),
 * never guessed.
 */

export type Relation = "fork" | "spawned" | "reset";

export interface ParentLink {
  relation: Relation;
  /** The parent as the child names it: a path (fork), a key (spawned) or a session id (reset). */
  names: string;
  /** The parent's index among the rows, where it is one of them. */
  row?: number;
  /** Where it is not: gone (`missing`), or there but not among the rows listed (`unlisted`). */
  state: "found" | "missing" | "unlisted";
}

export interface Lineage {
  parents: Array<ParentLink | null>;
  children: number[][];
  /** The rows no listed parent holds, in the rows' order: the forest's roots. */
  roots: number[];
}

/** The session id a pi session path names (its file name, archived or not). */
const idOfPath = (path: string) => idFromFileName(basename(path).replace(/\.zst$/, ""));

/** What a session's lineage is read from: its row's path, id, pi's `parentSession` and its store's facts. */
export type LineageRow = Pick<SessionRow, "path" | "id" | "parentSession" | "spawnedBy" | "replaces" | "key" | "archived" | "copyOf"> & { archive?: { from: string | null } };

export function lineage(rows: readonly LineageRow[]): Lineage {
  const byPath = new Map<string, number>();
  const byId = new Map<string, number>();
  const byKey = new Map<string, number>();
  rows.forEach((r, i) => {
    byPath.set(resolve(r.path), i);
    byPath.set(resolve(r.path).replace(/\.zst$/, ""), i);
  });
  rows.forEach((r, i) => {
    // (an archive is found by the path it was archived from, as its manifest records: a child names
    // its parent's path, whatever the file was named; a session there now holds the path before it)
    const from = r.archive?.from;
    if (from && !byPath.has(resolve(from))) byPath.set(resolve(from), i);
    // (a live session holds its id and key before an archive or a copy of it)
    const live = !r.archived && !r.copyOf;
    if (r.id && (live || !byId.has(r.id))) byId.set(r.id, i);
    if (r.key && live) byKey.set(r.key, i);
  });
  const parents = rows.map((r, i): ParentLink | null => {
    let link: ParentLink | null = null;
    if (r.spawnedBy) link = found("spawned", r.spawnedBy, byKey.get(r.spawnedBy), undefined);
    else if (r.parentSession) {
      const id = idOfPath(r.parentSession);
      link = found("fork", r.parentSession, byPath.get(resolve(r.parentSession)) ?? (id !== undefined ? byId.get(id) : undefined), r.parentSession);
    } else if (r.replaces) link = found("reset", r.replaces, byId.get(r.replaces), undefined);
    // (a session is not its own parent: an archive of it, a copy)
    return link && link.row === i ? { ...link, row: undefined, state: "missing" } : link;
  });
  const children: number[][] = rows.map(() => []);
  parents.forEach((p, i) => {
    if (p?.row !== undefined) children[p.row]!.push(i);
  });
  // (a cycle of links has no root: each of its sessions is drawn as one)
  const reached = new Set<number>();
  const roots: number[] = [];
  const reach = (i: number) => {
    const stack = [i];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (reached.has(n)) continue;
      reached.add(n);
      stack.push(...children[n]!);
    }
  };
  parents.forEach((p, i) => {
    if (p?.row === undefined) {
      roots.push(i);
      reach(i);
    }
  });
  rows.forEach((_, i) => {
    if (!reached.has(i)) {
      roots.push(i);
      reach(i);
    }
  });
  return { parents, children, roots };
}

function found(relation: Relation, names: string, row: number | undefined, path: string | undefined): ParentLink {
  if (row !== undefined) return { relation, names, row, state: "found" };
  return { relation, names, state: path !== undefined && existsSync(path) ? "unlisted" : "missing" };
}

/**
 * A session's parent and children among the sessions of its store and what its store's archive
 * holds (an archived session's store is the one it was archived from): for `show`, without reading
 * every session whole (each one's header line and its store's facts).
 */
export function relatives(path: string, sessionDir: string): { parent: ParentLink | null; children: LineageRow[]; rowOf: (i: number) => LineageRow } {
  const { root } = archiveOf(archivedFrom(path) ?? path, sessionDir);
  const archived = archivedSessions(root).sessions;
  const fromOf = new Map(archived.map((s) => [s.path, s.line?.path ?? null]));
  const paths = [...new Set([...listSessionFiles(root), ...archived.map((s) => s.path), path])];
  const rows: LineageRow[] = paths.map((p) => {
    const facts = transcriptFacts(p, null);
    const header = headerOf(p);
    const from = fromOf.get(p) ?? (p === path ? archivedFrom(p) : undefined);
    return { path: p, id: sessionIdOf(p) ?? header?.id ?? null, parentSession: header?.parentSession ?? null, spawnedBy: facts.spawnedBy, replaces: facts.replaces, key: facts.key, archived: facts.archived, copyOf: facts.copyOf, ...(from ? { archive: { from } } : {}) };
  });
  const at = rows.findIndex((r) => r.path === path);
  const lin = lineage(rows);
  return { parent: lin.parents[at]!, children: lin.children[at]!.map((i) => rows[i]!), rowOf: (i) => rows[i]! };
}

/** Where an archived session was archived from, as its archive folder's manifest records (undefined: not an archive, or none records it). */
function archivedFrom(path: string): string | undefined {
  if (refOf(path).kind !== "archive") return undefined;
  const folder = archiveFolderHolding(path);
  const line = folder ? readManifest(folder).get(relative(folder, resolve(path))) : undefined;
  return line?.action === "archive" ? line.path : undefined;
}

/** A session file's header (its first line), where it has one: what a fork records of its parent. */
function headerOf(path: string): { id: string | null; parentSession: string | null } | undefined {
  if (refOf(path).kind === "transcript") return undefined;
  let first: string;
  try {
    if (path.endsWith(".zst")) {
      const source = openSource(path);
      try {
        first = source.read(0, Math.min(source.size, 65536)).toString("utf8");
      } finally {
        source.close();
      }
    } else first = readHead(path, 4096).toString("utf8");
    const h = JSON.parse(first.split("\n")[0]!) as { type?: unknown; id?: unknown; parentSession?: unknown };
    if (h?.type !== "session") return undefined;
    return { id: typeof h.id === "string" ? h.id : null, parentSession: typeof h.parentSession === "string" && h.parentSession !== "" ? h.parentSession : null };
  } catch {
    return undefined;
  }
}

/** A parent link as `--json` gives it (`ls --tree`, `show`): how it is related, whom it names, whether it was found, and the parent's id and path where it was. */
export function parentJson(link: ParentLink | null, rowOf: (i: number) => LineageRow): { relation: string; names: string; state: string; id?: string | null; path?: string } | null {
  if (!link) return null;
  const found = link.row !== undefined ? rowOf(link.row) : undefined;
  return { relation: link.relation, names: link.names, state: link.state, ...(found ? { id: found.id, path: found.path } : {}) };
}
