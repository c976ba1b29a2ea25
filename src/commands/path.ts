import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode, shellQuote } from "../errors.js";
import { EntryNotFoundError, resolveEntry, type Session } from "../format/index.js";
import { withPreviews } from "../render/preview.js";
import { writeAll, writeJsonLines, writeJsonWithArray, type Sink } from "../render/sink.js";
import { fitPreview, formatTime, isoTime, JSON_PREVIEW, preview, sanitize, type Style } from "../render/text.js";
import { readShape } from "./common.js";
import { leafInfos, type LeafInfo } from "./show.js";
import { nodeKindLabel } from "./tree.js";

export interface PathOptions {
  file: string;
  entry?: string;
  leaves?: boolean;
}

export interface PathStep {
  id: string | null;
  parentId: string | null;
  line: number;
  kind: string;
  timestamp: string | null;
  preview: string;
}

export interface PathResult {
  file: string;
  leaf: string | null;
  entries: PathStep[];
}

export interface LeavesResult {
  file: string;
  currentLeaf: string | null;
  leaves: LeafInfo[];
}

/** The node ENTRY names, with an error that says how to find the right id. */
export function nodeFor(session: Session, query: string): number {
  try {
    return resolveEntry(session, query);
  } catch (error) {
    if (error instanceof EntryNotFoundError) {
      throw new CliError(`${session.name}: ${error.message}; run \`pi-session path ${shellQuote(session.name)} --leaves\` or \`pi-session tree\` to see the ids`);
    }
    throw error;
  }
}

export async function path(options: PathOptions, ctx: CommandContext): Promise<PathResult | LeavesResult> {
  const { session, labels } = await readShape(options.file, ctx);
  try {
    const idOf = (n: number) => session.nodeId(n) ?? null;
    if (options.leaves) {
      return { file: session.name, currentLeaf: session.leafNode >= 0 ? idOf(session.leafNode) : null, leaves: leafInfos(session, labels) };
    }
    const target = options.entry !== undefined ? nodeFor(session, options.entry) : session.leafNode;
    const nodes = target === -1 ? new Int32Array(0) : session.tree.pathTo(target);
    const entries = Array.from(steps(session, nodes, JSON_PREVIEW));
    return { file: session.name, leaf: target === -1 ? null : idOf(target), entries };
  } finally {
    session.close();
  }
}

export function renderPath(result: PathResult | LeavesResult, style: Style): string {
  const { c } = style;
  const textWidth = Math.max(20, style.width - 50);
  if ("leaves" in result) {
    if (result.leaves.length === 0) return c.dim("(no entries)\n");
    return result.leaves
      .map((l) => {
        const mark = l.current ? c.green("*") : " ";
        const label = l.label ? c.yellow(` [${preview(l.label, 30)}]`) : "";
        return `${mark} ${c.bold(sanitize(l.id ?? "(no id)"))}  depth ${String(l.depth).padStart(5)}  ${formatTime(l.timestamp ?? undefined)}${label}  ${c.dim(preview(l.preview, textWidth))}`;
      })
      .join("\n") + "\n";
  }
  if (result.entries.length === 0) return c.dim("(no entries)\n");
  const lineWidth = String(result.entries[result.entries.length - 1]!.line).length;
  return result.entries.map((e) => renderStep(e, lineWidth, style)).join("\n") + "\n";
}

export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  if (args.leaves === true) {
    const result = (await path({ file: args.file as string, leaves: true }, ctx)) as LeavesResult;
    return { json: result, jsonl: () => result.leaves, human: ctx.json ? "" : renderPath(result, ctx.style), exitCode: ExitCode.Ok };
  }
  // A branch can be the whole of a huge session: stream it.
  const { session } = await readShape(args.file as string, ctx);
  let nodes: Int32Array;
  try {
    const target = args.entry !== undefined ? nodeFor(session, args.entry as string) : session.leafNode;
    nodes = target === -1 ? new Int32Array(0) : session.tree.pathTo(target);
  } catch (error) {
    session.close();
    throw error;
  }
  const width = ctx.json || ctx.jsonl ? JSON_PREVIEW : stepTextWidth(ctx.style);
  const stream = async (out: Sink) => {
    try {
      if (ctx.jsonl) return await writeJsonLines(out, steps(session, nodes, width));
      if (ctx.json) {
        const leaf = nodes.length > 0 ? (session.nodeId(nodes[nodes.length - 1]!) ?? null) : null;
        await writeJsonWithArray(out, { file: session.name, leaf }, "entries", steps(session, nodes, width), {});
        return;
      }
      if (nodes.length === 0) await out.write(ctx.style.c.dim("(no entries)\n"));
      const lineWidth = nodes.length > 0 ? String(session.nodeLine(nodes[nodes.length - 1]!)).length : 1;
      await writeAll(out, (function* () {
        let i = 0;
        for (const step of steps(session, nodes, width)) yield renderStep(step, lineWidth, ctx.style, session.nodeTime(nodes[i++]!)) + "\n";
      })());
    } finally {
      session.close();
    }
  };
  return { stream, exitCode: ExitCode.Ok };
}

/** The steps of a branch, each with its preview (`width` characters at most), read as they are written. */
function* steps(session: Session, nodes: Iterable<number>, width: number): Generator<PathStep> {
  let previousId: string | null = null;
  for (const [node, preview] of withPreviews(session, nodes, (n) => n, width)) {
    const id = session.nodeId(node) ?? null;
    yield { id, parentId: previousId, line: session.nodeLine(node), kind: nodeKindLabel(session, node), timestamp: isoTime(session.nodeTime(node)), preview };
    previousId = id;
  }
}

/** How much of a preview a step shows. */
const stepTextWidth = (style: Style) => Math.max(20, style.width - 50);

/** `time`: the step's time in ms when known (formatting it skips parsing `e.timestamp` again). */
function renderStep(e: PathStep, lineWidth: number, style: Style, time: number | string | undefined = e.timestamp ?? undefined): string {
  const { c } = style;
  const textWidth = stepTextWidth(style);
  const kind = e.kind.startsWith("message/") ? c.cyan(e.kind.slice(8).padEnd(21)) : c.magenta(sanitize(e.kind).padEnd(21));
  return `${c.dim(String(e.line).padStart(lineWidth))}  ${c.bold(sanitize(e.id ?? "(no id)"))}  ${kind} ${c.dim(formatTime(time))}  ${fitPreview(e.preview, textWidth)}`;
}
