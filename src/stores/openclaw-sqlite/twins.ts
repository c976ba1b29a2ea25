import { dirname, sep } from "node:path";
import { folderOf, IMPORT_FOLDER, importedCopy, liveName, sessionIdOf } from "../common/openclaw-layout.js";
import { transcriptRef } from "./ref.js";

/**
 * What a session's likely byte-for-byte copies share (one agent, one session id, one size): a live
 * transcript in the database, the importer's copy of what it imported, and a live JSONL beside
 * them. Undefined for any other file. The store-wide readers compare such files' bytes and read
 * them once when they are the same (`runUnit` in workers/tasks.ts); a key is only a guess, and
 * never what decides.
 */
function twinKey(path: string, size: number | undefined): string | undefined {
  if (size === undefined || size === 0) return undefined;
  const ref = transcriptRef(path);
  // (an archive's name, `<id>.jsonl.reset.<time>`, is not a live transcript's)
  if (ref) return ref.name.includes(".jsonl") ? undefined : `${folderOf(dirname(ref.database)).agentDir}\n${ref.name}\n${size}`;
  const dir = dirname(path);
  const { agentDir, folder, inAgents } = folderOf(dir);
  if (!inAgents) return undefined;
  const name = path.slice(dir.length + 1);
  if (folder === IMPORT_FOLDER) {
    const copy = importedCopy(name);
    return copy ? `${agentDir}\n${copy.id}\n${size}` : undefined;
  }
  return folder === "sessions" && liveName(name) ? `${agentDir}\n${sessionIdOf(name)}\n${size}` : undefined;
}

/**
 * The session a database transcript, the importer's copy of it, or a live JSONL beside it holds,
 * whatever their sizes (one agent, one session id): what `grep` reports each match of once.
 */
export function sessionGroup(path: string): string | undefined {
  // (passed over at once: a file in neither an agent's sessions/ nor the importer's folder)
  if (!transcriptRef(path) && !path.includes(`${sep}${IMPORT_FOLDER}${sep}`) && !path.includes(`${sep}sessions${sep}`)) return undefined;
  return twinKey(path, 1);
}

/** Jobs with their `twinKey`s; none when no path is a database transcript (a store of the JSONL era has no twins, and is spared the keys). */
export function withTwinKeys<T extends { path: string; stamp: { size: number } | undefined; twin?: string }>(jobs: T[]): T[] {
  if (!jobs.some((j) => transcriptRef(j.path) !== undefined)) return jobs;
  return jobs.map((j) => ({ ...j, twin: twinKey(j.path, j.stamp?.size) ?? j.twin }));
}

