import { renderTable, type Column } from "../render/table.js";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { listSessionFiles } from "../support/inputs/session-files.js";
import { fileStamp, type FileStamp } from "../support/inputs/stamp.js";
import { cachePath, CorruptCacheError, LsCache } from "../support/ls/cache.js";
import type { SessionRow } from "../support/ls/rows.js";

export type { SessionRow, SessionStatus } from "../support/ls/rows.js";
import { formatBytes, formatCount, formatTime, plural } from "../render/units.js";
import { preview } from "../render/width.js";
import { sanitize } from "../render/safe.js";
import { type Style } from "../render/style.js";

export const SORT_KEYS = ["modified", "created", "size", "messages", "name"] as const;
export type SortKey = (typeof SORT_KEYS)[number];

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
 * a noticeable part of a warm listing (BENCHMARKS.md, "sorting `ls`"). Titles, which people read, sort by locale.
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

export async function ls(options: LsOptions, ctx: CommandContext, rebuildCache = false): Promise<LsResult> {
  const dir = options.dir ? resolve(options.dir) : ctx.sessionDir;
  if (!existsSync(dir)) throw new CliError(`${dir}: no such directory; pass a directory to list, or --session-dir`);
  const files = listSessionFiles(dir);
  const cache = options.noCache ? undefined : new LsCache(cachePath(ctx.env), rebuildCache);
  // Per file: its default sort key, and its row (described now) or its slot in the cache (a row
  // parsed only if shown or needed to filter and sort). Columns, not an object per file: a warm run
  // over thousands of sessions does little else.
  const modified: Array<string | null> = new Array(files.length);
  const rows: Array<SessionRow | undefined> = new Array(files.length);
  const slots = new Int32Array(files.length).fill(-1);
  const todo: Array<{ index: number; path: string; stamp: FileStamp | undefined }> = [];
  for (let index = 0; index < files.length; index++) {
    const path = files[index]!;
    const stamp = fileStamp(path);
    const slot = stamp && cache ? cache.find(path, index, stamp.size, stamp.mtimeMs, stamp.ino) : -1;
    if (slot >= 0) {
      slots[index] = slot;
      modified[index] = cache!.modified(slot);
    } else todo.push({ index, path, stamp });
  }
  // PI_SESSION_THREADS caps the worker threads (1: none).
  const threads = Number(ctx.env.PI_SESSION_THREADS) || undefined;
  // Reading sessions (the format library, worker threads) is loaded only when one needs it: a warm
  // run reads none (BENCHMARKS.md, "the format library at start-up").
  const described = todo.length === 0 ? [] : await (await import("../support/workers/pool.js")).overFiles("describe", todo, (done) => ctx.progress(files.length - todo.length + done, files.length, "sessions"), threads);
  todo.forEach(({ index, path, stamp }, k) => {
    const row = described[k]!;
    rows[index] = row;
    modified[index] = row.modified;
    if (stamp && row.status !== "unreadable") cache?.set(path, stamp, row);
  });
  ctx.progress(files.length, files.length);
  const rowOf = (i: number): SessionRow => (rows[i] ??= cache!.row(slots[i]!, files[i]!));
  let result: LsResult;
  try {
    result = select({ files, modified, rowOf }, options, dir);
  } catch (error) {
    // A cached row that does not read back: the whole cache is rebuilt, never trusted.
    if (error instanceof CorruptCacheError) {
      cache?.close();
      return ls(options, ctx, true);
    }
    throw error;
  }
  cache?.save(files);
  return result;
}

/** The listed sessions: paths, default sort keys, and each one's row when asked. */
interface Listing {
  files: readonly string[];
  modified: ReadonlyArray<string | null>;
  rowOf: (i: number) => SessionRow;
}

/** Filtering, sorting and the limit; only the rows these need are read from the cache. */
function select({ files, modified, rowOf }: Listing, options: LsOptions, dir: string): LsResult {
  const wanted = options.cwd !== undefined ? resolve(options.cwd) : undefined;
  const all = Array.from(files, (_, i) => i);
  const matching = wanted === undefined ? all : all.filter((i) => {
    const cwd = rowOf(i).cwd;
    return cwd !== null && resolve(cwd) === wanted;
  });
  const key = options.sort ?? "modified";
  const byRow = SORTERS[key];
  const order = key === "modified" ? (a: number, b: number) => byModified(modified[a]!, modified[b]!) || byCodeUnit(files[a]!, files[b]!) : (a: number, b: number) => byRow(rowOf(a), rowOf(b)) || byCodeUnit(files[a]!, files[b]!);
  const limit = options.limit !== undefined ? Math.max(0, options.limit) : Infinity;
  const shown = limit * 8 < matching.length ? first(matching, limit, order) : matching.sort(order).slice(0, limit);
  return { dir, sessions: shown.map(rowOf), total: matching.length };
}

/**
 * The `k` first of `items` by `order`, in order, without sorting the rest: one comparison for most
 * items (against the k-th so far), where sorting them all showed (BENCHMARKS.md, "sorting `ls`").
 */
function first(items: readonly number[], k: number, order: (a: number, b: number) => number): number[] {
  const top: number[] = [];
  if (k === 0) return top;
  for (const item of items) {
    if (top.length === k && order(item, top[k - 1]!) >= 0) continue;
    let at = top.length;
    while (at > 0 && order(item, top[at - 1]!) < 0) at--;
    top.splice(at, 0, item);
    if (top.length > k) top.pop();
  }
  return top;
}

/**
 * `ls`'s columns, by priority: what a narrow terminal keeps (id, status, name, last activity,
 * messages, size) and what it gives up first.
 */
export function lsColumns(style: Style): Column[] {
  const { c } = style;
  const statusPaint = (s: string) => (s === "ok" ? c.green(s) : s === "needs-migrate" ? c.yellow(s) : s.startsWith("not a session") ? c.dim(s) : c.red(s));
  const dash = (s: string) => (s === "-" ? c.dim(s) : s);
  return [
    { head: "id", priority: 1, max: 13 },
    { head: "name / first message", priority: 3, flex: true, min: 16, max: 40, paint: dash },
    { head: "cwd", priority: 7, flex: true, min: 10, max: 30, keep: "end" },
    { head: "created", priority: 8 },
    { head: "last activity", priority: 4 },
    { head: "msgs", priority: 5, align: "right" },
    { head: "branches", priority: 9, align: "right" },
    { head: "size", priority: 6, align: "right" },
    { head: "v", priority: 10 },
    // (a long status, "not a session: …", is cut before the name is, and drops no column)
    { head: "status", priority: 2, flex: true, shrink: 8, min: 13, paint: statusPaint },
  ];
}

export function renderLs(result: LsResult, style: Style): string {
  const { c } = style;
  if (result.sessions.length === 0) {
    // (--limit 0: sessions there are, none asked for)
    return c.dim(result.total > 0 ? `${plural(result.total, "session")} in ${sanitize(result.dir)}, none shown (--limit 0)\n` : `no sessions in ${sanitize(result.dir)}\n`);
  }
  const rows = result.sessions.map((r) => [
    preview(r.id ?? "-", 200),
    r.title ? preview(r.title, 200) : "-",
    r.cwd ? preview(r.cwd, 200) : "-",
    formatTime(r.created ?? undefined),
    formatTime(r.modified ?? undefined),
    formatCount(r.messages),
    String(r.branches),
    formatBytes(r.size),
    r.version === null ? "-" : String(r.version),
    r.status,
  ]);
  const table = renderTable(lsColumns(style), rows, style).trimEnd();
  const more = result.total > result.sessions.length ? c.dim(`\n(${result.total - result.sessions.length} more; raise --limit)`) : "";
  return `${table}${more}\n`;
}

export function options(args: Args): LsOptions {
  return { dir: args.optionalString("dir"), cwd: args.optionalString("cwd"), sort: args.choice("sort", SORT_KEYS, "modified"), limit: args.number("limit"), noCache: args.raw("cache") === false };
}

export async function run(options: LsOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await ls(options, ctx);
  return { json: result, jsonl: () => result.sessions, human: ctx.json ? "" : renderLs(result, ctx.style), exitCode: ExitCode.Ok };
}
