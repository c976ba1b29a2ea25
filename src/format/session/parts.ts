import { Interner, LineTable, NodeTable, type LineRecord } from "../read/line-table.js";
import type { V1IdAllocator } from "../schema/migrations.js";
import type { TextClass } from "../read/salvage.js";
import type { SessionHeader } from "../schema/types.js";

/*
 * What pass one (`pass-one.ts`) fills in and a `Session` reads: the line table, the node table and
 * what the scan learns on the way (the header, harness leaf moves, sessions concatenated after the
 * first, what the salvage rule makes of the lines pi skips).
 */

/** A code for a type or role that the table's byte column cannot hold (the rest are in `overflow`). */
export const OVERFLOW = 255;

/** Interned strings in a byte column, the 255th and later kept beside it by line. */
class ByteInterner extends Interner {
  readonly overflow = new Map<number, string>();
  codeFor(s: string | undefined, line: number): number {
    const c = this.code(s);
    if (c < OVERFLOW) return c;
    this.overflow.set(line, s!);
    return OVERFLOW;
  }
  stringOf(code: number, line: number): string | undefined {
    return code === OVERFLOW ? this.overflow.get(line) : this.strings[code];
  }
}

/** A session concatenated after the file's first (`Session.laterSessions`). */
export interface LaterSession {
  /** 1-based line of its header. */
  line: number;
  id: string;
  timestamp: string | undefined;
  cwd: string | undefined;
}

/** What the salvage rule makes of a line pi skips (`BrokenOutcome`, kept small: counts, not text). */
export type LineSalvage =
  | { kind: "joined"; last: number }
  | { kind: "joined-part" }
  | { kind: "pieces"; records: number; fragments: number; terminated: boolean }
  /** The line once normalised (its NULs removed) is this. */
  | { kind: "normalized"; to: Exclude<TextClass["kind"], "broken"> };

/** A session's tables, as pass one leaves them. */
export class SessionParts {
  readonly table: LineTable;
  readonly nodes: NodeTable;
  readonly types = new ByteInterner();
  readonly roles = new ByteInterner();
  header: SessionHeader | null = null;
  headerRecord: LineRecord | null = null;
  /** Whether the file uses agent-core harness `leaf` entries. */
  isHarness = false;
  v1Ids: V1IdAllocator | undefined;
  /** ids by ordinal, for v1 `firstKeptEntryIndex`. */
  idsByOrdinal: Array<string | undefined> = [];
  fkIndexByLine = new Map<number, string | undefined>();
  /** The line of the first record pi's loader keeps (the header should be it), or -1. */
  firstRecordIndex = -1;
  /** The parent ids of nodes whose link was cut to break a cycle (for their records). */
  readonly cutParents = new Map<number, string>();
  /** What the salvage rule makes of each line pi skips, by line index (such lines are few). */
  readonly salvage = new Map<number, LineSalvage>();
  /** Harness `leaf` entries (line, table index, target), in file order. */
  readonly leafMoves: Array<{ line: number; index: number; target: string | null }> = [];
  /**
   * Later sessions concatenated into the file (`cat a.jsonl b.jsonl`): each a later header with an
   * id of its own whose next entry starts a tree (no parent; in a v1 file, any such header).
   */
  readonly laterSessions: LaterSession[] = [];
  /** A later header, until the next entry says whether a session begins there (`beginsSession`). */
  pendingSession: (Omit<LaterSession, "id"> & { id: unknown }) | undefined;


  constructor(size: number) {
    // Sized for a line per 512 bytes, capped so that a big file does not reserve more than it may
    // need; later growth is sized from the lines a byte so far (`grow`).
    const capacity = Math.min(1 << 16, Math.max(64, Math.ceil(size / 512) || 0));
    this.table = new LineTable(capacity);
    this.nodes = new NodeTable(capacity);
  }
}
