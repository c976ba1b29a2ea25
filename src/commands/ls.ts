import { renderTable, type Column } from "../render/table.js";
import { basename } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { STORE_CHOICES } from "../stores/index.js";
import { ls, SORT_KEYS, type LsOptions, type LsResult } from "../support/listing/sessions.js";
import { lineage, parentJson, type Lineage, type Relation } from "../support/listing/lineage.js";

import type { SessionRow } from "../support/ls/rows.js";
import { formatBytes, formatCount, formatTime, plural } from "../render/units.js";
import { preview } from "../render/width.js";
import { sanitize } from "../render/safe.js";
import { type Style } from "../render/style.js";

/**
 * `ls`'s columns, by priority: what a narrow terminal keeps (id, status, name, last activity,
 * messages, size) and what it gives up first.
 */
export function lsColumns(style: Style): Column[] {
  const { c } = style;
  const statusPaint = (s: string) => (s === "ok" ? c.green(s) : s === "needs-migrate" ? c.yellow(s) : s === "migrated" || s.startsWith("not a session") ? c.dim(s) : c.red(s));
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
  const archived = r.archived === "archive" ? undefined : r.archived;
  return archived ?? (r.copyOf ? "copy" : r.notImported ? "not imported" : r.besideDatabase ? "jsonl beside db" : r.cold ? "cold" : undefined);
}

/** What a row's name says it is besides a session: an OpenClaw transcript's kind (`openclawMark`), and `archived` where \`pi-session archive\` moved it. */
function rowMark(r: SessionRow): string | undefined {
  const marks = [openclawMark(r), r.archive ? "archived" : undefined].filter(Boolean);
  return marks.length > 0 ? marks.join(", ") : undefined;
}

/** `ls --tree`: each row's place in the forest (its glyphs) and its link to its parent, in drawing order. */
interface TreeLayout {
  order: number[];
  lead: string[];
  link: Array<string | undefined>;
}

export function renderLs(result: LsResult, style: Style, tree?: TreeLayout): string {
  const { c } = style;
  if (result.sessions.length === 0) {
    // (--limit 0: sessions there are, none asked for; none at all: said on stderr, by `run`)
    return result.total > 0 ? c.dim(`${plural(result.total, "session")} in ${sanitize(result.dir)}, none shown (--limit 0)\n`) : "";
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
    // (an OpenClaw transcript's archive or copy says which it is; a session archived, that it is)
    const mark = rowMark(r);
    if (mark) return `${title ?? "-"} (${mark})`;
    const common = shared.get(r.id);
    if (common === undefined) return title ?? "-";
    return `${title ?? "-"} (${preview(common > 0 ? `…${file.slice(common)}` : file, 200)})`;
  };
  const rows = result.sessions.map((r, i) => [
    preview(r.id ?? "-", 200),
    tree ? `${tree.lead[i]}${nameOf(r)}${tree.link[i] ? ` ${tree.link[i]}` : ""}` : nameOf(r),
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
  const cells = claw ? rows.map((row, i) => [...row.slice(0, 2), openclawCell(result.sessions[i]!), ...row.slice(2)]) : rows;
  const table = renderTable(claw ? [...columns.slice(0, 2), OPENCLAW_COLUMN, ...columns.slice(2)] : columns, tree ? tree.order.map((i) => cells[i]!) : cells, style).trimEnd();
  const more = result.total > result.sessions.length ? `\n${c.dim(`(${result.total - result.sessions.length} more; raise --limit)`)}` : "";
  return `${table}${more}\n`;
}

export function options(args: Args): LsOptions & { tree: boolean } {
  return {
    filters: filtersOf(args),
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
    archived: args.flag("archived"),
    tree: args.flag("tree"),
  };
}

/** The filters given, as the command line gives them (`--older-than 3m`). */
function filtersOf(args: Args): string[] {
  return (["cwd", "agent", "kind", "older-than", "larger-than"] as const).flatMap((name) => {
    const v = args.raw(name.replace(/-(\w)/g, (_, ch: string) => ch.toUpperCase()));
    return v === undefined ? [] : [`--${name} ${String(v)}`];
  });
}

export async function run(options: LsOptions & { tree?: boolean }, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await ls(options, ctx);
  // (an unreadable row says why on stderr, a line each: a database locked, damaged or of a schema this does not read, a file it may not open)
  for (const row of result.sessions) if (row.status === "unreadable" && row.error) ctx.warn(sanitize(row.error));
  if (!options.tree) return { json: result, jsonl: () => result.sessions, human: ctx.json ? "" : renderLs(result, ctx.style), exitCode: ExitCode.Ok };
  const lin = lineage(result.sessions);
  const name = (i: number) => result.sessions[i]!.id ?? result.sessions[i]!.path;
  // (each row with its parent and children, as `show` names them)
  const sessions = result.sessions.map((r, i) => ({ ...r, parent: parentJson(lin.parents[i]!, (k) => result.sessions[k]!), children: lin.children[i]!.map(name) }));
  const layout = treeLayout(lin, ctx.style);
  return { json: { ...result, sessions }, jsonl: () => layout.order.map((i) => sessions[i]), human: ctx.json ? "" : renderLs(result, ctx.style, layout), exitCode: ExitCode.Ok };
}

const RELATION: Record<Relation, string> = { fork: "fork", spawned: "spawned", reset: "after a reset" };

/** The forest in drawing order: each tree depth first, children oldest first, each row's glyphs and what its link says. */
function treeLayout(lin: Lineage, style: Style): TreeLayout {
  const { c } = style;
  const order: number[] = [];
  const lead: string[] = [];
  const link: Array<string | undefined> = [];
  const drawn = new Set<number>();
  const draw = (i: number, prefix: string, glyph: string) => {
    if (drawn.has(i)) return;
    drawn.add(i);
    order.push(i);
    lead[i] = prefix + glyph;
    const p = lin.parents[i];
    link[i] = p ? c.dim(p.state === "found" ? `(${RELATION[p.relation]})` : `(${RELATION[p.relation]} of ${sanitize(p.names)}: ${p.state === "missing" ? "no longer there" : "not listed"})`) : undefined;
    const kids = lin.children[i]!.filter((k) => !drawn.has(k));
    const inner = prefix + (glyph === "├─ " ? "│  " : glyph === "└─ " ? "   " : "");
    kids.forEach((k, n) => draw(k, inner, n === kids.length - 1 ? "└─ " : "├─ "));
  };
  for (const root of lin.roots) draw(root, "", "");
  return { order, lead, link };
}
