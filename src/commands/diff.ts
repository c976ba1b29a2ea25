import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { lineDiff } from "../format/common/line-diff.js";
import { contextMessages, contextSettingsAt } from "../format/context/branch.js";
import { compareSessions, forkOf, type EntryAt, type SessionComparison } from "../format/session/compare.js";
import type { Session } from "../format/session/session.js";
import { nodeSummary } from "../format/session/summary.js";
import { renderDiff } from "../render/diff.js";
import { sanitize } from "../render/safe.js";
import { layoutWidth, makeStyle, type Style } from "../render/style.js";
import { branchSteps, type PathStep } from "../render/terminal/branch.js";
import { renderMessage, renderSettings } from "../render/terminal/message.js";
import { plural } from "../render/units.js";
import { displayWidth, previewIn, wrapSegments } from "../render/width.js";
import { nodeFor, readShape } from "../support/inputs/read.js";

/*
 * `diff`: two branches of one session (`diff FILE LEAF_A LEAF_B`: where they part, each side's
 * entries after it, and what the model sees on each, as a unified diff), or two sessions (`diff A
 * B`: entries added, removed and changed, matched by id, then the current leaves' contexts).
 * Exit codes as diff(1) has them: 0 the same, 1 different, 2 trouble.
 */

export interface DiffOptions {
  /** FILE LEAF_A LEAF_B, or A B. */
  args: string[];
  /** The counts alone. */
  stat: boolean;
  /** On a terminal, the contexts' diff whole (no folding, no cut lines). */
  full: boolean;
}

export function options(args: Args): DiffOptions {
  return { args: [args.string("a"), args.string("b"), ...(args.optionalString("c") !== undefined ? [args.string("c")] : [])], stat: args.flag("stat"), full: args.flag("full") };
}

/**
 * A context as `context` prints it piped (no colour, no wrapping, every message whole): the lines
 * a diff compares. Whole, or a change past a fold (a tool result's 21st line) would be no change.
 */
function contextLines(session: Session, node: number): string[] {
  if (node < 0) return [];
  const plain = makeStyle(false, 80);
  let text = renderSettings(contextSettingsAt(session, node), plain);
  for (const m of contextMessages(session, node)) text += `\n${renderMessage(m, plain, true)}`;
  return text.replace(/\n$/, "").split("\n");
}

export interface LeavesDiff {
  file: string;
  leafA: { id: string | null; line: number };
  leafB: { id: string | null; line: number };
  forkPoint: { id: string | null; line: number; preview: string } | null;
  a: PathStep[];
  b: PathStep[];
  /** The two contexts as a unified diff ("" when the model sees the same on both). */
  context: string;
}

/** An entry of one side as the diff lists it. */
export interface EntryRow {
  id: string | null;
  line: number;
  kind: string;
  preview: string;
}

export interface SessionsDiff {
  a: string;
  b: string;
  added: EntryRow[];
  removed: EntryRow[];
  changed: Array<{ id: string | null; lineA: number; lineB: number; fields: string[] }>;
  header: string[];
  context: string;
}

export async function diffLeaves(file: string, leafA: string, leafB: string, ctx: CommandContext): Promise<LeavesDiff> {
  const { session } = await readShape(file, ctx);
  try {
    const na = nodeFor(session, leafA);
    const nb = nodeFor(session, leafB);
    const { fork, a, b } = forkOf(session, na, nb);
    const ref = (n: number) => ({ id: session.nodeId(n) ?? null, line: session.nodeLine(n) });
    return {
      file: session.name,
      leafA: ref(na),
      leafB: ref(nb),
      forkPoint: fork >= 0 ? { ...ref(fork), preview: nodeSummary(session, fork, 200) } : null,
      a: [...branchSteps(session, a)],
      b: [...branchSteps(session, b)],
      context: lineDiff(`${session.name} @ ${session.nodeId(na) ?? na}`, `${session.name} @ ${session.nodeId(nb) ?? nb}`, contextLines(session, na), contextLines(session, nb)),
    };
  } finally {
    session.close();
  }
}

export async function diffSessions(fileA: string, fileB: string, ctx: CommandContext): Promise<SessionsDiff> {
  const { session: a } = await readShape(fileA, ctx);
  try {
    const { session: b } = await readShape(fileB, ctx);
    try {
      const c: SessionComparison = compareSessions(a, b);
      const described = (s: Session) => (e: EntryAt): EntryRow => ({ id: e.id, line: e.line, kind: kindOf(s, e.node), preview: nodeSummary(s, e.node, 200) });
      return {
        a: a.name,
        b: b.name,
        added: c.added.map(described(b)),
        removed: c.removed.map(described(a)),
        changed: c.changed.map((e) => ({ id: e.id, lineA: e.a.line, lineB: e.b.line, fields: e.fields })),
        header: c.header,
        context: lineDiff(a.name, b.name, contextLines(a, a.leafNode), contextLines(b, b.leafNode)),
      };
    } finally {
      b.close();
    }
  } finally {
    a.close();
  }
}

function kindOf(s: Session, n: number): string {
  const { type, role } = s.nodeKind(n);
  return type === "message" && role ? role : String(type ?? "?");
}

export function renderLeavesDiff(d: LeavesDiff, style: Style, stat: boolean, full: boolean): string {
  const { c } = style;
  const id = (r: { id: string | null; line: number }) => `${sanitize(r.id ?? "(no id)")} (line ${r.line})`;
  // (on a terminal the preview takes the room the line leaves)
  const fit = layoutWidth(style);
  const head = d.forkPoint ? `fork point  ${id(d.forkPoint)}  ` : "";
  const room = fit === undefined ? 60 : fit - displayWidth(head);
  let out = d.forkPoint ? `${c.bold("fork point")}  ${id(d.forkPoint)}${room >= 8 ? `  ${c.dim(previewIn(d.forkPoint.preview, room, fit))}` : ""}\n` : `${c.bold("fork point")}  none: the two share no entry\n`;
  const side = (mark: string, leaf: LeavesDiff["leafA"], steps: PathStep[]) => `${c.bold(`${mark} ${id(leaf)}`)}: ${plural(steps.length, "entry", "entries")} after it\n`;
  if (stat) {
    return out + side("a", d.leafA, d.a) + side("b", d.leafB, d.b) + (d.context ? `the contexts differ: ${diffStat(d.context)}\n` : "the model sees the same on both\n");
  }
  // (one set of columns for both sides, so that their previews line up)
  const rows = (steps: PathStep[]) => steps.map((s): Piece[] => [[String(s.line), c.dim, "start"], [sanitize(s.id ?? "(no id)"), c.bold], [sanitize(s.kind.replace(/^message\//, ""))]]);
  const [a, b] = [rows(d.a), rows(d.b)];
  const widths = columnWidths([...a, ...b]);
  const stepsText = (pieces: Piece[][], steps: PathStep[]) => (steps.length === 0 ? c.dim("  (none: the leaf is the fork point)\n") : pieces.map((p, k) => withPreview(p, steps[k]!.preview, style, widths)).join(""));
  out += `\n${side("---", d.leafA, d.a)}${stepsText(a, d.a)}\n${side("+++", d.leafB, d.b)}${stepsText(b, d.b)}`;
  out += d.context ? `\n${c.bold("what the model sees")}\n${renderDiff(d.context, style, full)}` : `\n${c.dim("the model sees the same on both")}\n`;
  return out;
}

/** A row's piece: its text, how it is painted, and which side it is padded from ("start": right-aligned, as numbers are). */
type Piece = [string, ((s: string) => string)?, "start"?];

/** The display width of each column over `rows`: what each piece is padded to. */
function columnWidths(rows: Piece[][]): number[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach(([t], k) => (widths[k] = Math.max(widths[k] ?? 0, displayWidth(t))));
  return widths;
}

/**
 * A row: its pieces two spaces apart, each padded to its column's width (the last, before the
 * preview, too, so that the previews of the rows line up), then the preview in the room the row
 * leaves on a terminal (piped: 100 columns of it), dim.
 */
function withPreview(pieces: Piece[], text: string, style: Style, widths: number[]): string {
  const padded = pieces.map(([t, paint, side], k): [string, ((s: string) => string)?] => {
    const gap = " ".repeat(Math.max(0, (widths[k] ?? 0) - displayWidth(t)));
    return [side === "start" ? gap + t : t + gap, paint];
  });
  const plain = padded.map(([t]) => t).join("  ");
  const fit = layoutWidth(style);
  const room = fit === undefined ? 100 : fit - displayWidth(plain) - 2;
  const row = padded.map(([t, paint]) => (paint ? paint(t) : t)).join("  ");
  const preview = room >= 8 && text ? `  ${style.c.dim(previewIn(text, room, fit))}` : "";
  return `${preview ? row : row.trimEnd()}${preview}\n`;
}

/** "3 lines removed, 5 added" of a unified diff. */
function diffStat(diff: string): string {
  let removed = 0;
  let added = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("-") && !line.startsWith("---")) removed++;
    else if (line.startsWith("+") && !line.startsWith("+++")) added++;
  }
  return `${plural(removed, "line")} removed, ${added} added`;
}

export function renderSessionsDiff(d: SessionsDiff, style: Style, stat: boolean, full: boolean): string {
  const { c } = style;
  const counts = `${plural(d.added.length, "entry", "entries")} added, ${d.removed.length} removed, ${d.changed.length} changed${d.header.length > 0 ? ", the header changed" : ""}`;
  const contextLine = d.context ? `the current leaves' contexts differ: ${diffStat(d.context)}` : "the current leaves' contexts are the same";
  if (stat) return `${counts}\n${contextLine}\n`;
  const fit = layoutWidth(style);
  const named = (mark: string, file: string, paint: (s: string) => string) => wrapSegments([[`${mark} `, paint], [sanitize(file), paint, "unbroken"]], fit).map((l) => `${l}\n`).join("");
  let out = `${named("---", d.a, c.red)}${named("+++", d.b, c.green)}${counts}\n`;
  const pieces = (mark: string, paint: (s: string) => string, e: SessionsDiff["added"][number]): Piece[] => [[`${mark} ${sanitize(e.id ?? "(no id)")}`, paint], [`line ${e.line}`], [sanitize(e.kind)]];
  const widths = columnWidths([...d.removed.map((e) => pieces("-", c.red, e)), ...d.added.map((e) => pieces("+", c.green, e))]);
  const row = (mark: string, paint: (s: string) => string, e: SessionsDiff["added"][number]) => withPreview(pieces(mark, paint, e), e.preview, style, widths);
  if (d.header.length > 0) out += `${c.yellow("~ header")}  ${sanitize(d.header.join(", "))}\n`;
  for (const e of d.removed) out += row("-", c.red, e);
  for (const e of d.added) out += row("+", c.green, e);
  for (const e of d.changed) out += `${c.yellow(`~ ${sanitize(e.id ?? "(no id)")}`)}  line ${e.lineA} → ${e.lineB}  ${sanitize(e.fields.join(", "))}\n`;
  out += d.context ? `\n${c.bold("the current leaves' contexts")}\n${renderDiff(d.context, style, full)}` : `\n${c.dim(contextLine)}\n`;
  return out;
}

export async function run(options: DiffOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const [first, second, third] = options.args as [string, string, string | undefined];
  if (third !== undefined) {
    const d = await diffLeaves(first, second, third, ctx);
    const same = d.a.length === 0 && d.b.length === 0 && d.context === "";
    const json = options.stat ? { file: d.file, forkPoint: d.forkPoint, a: d.a.length, b: d.b.length, contextDiffers: d.context !== "" } : d;
    return { json, human: ctx.json ? "" : renderLeavesDiff(d, ctx.style, options.stat, options.full), exitCode: same ? ExitCode.Ok : ExitCode.Findings };
  }
  const d = await diffSessions(first, second, ctx);
  const same = d.added.length === 0 && d.removed.length === 0 && d.changed.length === 0 && d.header.length === 0 && d.context === "";
  const json = options.stat ? { a: d.a, b: d.b, added: d.added.length, removed: d.removed.length, changed: d.changed.length, header: d.header.length > 0, contextDiffers: d.context !== "" } : d;
  return { json, human: ctx.json ? "" : renderSessionsDiff(d, ctx.style, options.stat, options.full), exitCode: same ? ExitCode.Ok : ExitCode.Findings };
}
