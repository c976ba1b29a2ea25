import Table from "cli-table3";
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { countBySeverity, CURRENT_VERSION, messageText, quickFindings, type AgentMessage } from "../format/index.js";
import { idFromFileName, listSessionFiles, openPath } from "../input.js";
import { cachePath, LsCache, type FileStamp } from "./ls-cache.js";
import { formatBytes, formatCount, formatTime, preview, sanitize, type Style } from "../render/text.js";

export type SortKey = "modified" | "created" | "size" | "messages" | "name";

export interface LsOptions {
  dir?: string;
  cwd?: string;
  sort?: SortKey;
  limit?: number;
  /** Neither read nor write the index cache. */
  noCache?: boolean;
}

export type SessionStatus = "ok" | "needs-migrate" | `invalid: ${number} problems` | "unreadable";

export interface SessionRow {
  path: string;
  id: string | null;
  /** The session name, else the first user message. */
  title: string | null;
  cwd: string | null;
  created: string | null;
  /** ISO time of the last user/assistant message (else the header time, else the file's mtime). */
  modified: string | null;
  messages: number;
  branches: number;
  size: number;
  version: number | null;
  status: SessionStatus;
  errors: number;
}

export interface LsResult {
  dir: string;
  sessions: SessionRow[];
  /** How many sessions matched before `--limit`. */
  total: number;
}

/**
 * One session's row, from a scan of its lines: only `session_info` entries and the first user
 * message are parsed. Last activity is the latest user/assistant entry's timestamp (pi uses the
 * message's own timestamp, which pi writes at the same moment).
 */
export async function describeSession(path: string, stamp: FileStamp | undefined): Promise<SessionRow> {
  const size = stamp?.size ?? 0;
  const mtime = stamp?.mtimeMs ?? 0;
  let name: string | undefined;
  try {
    const session = await openPath(path, {
      only: new Set(["session_info"]),
      onRecord: (entry) => {
        name = typeof entry.name === "string" ? entry.name.trim() || undefined : undefined;
      },
    });
    try {
      const errors = countBySeverity(quickFindings(session)).error;
      const h = session.header;
      let messages = 0;
      let lastActivity = 0;
      let firstUser = -1;
      for (let node = 0; node < session.tree.size; node++) {
        const { type, role } = session.nodeKind(node);
        if (type !== "message") continue;
        messages++;
        if (role !== "user" && role !== "assistant") continue;
        const t = session.nodeTime(node);
        if (!Number.isNaN(t)) lastActivity = Math.max(lastActivity, t);
        if (role === "user" && firstUser < 0) firstUser = node;
      }
      let title = name;
      if (title === undefined && firstUser >= 0) {
        const m = session.entry(firstUser).message as AgentMessage | undefined;
        title = (m && messageText(m)) || undefined;
      }
      const headerTime = typeof h?.timestamp === "string" ? Date.parse(h.timestamp) : NaN;
      const modified = lastActivity || (Number.isNaN(headerTime) ? mtime : headerTime);
      const version = h ? session.version : null;
      const status: SessionStatus = errors > 0 ? `invalid: ${errors} problems` : version !== null && version < CURRENT_VERSION ? "needs-migrate" : "ok";
      return {
        path,
        id: typeof h?.id === "string" ? h.id : (idFromFileName(path) ?? null),
        title: title ?? null,
        cwd: typeof h?.cwd === "string" ? h.cwd : null,
        created: typeof h?.timestamp === "string" ? h.timestamp : null,
        modified: modified ? new Date(modified).toISOString() : null,
        messages,
        branches: session.tree.leaves().length,
        size,
        version,
        status,
        errors,
      };
    } finally {
      session.close();
    }
  } catch {
    return { path, id: idFromFileName(path) ?? null, title: null, cwd: null, created: null, modified: mtime ? new Date(mtime).toISOString() : null, messages: 0, branches: 0, size, version: null, status: "unreadable", errors: 0 };
  }
}

const SORTERS: Record<SortKey, (a: SessionRow, b: SessionRow) => number> = {
  modified: (a, b) => (b.modified ?? "").localeCompare(a.modified ?? ""),
  created: (a, b) => (b.created ?? "").localeCompare(a.created ?? ""),
  size: (a, b) => b.size - a.size,
  messages: (a, b) => b.messages - a.messages,
  name: (a, b) => (a.title ?? "\uffff").localeCompare(b.title ?? "\uffff"),
};

export async function ls(options: LsOptions, ctx: CommandContext): Promise<LsResult> {
  const dir = options.dir ? resolve(options.dir) : ctx.sessionDir;
  if (!existsSync(dir)) throw new CliError(`${dir}: no such directory; pass a directory to list, or --session-dir`);
  const files = listSessionFiles(dir);
  const cache = options.noCache ? undefined : new LsCache(cachePath(ctx.env));
  const rows: SessionRow[] = [];
  for (const [i, file] of files.entries()) {
    ctx.progress(i, files.length, "sessions");
    let stamp: FileStamp | undefined;
    try {
      const st = statSync(file);
      stamp = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
    } catch {
      // unreadable: described as such, never cached
    }
    const cached = stamp && cache?.get(file, stamp);
    if (cached) {
      rows.push(cached);
      continue;
    }
    const row = await describeSession(file, stamp);
    if (stamp && row.status !== "unreadable") cache?.set(file, stamp, row);
    rows.push(row);
  }
  ctx.progress(files.length, files.length);
  cache?.save();
  const wanted = options.cwd !== undefined ? resolve(options.cwd) : undefined;
  const matching = wanted === undefined ? rows : rows.filter((r) => r.cwd !== null && resolve(r.cwd) === wanted);
  matching.sort((a, b) => SORTERS[options.sort ?? "modified"](a, b) || a.path.localeCompare(b.path));
  const limited = options.limit !== undefined ? matching.slice(0, Math.max(0, options.limit)) : matching;
  return { dir, sessions: limited, total: matching.length };
}

export function renderLs(result: LsResult, style: Style): string {
  const { c } = style;
  if (result.sessions.length === 0) return c.dim(`no sessions in ${sanitize(result.dir)}\n`);
  const table = new Table({
    head: ["id", "name / first message", "cwd", "created", "last activity", "msgs", "branches", "size", "v", "status"],
    chars: { top: "", "top-mid": "", "top-left": "", "top-right": "", bottom: "", "bottom-mid": "", "bottom-left": "", "bottom-right": "", left: "", "left-mid": "", mid: "", "mid-mid": "", right: "", "right-mid": "", middle: "  " },
    style: { head: style.c.isColorSupported ? ["bold"] : [], border: [], "padding-left": 0, "padding-right": 0 },
  });
  for (const r of result.sessions) {
    const status = r.status === "ok" ? c.green(r.status) : r.status === "needs-migrate" ? c.yellow(r.status) : c.red(r.status);
    table.push([
      preview(r.id ?? "-", 13),
      r.title ? preview(r.title, 40) : c.dim("-"),
      r.cwd ? preview(r.cwd, 30) : "-",
      formatTime(r.created ?? undefined),
      formatTime(r.modified ?? undefined),
      formatCount(r.messages),
      String(r.branches),
      formatBytes(r.size),
      r.version === null ? "-" : String(r.version),
      status,
    ]);
  }
  const more = result.total > result.sessions.length ? c.dim(`\n(${result.total - result.sessions.length} more; raise --limit)`) : "";
  return `${table.toString()}${more}\n`;
}

export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await ls({ dir: args.dir as string | undefined, cwd: args.cwd as string | undefined, sort: args.sort as SortKey, limit: args.limit as number | undefined, noCache: args.cache === false }, ctx);
  return { json: result, human: ctx.json ? "" : renderLs(result, ctx.style), exitCode: ExitCode.Ok };
}
