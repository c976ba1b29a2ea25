import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { countBySeverity, EntryNotFoundError, resolveEntry, type AnyEntry, type Finding, type Session, type SessionHeader } from "../format/index.js";
import { renderFindings } from "../render/findings.js";
import { nodePreview } from "../render/preview.js";
import { formatBytes, formatCount, formatTime, isoTime, plural, preview, sanitize, type Style } from "../render/text.js";
import { readFull } from "./common.js";

export interface ShowOptions {
  file: string;
  entry?: string;
}

export interface LeafInfo {
  id: string | null;
  line: number;
  depth: number;
  timestamp: string | null;
  label: string | null;
  current: boolean;
  preview: string;
}

export interface ShowSummary {
  file: string;
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
}

export interface ShowEntry {
  file: string;
  line: number;
  entry: AnyEntry;
}

/** Gathers leaf tips with their depth, label and a preview (reads only the leaf lines). */
export function leafInfos(session: Session, labels: ReadonlyMap<string, string>): LeafInfo[] {
  return session.tree.leaves().map((node) => {
    const id = session.nodeId(node);
    return {
      id: id ?? null,
      line: session.nodeLine(node),
      depth: session.tree.depth(node),
      timestamp: isoTime(session.nodeTime(node)),
      label: (id !== undefined && labels.get(id)) || null,
      current: node === session.leafNode,
      preview: nodePreview(session, node),
    };
  });
}

export async function show(options: ShowOptions, ctx: CommandContext): Promise<ShowSummary | ShowEntry> {
  const { session, findings, stats } = await readFull(options.file, ctx);
  try {
    if (options.entry !== undefined) {
      let node: number;
      try {
        node = resolveEntry(session, options.entry);
      } catch (error) {
        if (error instanceof EntryNotFoundError) throw new CliError(`${session.name}: ${error.message}; run \`pi-session tree ${session.name}\` to see the ids`);
        throw error;
      }
      return { file: session.name, line: session.nodeRecord(node).line, entry: session.entry(node) };
    }
    const { tree } = session;
    const problems = countBySeverity(findings);
    return {
      file: session.name,
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
      leaves: leafInfos(session, new Map([...stats.labels].map(([target, { label }]) => [target, label]))),
      branchPoints: tree.branchPoints().map((n) => ({ id: session.nodeId(n) ?? null, line: session.nodeLine(n), children: tree.childCount(n) })),
      compactions: stats.compactions.map((c) => ({ id: c.id ?? null, line: c.line, tokensBefore: c.tokensBefore ?? null, firstKeptEntryId: c.firstKeptEntryId ?? null })),
      labels: [...stats.labels].map(([targetId, { label, line }]) => ({ targetId, label, line })),
      findings,
      problems: { errors: problems.error, warnings: problems.warning, info: problems.info },
    };
  } finally {
    session.close();
  }
}

function tally(map: Record<string, number>): string {
  const parts = Object.entries(map)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${sanitize(k)} ${formatCount(v)}`);
  return parts.length > 0 ? parts.join(", ") : "-";
}

export function renderShow(result: ShowSummary | ShowEntry, style: Style): string {
  const { c } = style;
  if ("entry" in result) {
    return `${c.dim(`${sanitize(result.file)}:${result.line}`)}\n${sanitize(JSON.stringify(result.entry, null, 2))}\n`;
  }
  const h = result.header;
  const rows: Array<[string, string]> = [];
  rows.push(["Session", h ? `${sanitize(String(h.id))}  ${c.dim(`(v${result.version})`)}` : c.red("no header")]);
  rows.push(["File", `${sanitize(result.file)}  ${c.dim(`${formatBytes(result.size)}, ${plural(result.lines, "line")}`)}`]);
  if (result.name) rows.push(["Name", preview(result.name, 80)]);
  if (h) {
    rows.push(["Cwd", sanitize(String(h.cwd ?? "-"))]);
    rows.push(["Created", formatTime(h.timestamp as string)]);
    if (h.parentSession) rows.push(["Parent", sanitize(String(h.parentSession))]);
  }
  rows.push(["Entries", `${formatCount(result.entries)}: ${tally(result.entriesByType)}`]);
  rows.push(["Messages", `${formatCount(result.messages)}: ${tally(result.messagesByRole)}`]);
  rows.push(["Models", tally(result.models)]);
  rows.push(["Thinking", tally(result.thinkingLevels)]);
  const t = result.tokens;
  rows.push(["Tokens", `input ${formatCount(t.input)} · output ${formatCount(t.output)} · cache read ${formatCount(t.cacheRead)} · cache write ${formatCount(t.cacheWrite)} · total ${formatCount(t.total)}`]);
  rows.push(["Cost", `$${result.cost.toFixed(4)}`]);
  rows.push(["Current leaf", result.currentLeaf ? c.bold(sanitize(result.currentLeaf)) : "-"]);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  let out = rows.map(([k, v]) => `${c.bold(k.padEnd(width))}${v}`).join("\n") + "\n";

  out += `\n${c.bold(`Leaves (${result.leaves.length})`)}\n`;
  for (const leaf of result.leaves) {
    const mark = leaf.current ? c.green("* ") : "  ";
    const label = leaf.label ? c.yellow(` [${preview(leaf.label, 30)}]`) : "";
    out += `${mark}${sanitize(leaf.id ?? "(no id)").padEnd(10)} depth ${String(leaf.depth).padStart(4)}  ${formatTime(leaf.timestamp ?? undefined)}${label}  ${c.dim(preview(leaf.preview, 60))}\n`;
  }
  if (result.branchPoints.length > 0) {
    out += `\n${c.bold(`Branch points (${result.branchPoints.length})`)}\n`;
    for (const b of result.branchPoints) out += `  ${sanitize(b.id ?? "(no id)")}  ${b.children} children  ${c.dim(`line ${b.line}`)}\n`;
  }
  if (result.compactions.length > 0) {
    out += `\n${c.bold(`Compactions (${result.compactions.length})`)}\n`;
    for (const k of result.compactions) {
      out += `  ${sanitize(k.id ?? "(no id)")}  ${k.tokensBefore !== null ? `${plural(k.tokensBefore, "token")} before` : ""}  keeps from ${sanitize(k.firstKeptEntryId ?? "-")}  ${c.dim(`line ${k.line}`)}\n`;
    }
  }
  if (result.labels.length > 0) {
    out += `\n${c.bold(`Labels (${result.labels.length})`)}\n`;
    for (const l of result.labels) out += `  ${sanitize(l.targetId)}  ${c.yellow(preview(l.label, 60))}\n`;
  }
  const p = result.problems;
  out += `\n${c.bold("Findings")}  ${p.errors > 0 ? c.red(plural(p.errors, "error")) : "0 errors"}, ${plural(p.warnings, "warning")}, ${plural(p.info, "note")}\n`;
  out += renderFindings(result.file, result.findings, style, { indent: "  " });
  return out;
}

export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await show({ file: args.file as string, entry: args.entry as string | undefined }, ctx);
  return { json: result, human: renderShow(result, ctx.style), exitCode: ExitCode.Ok };
}
