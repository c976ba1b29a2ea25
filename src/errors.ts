/**
 * Exit codes, decided in one place:
 * - 0: done, nothing wrong (warnings only is still 0);
 * - 1: the command found problems, or work is left (`check` errors, `--check` says a change is needed);
 * - 2: usage error, missing or unreadable input, refused write.
 */
export const ExitCode = {
  Ok: 0,
  Findings: 1,
  Usage: 2,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error meant for the user: one line on stderr and an exit code, no stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.Usage,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** Turns a Node file-system error into a one-line message with a next step. */
export function describeFsError(path: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return new CliError(`${path}: no such file or directory; check the path, or run \`pi-session ls\` to find sessions`);
    case "EACCES":
    case "EPERM":
      return new CliError(`${path}: permission denied; check the file's permissions (ls -l ${shellQuote(path)})`);
    case "EISDIR":
      return new CliError(`${path}: is a directory; give a session file (run \`pi-session ls ${shellQuote(path)}\` to list the sessions in it)`);
    default:
      return new CliError(`${path}: cannot read: ${(error as Error)?.message ?? String(error)}`);
  }
}

/** What an error of the machine's file system says to a user, for the codes that are their environment's. */
const ENVIRONMENT_ERRORS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  ENOENT: "no such directory",
  ENOTDIR: "a part of the path is not a directory",
  EISDIR: "is a directory",
};

/**
 * A write the user's environment refused (a directory they cannot write, a full disk, a path
 * through a file) as one line naming where and what to do, or undefined for any other error. The
 * temporary file a safe write makes is named by its directory.
 */
export function describeWriteError(error: unknown): CliError | undefined {
  const e = error as NodeJS.ErrnoException | undefined;
  const what = e?.code ? ENVIRONMENT_ERRORS[e.code] : undefined;
  if (!what || typeof e?.path !== "string" || !e.syscall) return undefined;
  // (a link or rename that could not be made names its destination: the place that refused it)
  const dest = (error as { dest?: unknown }).dest;
  const path = typeof dest === "string" ? dest : e.path;
  const temporary = /\.pi-session-\d+-[0-9a-f]+\.tmp$/.test(path);
  const where = temporary ? path.slice(0, Math.max(1, path.lastIndexOf("/"))) : path;
  return new CliError(`cannot write ${temporary ? "in " : ""}${where}: ${what}; check that the directory exists and that you can write to it, or give another place (--out, -o, --backup-dir)`);
}

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const ANSI_C_ESCAPED = /[\\'\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `s` as one word of a shell command a user can paste: as it is when nothing in it is special,
 * else in single quotes; one holding a control character or a bidi control (a path or an entry id
 * from a session) as `$'…'` with each such character escaped (`\x1b`, `\u202e`: bash, zsh, ksh and
 * POSIX sh read it), so that the command printed neither acts on the terminal nor hides a part.
 */
export function shellQuote(s: string): string {
  if (/^[\w@%+=:,./-]+$/.test(s)) return s;
  if (!UNPRINTABLE.test(s)) return `'${s.replace(/'/g, `'\\''`)}'`;
  return `$'${s.replace(ANSI_C_ESCAPED, (ch) => {
    if (ch === "\\" || ch === "'") return `\\${ch}`;
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  })}'`;
}
