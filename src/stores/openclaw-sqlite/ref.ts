
/*
 * How OpenClaw's SQLite era names its transcripts (docs/stores.md, "OpenClaw's SQLite era"): a transcript in
 * an agent's database is named as a path is, `<database>#<session id>` (an archive kept in the
 * database only, `<database>#<archive name>`). This is the one place such a name is taken apart.
 */

/** A transcript in a database: `<database>#<session id or archive name>`. */
const REF = /^(.*[/\\]openclaw-agent\.sqlite)#([^/\\#]+)$/;

export interface TranscriptRef {
  database: string;
  /** A session id (a live transcript) or an archive's name. */
  name: string;
}

/** The database and transcript a path names, or undefined for a file. */
export function transcriptRef(path: string): TranscriptRef | undefined {
  // (asked of every path a store-wide command reads: most hold no '#')
  if (!path.includes("#")) return undefined;
  // (and a database transcript's path is asked of several times a read: its stamp, its twin, its source)
  let ref = refs.get(path);
  if (ref === undefined) {
    const m = REF.exec(path);
    ref = m ? { database: m[1]!, name: m[2]! } : null;
    if (refs.size >= 1 << 16) refs.clear();
    refs.set(path, ref);
  }
  return ref ?? undefined;
}
const refs = new Map<string, TranscriptRef | null>();

export function transcriptPath(database: string, name: string): string {
  return `${database}#${name}`;
}
