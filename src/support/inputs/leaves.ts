import type { Session } from "../../format/session/session.js";
import { nodeSummary } from "../../format/session/summary.js";
import { summaryWindow } from "../../format/session/line-summary.js";
import { isoTime } from "../../render/units.js";
import { JSON_PREVIEW_CHARS, preview } from "../../render/width.js";

/** A branch tip as `path --leaves` and `show` list it. */
export interface LeafInfo {
  id: string | null;
  line: number;
  depth: number;
  timestamp: string | null;
  label: string | null;
  current: boolean;
  preview: string;
}

/** The leaves `nodes` (default: every leaf) with their depth, label and a preview (only the leaf lines are read). */
export function leafInfos(session: Session, labels: ReadonlyMap<string, string>, nodes: readonly number[] = session.tree.leaves()): LeafInfo[] {
  const depths = session.tree.depthsOf(nodes);
  return nodes.map((node, k) => {
    const id = session.nodeId(node);
    return {
      id: id ?? null,
      line: session.nodeLine(node),
      depth: depths[k]!,
      timestamp: isoTime(session.nodeTime(node)),
      label: (id !== undefined && labels.get(id)) || null,
      current: node === session.leafNode,
      preview: preview(nodeSummary(session, node, summaryWindow(JSON_PREVIEW_CHARS)), JSON_PREVIEW_CHARS),
    };
  });
}
