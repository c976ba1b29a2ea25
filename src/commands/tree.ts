import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import type { Session } from "../format/session/session.js";
import { KeptSummaries, kindName, SUMMARY_WINDOW, SummaryReader, withSummaries } from "../format/session/summary.js";
import { KindNames } from "../render/kinds.js";
import { previewOf } from "../render/preview.js";
import { sanitize, sanitizeOneLine } from "../render/safe.js";
import { SMALL_STRING, writeAll, writeJsonLines, writeJsonWithArray, type Sink } from "../render/sink.js";
import { layoutWidth, type Style } from "../render/style.js";
import { isoTime, plural } from "../render/units.js";
import { cutToWidth, displayWidth, entryIdIn, fitPreview, JSON_PREVIEW_CHARS, lineTail, preview } from "../render/width.js";
import { readShape } from "../support/inputs/read.js";
import { transcriptFacts } from "../stores/index.js";

export interface TreeOptions {
  file: string;
  depth?: number;
  compact?: boolean;
}

export function options(args: Args): TreeOptions {
  return { file: args.string("file"), depth: args.number("depth"), compact: args.flag("compact") };
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

/**
 * A session's tree, open: the shape from the index, labels from pass one, and the previews pass
 * one made (`KeptSummaries`: every entry's, in all but the longest sessions). The rest of the
 * previews are read as their window is listed or drawn.
 */
export class TreeResult {
  /** Labels by node (every holder of a labelled id). */
  private readonly labelOf = new Map<number, string>();
  /** How many entries lie past `--depth`, not drawn. */
  readonly hidden: number;

  constructor(
    readonly session: Session,
    labels: ReadonlyMap<string, string>,
    readonly depthLimit: number | undefined,
    private readonly kept?: KeptSummaries,
  ) {
    for (const [id, label] of labels) {
      for (const node of session.duplicateIds.get(id) ?? [session.nodeOf(id)]) if (node !== undefined) this.labelOf.set(node, label);
    }
    let hidden = 0;
    if (depthLimit !== undefined) for (let i = 0; i < session.tree.size; i++) if (session.tree.depth(i) >= depthLimit) hidden++;
    this.hidden = hidden;
  }

  get file(): string {
    return this.session.name;
  }

  get currentLeaf(): string | null {
    return this.session.leafNode >= 0 ? this.id(this.session.leafNode) : null;
  }

  get roots(): Array<string | null> {
    return this.session.tree.roots.map((r) => this.id(r));
  }

  id(n: number): string | null {
    return this.session.nodeId(n) ?? null;
  }

  label(n: number): string | null {
    return this.labelOf.get(n) ?? null;
  }

  /** A reader of the nodes' previews of at most `max` characters. */
  previews(max: number): SummaryReader {
    return new SummaryReader(this.session, max, previewOf(max), this.kept);
  }

  /** Every drawn node as JSON, in drawing order. */
  *nodes(): Generator<TreeNodeJson> {
    for (const [n, p] of withSummaries(this.previews(JSON_PREVIEW_CHARS), this.drawn(), (n) => n)) yield this.json(n, p);
  }

  close(): void {
    this.session.close();
  }

  /** Nodes in drawing order within the depth limit. */
  private *drawn(): Generator<number> {
    for (const { node, depth } of this.session.tree.walk()) if (this.depthLimit === undefined || depth < this.depthLimit) yield node;
  }

  private json(n: number, previewText: string): TreeNodeJson {
    const t = this.session.tree;
    const p = t.parent[n]!;
    return {
      id: this.id(n),
      parentId: p === -1 ? null : this.id(p),
      line: this.session.nodeLine(n),
      depth: t.depth(n),
      kind: kindName(this.session, n),
      timestamp: isoTime(this.session.nodeTime(n)),
      preview: previewText,
      label: this.label(n),
      children: Array.from(t.children(n), (c) => this.id(c)),
      currentLeaf: n === this.session.leafNode,
    };
  }
}

/**
 * Opens FILE's tree (see `TreeResult`; close it when done). Every entry is shown (unless
 * `--depth` says otherwise): its preview, of the width the output shows, is made as pass one
 * reads its line, so that the file is read once.
 */
export async function tree(options: TreeOptions, ctx: CommandContext): Promise<TreeResult> {
  const max = ctx.json || ctx.jsonl ? JSON_PREVIEW_CHARS : treeTextWidth(ctx.style);
  const kept = options.depth === undefined ? new KeptSummaries(max, previewOf(max)) : undefined;
  const { session, labels } = await readShape(options.file, ctx, kept?.previewLines);
  return new TreeResult(session, labels, options.depth, kept?.done());
}

export async function run(options: TreeOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await tree(options, ctx);
  const stream = async (out: Sink) => {
    try {
      if (ctx.jsonl) return await writeJsonLines(out, result.nodes());
      if (ctx.json) return await writeJsonWithArray(out, { file: result.file, currentLeaf: result.currentLeaf, roots: result.roots }, "nodes", result.nodes(), { hidden: result.hidden });
      // (on a terminal, an OpenClaw transcript's label and key head its tree; piped, the tree is all)
      const facts = ctx.style.terminalWidth !== undefined && result.file !== "<stdin>" ? transcriptFacts(result.file) : undefined;
      if (facts?.store === "openclaw") {
        const about = [facts.label, facts.key, facts.agent ? `agent ${facts.agent}` : ""].filter(Boolean).join(" · ");
        if (about) await out.write(`${ctx.style.c.dim(cutToWidth(sanitizeOneLine(about), ctx.style.terminalWidth!))}\n`);
      }
      await writeAll(out, renderTree(result, ctx.style, options.compact));
    } finally {
      result.close();
    }
  };
  return { stream, exitCode: ExitCode.Ok };
}

/**
 * A line's box-drawn prefix, one level (three columns) a link: a branch nested a third of a
 * session deep has prefixes of a hundred thousand columns, so none is built whole unless the
 * drawing is whole (piped). `text` is the whole prefix (a rope: concatenation copies nothing);
 * `fitted` the prefix made to fit `room` columns on a terminal, where the levels that do not fit
 * give way, from the left, to `…N ` saying how many are not drawn, made from the innermost levels
 * alone.
 */
class Prefix {
  readonly levels: number;
  readonly text: string;
  private fit: string | undefined;

  constructor(
    readonly up: Prefix | undefined,
    readonly level: string,
  ) {
    this.levels = (up?.levels ?? 0) + (level ? 1 : 0);
    this.text = up ? up.text + level : level;
  }

  fitted(room: number): string {
    if (this.levels * 3 <= room) return this.text;
    if (this.fit === undefined) {
      const kept = Math.max(0, Math.floor((room - 2 - String(this.levels).length) / 3));
      const inner: string[] = [];
      for (let p: Prefix | undefined = this; p && inner.length < kept; p = p.up) if (p.level) inner.push(p.level);
      this.fit = `…${this.levels - kept} ${inner.reverse().join("")}`;
    }
    return this.fit;
  }
}

const NO_PREFIX = new Prefix(undefined, "");

/**
 * How much of a preview the drawing shows at most (less under deep branches): on a terminal, what
 * a line leaves after its id and kind (each line then takes what it has room for); piped, a
 * fixed share of the width, one layout for scripts.
 */
const treeTextWidth = (style: Style) => Math.max(30, style.width - (layoutWidth(style) === undefined ? 40 : 20));

/**
 * A window of the drawing's lines: line k is node `nodes[k]` under the box-drawn prefix
 * `prefixes[k]`, or, where `nodes[k]` is -1, the line `texts[k]` of its own (a divider, a fold).
 */
interface DrawWindow {
  nodes: Int32Array;
  prefixes: Prefix[];
  texts: string[];
  count: number;
}

/**
 * The tree's lines, in order, without their previews, a window at a time (the same window object,
 * refilled). A linear run stays in one column; only a branch point opens box-drawn children, so a
 * 100k-entry linear session is 100k short lines, not a 100k-deep staircase. `fold` makes a prefix
 * the text a line shows.
 */
function* drawTree(view: TreeResult, style: Style, compact: boolean, fold: (prefix: Prefix) => string): Generator<DrawWindow> {
  const { c } = style;
  const s = view.session;
  const t = s.tree;
  const limit = view.depthLimit;
  const w: DrawWindow = { nodes: new Int32Array(SUMMARY_WINDOW), prefixes: [], texts: [], count: 0 };
  const emit = (node: number, prefix: Prefix) => {
    w.nodes[w.count] = node;
    w.prefixes[w.count++] = prefix;
  };
  const emitText = (text: string) => {
    w.nodes[w.count] = -1;
    w.texts[w.count++] = text;
  };
  const visibleChildren = (n: number): ArrayLike<number> => (limit !== undefined && t.depth(n) + 1 >= limit ? [] : t.children(n));
  const interesting = (n: number) => view.label(n) !== null || n === s.leafNode || visibleChildren(n).length !== 1;
  const roots = limit === 0 ? [] : t.roots;
  if (roots.length === 0) emitText(c.dim("(no entries)"));
  const stack: Array<{ node: number; linePrefix: Prefix; childPrefix: Prefix; root?: number }> = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ node: roots[i]!, linePrefix: NO_PREFIX, childPrefix: NO_PREFIX, root: i });
  while (stack.length > 0) {
    // (room for the three lines an item may emit)
    if (w.count + 3 > SUMMARY_WINDOW) {
      yield w;
      w.count = 0;
    }
    const { node, linePrefix, childPrefix, root } = stack.pop()!;
    // Several roots (orphans, resets) would read as one chain without a divider.
    if (root !== undefined && roots.length > 1) emitText(`${root > 0 ? "\n" : ""}${c.dim(`── root ${root + 1} of ${roots.length} ──`)}`);
    emit(node, linePrefix);
    let kids = visibleChildren(node);
    // A linear run is walked here, without a stack item a line.
    while (kids.length === 1 && !compact && w.count < SUMMARY_WINDOW) {
      emit(kids[0]!, childPrefix);
      kids = visibleChildren(kids[0]!);
      if (kids.length === 1 && w.count === SUMMARY_WINDOW) {
        stack.push({ node: kids[0]!, linePrefix: childPrefix, childPrefix });
        kids = [];
      }
    }
    if (kids.length === 1) {
      let next = kids[0]!;
      if (compact) {
        let folded = 0;
        // Not interesting means exactly one visible child, so the walk down the run always has a next.
        while (!interesting(next)) {
          folded++;
          next = visibleChildren(next)[0]!;
        }
        if (folded > 0) emitText(c.dim(`${fold(childPrefix)}┆ ${plural(folded, "entry", "entries")}`));
      }
      stack.push({ node: next, linePrefix: childPrefix, childPrefix });
      continue;
    }
    for (let i = kids.length - 1; i >= 0; i--) {
      const last = i === kids.length - 1;
      stack.push({ node: kids[i]!, linePrefix: new Prefix(childPrefix, last ? "└─ " : "├─ "), childPrefix: new Prefix(childPrefix, last ? "   " : "│  ") });
    }
  }
  const hidden = view.hidden;
  if (hidden > 0) emitText(c.dim(`(${plural(hidden, "deeper entry", "deeper entries")} not drawn; raise --depth)`));
  if (w.count > 0) yield w;
}

/** The drawing, a window of lines at a time (each a string of whole lines), each node's preview read as its window is drawn. */
export function* renderTree(view: TreeResult, style: Style, compact = false): Generator<string> {
  const { c } = style;
  const s = view.session;
  const textWidth = treeTextWidth(style);
  const reader = view.previews(textWidth);
  const kinds = new KindNames(s, (k) => (k.startsWith("message/") ? c.cyan(k.slice(8)) : c.magenta(sanitize(k))));
  const previews: string[] = [];
  const current = " ← current leaf";
  // On a terminal every line fits its width: deep prefixes fold, then the label and the preview
  // take what is left. Piped, the drawing is whole (one layout for scripts).
  const fit = layoutWidth(style);
  const prefixRoom = fit === undefined ? Infinity : Math.max(12, fit - 40);
  const fold = (prefix: Prefix) => prefix.fitted(prefixRoom);
  for (const w of drawTree(view, style, compact, fold)) {
    reader.read(w.nodes, w.count, previews);
    let out = "";
    for (let k = 0; k < w.count; k++) {
      const node = w.nodes[k]!;
      if (node < 0) {
        out += w.texts[k] + "\n";
        continue;
      }
      const prefix = fold(w.prefixes[k]!);
      const lbl = view.label(node);
      const here = node === s.leafNode ? current : "";
      // (on a terminal an id too long for the line, a UUID's, shows its start, a dozen columns left for the preview)
      const id = entryIdIn(view.id(node), fit === undefined ? undefined : fit - prefix.length - 1 - kinds.widthOf(node) - here.length - 12);
      const used = fit === undefined ? 0 : prefix.length + displayWidth(id) + 1 + kinds.widthOf(node) + here.length;
      const { label, room } = lineTail(fit, used, lbl ? ` [${preview(lbl, 30)}]` : "", 1, Math.max(10, textWidth - prefix.length));
      const p = room >= 4 ? previews[k]! : "";
      out += `${prefix ? c.dim(prefix) : ""}${c.bold(id)} ${kinds.of(node)}${label ? c.yellow(label) : ""}${here ? c.green(here) : ""}${p ? ` ${c.dim(fitPreview(p, room, fit))}` : ""}\n`;
      // (a few lines at a time: a string past V8's regular object size is made outside the young
      // generation, and a window's worth each 4,096 lines piled up there until a full collection;
      // BENCHMARKS.md, "output in small strings")
      if (out.length >= SMALL_STRING) {
        yield out;
        out = "";
      }
    }
    if (out) yield out;
  }
}
