import { readFileUsage } from "../../format/usage/read.js";
import type { FileUsage } from "../../format/usage/records.js";
import { readSessionFile, type FileFacts } from "../inputs/input.js";

/** One file of a usage report, as read (or as the usage cache kept it). */
export interface UsageFile extends FileFacts {
  usage: FileUsage;
}

const NO_USAGE = (): { usage: FileUsage } => ({ usage: { entries: new Float64Array(0), amounts: new Float64Array(0), blocks: new Float64Array(0), models: [], skipped: { requests: 0, cost: 0, lines: [] } } });

/** A file's usage records (`readFileUsage`); a file that cannot be read is described, not thrown. `-`: standard input. */
export function readUsage(path: string, stdin?: () => Promise<Buffer>): Promise<UsageFile> {
  return readSessionFile(path, readFileUsage, NO_USAGE, stdin);
}
