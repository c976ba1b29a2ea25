import { readFileUsage } from "../../format/usage/read.js";
import { UsageCollector, type FileUsage } from "../../format/usage/records.js";
import { storedUsage, type StoredRequest } from "../../stores/index.js";
import { readSessionFile, type FileFacts } from "../inputs/input.js";
import type { PriceOf } from "../../format/usage/prices.js";
import { priceBook } from "./prices.js";

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
export async function readUsage(path: string, stdin?: () => Promise<Buffer>, settings: UsageSettings = {}): Promise<UsageFile> {
  const { priceOf } = priceBook(settings.prices);
  const file = await readSessionFile(path, (source) => readFileUsage(source, priceOf), NO_USAGE, stdin);
  if (path === "-" || file.kind === "unreadable") return file;
  const stored = storedUsage(path);
  return stored ? { ...file, usage: usageOf(stored, priceOf) } : file;
}

/** How a usage read prices what has no cost recorded: the build's table, and the user's `--prices` file over it. */
export interface UsageSettings {
  prices?: string;
}

/** A store's requests as a file's usage records. */
export function usageOf(requests: readonly StoredRequest[], priceOf?: PriceOf): FileUsage {
  const collector = new UsageCollector(requests.length, priceOf);
  for (const r of requests) collector.add(r.key, r.amounts, r.entryKey, r.time, r.pricing);
  return collector.result();
}
