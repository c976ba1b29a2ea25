import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Args } from "../args.js";
import { parentJson, relatives } from "../support/listing/lineage.js";
import { priceBook } from "../support/usage/prices.js";
import { unpricedNames, unpricedNotice } from "../support/usage/price-file.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode, shellQuote } from "../errors.js";
import { countBySeverity, nextSteps, type Finding } from "../format/check/findings.js";
import { toolCallsOf } from "../format/context/send.js";
import type { AgentMessage, AnyEntry, SessionHeader } from "../format/schema/types.js";
import type { Session } from "../format/session/session.js";
import { nodeSummary } from "../format/session/summary.js";
import type { UnpricedModel } from "../format/usage/records.js";
import { renderMessage, textLines } from "../render/terminal/message.js";
import { hintFor, renderFindings } from "../render/findings.js";
import { sanitize } from "../render/safe.js";
import { layoutWidth, type Style } from "../render/style.js";
import { formatBytes, formatCount, formatTime, plural } from "../render/units.js";
import { displayWidth, entryIdIn, lineTail, preview, previewIn, wrapSegments, type Segment } from "../render/width.js";
import { leafInfos, type LeafInfo } from "../support/inputs/leaves.js";
import { nodeFor, readFull } from "../support/inputs/read.js";
import { storedExtent, storedVersion, transcriptFacts, v3Copy, type StoreFacts } from "../stores/index.js";

export interface ShowOptions {
  file: string;
  /** An entry to print in full instead of the summary. */
  entry?: string;
  /** A price file of the user's over the build's table (`--prices`). */
  prices?: string;
  /** With an entry, on a terminal: the entry whole (piped, it always is). */
  full?: boolean;
}

export function options(args: Args): ShowOptions {
  return { file: args.string("file"), entry: args.optionalString("entry"), prices: args.optionalString("prices"), full: args.flag("full") };
}

export interface ShowSummary {
  file: string;
  /** An OpenClaw transcript's place in its store (agent, key, label, kind, …; docs/stores.md, "OpenClaw's stores"); null for pi's own. */
  openclaw: Omit<StoreFacts, "store"> | null;
  /** The session's own size and lines, as stored (a database's session: its database's size, and no lines of its own: null). */
  size: number;
  lines: number | null;
  /** A session pi cannot open as stored (agent-core's format 4): the size and lines of pi's v3 lines it reads as (what `migrate` writes). */
  asV3?: { size: number; lines: number };
  /** Its v3 copy beside it (`migrate` writes it), and whether it holds those lines as they are (migrated); null: none written. */
  v3Copy?: { path: string; current: boolean; continued: boolean } | null;
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
  /** What its requests with no cost recorded would have cost at list price (as `usage` estimates it), and the tokens no price is known for. */
  estimatedCost: number;
  unpricedTokens: number;
  /** Those tokens by model, with the provider and model id each was asked of (what `--prices` names), as `usage` gives them. */
  unpriced: UnpricedModel[];
  currentLeaf: string | null;
  leaves: LeafInfo[];
  branchPoints: Array<{ id: string | null; line: number; children: number }>;
  compactions: Array<{ id: string | null; line: number; tokensBefore: number | null; firstKeptEntryId: string | null }>;
  labels: Array<{ targetId: string; label: string; line: number }>;
  findings: Finding[];
  problems: { errors: number; warnings: number; info: number };
  /** The session it came from (a fork or clone's, a sub-agent's spawner, a reset's predecessor), as `ls --tree` links it; null: none recorded. */
  parent: ReturnType<typeof parentJson>;
  /** The sessions that came from it, in its store and the store's archive. */
  children: Array<{ id: string | null; path: string }>;
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
  /** What a debugger asks next (human output only; `--json` is the raw entry). */
  view?: EntryView;
}

/** Another entry named beside one: its id, line and one-line preview. */
interface EntryRef {
  id: string | null;
  line: number;
  preview: string;
}

/** One entry where it stands: its neighbours, its branch, its label, and what it pairs with. */
export interface EntryView {
  parent: EntryRef | null;
  children: EntryRef[];
  depth: number;
  /** Whether the current leaf's branch passes through it, and where that leaf is. */
  onCurrentBranch: boolean;
  currentLeaf: EntryRef | null;
  label: string | null;
  /** An assistant turn's calls, each with the results that answer it below it. */
  calls: Array<{ id: string; name: string; results: EntryRef[] }>;
  /** A tool result's call: the turn above it holding the call (null: none on its branch). */
  answers: { callId: string; call: EntryRef | null } | null;
  /** A compaction's kept part: the entry it starts at (null: nothing kept, or not found). */
  keptFrom: EntryRef | null;
  /** A label's target. */
  marks: EntryRef | null;
}

/** How many tool results below a turn are looked at for its calls' answers. */
const RESULTS_LOOKED_AT = 10_000;

function entryView(session: Session, node: number, labels: ReadonlyMap<string, { label: string }>): EntryView {
  const { tree } = session;
  const ref = (n: number): EntryRef => ({ id: session.nodeId(n) ?? null, line: session.nodeLine(n), preview: nodeSummary(session, n, 200) });
  const refOf = (id: unknown): EntryRef | null => {
    const n = typeof id === "string" ? session.nodeOf(id) : undefined;
    return n === undefined ? null : ref(n);
  };
  const entry = session.entry(node) as AnyEntry & { message?: AgentMessage; firstKeptEntryId?: unknown; targetId?: unknown };
  const id = session.nodeId(node);
  const m = entry.type === "message" ? entry.message : undefined;
  const calls: EntryView["calls"] = [];
  if (m?.role === "assistant") {
    for (const c of toolCallsOf(m)) calls.push({ id: String(c.id), name: String(c.name), results: [] });
    if (calls.length > 0) {
      // the results below the turn that name its calls, in file order (a moved one, a second one included)
      let looked = 0;
      for (let r = node + 1; r < tree.size && looked < RESULTS_LOOKED_AT; r++) {
        if (session.nodeRole(r) !== "toolResult" || !tree.isAncestor(node, r)) continue;
        looked++;
        const callId = (session.entry(r) as { message?: AgentMessage }).message?.toolCallId;
        calls.find((c) => c.id === callId)?.results.push(ref(r));
      }
    }
  }
  let answers: EntryView["answers"] = null;
  if (m?.role === "toolResult") {
    const callId = String(m.toolCallId ?? "");
    let call: EntryRef | null = null;
    for (let a = tree.parent[node]!; a >= 0 && call === null; a = tree.parent[a]!) {
      if (session.nodeRole(a) !== "assistant") continue;
      const turn = (session.entry(a) as { message?: AgentMessage }).message;
      if (turn && toolCallsOf(turn).some((c) => c.id === callId)) call = ref(a);
    }
    answers = { callId, call };
  }
  const leaf = session.leafNode;
  return {
    parent: tree.parent[node]! >= 0 ? ref(tree.parent[node]!) : null,
    children: [...tree.children(node)].map(ref),
    depth: tree.depthsOf([node])[0]!,
    onCurrentBranch: leaf >= 0 && tree.isAncestor(node, leaf),
    currentLeaf: leaf >= 0 ? ref(leaf) : null,
    label: id !== undefined ? (labels.get(id)?.label ?? null) : null,
    calls,
    answers,
    keptFrom: entry.type === "compaction" ? refOf(entry.firstKeptEntryId) : null,
    marks: entry.type === "label" ? refOf(entry.targetId) : null,
  };
}

/** The summary (or one entry); with `limit`, only the latest `limit` items of each list (see `ShowSummary.totals`). */
export async function show(options: ShowOptions, ctx: CommandContext, limit?: number): Promise<ShowSummary | ShowEntry> {
  const { session, findings, stats } = await readFull(options.file, ctx, priceBook(options.prices !== undefined ? resolve(options.prices) : undefined).priceOf);
  try {
    if (options.entry !== undefined) {
      const node = nodeFor(session, options.entry);
      const shown: ShowEntry = { file: session.name, line: session.nodeRecord(node).line, entry: session.entry(node) };
      return ctx.json ? shown : { ...shown, view: entryView(session, node, stats.labels) };
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
    const kin = session.name === "<stdin>" ? undefined : relatives(session.name, ctx.sessionDir);
    // (a session stored in a form pi cannot open, agent-core's 4: its own size and lines, which
    // its findings' lines are; then what it reads as, and its v3 copy)
    const own = session.name === "<stdin>" ? undefined : storedExtent(session.name);
    const copy = own ? v3Copy(session.name) : undefined;
    return {
      file: session.name,
      openclaw: store === "openclaw" ? (facts as Omit<StoreFacts, "store">) : null,
      size: own ? own.size : session.size,
      lines: own ? own.lines : session.lineCount,
      ...(own ? { asV3: { size: session.size, lines: session.lineCount }, v3Copy: copy && existsSync(copy.path) ? copy : null } : {}),
      // (the version it is stored in, where pi cannot read it as it is: agent-core's 4)
      version: storedVersion(session.name) ?? session.version,
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
      estimatedCost: stats.estimatedCost,
      unpricedTokens: stats.unpricedTokens,
      unpriced: stats.unpriced,
      currentLeaf: session.leafNode >= 0 ? (session.nodeRecord(session.leafNode).id ?? null) : null,
      leaves: leafInfos(session, new Map(labels.map(([target, { label }]) => [target, label])), leaves),
      branchPoints: latest(branchPoints, limit).map((n) => ({ id: session.nodeId(n) ?? null, line: session.nodeLine(n), children: tree.childCount(n) })),
      compactions: latest(stats.compactions, limit).map((c) => ({ id: c.id ?? null, line: c.line, tokensBefore: c.tokensBefore ?? null, firstKeptEntryId: c.firstKeptEntryId ?? null })),
      labels: latest(labels, limit).map(([targetId, { label, line }]) => ({ targetId, label, line })),
      findings,
      problems: { errors: problems.error, warnings: problems.warning, info: problems.info },
      parent: kin ? parentJson(kin.parent, kin.rowOf) : null,
      children: kin ? kin.children.map((k) => ({ id: k.id, path: k.path })) : [],
      ...(limit !== undefined ? { totals: { leaves: allLeaves.length, branchPoints: branchPoints.length, compactions: stats.compactions.length, labels: labels.length } } : {}),
    };
  } finally {
    session.close();
  }
}

/** An entry rendered as `context` renders a message, under what a debugger asks of it: where it is, what it answers and what answers it. */
function renderEntry(result: ShowEntry, style: Style, full: boolean): string {
  const { c } = style;
  const e = result.entry as AnyEntry & Record<string, unknown>;
  const v = result.view;
  const at = (r: EntryRef) => `${r.id ?? "(no id)"} (line ${r.line})`;
  // (a row is its text, then a preview of the entry it names, dim)
  const quoted = (r: EntryRef) => (r.preview ? `\u0000${preview(r.preview, 60)}` : "");
  const m = e.type === "message" ? (e.message as AgentMessage | undefined) : undefined;
  const kind = [String(e.type), m ? String(m.role) : ""].filter(Boolean).join(" · ");
  const rows: Array<[string, string]> = [];
  if (v) {
    rows.push(["parent", v.parent ? `${at(v.parent)}${quoted(v.parent)}` : "none (a root)"]);
    rows.push(["children", v.children.length === 0 ? "none (a leaf)" : v.children.slice(0, 8).map(at).join(", ") + (v.children.length > 8 ? `, … (${v.children.length} in all)` : "")]);
    rows.push(["branch", `depth ${v.depth} · ${v.onCurrentBranch ? "on the current branch" : "not on the current branch"}${v.currentLeaf ? ` (the current leaf: ${at(v.currentLeaf)})` : ""}`]);
    if (v.label) rows.push(["label", v.label]);
  }
  if (m?.role === "assistant") {
    const u = m.usage as { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; cost?: { total?: number } } | undefined;
    const usage = u ? ` · ${formatCount(u.input ?? 0)} in · ${formatCount(u.output ?? 0)} out${u.cacheRead ? ` · ${formatCount(u.cacheRead)} cache read` : ""}${u.cacheWrite ? ` · ${formatCount(u.cacheWrite)} cache write` : ""}${typeof u.cost?.total === "number" ? ` · $${u.cost.total.toFixed(4)}` : ""}` : "";
    rows.push(["model", `${String(m.provider ?? "?")}/${String(m.model ?? "?")} · stop ${String(m.stopReason ?? "?")}${usage}`]);
    if (typeof m.errorMessage === "string" && m.errorMessage) rows.push(["error", m.errorMessage]);
  }
  if (v?.answers) rows.push(["answers", `${v.answers.callId || "(no call id)"}: ${v.answers.call ? `the call in ${at(v.answers.call)}` : "no turn above it on its branch holds the call"}`]);
  if (e.type === "compaction") rows.push(["keeps from", v?.keptFrom ? `${at(v.keptFrom)}${quoted(v.keptFrom)}` : e.firstKeptEntryId ? `${String(e.firstKeptEntryId)} (not in the file)` : "nothing (the summary alone)"]);
  if (e.type === "label" && v) rows.push(["marks", v.marks ? `${at(v.marks)}${quoted(v.marks)}` : `${String(e.targetId)} (not in the file)`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  const title: Segment[] = [[`${sanitize(result.file)}:${result.line}`, c.bold], ["  "], [sanitize(kind), undefined, "whole"]];
  if (typeof e.id === "string") title.push(["  "], [sanitize(e.id), c.dim, "whole"]);
  let out = wrapSegments(title, layoutWidth(style)).map((l) => `${l}\n`).join("");
  for (const [k, text] of rows) {
    const [main, quote] = text.split("\u0000");
    const segments: Segment[] = [[`${k.padEnd(width)}  `, c.dim, "whole"], [sanitize(main!)]];
    if (quote !== undefined) segments.push([" "], [quote, c.dim]);
    out += wrapSegments(segments, layoutWidth(style), " ".repeat(width + 2)).map((l) => `${l}\n`).join("");
  }
  out += `\n${renderBody(e, m, style, full)}`;
  if (v && v.calls.length > 0) {
    out += `\n${c.bold("calls")}\n`;
    for (const call of v.calls) {
      const answered = call.results.length === 0 ? c.yellow("no result below it (pi answers it with an error result)") : call.results.map((r) => `answered in ${at(r)}`).join("; ") + (call.results.length > 1 ? c.red(" (answered more than once)") : "");
      out += wrapSegments([[`  ${sanitize(call.id)} ${sanitize(call.name)}: `, undefined, "whole"], [answered]], layoutWidth(style)).map((l) => `${l}\n`).join("");
    }
  }
  return out;
}

/** The entry's content: a message as `context` renders it, a summary as text, any other entry as its JSON. */
function renderBody(e: AnyEntry & Record<string, unknown>, m: AgentMessage | undefined, style: Style, full: boolean): string {
  if (m) return renderMessage(m, style, full);
  switch (e.type) {
    case "compaction":
      return renderMessage({ role: "compactionSummary", summary: e.summary, tokensBefore: e.tokensBefore } as unknown as AgentMessage, style, full);
    case "branch_summary":
      return renderMessage({ role: "branchSummary", summary: e.summary } as unknown as AgentMessage, style, full);
    case "custom_message":
      return renderMessage({ role: "custom", customType: e.customType, content: e.content } as unknown as AgentMessage, style, full);
    default:
      return textLines(JSON.stringify(e, null, 2), style).join("\n") + "\n";
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

/** The summary, or an entry (on a terminal its long parts folded unless `full`). */
export function renderShow(result: ShowSummary | ShowEntry, style: Style, full = false): string {
  if ("entry" in result) return renderEntry(result, style, full);
  const p = result.problems;
  const { c } = style;
  const findings = `\n${c.bold("Findings")}  ${p.errors > 0 ? c.red(plural(p.errors, "error")) : "0 errors"}, ${plural(p.warnings, "warning")}, ${plural(p.info, "note")}\n`;
  // (each finding by its line; then what mends them, as check says it (migrate, repair), each once;
  // errors nothing mends are check's to explain: the file's path once, not in every hint)
  const mends = [...new Set(nextSteps(result.findings).map((step) => hintFor(step, result.file)))];
  const lines = (segments: Segment[]) => wrapSegments(segments, layoutWidth(style)).map((l) => `${l}\n`).join("");
  const next = mends.length > 0 ? mends.map((m) => lines([["next: ", c.dim], [sanitize(m), c.bold, "unbroken"]])).join("") : p.errors > 0 ? lines([["what to do about each: ", c.dim], [`pi-session check ${sanitize(shellQuote(result.file))}`, c.dim, "unbroken"]]) : "";
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
  rows.push(["Session", h ? [[sanitize(String(h.id))], [result.version > 3 ? `  (v${result.version}: agent-core's storage format, read as pi's v3 lines)` : `  (v${result.version})`, c.dim]] : [["no header", c.red]]]);
  const extent = `${formatBytes(result.size)}${result.lines !== null ? `, ${plural(result.lines, "line")}` : ""}${result.asV3 ? `; read as pi's v3: ${formatBytes(result.asV3.size)}, ${plural(result.asV3.lines, "line")}` : ""}`;
  rows.push(["File", [[sanitize(result.file), undefined, "unbroken"], [`  ${extent}`, c.dim]]]);
  const copy = result.v3Copy;
  if (result.asV3) {
    const file = shellQuote(result.file);
    rows.push(["v3 copy", copy ? [[sanitize(copy.path), undefined, "unbroken"], copy.current ? [`  up to date: migrated, the file pi opens${copy.continued ? " (and has gone on with)" : ""}`, c.dim] : [`  out of date (pi-session migrate ${sanitize(file)} --force writes it again, keeping this one as a backup)`, c.yellow]] : [["none yet", c.yellow], [` (pi-session migrate ${sanitize(file)} writes one beside it)`, c.dim]]]);
  }
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
    rows.push(["Cwd", [[sanitize(String(h.cwd ?? "-")), undefined, "unbroken"]]]);
    rows.push(["Created", [[formatTime(h.timestamp as string)]]]);
  }
  const p = result.parent;
  if (p) rows.push(["Parent", [[`${p.relation === "reset" ? "after a reset of" : p.relation === "spawned" ? "spawned by" : "fork of"} `, c.dim], [sanitize(p.state === "found" ? `${p.id ?? "-"}  ${p.path}` : p.names), undefined, "unbroken"], ...(p.state === "found" ? [] : [[p.state === "missing" ? "  (no longer there)" : "  (not listed)", c.yellow] as Segment])]]);
  if (result.children.length > 0) rows.push(["Children", pairsOf(result.children.slice(0, 10).map((k) => sanitize(k.id ?? k.path)).concat(result.children.length > 10 ? [`… ${result.children.length - 10} more`] : []))]);
  rows.push(["Entries", tally(result.entriesByType, `${formatCount(result.entries)}: `)]);
  rows.push(["Messages", tally(result.messagesByRole, `${formatCount(result.messages)}: `)]);
  rows.push(["Models", tally(result.models)]);
  rows.push(["Thinking", tally(result.thinkingLevels)]);
  const t = result.tokens;
  rows.push(["Tokens", pairs([`input ${formatCount(t.input)}`, `output ${formatCount(t.output)}`, `cache read ${formatCount(t.cacheRead)}`, `cache write ${formatCount(t.cacheWrite)}`, `total ${formatCount(t.total)}`], " · ")]);
  // (tokens spent with no cost recorded are not free: said, as `usage` says it, not shown as $0.0000)
  rows.push(["Cost", result.cost === 0 && t.total > 0 ? [["-", c.dim], [" no cost recorded", c.dim]] : [[`$${result.cost.toFixed(4)}`]]]);
  if (result.estimatedCost > 0 || result.unpricedTokens > 0) rows.push(["Estimated", [...(result.estimatedCost > 0 ? [[`~$${result.estimatedCost.toFixed(4)}`, c.yellow] as Segment, [" at list price where no cost is recorded", c.dim] as Segment] : []), ...(result.unpricedTokens > 0 ? [[`${result.estimatedCost > 0 ? "; " : ""}${formatCount(result.unpricedTokens)} tokens with no price: ${sanitize(unpricedNames(result.unpriced))}${result.unpriced.some((u) => u.provider !== null) ? " (a price file to fill in for --prices FILE follows on stderr)" : ""}`, c.dim] as Segment] : [])]]);
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
    listed < total ? wrapSegments([[`… ${formatCount(total - listed)} more: `, c.dim], [where, c.dim, "unbroken"]], fit === undefined ? undefined : fit - 2, "  ").map((line) => `  ${line}\n`).join("") : "";
  const file = shellQuote(result.file);
  // (on a terminal an id too long for its line, a UUID's, shows its start: `rest` columns are the rest of its line's)
  const idIn = (id: string | null, rest: number) => entryIdIn(id, fit === undefined ? undefined : fit - rest);
  let out = heading("Leaves", totals.leaves, result.leaves.length);
  for (const leaf of result.leaves) {
    const mark = leaf.current ? c.green("* ") : "  ";
    const head = `${idIn(leaf.id, 31).padEnd(10)} depth ${String(leaf.depth).padStart(4)}  ${formatTime(leaf.timestamp ?? undefined)}`;
    const { label, room } = lineTail(fit, 2 + displayWidth(head), leaf.label ? ` [${preview(leaf.label, 30)}]` : "", 2, 60);
    out += `${mark}${head}${label ? c.yellow(label) : ""}${room >= 4 ? `  ${c.dim(previewIn(leaf.preview, room, fit))}` : ""}\n`;
  }
  out += rest(totals.leaves, result.leaves.length, `pi-session path ${file} --leaves`);
  if (totals.branchPoints > 0) {
    out += heading("Branch points", totals.branchPoints, result.branchPoints.length);
    for (const b of result.branchPoints) out += `  ${idIn(b.id, 17 + String(b.children).length + String(b.line).length)}  ${b.children} children  ${c.dim(`line ${b.line}`)}\n`;
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
      const target = idIn(l.targetId, 8);
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
  // (the models with no price and a price file for them, on stderr, as `usage` says them; --json has them as `unpriced`)
  const notice = ctx.json || "entry" in result ? undefined : unpricedNotice(result.unpriced, options.prices);
  return { json: result, human: ctx.json ? "" : renderShow(result, ctx.style, options.full === true), ...(notice ? { after: notice } : {}), exitCode: ExitCode.Ok };
}
