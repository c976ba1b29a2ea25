import { BufferSource, readFileUsage, type FileKind, type FileUsage } from "../format/index.js";
import { CliError, describeFsError } from "../errors.js";
import { openSource } from "./input.js";
import { idFromFileName } from "./session-files.js";

/** One file of a usage report, as read (or as the usage cache kept it). */
export interface UsageFile {
  path: string;
  /** What the file is; "unreadable" with `error` when it could not be read. */
  kind: FileKind | "unreadable";
  error?: string;
  /** The header's id (else the id in pi's file name). */
  id: string | null;
  /** The header's timestamp. */
  created: string | null;
  cwd: string | null;
  usage: FileUsage;
}

const NO_USAGE = (): FileUsage => ({ entries: new Float64Array(0), amounts: new Float64Array(0), blocks: new Float64Array(0), models: [], skipped: { requests: 0, cost: 0, lines: [] } });

/** A file's usage records (`readFileUsage`); a file that cannot be read is described, not thrown. `-`: standard input. */
export async function readUsage(path: string, stdin?: () => Promise<Buffer>): Promise<UsageFile> {
  try {
    const source = path === "-" ? new BufferSource("<stdin>", await stdin!()) : openSource(path);
    try {
      const { header: h, kind, usage } = readFileUsage(source);
      return {
        path,
        kind,
        id: typeof h?.id === "string" ? h.id : (idFromFileName(path) ?? null),
        created: typeof h?.timestamp === "string" ? h.timestamp : null,
        cwd: typeof h?.cwd === "string" ? h.cwd : null,
        usage,
      };
    } finally {
      source.close();
    }
  } catch (error) {
    const message = error instanceof CliError ? error.message : describeFsError(path, error).message;
    return { path, kind: "unreadable", error: message, id: idFromFileName(path) ?? null, created: null, cwd: null, usage: NO_USAGE() };
  }
}
