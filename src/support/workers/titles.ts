import type { CommandContext } from "../../command.js";
import { StoreRead, type ReadCache } from "./store-wide.js";
import { cachePath, CorruptCacheError, LsCache } from "../ls/cache.js";
import type { SessionRow } from "../ls/rows.js";

/**
 * The titles `ls` gives the sessions at `paths` (a name, else a first user message; null: none),
 * read as `ls` reads its rows: from its cache where that holds a session unchanged, else described
 * (worker threads for many) and kept there, so that a second `usage --by session` reads none.
 */
export async function sessionTitles(paths: readonly string[], ctx: CommandContext, useCache: boolean): Promise<Array<string | null>> {
  const cache = useCache ? new LsCache(cachePath(ctx.env)) : undefined;
  const slots = new Int32Array(paths.length).fill(-1);
  const held: ReadCache<SessionRow> | undefined = cache && {
    holds(path, index, stamp) {
      slots[index] = cache.find(path, index, stamp.size, stamp.mtimeMs, stamp.ino);
      return slots[index]! >= 0;
    },
    keep: (path, stamp, row) => row.status !== "unreadable" && cache.set(path, stamp, row),
  };
  const reading = new StoreRead(ctx, useCache);
  const rows = await reading.read("describe", paths, { cache: held });
  const titles = paths.map((path, i) => {
    try {
      return (rows[i] ?? cache!.row(slots[i]!, path)).title;
    } catch (error) {
      // (a cached row that does not read back: no title rather than a wrong one; ls rebuilds the cache)
      if (error instanceof CorruptCacheError) return null;
      throw error;
    }
  });
  cache?.save(paths);
  reading.done();
  return titles;
}
