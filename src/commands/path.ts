import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { kindName, SUMMARY_WINDOW, SummaryReader, withSummaries, type Session } from "../format/index.js";
import { KindNames } from "../render/kinds.js";
import { previewOf } from "../render/preview.js";
import { sanitize } from "../render/safe.js";
import { writeAll, writeJsonLines, writeJsonWithArray, type Sink } from "../render/sink.js";
import { layoutWidth, type Style } from "../render/style.js";
import { formatTime, isoTime } from "../render/units.js";
import { displayWidth, fitPreview, JSON_PREVIEW_CHARS, lineTail, preview, previewIn } from "../render/width.js";
import { leafInfos, type LeafInfo } from "../support/inputs/leaves.js";
import { nodeFor, readShape } from "../support/inputs/read.js";

export interface PathOptions {
  file: string;
  /** The entry the branch ends at (default: the current leaf). */
  entry?: string;
  /** List every branch tip instead. */
  leaves?: boolean;
}

export function options(args: Args): PathOptions {
  return { file: args.string("file"), entry: args.optionalString("entry"), leaves: args.flag("leaves") };
}

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

/**
 * A branch, open: the nodes from the root to the entry, known from the index; each step's line is
 * read as it is listed or drawn (a branch can be the whole of a huge session: it is streamed).
 */
export class BranchResult {
  constructor(
    readonly session: Session,
    readonly nodes: Int32Array,
  ) {}

  get file(): string {
    return this.session.name;
  }

  get leaf(): string | null {
    return this.nodes.length > 0 ? (this.session.nodeId(this.nodes[this.nodes.length - 1]!) ?? null) : null;
  }

  /** The steps, each with its preview, read a window at a time as they are written. */
  *steps(): Generator<PathStep> {
    const session = this.session;
    const reader = new SummaryReader(session, JSON_PREVIEW_CHARS, previewOf(JSON_PREVIEW_CHARS));
    let previousId: string | null = null;
    for (const [node, text] of withSummaries(reader, this.nodes, (n) => n)) {
      const id = session.nodeId(node) ?? null;
      yield { id, parentId: previousId, line: session.nodeLine(node), kind: kindName(session, node), timestamp: isoTime(session.nodeTime(node)), preview: text };
      previousId = id;
    }
  }

  close(): void {
    this.session.close();
  }
}

/** The branch tips of FILE (`path --leaves`). */
export async function leaves(options: PathOptions, ctx: CommandContext): Promise<LeavesResult> {
  const { session, labels } = await readShape(options.file, ctx);
  try {
    return { file: session.name, currentLeaf: session.leafNode >= 0 ? (session.nodeId(session.leafNode) ?? null) : null, leaves: leafInfos(session, labels) };
  } finally {
    session.close();
  }
}

/** Opens the branch from the root to ENTRY (default: the current leaf); close it when done. */
export async function path(options: PathOptions, ctx: CommandContext): Promise<BranchResult> {
  const { session } = await readShape(options.file, ctx);
  try {
    const target = options.entry !== undefined ? nodeFor(session, options.entry) : session.leafNode;
    return new BranchResult(session, target === -1 ? new Int32Array(0) : session.tree.pathTo(target));
  } catch (error) {
    session.close();
    throw error;
  }
}

export async function run(options: PathOptions, ctx: CommandContext): Promise<CommandOutcome> {
  if (options.leaves) {
    const result = await leaves(options, ctx);
    return { json: result, jsonl: () => result.leaves, human: ctx.json ? "" : renderLeaves(result, ctx.style), exitCode: ExitCode.Ok };
  }
  const branch = await path(options, ctx);
  const stream = async (out: Sink) => {
    try {
      if (ctx.jsonl) return await writeJsonLines(out, branch.steps());
      if (ctx.json) return await writeJsonWithArray(out, { file: branch.file, leaf: branch.leaf }, "entries", branch.steps(), {});
      await writeAll(out, renderBranch(branch, ctx.style));
    } finally {
      branch.close();
    }
  };
  return { stream, exitCode: ExitCode.Ok };
}

/** How much of a preview a step shows. */
const stepTextWidth = (style: Style) => Math.max(20, style.width - 50);

export function renderLeaves(result: LeavesResult, style: Style): string {
  const { c } = style;
  const textWidth = stepTextWidth(style);
  const fit = layoutWidth(style);
  if (result.leaves.length === 0) return c.dim("(no entries)\n");
  return (
    result.leaves
      .map((l) => {
        const mark = l.current ? c.green("*") : " ";
        const id = sanitize(l.id ?? "(no id)");
        const rest = `  depth ${String(l.depth).padStart(5)}  ${formatTime(l.timestamp ?? undefined)}`;
        // on a terminal the label and the preview take the room the line leaves
        const { label, room } = lineTail(fit, 2 + displayWidth(id) + displayWidth(rest), l.label ? ` [${preview(l.label, 30)}]` : "", 2, textWidth);
        return `${mark} ${c.bold(id)}${rest}${label ? c.yellow(label) : ""}${room >= 4 ? `  ${c.dim(previewIn(l.preview, room, fit))}` : ""}`;
      })
      .join("\n") + "\n"
  );
}

/** The branch drawn as lines, a window of them at a time (each a string of whole lines), each step's preview read as its window is drawn. */
export function* renderBranch(branch: BranchResult, style: Style): Generator<string> {
  const { c } = style;
  const { session, nodes } = branch;
  if (nodes.length === 0) {
    yield c.dim("(no entries)\n");
    return;
  }
  const textWidth = stepTextWidth(style);
  const fit = layoutWidth(style);
  const reader = new SummaryReader(session, textWidth, previewOf(textWidth));
  const kinds = new KindNames(session, (k) => (k.startsWith("message/") ? c.cyan(k.slice(8).padEnd(21)) : c.magenta(sanitize(k).padEnd(21))));
  const lineWidth = String(session.nodeLine(nodes[nodes.length - 1]!)).length;
  const previews: string[] = [];
  for (let from = 0; from < nodes.length; from += SUMMARY_WINDOW) {
    const window = nodes.subarray(from, from + SUMMARY_WINDOW);
    reader.read(window, window.length, previews);
    let out = "";
    for (let k = 0; k < window.length; k++) {
      const node = window[k]!;
      const id = sanitize(session.nodeId(node) ?? "(no id)");
      const time = formatTime(session.nodeTime(node));
      // on a terminal the preview takes the room the line leaves (none below a few columns)
      const room = fit === undefined ? textWidth : Math.min(textWidth, fit - (lineWidth + 2 + displayWidth(id) + 2 + kinds.widthOf(node) + 1 + displayWidth(time) + 2));
      const p = room >= 4 ? fitPreview(previews[k]!, room, fit) : "";
      out += `${c.dim(String(session.nodeLine(node)).padStart(lineWidth))}  ${c.bold(id)}  ${kinds.of(node)} ${c.dim(time)}${p ? `  ${p}` : ""}\n`;
    }
    yield out;
  }
}
