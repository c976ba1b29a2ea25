import type { FileKind } from "../../schema/types.js";

/**
 * Repair (docs/commands.md, `repair`): every input line ends up in the repaired file, changed as little as possible,
 * or in the report as dropped, with its line number and a stable code. Pass one decides (line
 * level, then the tree); pass two writes through the shared rewriter, so the result (or its diff)
 * streams out and the original is never held whole. The phases each have a file of this folder;
 * what they share is the plan's shape (`plan.ts`) and the work they build up (`work.ts`).
 */

export type RepairCode =
  | "bom-removed"
  | "crlf-normalized"
  | "nul-removed"
  | "blank-dropped"
  | "newline-added"
  | "torn-dropped"
  | "fused-split"
  | "fragment-dropped"
  | "lines-joined"
  | "invalid-dropped"
  | "invalid-utf8-replaced"
  | "not-object-dropped"
  | "no-type-dropped"
  | "header-synthesized"
  | "header-completed"
  | "header-moved"
  | "header-duplicate-dropped"
  | "id-assigned"
  | "duplicate-dropped"
  | "id-renamed"
  | "parent-reattached"
  | "entry-dropped"
  | "reference-missing"
  | "result-removed"
  | "result-moved"
  | "compaction-kept-moved"
  | "result-omitted"
  | "conversation-left"
  | "session-split";

export interface RepairAction {
  code: RepairCode;
  /** 1-based input line. */
  line: number;
  message: string;
  /** true when the line's content is gone from the result. */
  dropped: boolean;
}

export const REPAIR_CODES: Record<RepairCode, { dropped: boolean }> = {
  "bom-removed": { dropped: false },
  "crlf-normalized": { dropped: false },
  "nul-removed": { dropped: false },
  "blank-dropped": { dropped: true },
  "newline-added": { dropped: false },
  "torn-dropped": { dropped: true },
  "fused-split": { dropped: false },
  "fragment-dropped": { dropped: true },
  "lines-joined": { dropped: false },
  "invalid-dropped": { dropped: true },
  "invalid-utf8-replaced": { dropped: false },
  "not-object-dropped": { dropped: true },
  "no-type-dropped": { dropped: true },
  "header-synthesized": { dropped: false },
  "header-completed": { dropped: false },
  "header-moved": { dropped: false },
  "header-duplicate-dropped": { dropped: true },
  "id-assigned": { dropped: false },
  "duplicate-dropped": { dropped: true },
  "id-renamed": { dropped: false },
  "parent-reattached": { dropped: false },
  "entry-dropped": { dropped: true },
  "reference-missing": { dropped: false },
  "result-removed": { dropped: true },
  "result-moved": { dropped: false },
  "compaction-kept-moved": { dropped: false },
  "result-omitted": { dropped: false },
  "conversation-left": { dropped: false },
  "session-split": { dropped: false },
};

/** A record of the result, as the writer makes it: the line's own text (or `text`), with `patch` applied. */
export interface OutPiece {
  text?: string;
  patch?: Patch;
}

/** Fixes to a kept record: its id, its parent, a compaction's first kept entry. */
export interface Patch {
  id?: string;
  parentId?: string | null;
  firstKeptEntryId?: string;
}

export type Decision = { kind: "drop" } | { kind: "normalize" } | { kind: "pieces"; pieces: OutPiece[] };

export interface RepairPlan {
  actions: RepairAction[];
  /** Lines written before the first input line (a moved or synthesized header). */
  headerLines: string[];
  decisions: Map<number, Decision>;
  /** Whether the result differs from the input at all. */
  changed: boolean;
  keptRecords: number;
  /** What the file is (`fileKindOf`): repair mends sessions only. */
  fileKind: FileKind;
  /**
   * Later sessions concatenated into the file (`cat a.jsonl b.jsonl`), where each begins: a
   * repair that keeps them writes each to a file of its own (`splitSessions`); this plan is of the
   * whole file, as one.
   */
  laterSessions: SessionStart[];
}

/** Where a session concatenated after another begins: its header's line and byte offset, its id and time. */
export interface SessionStart {
  line: number;
  offset: number;
  id: string;
  timestamp: string | undefined;
}

