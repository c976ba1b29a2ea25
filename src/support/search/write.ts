import { rowOf } from "../../format/search/score.js";
import type { SessionStamp } from "../../stores/index.js";
import type { IndexedSession, SearchIndex } from "./index-db.js";
import { unpack, worthAndSize, type IndexFile, type PackedEntries } from "./read.js";

/**
 * Sessions read for the index (read.ts) written into it: each session's row at once, its entries
 * in batches, each sorted by row (format/search/score.ts, `rowOf`): the full-text index takes a
 * row below the last one it took only after writing what it holds aside, so rows handed to it in
 * order keep its pieces few. The vocabulary gets each new term; after a large write, every term
 * of the index in one pass.
 */

/** Bytes of terms a batch holds at most before it is written. */
const BATCH_BYTES = 8 * 1024 * 1024;
/** Entries written in one update from which the vocabulary is filled from the index's terms in one pass. */
const ALL_TERMS_FROM = 20_000;

interface Pending {
  row: number;
  session: number;
  entries: PackedEntries;
  /** Kept with their ids (a `whole` read's). */
  ids: boolean;
  k: number;
}

export class IndexWriter {
  private batch: Pending[] = [];
  private chars = 0;
  private seq: number;
  /** Entries written. */
  written = 0;
  private readonly terms = new Set<string>();

  constructor(private readonly index: SearchIndex) {
    this.seq = index.seq;
  }

  /**
   * A session read in parts (a large one): its id, its entries read before gone (all, or those
   * after its last whole line where the read is `appended`); its row made now where it had none,
   * kept as it was until `add` says what the read found.
   */
  begin(path: string, held: IndexedSession | undefined, appended: boolean): number {
    if (held) {
      this.index.cutAfter(held.id, appended ? held.lines : 0);
      return held.id;
    }
    return this.index.keepSession({ path, stamp: { size: -1, mtimeMs: -1, ino: -1 }, mode: "whole", kind: "other", version: 0, readTo: 0, lines: 0, guard: null, headerId: null, cwd: null, created: null, name: null, firstUser: null, skipped: 0 });
  }

  /** A part of a session's entries (`begin`'s `session`). */
  part(session: number, entries: PackedEntries): void {
    for (let k = 0; k < entries.count; k++) {
      const { worth, size } = worthAndSize(entries, k);
      this.batch.push({ row: rowOf(worth, this.seq++), session, entries, ids: entries.ids.length > 0, k });
      this.chars += size;
    }
    if (this.chars >= BATCH_BYTES) this.flush();
  }

  /**
   * A session read (`held`: what the index held of it; `stamp`: its stamp before the read); its
   * id. `begun`: read in parts, its row made by `begin` and the entries before these written.
   */
  add(file: IndexFile, held: IndexedSession | undefined, stamp: SessionStamp, begun?: number): number {
    const index = this.index;
    // (a read on from the append point takes up from the last whole line; a read whole replaces all)
    if (held && begun === undefined) index.cutAfter(held.id, file.appended ? held.lines : 0);
    const id = index.keepSession(
      {
        path: file.path,
        stamp,
        mode: file.mode,
        kind: file.kind,
        version: file.version,
        readTo: file.readTo,
        lines: file.lines,
        guard: file.guard,
        headerId: file.header ? file.header.id : (held?.headerId ?? null),
        cwd: file.header ? file.header.cwd : (held?.cwd ?? null),
        created: file.header ? file.header.created : (held?.created ?? null),
        name: file.name,
        firstUser: file.firstUser,
        skipped: (file.appended ? (held?.skipped ?? 0) : 0) + file.skipped.length,
      },
      begun ?? held?.id,
    );
    for (const s of file.skipped) index.addSkipped(id, s.line, s.offset, s.length);
    this.part(id, file.entries);
    return id;
  }

  /** The entries held written, in the order of their rows. */
  flush(): void {
    this.batch.sort((a, b) => a.row - b.row);
    for (const { row, session, entries, ids, k } of this.batch) {
      const e = unpack(entries, k);
      this.index.addEntry(session, row, e, ids);
      if (this.written < ALL_TERMS_FROM) for (const t of e.terms.split(" ")) if (t) this.terms.add(t);
      this.written++;
    }
    this.batch = [];
    this.chars = 0;
  }

  /** What is held written, the vocabulary brought up to date, and the count of entries read kept. */
  done(): void {
    this.flush();
    if (this.written >= ALL_TERMS_FROM) this.index.addAllTerms();
    else this.index.addTerms(this.terms);
    this.index.seq = this.seq;
  }
}
