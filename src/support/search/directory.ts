import type { SessionStamp } from "../../stores/index.js";

/**
 * Every session the index holds, as a search first looks at them: its path, row, stamp and kind,
 * in one row of the database (`directory`) rather than a row each, so that a search of thousands
 * of sessions that changed nothing reads one value (the sessions' rows are read when they are
 * written, and one at a time for the sessions a search shows).
 */
export class Directory {
  private slots: Map<string, number> | undefined;

  constructor(
    readonly paths: readonly string[],
    readonly kinds: readonly string[],
    /** Id, size, mtime, inode, lines pi skips, ctime, sure (1, else 0: `DirectoryRow`): `FIELDS` numbers a session. */
    private readonly numbers: Float64Array,
  ) {}

  static readonly FIELDS = 7;

  /** The slot of `path`, or -1; `at`: its place in the listing, where the directory (written in the listing's order) most likely holds it. */
  slotOf(path: string, at = -1): number {
    if (at >= 0 && this.paths[at] === path) return at;
    this.slots ??= new Map(this.paths.map((p, k) => [p, k]));
    return this.slots.get(path) ?? -1;
  }

  id(slot: number): number {
    return this.numbers[slot * Directory.FIELDS]!;
  }

  /** Its numbers as the database keeps them. */
  bytes(): Uint8Array {
    return new Uint8Array(this.numbers.buffer, this.numbers.byteOffset, this.numbers.byteLength);
  }

  /** Whether the session in `slot` has lines pi skips. */
  skips(slot: number): boolean {
    return this.numbers[slot * Directory.FIELDS + 4]! > 0;
  }

  /** The directory with `changes` made (a row for a session read, null for one gone), those of `listing` first, in its order. */
  changed(changes: ReadonlyMap<string, DirectoryRow | null>, listing: readonly string[]): Directory {
    const rows = new Map<string, DirectoryRow>();
    const n = this.numbers;
    this.paths.forEach((p, k) => {
      const at = k * Directory.FIELDS;
      rows.set(p, { id: n[at]!, stamp: { size: n[at + 1]!, mtimeMs: n[at + 2]!, ino: n[at + 3]!, ctimeMs: n[at + 5]! }, kind: this.kinds[k]!, skipped: n[at + 4]!, sure: n[at + 6] === 1 });
    });
    for (const [p, row] of changes) {
      if (row) rows.set(p, row);
      else rows.delete(p);
    }
    const listed = new Set(listing);
    const paths = [...listing.filter((p) => rows.has(p)), ...[...rows.keys()].filter((p) => !listed.has(p))];
    const numbers = new Float64Array(paths.length * Directory.FIELDS);
    paths.forEach((p, k) => {
      const r = rows.get(p)!;
      numbers.set([r.id, r.stamp.size, r.stamp.mtimeMs, r.stamp.ino, r.skipped, r.stamp.ctimeMs ?? 0, r.sure ? 1 : 0], k * Directory.FIELDS);
    });
    return new Directory(paths, paths.map((p) => rows.get(p)!.kind), numbers);
  }

  /** Whether the session in `slot` has this stamp, and the index is sure that it holds the session as it is (`DirectoryRow`'s `sure`). */
  holds(slot: number, stamp: SessionStamp): boolean {
    const k = slot * Directory.FIELDS;
    const n = this.numbers;
    return n[k + 6] === 1 && n[k + 1] === stamp.size && n[k + 2] === stamp.mtimeMs && n[k + 3] === stamp.ino && n[k + 5] === (stamp.ctimeMs ?? 0);
  }
}

/** What the directory holds of a session. */
export interface DirectoryRow {
  id: number;
  stamp: SessionStamp;
  kind: string;
  /** Its lines pi skips. */
  skipped: number;
  /**
   * Whether the stamp tells every change after it (else the next search looks at the bytes again):
   * a file whose mtime or ctime is within `RACY_MS` of when it was read may be written again
   * within the same tick of a coarse clock (a file system of whole seconds) and keep its stamp.
   */
  sure: boolean;
}

/** How near to when a file was read its mtime or ctime makes its stamp unsure (`DirectoryRow`'s `sure`): git's rule for a racy stamp. */
const RACY_MS = 2000;

/**
 * Whether a stamp taken as a read began at `began` (ms) tells every later change: not where the
 * file's mtime or ctime is within `RACY_MS` of it (or after it), for a write in the same tick of
 * a coarse clock (whole seconds: ext3, FAT, many network mounts) keeps the stamp. A stamp without
 * a ctime (a database transcript's, from its rows) is sure.
 */
export function sureStamp(stamp: SessionStamp, began: number): boolean {
  return stamp.ctimeMs === undefined || Math.max(stamp.mtimeMs, stamp.ctimeMs) < began - RACY_MS;
}
