import { compilePattern, type PatternOptions } from "../../format/grep/pattern.js";
import { grepFile, type GrepHit } from "../../format/grep/read.js";
import { Calendar } from "../../format/usage/calendar.js";
import { readSessionFile, type FileFacts } from "../inputs/input.js";
import { entryFilter, type FilterSettings } from "../inputs/filters.js";
import { sessionGroup, storedLines } from "../../stores/index.js";

/** What `grep` asks of each file: serializable, so that worker threads get it as it is. */
export interface GrepSettings extends FilterSettings {
  pattern: string;
  options: PatternOptions;
  max?: number;
  /** Find each matching session's title (for the grouped view on a terminal). */
  title?: boolean;
  /** Count the matches, keep none (`-c`, `-l`: `GrepFilter.countOnly`). */
  countOnly?: boolean;
}

/** One file searched: what it is, its header's facts, its title, its hits and the lines pi skips that could hold one. */
export interface GrepFileResult extends FileFacts {
  title: string | null;
  /** The matches (none kept with `countOnly`), how many, and with `countOnly` a key of each (`hitKey`). */
  hits: GrepHit[];
  count: number;
  keys: number[];
  skipped: number[];
}

let compiled: { key: string; pattern: ReturnType<typeof compilePattern>; calendar: Calendar } | undefined;

/** Searches one file (`grepFile`); a file that cannot be read is described, not thrown. `-`: standard input. */
export async function grepPath(path: string, settings: GrepSettings, stdin?: () => Promise<Buffer>): Promise<GrepFileResult> {
  const found = await grepLines(path, settings, stdin);
  // (a session read as pi's lines from another form, agent-core's format 4: its matches name its file's lines)
  const lines = path === "-" || found.hits.length === 0 ? undefined : storedLines(path);
  return lines ? { ...found, hits: found.hits.map((h) => ({ ...h, line: lines(h.line) })) } : found;
}

function grepLines(path: string, settings: GrepSettings, stdin?: () => Promise<Buffer>): Promise<GrepFileResult> {
  // (compiled once per run, not per file: a store of small sessions is thousands of files)
  const key = JSON.stringify([settings.pattern, settings.options, settings.timezone, settings.local]);
  if (compiled?.key !== key) compiled = { key, pattern: compilePattern(settings.pattern, settings.options), calendar: new Calendar(settings.timezone, settings.local) };
  const pattern = compiled.pattern;
  // (a count keeps a key of each match only where a copy of the session may repeat them: `withoutRepeats`)
  const keyed = settings.countOnly === true && path !== "-" && sessionGroup(path) !== undefined;
  const filter = { ...entryFilter(settings, compiled.calendar), max: settings.max, currentBranch: settings.currentBranch, cwd: settings.cwd, title: settings.title, countOnly: settings.countOnly, keyed };
  return readSessionFile<Omit<GrepFileResult, keyof FileFacts>>(
    path,
    (source) => {
      const read = grepFile(source, pattern, filter);
      return { ...read, title: read.title ?? null };
    },
    () => ({ title: null, hits: [], count: 0, keys: [], skipped: [] }),
    stdin,
  );
}
