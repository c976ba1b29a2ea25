import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode, shellQuote } from "../errors.js";
import { countBySeverity, type AnyEntry, type Finding, type SessionHeader } from "../format/index.js";
import { renderFindings } from "../render/findings.js";
import { sanitize } from "../render/safe.js";
import { layoutWidth, type Style } from "../render/style.js";
import { formatBytes, formatCount, formatTime, plural } from "../render/units.js";
import { displayWidth, lineTail, preview, previewIn, wrapSegments, type Segment } from "../render/width.js";
import { leafInfos, type LeafInfo } from "../support/inputs/leaves.js";
import { nodeFor, readFull } from "../support/inputs/read.js";
import { transcriptFacts, type StoreFacts } from "../support/inputs/openclaw.js";

export interface ShowOptions {
  file: string;
  /** An entry to print in full instead of the summary. */
  entry?: string;
}

export function options(args: Args): ShowOptions {
  return { file: args.string("file"), entry: args.optionalString("entry") };
}

export interface ShowSummary {
  file: string;
  /** An OpenClaw transcript's place in its store (agent, key, label, kind, …; README, "OpenClaw's stores"); null for pi's own. */
  openclaw: Omit<StoreFacts, "store"> | null;
  size: number;
  lines: number;
  version: number;
  header: SessionHeader | null;
  name: string | null;
  entries: number;
  entriesByType: Record<string, number>;
  messages: number;
  messagesByRole: Record<string, number>;
  models: Record<string, number>;
  thinkingLevels: Record<string, number>;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
  currentLeaf: string | null;
  leaves: LeafInfo[];
  branchPoints: Array<{ id: string | null; line: number; children: number }>;
  compactions: Array<{ id: string | null; line: number; tokensBefore: number | null; firstKeptEntryId: string | null }>;
  labels: Array<{ targetId: string; label: string; line: number }>;
  findings: Finding[];
  problems: { errors: number; warnings: number; info: number };
  /**
   * Human output only (never in JSON): how many of each list there are in all when only the last
   * `LIST_LIMIT` of them (and the current leaf) are listed.
   */
  totals?: { leaves: number; branchPoints: number; compactions: number; labels: number };
}

/** How many leaves, branch points, compactions and labels `show` lists on a terminal: the latest (a long-running session has tens of thousands). */
const LIST_LIMIT = 20;

/** The last `limit` of `items` (all when `limit` is undefined). */
function latest<T>(items: readonly T[], limit: number | undefined): T[] {
  return limit === undefined || items.length <= limit ? [...items] : items.slice(items.length - limit);
}

export interface ShowEntry {
  file: string;
  line: number;
  entry: AnyEntry;
}

/** The summary (or one entry); with `limit`, only the latest `limit` items of each list (see `ShowSummary.totals`). */
export async function show(options: ShowOptions, ctx: CommandContext, limit?: number): Promise<ShowSummary | ShowEntry> {
  const { session, findings, stats } = await readFull(options.file, ctx);
  try {
    if (options.entry !== undefined) {
      const node = nodeFor(session, options.entry);
      return { file: session.name, line: session.nodeRecord(node).line, entry: session.entry(node) };
    }
    const { tree } = session;
    const problems = countBySeverity(findings);
    const allLeaves = tree.leaves();
    // the latest leaves, and the current one wherever it is
    const leaves = latest(allLeaves, limit);
    if (session.leafNode >= 0 && !leaves.includes(session.leafNode) && allLeaves.includes(session.leafNode)) leaves.unshift(session.leafNode);
    const branchPoints = tree.branchPoints();
    const labels = [...stats.labels];
    const { store, ...facts } = session.name === "<stdin>" ? { store: "pi" } : transcriptFacts(session.name);
    return {
      file: session.name,
      openclaw: store === "openclaw" ? (facts as Omit<StoreFacts, "store">) : null,
      size: session.size,
      lines: session.lineCount,
      version: session.version,
      header: session.header,
      name: stats.name ?? null,
      entries: tree.size,
      entriesByType: stats.entriesByType,
      messages: stats.messageCount,
      messagesByRole: stats.messagesByRole,
      models: stats.models,
      thinkingLevels: stats.thinkingLevels,
      tokens: stats.tokens,
      cost: stats.cost,
      currentLeaf: session.leafNode >= 0 ? (session.nodeRecord(session.leafNode).id ?? null) : null,
      leaves: leafInfos(session, new Map(labels.map(([target, { label }]) => [target, label])), leaves),
      branchPoints: latest(branchPoints, limit).map((n) => ({ id: session.nodeId(n) ?? null, line: session.nodeLine(n), children: tree.childCount(n) })),
      compactions: latest(stats.compactions, limit).map((c) => ({ id: c.id ?? null, line: c.line, tokensBefore: c.tokensBefore ?? null, firstKeptEntryId: c.firstKeptEntryId ?? null })),
      labels: latest(labels, limit).map(([targetId, { label, line }]) => ({ targetId, label, line })),
      findings,
      problems: { errors: problems.error, warnings: problems.warning, info: problems.info },
      ...(limit !== undefined ? { totals: { leaves: allLeaves.length, branchPoints: branchPoints.length, compactions: stats.compactions.length, labels: labels.length } } : {}),
    };
  } finally {
    session.close();
  }
}

/** "message 8, compaction 2": each name with its count, which a wrapped line keeps together. */
function tally(map: Record<string, number>, lead = ""): Segment[] {
  const parts = Object.entries(map)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${sanitize(k)} ${formatCount(v)}`);
  return pairs(parts.length > 0 ? parts : ["-"], ", ", lead);
}

const pairsOf = (parts: readonly string[]) => pairs(parts, ", ");

/** Pieces of a row, each kept whole on a wrapped line, `between` them. */
function pairs(parts: readonly string[], between: string, lead = ""): Segment[] {
  const out: Segment[] = lead ? [[lead]] : [];
  parts.forEach((p, i) => out.push(...(i > 0 ? [[between] as Segment] : []), [p, undefined, "whole"]));
  return out;
}

export function renderShow(result: ShowSummary | ShowEntry, style: Style): string {
  if ("entry" in result) return `${style.c.dim(`${sanitize(result.file)}:${result.line}`)}\n${sanitize(JSON.stringify(result.entry, null, 2))}\n`;
  const p = result.problems;
  const { c } = style;
  const findings = `\n${c.bold("Findings")}  ${p.errors > 0 ? c.red(plural(p.errors, "error")) : "0 errors"}, ${plural(p.warnings, "warning")}, ${plural(p.info, "note")}\n`;
  // (each finding by its line; what to do is check's: the file's path once, not in every hint)
  const next = result.findings.length > 0 ? wrapSegments([["what to do about each: ", c.dim], [`pi-session check ${sanitize(shellQuote(result.file))}`, c.dim, "whole"]], layoutWidth(style)).map((l) => `${l}\n`).join("") : "";
  return renderFacts(result, style) + renderLists(result, style) + findings + renderFindings(result.file, result.findings, style, { brief: true }) + next;
}

/**
 * The summary's facts, a row each (name, then value). On a terminal every line fits its width:
 * a long value wraps under itself. Piped, lines are whole.
 */
function renderFacts(result: ShowSummary, style: Style): string {
  const { c } = style;
  const h = result.header;
  const fit = layoutWidth(style);
  const rows: Array<[string, Segment[]]> = [];
  rows.push(["Session", h ? [[sanitize(String(h.id))], [`  (v${result.version})`, c.dim]] : [["no header", c.red]]]);
  rows.push(["File", [[sanitize(result.file)], [`  ${formatBytes(result.size)}, ${plural(result.lines, "line")}`, c.dim]]]);
  if (result.name) rows.push(["Name", [[previewIn(result.name, 80, fit)]]]);
  const o = result.openclaw;
  if (o) {
    // (an OpenClaw transcript: its label, its key in sessions.json, its agent, and whether it is an archive or a copy)
    if (o.label) rows.push(["Label", [[previewIn(o.label, 80, fit)]]]);
    const what = [`agent ${o.agent ?? "?"}`, o.kind ? `${o.kind}${o.channel ? ` (${o.channel})` : ""}` : "", o.archived ? `archived by a ${o.archived}` : "", o.copyOf ? `a copy of ${o.copyOf}` : "", o.spawnedBy ? `spawned by ${o.spawnedBy}` : ""].filter(Boolean);
    rows.push(["OpenClaw", pairsOf(what.map(sanitize))]);
    if (o.key) rows.push(["Key", [[sanitize(o.key), undefined, "whole"]]]);
  }
  if (h) {
    rows.push(["Cwd", [[sanitize(String(h.cwd ?? "-"))]]]);
    rows.push(["Created", [[formatTime(h.timestamp as string)]]]);
    if (h.parentSession) rows.push(["Parent", [[sanitize(String(h.parentSession))]]]);
  }
  rows.push(["Entries", tally(result.entriesByType, `${formatCount(result.entries)}: `)]);
  rows.push(["Messages", tally(result.messagesByRole, `${formatCount(result.messages)}: `)]);
  rows.push(["Models", tally(result.models)]);
  rows.push(["Thinking", tally(result.thinkingLevels)]);
  const t = result.tokens;
  rows.push(["Tokens", pairs([`input ${formatCount(t.input)}`, `output ${formatCount(t.output)}`, `cache read ${formatCount(t.cacheRead)}`, `cache write ${formatCount(t.cacheWrite)}`, `total ${formatCount(t.total)}`], " · ")]);
  // (tokens spent with no cost recorded are not free: said, as `usage` says it, not shown as $0.0000)
  rows.push(["Cost", result.cost === 0 && t.total > 0 ? [["-", c.dim], [" no cost recorded", c.dim]] : [[`$${result.cost.toFixed(4)}`]]]);
  rows.push(["Current leaf", result.currentLeaf ? [[sanitize(result.currentLeaf), c.bold]] : [["-"]]]);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  const row = ([k, v]: [string, Segment[]]) => {
    const plainWidth = v.reduce((n, [text]) => n + displayWidth(text), width);
    // (only a row too wide for the terminal is wrapped: its words then go one space apart)
    const lines = fit === undefined || plainWidth <= fit ? wrapSegments(v, undefined) : wrapSegments(v, Math.max(10, fit - width), "");
    return lines.map((line, i) => (i === 0 ? c.bold(k.padEnd(width)) : " ".repeat(width)) + line).join("\n");
  };
  return rows.map(row).join("\n") + "\n";
}

/**
 * The leaves, branch points, compactions and labels, each under a heading with its count; when
 * only the latest are listed (a terminal), a line says how many more and where to see them.
 */
function renderLists(result: ShowSummary, style: Style): string {
  const { c } = style;
  const fit = layoutWidth(style);
  const totals = result.totals ?? { leaves: result.leaves.length, branchPoints: result.branchPoints.length, compactions: result.compactions.length, labels: result.labels.length };
  const heading = (title: string, total: number, listed: number) => `\n${c.bold(`${title} (${formatCount(total)})`)}${listed < total ? c.dim(listed > LIST_LIMIT ? `, the latest ${LIST_LIMIT} and the current one` : `, the latest ${listed}`) : ""}\n`;
  const rest = (total: number, listed: number, where: string) =>
    listed < total ? wrapSegments([[`… ${formatCount(total - listed)} more: ${where}`, c.dim]], fit === undefined ? undefined : fit - 2, "  ").map((line) => `  ${line}\n`).join("") : "";
  const file = shellQuote(result.file);
  let out = heading("Leaves", totals.leaves, result.leaves.length);
  for (const leaf of result.leaves) {
    const mark = leaf.current ? c.green("* ") : "  ";
    const head = `${sanitize(leaf.id ?? "(no id)").padEnd(10)} depth ${String(leaf.depth).padStart(4)}  ${formatTime(leaf.timestamp ?? undefined)}`;
    const { label, room } = lineTail(fit, 2 + displayWidth(head), leaf.label ? ` [${preview(leaf.label, 30)}]` : "", 2, 60);
    out += `${mark}${head}${label ? c.yellow(label) : ""}${room >= 4 ? `  ${c.dim(previewIn(leaf.preview, room, fit))}` : ""}\n`;
  }
  out += rest(totals.leaves, result.leaves.length, `pi-session path ${file} --leaves`);
  if (totals.branchPoints > 0) {
    out += heading("Branch points", totals.branchPoints, result.branchPoints.length);
    for (const b of result.branchPoints) out += `  ${sanitize(b.id ?? "(no id)")}  ${b.children} children  ${c.dim(`line ${b.line}`)}\n`;
    out += rest(totals.branchPoints, result.branchPoints.length, `pi-session show ${file} --json`);
  }
  if (totals.compactions > 0) {
    out += heading("Compactions", totals.compactions, result.compactions.length);
    for (const k of result.compactions) {
      const segments: Segment[] = [[`  ${sanitize(k.id ?? "(no id)")}  ${k.tokensBefore !== null ? `${plural(k.tokensBefore, "token")} before` : ""}  keeps from ${sanitize(k.firstKeptEntryId ?? "-")}  `], [`line ${k.line}`, c.dim]];
      for (const line of wrapSegments(segments, fit)) out += `${line}\n`;
    }
    out += rest(totals.compactions, result.compactions.length, `pi-session show ${file} --json`);
  }
  if (totals.labels > 0) {
    out += heading("Labels", totals.labels, result.labels.length);
    for (const l of result.labels) {
      const target = sanitize(l.targetId);
      const { room } = lineTail(fit, 2 + displayWidth(target), "", 2, 60);
      out += `  ${target}${room >= 4 ? `  ${c.yellow(previewIn(l.label, room, fit))}` : ""}\n`;
    }
    out += rest(totals.labels, result.labels.length, `pi-session show ${file} --json`);
  }
  return out;
}

export async function run(options: ShowOptions, ctx: CommandContext): Promise<CommandOutcome> {
  // (JSON holds every leaf, branch point, compaction and label; a terminal gets the latest)
  const result = await show(options, ctx, ctx.json ? undefined : LIST_LIMIT);
  return { json: result, human: ctx.json ? "" : renderShow(result, ctx.style), exitCode: ExitCode.Ok };
}
