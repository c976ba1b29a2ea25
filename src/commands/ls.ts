import { renderTable, type Column } from "../render/table.js";
import { existsSync } from "node:fs";
import { basename, resolve } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { emptyStoreNote, listSessionFiles, noStoreMessage, STORE_CHOICES, type StoreChoice, storeRoots, transcriptFacts } from "../stores/index.js";
import { StoreRead, type ReadCache } from "../support/workers/store-wide.js";
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
  /** With no `dir`: which stores (pi's session directory, OpenClaw's roots). */
  store?: StoreChoice;
  cwd?: string;
  agent?: string;
  kind?: string;
  /** Only sessions last active before this (epoch ms). */
  olderThan?: number;
  /** Only files larger than this many bytes. */
  largerThan?: number;
  sort?: SortKey;
  limit?: number;
  /** Neither read nor write the index cache. */
  noCache?: boolean;
}

export interface LsResult {
  /** The directories listed, `; `-joined (one, or the stores found). */
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
  const reading = new StoreRead(ctx, !options.noCache);
  let dirs: string[];
  if (options.dir) {
    const dir = resolve(options.dir);
    if (!existsSync(dir)) throw new CliError(`${dir}: no such directory; pass a directory to list, or --session-dir`);
    dirs = [dir];
  } else {
    dirs = storeRoots(ctx.sessionDir, ctx.env, options.store ?? "all");
    if (dirs.length === 0) throw new CliError(noStoreMessage(ctx.sessionDir, options.store ?? "all"));
  }
  const dir = dirs.join("; ");
  const files = [...new Set(dirs.flatMap((d) => listSessionFiles(d)))];
  // (a root whose transcripts are in SQLite: said, rather than listing nothing without a word)
  const note = files.length === 0 && options.dir ? emptyStoreNote(dirs[0]!) : undefined;
  if (note) ctx.warn(sanitize(note));
  const cache = options.noCache ? undefined : new LsCache(cachePath(ctx.env), rebuildCache);
  // Per file: its default sort key, and its row (described now) or its slot in the cache (a row
  // parsed only if shown or needed to filter and sort). Columns, not an object per file: a warm run
  // over thousands of sessions does little else.
  const modified: Array<string | null> = new Array(files.length);
  const slots = new Int32Array(files.length).fill(-1);
  const held: ReadCache<SessionRow> | undefined = cache && {
    holds(path, index, stamp) {
      const slot = cache.find(path, index, stamp.size, stamp.mtimeMs, stamp.ino);
      if (slot < 0) return false;
      slots[index] = slot;
      modified[index] = cache.modified(slot);
      return true;
    },
    keep: (path, stamp, row) => row.status !== "unreadable" && cache.set(path, stamp, row),
  };
  const rows = await reading.read("describe", files, { cache: held });
  rows.forEach((row, index) => {
    if (row) modified[index] = row.modified;
  });
  // (what a file is to its store is read beside the cache: sessions.json changes without the file)
  const facts: Array<SessionRow | undefined> = new Array(files.length);
  const rowOf = (i: number): SessionRow => (facts[i] ??= withStoreFacts((rows[i] ??= cache!.row(slots[i]!, files[i]!))));
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
  reading.done();
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
  const older = options.olderThan !== undefined ? new Date(options.olderThan).toISOString() : undefined;
  const keep: Array<(r: SessionRow) => boolean> = [];
  if (wanted !== undefined) keep.push((r) => r.cwd !== null && resolve(r.cwd) === wanted);
  if (options.agent !== undefined) keep.push((r) => r.agent === options.agent);
  if (options.kind !== undefined) keep.push((r) => r.kind === options.kind);
  if (older !== undefined) keep.push((r) => r.modified !== null && r.modified < older);
  if (options.largerThan !== undefined) keep.push((r) => r.size > options.largerThan!);
  const all = Array.from(files, (_, i) => i);
  const matching = keep.length === 0 ? all : all.filter((i) => keep.every((k) => k(rowOf(i))));
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
    { head: "name / first message", priority: 3, flex: true, min: 16, max: 40, paint: dash, keep: "mark" },
    { head: "cwd", priority: 7, flex: true, min: 10, max: 30, keep: "end" },
    { head: "created", priority: 8 },
    { head: "last activity", priority: 4 },
    { head: "msgs", priority: 5, align: "right" },
    { head: "branches", priority: 9, align: "right" },
    { head: "size", priority: 6, align: "right" },
    { head: "v", priority: 10 },
    // (a long status, "not a session: …", gives up room before the name does, and wraps: it is never cut)
    { head: "status", priority: 2, flex: true, shrink: 8, min: 13, paint: statusPaint, wrap: true },
  ];
}

// (given up before the size, which docs/commands.md keeps at 80 columns: what tells a transcript from its copy, "(copy)", is in the name's column)
const OPENCLAW_COLUMN: Column = { head: "agent · kind", priority: 6.5, flex: true, min: 12, max: 30 };

/** `main · cron`, `main · direct feishu`: what an OpenClaw transcript is; "-" for pi's. */
function openclawCell(r: SessionRow): string {
  if (r.store !== "openclaw") return "-";
  const what = [r.kind, r.channel].filter(Boolean).join(" ");
  return preview([r.agent ?? "?", what ? `· ${what}` : ""].filter(Boolean).join(" "), 100);
}

/** What an OpenClaw transcript is beside the live one: `reset`, `deleted`, `copy`, `cold`…; undefined: the live one, or pi's. */
function openclawMark(r: SessionRow): string | undefined {
  if (r.store !== "openclaw") return undefined;
  return r.archived ?? (r.copyOf ? "copy" : r.notImported ? "not imported" : r.besideDatabase ? "jsonl beside db" : r.cold ? "cold" : undefined);
}

export function renderLs(result: LsResult, style: Style): string {
  const { c } = style;
  if (result.sessions.length === 0) {
    // (--limit 0: sessions there are, none asked for)
    return c.dim(result.total > 0 ? `${plural(result.total, "session")} in ${sanitize(result.dir)}, none shown (--limit 0)\n` : `no sessions in ${sanitize(result.dir)}\n`);
  }
  // (a row always says which file it is: one with no session id by its file's name, copies that share one by what tells their names apart)
  // (copies: what their names share at the start left out, so that the part that differs shows: `….v3.jsonl`)
  const names = new Map<string, string[]>();
  for (const r of result.sessions) if (r.id) names.set(r.id, [...(names.get(r.id) ?? []), basename(r.path)]);
  const shared = new Map<string, number>();
  for (const [id, group] of names) {
    if (group.length < 2) continue;
    let n = 0;
    while (group.every((g) => n < g.length && g[n] === group[0]![n])) n++;
    shared.set(id, n);
  }
  const nameOf = (r: SessionRow) => {
    const file = basename(r.path);
    const title = r.label ? preview(r.label, 200) : r.title ? preview(r.title, 200) : undefined;
    if (!r.id) return title ? `${title} (${preview(file, 200)})` : preview(file, 200);
    // (an OpenClaw transcript's archive or copy says which it is)
    const mark = openclawMark(r);
    if (mark) return `${title ?? "-"} (${mark})`;
    const common = shared.get(r.id);
    if (common === undefined) return title ?? "-";
    return `${title ?? "-"} (${preview(common > 0 ? `…${file.slice(common)}` : file, 200)})`;
  };
  const rows = result.sessions.map((r) => [
    preview(r.id ?? "-", 200),
    nameOf(r),
    r.cwd ? preview(r.cwd, 200) : "-",
    formatTime(r.created ?? undefined),
    formatTime(r.modified ?? undefined),
    formatCount(r.messages),
    String(r.branches),
    formatBytes(r.size),
    r.version === null ? "-" : String(r.version),
    r.status,
  ]);
  // (OpenClaw's transcripts: a column for the agent and the kind, and whether it is an archive or a copy)
  const claw = result.sessions.some((r) => r.store === "openclaw");
  const columns = lsColumns(style);
  const table = renderTable(claw ? [...columns.slice(0, 2), OPENCLAW_COLUMN, ...columns.slice(2)] : columns, claw ? rows.map((row, i) => [...row.slice(0, 2), openclawCell(result.sessions[i]!), ...row.slice(2)]) : rows, style).trimEnd();
  const more = result.total > result.sessions.length ? `\n${c.dim(`(${result.total - result.sessions.length} more; raise --limit)`)}` : "";
  return `${table}${more}\n`;
}

export function options(args: Args): LsOptions {
  return {
    dir: args.optionalString("dir"),
    store: args.choice("store", STORE_CHOICES, "all"),
    cwd: args.optionalString("cwd"),
    agent: args.optionalString("agent"),
    kind: args.optionalString("kind"),
    olderThan: args.before("olderThan", "older-than", Date.now()),
    largerThan: args.bytes("largerThan", "larger-than"),
    sort: args.choice("sort", SORT_KEYS, "modified"),
    limit: args.number("limit"),
    noCache: args.raw("cache") === false,
  };
}

/** A row with what its file is to its store (`transcriptFacts`, given the title it has read). */
function withStoreFacts(row: SessionRow): SessionRow {
  return { ...row, ...transcriptFacts(row.path, row.title) };
}

export async function run(options: LsOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await ls(options, ctx);
  // (an unreadable row says why on stderr, a line each: a database locked, damaged or of a schema this does not read, a file it may not open)
  for (const row of result.sessions) if (row.status === "unreadable" && row.error) ctx.warn(sanitize(row.error));
  return { json: result, jsonl: () => result.sessions, human: ctx.json ? "" : renderLs(result, ctx.style), exitCode: ExitCode.Ok };
}
