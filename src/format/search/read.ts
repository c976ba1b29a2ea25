import { idHash } from "../common/hash.js";
import { entryWithId, lineEntry, lineHeader } from "../grep/read.js";
import { entryRole, searchableTexts } from "../grep/pattern.js";
import { parseLine } from "../read/salvage.js";
import { forEachLine, SliceSource, type ByteSource } from "../read/source.js";
import type { FileKind, SessionHeader } from "../schema/types.js";
import { SessionTitle } from "../session/labels.js";
import { Session } from "../session/session.js";
import { entryWorth } from "./score.js";
import { TermWriter } from "./terms.js";

/**
 * A session read for the search index: each entry that has text to search (grep/pattern.ts,
 * `searchableTexts`), as `grep` reads the file: line by line where its header allows (a v2 or v3
 * header, then an entry with an id), else by the reference reader (`Session`: v1 ids, files that
 * are no session). Each entry is handed on with where its line is, what it is and its terms
 * (terms.ts); lines pi skips are listed (what `grep` says it did not search).
 *
 * A session read line by line can be read on from where a read stopped (`IndexFrom`: the end of
 * its last whole line): what was appended since. A last line without its newline is read, but
 * the next read starts before it, and reads it again whole.
 */

/** An entry as the index keeps it. */
export interface IndexedEntry {
  /** Its line in the source (1-based), and where that line lies. */
  line: number;
  offset: number;
  length: number;
  /** Its id as the reading gives it (a v1 file's, made as pi makes them). */
  id: string | undefined;
  /** `entryRole`. */
  role: string;
  /** Its time (ms), NaN for none. */
  time: number;
  /** `entryWorth`, from its role and the length of its texts. */
  worth: number;
  /** `idHash` of its id (else of `#line`): what tells the same entry in a copy of the session. */
  key: number;
  /** Its terms, space separated. */
  terms: string;
}

/** Where a read line by line stopped, to read on from: the end of its last whole line, and that line's number; the file's version; its title so far. */
export interface IndexFrom {
  bytes: number;
  lines: number;
  version: number;
  title: SessionTitle;
}

export interface IndexRead {
  header: SessionHeader | null;
  kind: FileKind;
  /** "lines": read line by line, and can be read on; "whole": by the reference, read whole whenever it changes. */
  mode: "lines" | "whole";
  version: number;
  /** Where the last whole line ends, and how many lines end there. */
  end: number;
  lines: number;
  title: SessionTitle;
  /** Lines pi skips: their text is not searched. */
  skipped: Array<{ line: number; offset: number; length: number }>;
}

const STAND_ASIDE = Symbol("stand aside");

/** The read's chunk: smaller than a whole-file read's, as each of the threads reading a store holds one. */
const CHUNK = 4 * 1024 * 1024;

/**
 * Reads `source` for the index, from its start or `from` on, handing each entry to `onEntry`
 * (`whole`: read by the reference, whose ids a line may not hold: a v1 file's); undefined where a
 * read from `from` cannot go on line by line (the caller reads it whole).
 */
export function readForIndex(source: ByteSource, from: IndexFrom | undefined, onEntry: (entry: IndexedEntry, whole: boolean) => void): IndexRead | undefined {
  return byLines(source, from, onEntry) ?? (from ? undefined : byReference(source, onEntry));
}

/** An entry's texts as terms and its worth: what `onEntry` is given, or undefined for an entry without text. */
function indexed(entry: Record<string, unknown>, line: number, offset: number, length: number, id: string | undefined, writer: TermWriter): IndexedEntry | undefined {
  let chars = 0;
  let any = false;
  searchableTexts(entry, (_field, text) => {
    any = true;
    chars += text.length;
    writer.add(text);
  });
  if (!any) return undefined;
  const role = entryRole(entry);
  const time = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) : NaN;
  return { line, offset, length, id, role, time, worth: entryWorth(role, chars), key: idHash(id ?? `#${line}`), terms: writer.take() };
}

function byLines(whole: ByteSource, from: IndexFrom | undefined, onEntry: (entry: IndexedEntry, whole: boolean) => void): IndexRead | undefined {
  const base = from?.bytes ?? 0;
  const lineBase = from?.lines ?? 0;
  const source = from ? new SliceSource(whole, base, whole.size) : whole;
  const writer = new TermWriter();
  const title = from?.title ?? new SessionTitle();
  const skipped: IndexRead["skipped"] = [];
  let header: SessionHeader | null = null;
  let version = from?.version ?? 0;
  let checked = from !== undefined;
  let end = base;
  let lines = lineBase;
  try {
    forEachLine(source, (chunk, start, stop, n, offset, terminated) => {
      const line = lineBase + n;
      const at = base + offset;
      const bytes = chunk.subarray(start, stop);
      if (terminated) {
        end = at + (stop - start) + 1;
        lines = line;
      }
      if (line === 1) {
        const h = lineHeader(bytes);
        if (!h) throw STAND_ASIDE;
        header = h;
        version = h.version as number;
        return;
      }
      const entry = lineEntry(bytes, version);
      if (!checked) {
        // (as grep's line-by-line read: what the file is takes an entry with an id first)
        if (entry === undefined && parseLine(bytes).blank) return;
        if (!entryWithId(entry)) throw STAND_ASIDE;
        checked = true;
      }
      if (entry === "skipped") {
        skipped.push({ line, offset: at, length: stop - start });
        return;
      }
      if (!entry) return;
      title.see(entry);
      const e = indexed(entry, line, at, stop - start, typeof entry.id === "string" ? entry.id : undefined, writer);
      if (e) onEntry(e, false);
    }, CHUNK);
  } catch (error) {
    if (error === STAND_ASIDE) return undefined;
    throw error;
  }
  // (a header and no entry yet: what the file is, the reference says, as grep's does)
  if (!checked) return undefined;
  return { header, kind: "session", mode: "lines", version, end, lines, title, skipped };
}

/** The reference: the session reader, every entry whole (as `grep`'s `referenceGrep` reads it). */
function byReference(source: ByteSource, onEntry: (entry: IndexedEntry, whole: boolean) => void): IndexRead {
  const writer = new TermWriter();
  const title = new SessionTitle();
  // (where a line ends is known once the next is read: each entry's place is taken after the read)
  const read: IndexedEntry[] = [];
  const session = Session.open(source, {
    onRecord: (value, record) => {
      if (record.kind !== "entry") return;
      const entry = value as unknown as Record<string, unknown>;
      title.see(entry);
      const e = indexed(entry, record.line, 0, 0, record.id, writer);
      if (e) read.push(e);
    },
  });
  for (const e of read) {
    const r = session.record(e.line - 1);
    onEntry({ ...e, offset: r.offset, length: r.length }, true);
  }
  const skipped: IndexRead["skipped"] = [];
  for (let i = 0; i < session.lineCount; i++) {
    if (session.lineState(i).kind !== "invalid") continue;
    const r = session.record(i);
    skipped.push({ line: i + 1, offset: r.offset, length: r.length });
  }
  return { header: session.header, kind: session.size === 0 ? "other" : session.fileKind, mode: "whole", version: session.version, end: source.size, lines: session.lineCount, title, skipped };
}
