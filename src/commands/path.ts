import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode, shellQuote } from "../errors.js";
import { EntryNotFoundError, resolveEntry, type Session } from "../format/index.js";
import { PREVIEW_WINDOW, PreviewReader, withPreviews } from "../render/preview.js";
import { writeAll, writeJsonLines, writeJsonWithArray, type Sink } from "../render/sink.js";
import { displayWidth, fitPreview, formatTime, isoTime, JSON_PREVIEW, layoutWidth, lineTail, preview, sanitize, type Style } from "../render/text.js";
import { readShape } from "./common.js";
import { leafInfos, type LeafInfo } from "./show.js";
import { KindLabels, nodeKindLabel } from "./tree.js";

export interface PathStep {
  id: string | null;
  parentId: string | null;
  line: number;
  kind: string;
  timestamp: string | null;
  preview: string;
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

/** The leaves of a session (`path --leaves`). */
async function leaves(file: string, ctx: CommandContext): Promise<LeavesResult> {
  const { session, labels } = await readShape(file, ctx);
  try {
    return { file: session.name, currentLeaf: session.leafNode >= 0 ? (session.nodeId(session.leafNode) ?? null) : null, leaves: leafInfos(session, labels) };
  } finally {
    session.close();
  }
}

function renderLeaves(result: LeavesResult, style: Style): string {
  const { c } = style;
  const textWidth = stepTextWidth(style);
  const fit = layoutWidth(style);
  if (result.leaves.length === 0) return c.dim("(no entries)\n");
  return result.leaves
    .map((l) => {
      const mark = l.current ? c.green("*") : " ";
      const id = sanitize(l.id ?? "(no id)");
      const rest = `  depth ${String(l.depth).padStart(5)}  ${formatTime(l.timestamp ?? undefined)}`;
      // on a terminal the label and the preview take the room the line leaves
      const { label, room } = lineTail(fit, 2 + displayWidth(id) + displayWidth(rest), l.label ? ` [${preview(l.label, 30)}]` : "", 2, textWidth);
      return `${mark} ${c.bold(id)}${rest}${label ? c.yellow(label) : ""}${room >= 4 ? `  ${c.dim(preview(l.preview, room))}` : ""}`;
    })
    .join("\n") + "\n";
}

export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  if (args.leaves === true) {
    const result = await leaves(args.file as string, ctx);
    return { json: result, jsonl: () => result.leaves, human: ctx.json ? "" : renderLeaves(result, ctx.style), exitCode: ExitCode.Ok };
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
      await writeAll(out, renderSteps(session, nodes, ctx.style));
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

/** The branch drawn as lines, a window of them at a time (each a string of whole lines), each step's preview read as its window is drawn. */
function* renderSteps(session: Session, nodes: Int32Array, style: Style): Generator<string> {
  const { c } = style;
  const textWidth = stepTextWidth(style);
  const fit = layoutWidth(style);
  const reader = new PreviewReader(session, textWidth);
  const kinds = new KindLabels(session, (k) => (k.startsWith("message/") ? c.cyan(k.slice(8).padEnd(21)) : c.magenta(sanitize(k).padEnd(21))));
  const lineWidth = nodes.length > 0 ? String(session.nodeLine(nodes[nodes.length - 1]!)).length : 1;
  const previews: string[] = [];
  for (let from = 0; from < nodes.length; from += PREVIEW_WINDOW) {
    const window = nodes.subarray(from, from + PREVIEW_WINDOW);
    reader.read(window, window.length, previews);
    let out = "";
    for (let k = 0; k < window.length; k++) {
      const node = window[k]!;
      const id = sanitize(session.nodeId(node) ?? "(no id)");
      const time = formatTime(session.nodeTime(node));
      // on a terminal the preview takes the room the line leaves (none below a few columns)
      const room = fit === undefined ? textWidth : Math.min(textWidth, fit - (lineWidth + 2 + displayWidth(id) + 2 + kinds.widthOf(node) + 1 + displayWidth(time) + 2));
      const p = room >= 4 ? fitPreview(previews[k]!, room) : "";
      out += `${c.dim(String(session.nodeLine(node)).padStart(lineWidth))}  ${c.bold(id)}  ${kinds.of(node)} ${c.dim(time)}${p ? `  ${p}` : ""}\n`;
    }
    yield out;
  }
}
