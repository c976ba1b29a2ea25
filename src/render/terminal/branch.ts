import type { Session } from "../../format/session/session.js";
import { type KeptSummaries, kindName, SUMMARY_WINDOW, SummaryReader, withSummaries } from "../../format/session/summary.js";
import { KindNames } from "../kinds.js";
import { previewOf } from "../preview.js";
import { SMALL_STRING } from "../sink.js";
import { sanitize } from "../safe.js";
import { layoutWidth, type Style } from "../style.js";
import { formatTime, isoTime } from "../units.js";
import { displayWidth, entryIdIn, fitPreview, JSON_PREVIEW_CHARS } from "../width.js";

export interface PathStep {
  id: string | null;
  parentId: string | null;
  line: number;
  kind: string;
  timestamp: string | null;
  preview: string;
}

/**
 * A branch's entries (`nodes`, in order) as data: each with its line, kind, time and preview
 * (`path --json`'s steps), read a window at a time but where pass one `kept` them.
 */
export function* branchSteps(session: Session, nodes: Int32Array, kept?: KeptSummaries): Generator<PathStep> {
  const reader = new SummaryReader(session, JSON_PREVIEW_CHARS, previewOf(JSON_PREVIEW_CHARS), kept);
  let previousId: string | null = nodes.length > 0 && session.tree.parent[nodes[0]!]! >= 0 ? (session.nodeId(session.tree.parent[nodes[0]!]!) ?? null) : null;
  for (const [node, text] of withSummaries(reader, nodes, (n) => n)) {
    const id = session.nodeId(node) ?? null;
    yield { id, parentId: previousId, line: session.nodeLine(node), kind: kindName(session, node), timestamp: isoTime(session.nodeTime(node)), preview: text };
    previousId = id;
  }
}

/** The fewest columns a step's preview is given on a terminal before its id gives way. */
const MIN_PREVIEW = 20;

/** How much of a preview a step shows. */
export const stepTextWidth = (style: Style) => Math.max(20, style.width - 50);

/**
 * Entries of a branch (`nodes`, in order) drawn as lines, a few at a time (each a string of whole
 * lines), each one's preview read as its window is drawn but where pass one `kept` them:
 * its line, id, kind, time and preview.
 */
export function* renderBranch(session: Session, nodes: Int32Array, style: Style, kept?: KeptSummaries): Generator<string> {
  const { c } = style;
  if (nodes.length === 0) {
    yield c.dim("(no entries)\n");
    return;
  }
  const textWidth = stepTextWidth(style);
  const fit = layoutWidth(style);
  const reader = new SummaryReader(session, textWidth, previewOf(textWidth), kept);
  const kinds = new KindNames(session, (k) => (k.startsWith("message/") ? c.cyan(k.slice(8).padEnd(21)) : c.magenta(sanitize(k).padEnd(21))));
  // (on a terminal a head line names the columns, the line number's first: piped, the lines alone, for scripts)
  const lineWidth = Math.max(String(session.nodeLine(nodes[nodes.length - 1]!)).length, fit === undefined ? 0 : 4);
  // (on a terminal an id too long for the line beside a preview, a UUID's, shows its start: a
  // prefix is what `show FILE ID` takes; piped, ids are whole)
  const idRoom = fit === undefined ? undefined : fit - (lineWidth + 2 + 2 + 21 + 1 + 16 + 2 + MIN_PREVIEW);
  const idOf = (node: number) => entryIdIn(session.nodeId(node), idRoom);
  if (fit !== undefined) {
    const idWidth = displayWidth(idOf(nodes[0]!));
    const head = `${"line".padStart(lineWidth)}  ${"id".padEnd(idWidth)}  ${"kind".padEnd(21)} ${"time".padEnd(16)}  preview`;
    // (ASCII: cut to the width, as the lines under it are)
    yield `${c.bold(head.slice(0, fit).trimEnd())}\n`;
  }
  const previews: string[] = [];
  for (let from = 0; from < nodes.length; from += SUMMARY_WINDOW) {
    const window = nodes.subarray(from, from + SUMMARY_WINDOW);
    reader.read(window, window.length, previews);
    let out = "";
    for (let k = 0; k < window.length; k++) {
      const node = window[k]!;
      const id = idOf(node);
      const time = formatTime(session.nodeTime(node));
      // on a terminal the preview takes the room the line leaves (none below a few columns)
      const room = fit === undefined ? textWidth : Math.min(textWidth, fit - (lineWidth + 2 + displayWidth(id) + 2 + kinds.widthOf(node) + 1 + displayWidth(time) + 2));
      const p = room >= 4 ? fitPreview(previews[k]!, room, fit) : "";
      out += `${c.dim(String(session.nodeLine(node)).padStart(lineWidth))}  ${c.bold(id)}  ${kinds.of(node)} ${c.dim(time)}${p ? `  ${p}` : ""}\n`;
      // (a few lines at a time, as the tree's)
      if (out.length >= SMALL_STRING) {
        yield out;
        out = "";
      }
    }
    if (out) yield out;
  }
}
