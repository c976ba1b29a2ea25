import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import type { Session } from "../format/session/session.js";
import { KeptSummaries } from "../format/session/summary.js";
import { previewOf } from "../render/preview.js";
import { sanitize } from "../render/safe.js";
import { writeAll, writeJsonLines, writeJsonWithArray, type Sink } from "../render/sink.js";
import { layoutWidth, type Style } from "../render/style.js";
import { formatTime } from "../render/units.js";
import { displayWidth, JSON_PREVIEW_CHARS, lineTail, preview, previewIn } from "../render/width.js";
import { branchSteps, renderBranch, stepTextWidth, type PathStep } from "../render/terminal/branch.js";
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


export interface LeavesResult {
  file: string;
  currentLeaf: string | null;
  leaves: LeafInfo[];
}

/**
 * A branch, open: the nodes from the root to the entry, known from the index; each step's preview
 * is the one pass one kept (`kept`: while the file reads as mostly one chain, a linear session's
 * every entry), else its line is read as it is listed or drawn (a branch can be the whole of a
 * huge session: it is streamed).
 */
export class BranchResult {
  constructor(
    readonly session: Session,
    readonly nodes: Int32Array,
    readonly kept?: KeptSummaries,
  ) {}

  get file(): string {
    return this.session.name;
  }

  get leaf(): string | null {
    return this.nodes.length > 0 ? (this.session.nodeId(this.nodes[this.nodes.length - 1]!) ?? null) : null;
  }

  /** The steps, each with its preview, read a window at a time as they are written. */
  steps(): Generator<PathStep> {
    return branchSteps(this.session, this.nodes, this.kept);
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

/**
 * Opens the branch from the root to ENTRY (default: the current leaf); close it when done. The
 * previews, of the width the output shows, are made as pass one reads each line while the entries
 * read as mostly one chain (`KeptSummaries`' `chain`: a linear session is then read once); past
 * that, the lines of the branch's entries are read again.
 */
export async function path(options: PathOptions, ctx: CommandContext): Promise<BranchResult> {
  const max = ctx.json || ctx.jsonl ? JSON_PREVIEW_CHARS : stepTextWidth(ctx.style);
  const kept = new KeptSummaries(max, previewOf(max), { chain: true });
  const { session } = await readShape(options.file, ctx, kept.previewLines);
  try {
    const target = options.entry !== undefined ? nodeFor(session, options.entry) : session.leafNode;
    return new BranchResult(session, target === -1 ? new Int32Array(0) : session.tree.pathTo(target), kept.done());
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
      await writeAll(out, renderBranch(branch.session, branch.nodes, ctx.style, branch.kept));
    } finally {
      branch.close();
    }
  };
  return { stream, exitCode: ExitCode.Ok };
}


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

