import { relative, resolve } from "node:path";
import type { CommandContext } from "../../command.js";
import { CliError, describeFsError, shellQuote } from "../../errors.js";
import { BufferSource, type ByteSource } from "../../format/read/source.js";
import type { FileKind, SessionHeader } from "../../format/schema/types.js";
import { openSessionBuffer, Session, type OpenOptions } from "../../format/session/session.js";
import { sizeHint } from "./memory.js";
import { idFromFileName, openSource as storedSource, resolveInput } from "../../stores/index.js";

/**
 * Opens a resolved path, or `-` (standard input, from `stdin`), turning file-system errors into
 * one-line messages.
 */
export async function openPath(path: string, options: OpenOptions = {}, stdin?: () => Promise<Buffer>, as?: SourceAs): Promise<Session> {
  if (path === "-") {
    if (!stdin) throw new CliError("- (standard input) is not read here; give a file");
    const bytes = await stdin();
    sizeHint(bytes.length);
    return as ? Session.open(as(new BufferSource("<stdin>", bytes)), options) : openSessionBuffer("<stdin>", bytes, options);
  }
  let copy: ByteSource | undefined;
  try {
    const stored = openSource(path);
    if (as) {
      try {
        copy = as(stored);
      } finally {
        stored.close();
      }
    }
    return Session.open(copy ?? stored, options);
  } catch (error) {
    copy?.close();
    throw error instanceof CliError ? error : describeFsError(path, error);
  }
}

/** What a session's bytes are read as, instead of themselves (`export --redact`: its redacted copy, under its name). */
export type SourceAs = (source: ByteSource) => ByteSource;

/**
 * A session's bytes as stored (the store's: a file's, a `.zst` archive's decompressed, a transcript's
 * rows in OpenClaw's database), for a command about to read all of them: the heap is sized for it
 * (`sizeHint`). Every reader goes through here, so that none knows which it was.
 */
export function openSource(path: string): ByteSource {
  const source = storedSource(path);
  sizeHint(source.size);
  return source;
}

/** Opens a session for a read-only command: FILE as a path, `-` or a session id. */
export async function openInput(arg: string, ctx: Pick<CommandContext, "sessionDir" | "stdin" | "env">, options: OpenOptions = {}, as?: SourceAs): Promise<Session> {
  return openPath(resolveInput(arg, ctx.sessionDir, ctx.env), options, ctx.stdin, as);
}

/**
 * Refuses input that holds no session at all (empty, binary, pi's `--mode json` output, another
 * JSONL format): read-only commands other than `check` cannot show anything for it.
 */
export function requireSession(session: Session, sessionDir?: string): void {
  const name = session.name;
  if (session.size === 0) throw new CliError(`${name}: the file is empty; it holds no session (run \`pi-session check ${shellQuote(name)}\`)`);
  const kind = session.fileKind;
  if (kind === "session") return;
  if (kind === "event-stream") {
    // (where the file already lies among pi's sessions, sending the user there would be no help)
    const among = sessionDir !== undefined && name !== "<stdin>" && !relative(resolve(sessionDir), resolve(name)).startsWith("..");
    const where = among ? "pi never writes one into its session directory (a script saved it there), and its own sessions there are listed by `pi-session ls`" : `pi keeps its sessions in ${sessionDir ?? "~/.pi/agent/sessions"} (run \`pi-session ls\`)`;
    throw new CliError(`${name}:1: not a pi session file: pi's --mode json event stream (what \`pi --mode json\` prints); ${where}`);
  }
  const first = session.records.find((r) => r.kind !== "blank");
  const what =
    first?.kind === "invalid" ? "its lines are not JSON" : first?.kind === "entry" ? `its records (e.g. \`${first.type ?? "no type"}\`) have no session header and no entry ids` : "it has no session header";
  throw new CliError(`${name}:${first?.line ?? 1}: not a pi session file: ${what}; run \`pi-session check ${shellQuote(name)}\` for details`);
}

/** What every store-wide command says of a file it read: what it is and its header's facts. */
export interface FileFacts {
  path: string;
  /** What the file is; "unreadable" with `error` when it could not be read. */
  kind: FileKind | "unreadable";
  error?: string;
  /** The header's id (else the id in pi's file name). */
  id: string | null;
  /** The header's timestamp. */
  created: string | null;
  cwd: string | null;
}

/**
 * Reads a session file with `read` (`-`: standard input) and says what it is, with what `read`
 * found; a file that cannot be read is described (with `empty` as what was found), not thrown:
 * `usage` and `grep` go on with the other files.
 */
export async function readSessionFile<T>(path: string, read: (source: ByteSource) => { header: SessionHeader | null; kind: FileKind } & T, empty: () => T, stdin?: () => Promise<Buffer>): Promise<FileFacts & T> {
  try {
    const source = path === "-" ? new BufferSource("<stdin>", await stdin!()) : openSource(path);
    try {
      const { header: h, kind, ...found } = read(source);
      return { ...(found as unknown as T), path, kind, id: typeof h?.id === "string" ? h.id : (idFromFileName(path) ?? null), created: typeof h?.timestamp === "string" ? h.timestamp : null, cwd: typeof h?.cwd === "string" ? h.cwd : null };
    } finally {
      source.close();
    }
  } catch (error) {
    return { ...empty(), path, kind: "unreadable", error: unreadableReason(path, error), id: idFromFileName(path) ?? null, created: null, cwd: null };
  }
}

/** Why a session could not be read, in one line naming it (a database's own words, or the file system's). */
export function unreadableReason(path: string, error: unknown): string {
  return error instanceof CliError ? error.message : describeFsError(path, error).message;
}
