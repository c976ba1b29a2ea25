import { statSync } from "node:fs";
import { transcriptRef, transcriptStamp } from "./openclaw-db.js";

/** What the caches (`ls`, `usage`, `grep`) key a file by: a file whose stamp is unchanged is read from the cache. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

/** A file's stamp now (what the caches key a file by), or undefined when it cannot be stat'ed: such a file is described by its read, never cached. */
export function fileStamp(path: string): FileStamp | undefined {
  const ref = transcriptRef(path);
  if (ref) return transcriptStamp(ref);
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino } : undefined;
  } catch {
    return undefined;
  }
}
