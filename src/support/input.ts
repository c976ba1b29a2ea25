import { statSync, type Stats } from "node:fs";
import type { CommandContext } from "../command.js";
import { basename } from "node:path";
import { CliError, describeFsError, shellQuote } from "../errors.js";
import { FileSource, openSessionBuffer, Session, type OpenOptions } from "../format/index.js";
import { sizeHint } from "./memory.js";
import { listSessionFiles } from "./session-files.js";


/** Expands the arguments: files as given, directories into their session files. */
export function expandInputs(args: string[], sessionDir: string): string[] {
  const out: string[] = [];
  for (const arg of args) {
    let isDir = false;
    try {
      isDir = arg !== "-" && statSync(arg).isDirectory();
    } catch {
      // not a directory: a file, an id, or missing (resolveInput says which)
    }
    if (isDir) out.push(...listSessionFiles(arg));
    else out.push(resolveInput(arg, sessionDir));
  }
  return out;
}

/** The session id in a file name that follows pi's naming (`<timestamp>_<id>.jsonl`). */
export function idFromFileName(path: string): string | undefined {
  const m = /^\d{4}-\d{2}-\d{2}T[\d-]+Z_(.+)\.jsonl$/.exec(basename(path));
  return m?.[1];
}

/**
 * A command's FILE argument: a path, `-` for stdin, or a session id / unique id prefix looked up in
 * the session directory (as pi's `--session` does).
 */
function resolveInput(arg: string, dir: string): string {
  if (arg === "-") return arg;
  let st: Stats | undefined;
  try {
    st = statSync(arg);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw describeFsError(arg, error);
  }
  if (st) {
    if (st.isDirectory()) throw describeFsError(arg, Object.assign(new Error(), { code: "EISDIR" }));
    return arg;
  }
  if (arg.includes("/") || arg.endsWith(".jsonl")) throw describeFsError(arg, Object.assign(new Error(), { code: "ENOENT" }));
  let files: string[] = [];
  try {
    files = listSessionFiles(dir);
  } catch {
    // no session directory: fall through to "not found"
  }
  const matches = files.filter((f) => idFromFileName(f)?.startsWith(arg));
  const exact = matches.filter((f) => idFromFileName(f) === arg);
  if (exact.length === 1 || matches.length === 1) return (exact[0] ?? matches[0])!;
  if (matches.length > 1) {
    const ids = matches.slice(0, 4).map((f) => idFromFileName(f)).join(", ");
    throw new CliError(`session id prefix \`${arg}\` is ambiguous (${matches.length} sessions: ${ids}${matches.length > 4 ? ", …" : ""}); give more characters`);
  }
  throw new CliError(`${arg}: no such file, and no session id starting with it in ${dir}; run \`pi-session ls\` to find sessions`);
}

/**
 * Opens a resolved path, or `-` (standard input, from `stdin`), turning file-system errors into
 * one-line messages.
 */
export async function openPath(path: string, options: OpenOptions = {}, stdin?: () => Promise<Buffer>): Promise<Session> {
  if (path === "-") {
    if (!stdin) throw new CliError("- (standard input) is not read here; give a file");
    const bytes = await stdin();
    sizeHint(bytes.length);
    return openSessionBuffer("<stdin>", bytes, options);
  }
  try {
    return Session.open(openSource(path), options);
  } catch (error) {
    throw describeFsError(path, error);
  }
}

/** A session file's bytes, for a command about to read all of them (`sizeHint`). */
export function openSource(path: string): FileSource {
  const source = new FileSource(path);
  sizeHint(source.size);
  return source;
}

/** Opens a session for a read-only command: FILE as a path, `-` or a session id. */
export async function openInput(arg: string, ctx: Pick<CommandContext, "sessionDir" | "stdin">, options: OpenOptions = {}): Promise<Session> {
  return openPath(resolveInput(arg, ctx.sessionDir), options, ctx.stdin);
}

/**
 * Refuses input that holds no session at all (empty, binary, pi's `--mode json` output, another
 * JSONL format): read-only commands other than `check` cannot show anything for it.
 */
export function requireSession(session: Session): void {
  const name = session.name;
  if (session.size === 0) throw new CliError(`${name}: the file is empty; it holds no session (run \`pi-session check ${shellQuote(name)}\`)`);
  const kind = session.fileKind;
  if (kind === "session") return;
  if (kind === "event-stream") throw new CliError(`${name}:1: not a pi session file: pi's --mode json event stream (what \`pi --mode json\` prints); pi keeps its sessions in ~/.pi/agent/sessions (run \`pi-session ls\`)`);
  const first = session.records.find((r) => r.kind !== "blank");
  const what =
    first?.kind === "invalid" ? "its lines are not JSON" : first?.kind === "entry" ? `its records (e.g. \`${first.type ?? "no type"}\`) have no session header and no entry ids` : "it has no session header";
  throw new CliError(`${name}:${first?.line ?? 1}: not a pi session file: ${what}; run \`pi-session check ${shellQuote(name)}\` for details`);
}
