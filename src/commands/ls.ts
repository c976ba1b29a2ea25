import { renderTable } from "../render/table.js";
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { listSessionFiles } from "../session-files.js";
import { cachePath, CorruptCacheError, LsCache, type FileStamp } from "./ls-cache.js";
import type { SessionRow } from "./ls-describe.js";

export type { SessionRow, SessionStatus } from "./ls-describe.js";
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

export interface LsResult {
  dir: string;
  sessions: SessionRow[];
  /** How many sessions matched before `--limit`. */
  total: number;
}

/**
 * Times and paths compare by code unit: ISO times sort so, and `localeCompare` (ICU collation) cost
 * ~18 ms of a warm listing of 5,000 sessions. Titles, which people read, sort by locale.
 */
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Newest first. */
const byModified = (a: string | null, b: string | null) => byCodeUnit(b ?? "", a ?? "");

const SORTERS: Record<SortKey, (a: SessionRow, b: SessionRow) => number> = {
  modified: (a, b) => byModified(a.modified, b.modified),
  created: (a, b) => byCodeUnit(b.created ?? "", a.created ?? ""),
  size: (a, b) => b.size - a.size,
  messages: (a, b) => b.messages - a.messages,
  name: (a, b) => (a.title ?? "\uffff").localeCompare(b.title ?? "\uffff"),
};

/** A listed session: its default sort key at once, its row when needed (cached rows parse lazily). */
interface Listed {
  path: string;
  modified: string | null;
  row: () => SessionRow;
}

export async function ls(options: LsOptions, ctx: CommandContext, rebuildCache = false): Promise<LsResult> {
  const dir = options.dir ? resolve(options.dir) : ctx.sessionDir;
  if (!existsSync(dir)) throw new CliError(`${dir}: no such directory; pass a directory to list, or --session-dir`);
  const files = listSessionFiles(dir);
  const cache = options.noCache ? undefined : new LsCache(cachePath(ctx.env), rebuildCache);
  const listed: Listed[] = [];
  const todo: Array<{ index: number; path: string; stamp: FileStamp | undefined }> = [];
  for (const [index, path] of files.entries()) {
    let stamp: FileStamp | undefined;
    try {
      const st = statSync(path, { throwIfNoEntry: false });
      if (st) stamp = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
    } catch {
      // unreadable: described as such, never cached
    }
    const cached = stamp && cache?.get(path, stamp);
    if (cached) listed[index] = { path, modified: cached.modified, row: cached.row };
    else todo.push({ index, path, stamp });
  }
  // PI_SESSION_THREADS caps the worker threads (1: none).
  const threads = Number(ctx.env.PI_SESSION_THREADS) || undefined;
  // Reading sessions (the format library, worker threads) is loaded only when one needs it: a warm
  // run reads none (~25 ms of loading saved).
  const described = todo.length === 0 ? [] : await (await import("./ls-describe.js")).describeSessions(todo, (done) => ctx.progress(files.length - todo.length + done, files.length, "sessions"), threads);
  todo.forEach(({ index, path, stamp }, k) => {
    const row = described[k]!;
    listed[index] = { path, modified: row.modified, row: () => row };
    if (stamp && row.status !== "unreadable") cache?.set(path, stamp, row);
  });
  ctx.progress(files.length, files.length);
  let result: LsResult;
  try {
    result = select(listed, options, dir);
  } catch (error) {
    // A cached row that does not read back: the whole cache is rebuilt, never trusted.
    if (error instanceof CorruptCacheError) return ls(options, ctx, true);
    throw error;
  }
  cache?.save();
  return result;
}

/** Filtering, sorting and the limit; only the rows these need are read from the cache. */
function select(listed: Listed[], options: LsOptions, dir: string): LsResult {
  const wanted = options.cwd !== undefined ? resolve(options.cwd) : undefined;
  const matching = wanted === undefined ? listed : listed.filter((l) => {
    const cwd = l.row().cwd;
    return cwd !== null && resolve(cwd) === wanted;
  });
  const key = options.sort ?? "modified";
  const byRow = SORTERS[key];
  matching.sort(key === "modified" ? (a, b) => byModified(a.modified, b.modified) || byCodeUnit(a.path, b.path) : (a, b) => byRow(a.row(), b.row()) || byCodeUnit(a.path, b.path));
  const limited = options.limit !== undefined ? matching.slice(0, Math.max(0, options.limit)) : matching;
  return { dir, sessions: limited.map((l) => l.row()), total: matching.length };
}

export function renderLs(result: LsResult, style: Style): string {
  const { c } = style;
  if (result.sessions.length === 0) return c.dim(`no sessions in ${sanitize(result.dir)}\n`);
  const rows = result.sessions.map((r) => {
    const status = r.status === "ok" ? c.green(r.status) : r.status === "needs-migrate" ? c.yellow(r.status) : c.red(r.status);
    return [
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
    ];
  });
  const table = renderTable(["id", "name / first message", "cwd", "created", "last activity", "msgs", "branches", "size", "v", "status"], rows, style).trimEnd();
  const more = result.total > result.sessions.length ? c.dim(`\n(${result.total - result.sessions.length} more; raise --limit)`) : "";
  return `${table}${more}\n`;
}

export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await ls({ dir: args.dir as string | undefined, cwd: args.cwd as string | undefined, sort: args.sort as SortKey, limit: args.limit as number | undefined, noCache: args.cache === false }, ctx);
  return { json: result, human: ctx.json ? "" : renderLs(result, ctx.style), exitCode: ExitCode.Ok };
}
