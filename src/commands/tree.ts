import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import type { Session } from "../format/index.js";

/** `message/user`, `compaction`, … from the line table alone. */
export function nodeKindLabel(session: Session, node: number): string {
  const { type, role } = session.nodeKind(node);
  if (type === "message") return `message/${role ?? "?"}`;
  return type ?? "(no type)";
}

export function isoTime(ms: number): string | null {
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
import { nodePreview } from "../render/preview.js";
import { preview, sanitize, type Style } from "../render/text.js";
import { readShape } from "./common.js";

export interface TreeOptions {
  file: string;
  depth?: number;
  compact?: boolean;
}

export interface TreeNodeJson {
  id: string | null;
  parentId: string | null;
  line: number;
  depth: number;
  kind: string;
  timestamp: string | null;
  preview: string;
  label: string | null;
  children: Array<string | null>;
  currentLeaf: boolean;
}

/** The tree as data: nodes in drawing order (pre-order, children by time then file order). */
export interface TreeResult {
  file: string;
  currentLeaf: string | null;
  roots: Array<string | null>;
  nodes: TreeNodeJson[];
  /** Nodes not drawn because of `--depth`. */
  hidden: number;
}

export async function tree(options: TreeOptions, ctx: CommandContext): Promise<{ result: TreeResult; session: Session }> {
  const { session, labels } = await readShape(options.file, ctx);
  try {
    const t = session.tree;
    const idOf = (n: number) => session.nodeId(n) ?? null;
    const nodes: TreeNodeJson[] = [];
    let hidden = 0;
    for (const { node } of t.walk()) {
      const depth = t.depth(node);
      if (options.depth !== undefined && depth >= options.depth) {
        hidden++;
        continue;
      }
      const id = session.nodeId(node);
      const p = t.parent[node]!;
      nodes.push({
        id: id ?? null,
        parentId: p === -1 ? null : idOf(p),
        line: session.nodeLine(node),
        depth,
        kind: nodeKindLabel(session, node),
        timestamp: isoTime(session.nodeTime(node)),
        preview: preview(nodePreview(session, node), 200),
        label: (id !== undefined && labels.get(id)) || null,
        children: Array.from(t.children(node), idOf),
        currentLeaf: node === session.leafNode,
      });
    }
    const result: TreeResult = {
      file: session.name,
      currentLeaf: session.leafNode >= 0 ? idOf(session.leafNode) : null,
      roots: t.roots.map(idOf),
      nodes,
      hidden,
    };
    return { result, session };
  } finally {
    session.close();
  }
}

/**
 * Draws the tree. A linear run stays in one column; only a branch point opens box-drawn children,
 * so a 100k-entry linear session is 100k short lines, not a 100k-deep staircase.
 */
export function renderTree(result: TreeResult, style: Style, compact = false): string {
  const { c } = style;
  if (result.nodes.length === 0) return c.dim("(no entries)\n");
  const children = new Map<TreeNodeJson, TreeNodeJson[]>();
  // Rebuild child lists from drawing order: each node's children follow it in pre-order.
  const lastAtDepth: TreeNodeJson[] = [];
  const roots: TreeNodeJson[] = [];
  for (const n of result.nodes) {
    children.set(n, []);
    lastAtDepth[n.depth] = n;
    if (n.depth === 0) roots.push(n);
    else children.get(lastAtDepth[n.depth - 1]!)!.push(n);
  }
  const interesting = (n: TreeNodeJson) => n.label !== null || n.currentLeaf || children.get(n)!.length !== 1;
  const lines: string[] = [];
  const stack: Array<{ node: TreeNodeJson; linePrefix: string; childPrefix: string; root?: number }> = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ node: roots[i]!, linePrefix: "", childPrefix: "", root: i });
  const textWidth = Math.max(30, style.width - 40);
  while (stack.length > 0) {
    const { node, linePrefix, childPrefix, root } = stack.pop()!;
    // Several roots (orphans, resets) would read as one chain without a divider.
    if (root !== undefined && roots.length > 1) lines.push(c.dim(`${root > 0 ? "\n" : ""}── root ${root + 1} of ${roots.length} ──`));
    const label = node.label ? c.yellow(` [${preview(node.label, 30)}]`) : "";
    const current = node.currentLeaf ? c.green(" ← current leaf") : "";
    const kind = node.kind.startsWith("message/") ? c.cyan(node.kind.slice(8)) : c.magenta(sanitize(node.kind));
    const text = node.preview ? ` ${c.dim(preview(node.preview, Math.max(10, textWidth - linePrefix.length)))}` : "";
    lines.push(`${c.dim(linePrefix)}${c.bold(sanitize(node.id ?? "(no id)"))} ${kind}${label}${current}${text}`);
    let kids = children.get(node)!;
    if (kids.length === 1) {
      let next = kids[0]!;
      if (compact) {
        let folded = 0;
        // Not interesting means exactly one child, so the walk down the run always has a next.
        while (!interesting(next)) {
          folded++;
          next = children.get(next)![0]!;
        }
        if (folded > 0) lines.push(c.dim(`${childPrefix}┆ ${folded} entr${folded === 1 ? "y" : "ies"}`));
      }
      stack.push({ node: next, linePrefix: childPrefix, childPrefix });
      continue;
    }
    kids = [...kids];
    for (let i = kids.length - 1; i >= 0; i--) {
      const last = i === kids.length - 1;
      stack.push({ node: kids[i]!, linePrefix: childPrefix + (last ? "└─ " : "├─ "), childPrefix: childPrefix + (last ? "   " : "│  ") });
    }
  }
  if (result.hidden > 0) lines.push(c.dim(`(${result.hidden} deeper entries not drawn; raise --depth)`));
  return lines.join("\n") + "\n";
}

export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  const compact = args.compact === true;
  const { result } = await tree({ file: args.file as string, depth: args.depth as number | undefined, compact }, ctx);
  return { json: result, human: ctx.json ? "" : renderTree(result, ctx.style, compact), exitCode: ExitCode.Ok };
}
