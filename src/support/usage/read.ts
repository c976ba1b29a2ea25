import { readFileUsage } from "../../format/usage/read.js";
import { UsageCollector, type FileUsage } from "../../format/usage/records.js";
import { storedUsage, type StoredRequest } from "../../stores/index.js";
import { readSessionFile, type FileFacts } from "../inputs/input.js";

/** One file of a usage report, as read (or as the usage cache kept it). */
export interface UsageFile extends FileFacts {
  usage: FileUsage;
}

const NO_USAGE = (): { usage: FileUsage } => ({ usage: { entries: new Float64Array(0), amounts: new Float64Array(0), blocks: new Float64Array(0), models: [], skipped: { requests: 0, cost: 0, lines: [] } } });

/**
 * A file's usage records (`readFileUsage`); a file that cannot be read is described, not thrown.
 * `-`: standard input. Where the session's store keeps what it used (agent-core's ledger), that
 * is its usage, not its messages' (`storedUsage`).
 */
export async function readUsage(path: string, stdin?: () => Promise<Buffer>): Promise<UsageFile> {
  const file = await readSessionFile(path, readFileUsage, NO_USAGE, stdin);
  if (path === "-" || file.kind === "unreadable") return file;
  const stored = storedUsage(path);
  return stored ? { ...file, usage: usageOf(stored) } : file;
}

/** A store's requests as a file's usage records. */
export function usageOf(requests: readonly StoredRequest[]): FileUsage {
  const collector = new UsageCollector(requests.length);
  for (const r of requests) collector.add(r.key, r.amounts, r.entryKey, r.time);
  return collector.result();
}
