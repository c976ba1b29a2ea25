import type { Args } from "../args.js";
import { emptyDirectoryNote, namedNonSessions, refOf, sessionGroup, STORE_CHOICES, type StoreChoice, storeInputs, transcriptFacts } from "../stores/index.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode, shellQuote } from "../errors.js";
import { compilePattern, PatternError } from "../format/grep/pattern.js";
import { hitKey } from "../format/grep/read.js";
import type { Sink } from "../render/sink.js";
import { layoutWidth, type Style } from "../render/style.js";
import { sanitize } from "../render/safe.js";
import { renderSnippet, snippetOf } from "../render/snippet.js";
import { plural } from "../render/units.js";
import { matchColumns, matchLead, pipedMatch } from "../render/match-line.js";
import { displayWidth, isolate } from "../render/width.js";
import { sessionHead } from "../render/session-head.js";
import { filterOptions, filterSettings, type FilterOptions } from "../support/inputs/filters.js";
import { shownTitle } from "../support/inputs/titles.js";
import type { GrepFileResult, GrepSettings } from "../support/grep/read.js";
import { StoreRead } from "../support/workers/store-wide.js";

export interface GrepOptions extends FilterOptions {
  pattern: string;
  inputs: string[];
  /** With no inputs: which stores (pi's session directory, OpenClaw's roots). */
  store?: StoreChoice;
  /** Each directory's archive folder too (`archive`'s). */
  archived?: boolean;
  fixed?: boolean;
  ignoreCase?: boolean;
  word?: boolean;
  /** `-l`: the sessions with a match, nothing else. */
  filesWithMatches?: boolean;
  /** `-c`: how many entries match, a session a line. */
  count?: boolean;
  /** `-m N`: at most N matching entries a session. */
  max?: number;
}

export function options(args: Args): GrepOptions {
  const filters = filterOptions(args);
  // (-e PATTERN, as grep and rg take it: then the first positional is an input too)
  const regexp = args.optionalString("regexp");
  const first = args.optionalString("pattern");
  const pattern = regexp ?? first;
  if (pattern === undefined) throw new CliError("`grep` needs PATTERN, a regular expression (-F: a fixed string), before the files; e.g. pi-session grep 'rm -rf' session.jsonl, or -e PATTERN for one that starts with -");
  return {
    pattern,
    inputs: regexp !== undefined && first !== undefined ? [first, ...args.strings("inputs")] : args.strings("inputs"),
    store: args.choice("store", STORE_CHOICES, "all"),
    archived: args.flag("archived"),
    fixed: args.flag("fixed-strings"),
    ignoreCase: args.flag("ignore-case"),
    word: args.flag("word-regexp"),
    filesWithMatches: args.flag("files-with-matches"),
    count: args.flag("count"),
    max: args.number("max-count"),
    ...filters,
  };
}

/** A match, as `--json` and `--jsonl` give it. */
export interface GrepMatch {
  file: string;
  /** The session's id (its header's, else the one in its file name). */
  session: string | null;
  line: number;
  id: string | null;
  type: string;
  role: string;
  timestamp: string | null;
  /** The text the match is in (`text`, `thinking`, `tool.arguments.command`, …: docs/commands.md, "grep"). */
  field: string;
  /** UTF-16 offsets of the match in that text. */
  start: number;
  end: number;
  /** The match and some text around it, on one line. */
  snippet: string;
}

export interface GrepResult {
  pattern: string;
  /** Sessions searched. */
  sessions: number;
  /** The sessions with a match, in the order given (or listed). */
  files: GrepFileResult[];
  /** Matching entries in all. */
  matches: number;
  unreadable: Array<{ file: string; error: string }>;
  ignored: Array<{ file: string; reason?: string }>;
  /** Directories given that hold no session file. */
  empty: string[];
}

export async function grep(options: GrepOptions, ctx: CommandContext): Promise<GrepResult> {
  try {
    compilePattern(options.pattern, options);
  } catch (error) {
    if (error instanceof PatternError) throw new CliError(`${JSON.stringify(options.pattern)} is not a regular expression (${error.message}); give -F to search for it as it is`);
    throw error;
  }
  const filters = filterSettings(options, ctx.env, Date.now());
  const { files, named, empty } = storeInputs(options.inputs, ctx.sessionDir, ctx.env, options.store, options.archived);
  const settings: GrepSettings = {
    ...filters,
    pattern: options.pattern,
    options: { fixed: options.fixed, ignoreCase: options.ignoreCase, word: options.word },
    max: options.max,
    // (titles are shown in the grouped view on a terminal, and given in --json)
    title: !ctx.jsonl && !options.count && !options.filesWithMatches && (ctx.json || ctx.style.terminalWidth !== undefined),
    countOnly: options.count || options.filesWithMatches,
  };
  // (grep keeps no cache, nor the stores' facts: every session is read whole whatever they say)
  const reading = new StoreRead(ctx, false);
  // (a file's stamp only weighs how many threads to start and how to chunk the work; hundreds of
  // files justify the threads by their count, and a stat of each would be a tenth of the run)
  const found = await reading.read("grep", files, { stamps: files.length < MANY_FILES, settings });
  const stdin = files.includes("-") ? await (await import("../support/grep/read.js")).grepPath("-", settings, ctx.stdin) : undefined;
  const read = Array.from(found, (f) => f ?? stdin!);
  reading.done();
  const sessions = withoutRepeats(read.filter((f) => f.kind === "session"));
  return {
    pattern: options.pattern,
    sessions: sessions.length,
    files: sessions.filter((f) => f.count > 0 || f.skipped.length > 0),
    matches: sessions.reduce((n, f) => n + f.count, 0),
    unreadable: read.filter((f) => f.kind === "unreadable").map((f) => ({ file: f.path, error: f.error ?? "cannot read" })),
    ignored: namedNonSessions(read, named),
    empty,
  };
}

/**
 * Each match once. In OpenClaw's SQLite era a transcript's entries are in its database and again
 * in the importer's copy of it (or a live JSONL left beside it): a match that the database
 * transcript reports too, alike in all but the file (the entry's id, type, role and time, the
 * field, where the match is and the text around it), is not reported again. What a copy holds
 * that the database lacks still is, as is every match of a copy whose transcript cannot be read.
 */
function withoutRepeats(sessions: GrepFileResult[]): GrepFileResult[] {
  // (a store without a database transcript among those searched, as every store of the JSONL era: nothing to do)
  const refs = sessions.map((f) => (f.count > 0 && refOf(f.path).kind === "transcript" ? f.path : undefined));
  if (!refs.some((r) => r !== undefined)) return sessions;
  // each database transcript's matches, by the session it holds, by their keys (`hitKey`: alike
  // in all but the file, the entry by its id, one without by its line)
  const reported = new Map<string, Set<number>>();
  const keysOf = (f: GrepFileResult) => (f.hits.length > 0 ? f.hits.map(hitKey) : f.keys);
  sessions.forEach((f, k) => {
    const group = refs[k] !== undefined ? sessionGroup(f.path) : undefined;
    if (group !== undefined) reported.set(group, new Set(keysOf(f)));
  });
  return sessions.map((f, k) => {
    if (f.count === 0 || refs[k] !== undefined) return f;
    const group = sessionGroup(f.path);
    const seen = group === undefined ? undefined : reported.get(group);
    if (!seen) return f;
    const keys = keysOf(f);
    const kept = keys.map((key) => !seen.has(key));
    const count = kept.filter(Boolean).length;
    if (count === f.count) return f;
    return { ...f, hits: f.hits.filter((_, j) => kept[j]), keys: f.keys.filter((_, j) => kept[j]), count, title: count > 0 ? f.title : null };
  });
}

/** Each match as `--json`/`--jsonl` give it. */
export function* matchesOf(result: GrepResult): Generator<GrepMatch> {
  for (const f of result.files) {
    for (const h of f.hits) {
      const s = snippetOf(h);
      yield { file: f.path, session: f.id, line: h.line, id: h.id ?? null, type: h.type, role: h.role, timestamp: h.timestamp ?? null, field: h.field, start: h.start, end: h.end, snippet: renderSnippet(s, undefined) };
    }
  }
}

const MANY_FILES = 256;

/** The file as output names it (standard input as `<stdin>`). */
const fileName = (path: string) => (path === "-" ? "<stdin>" : path);

/**
 * On a terminal: a session at a time (its path, its title and when it began), then a line per
 * matching entry: line, id, role, time and a snippet around the match, the match highlighted, cut
 * to the width. Piped: `file:line:id:role: snippet`, an entry a line.
 */
export async function renderGrep(result: GrepResult, style: Style, out: Sink): Promise<void> {
  const { c } = style;
  const width = layoutWidth(style);
  const mark = (m: string) => (c.isColorSupported ? c.bold(c.red(m)) : m);
  if (style.terminalWidth === undefined) {
    for (const f of result.files) {
      // (--color, or FORCE_COLOR, highlights piped matches too, as rg --color always does)
      for (const h of f.hits) await out.write(`${pipedMatch(fileName(f.path), h, mark)}\n`);
    }
    return;
  }
  let first = true;
  for (const f of result.files) {
    if (f.count === 0) continue;
    const head = sessionHead(fileName(f.path), shownTitle(f.path, f.title), f.created, style, width);
    await out.write(`${first ? "" : "\n"}${head.join("\n")}\n`);
    first = false;
    // (the columns as wide as this session's entries need)
    const columns = matchColumns(f.hits);
    for (const h of f.hits) {
      const lead = matchLead(h, columns);
      const room = width === undefined ? undefined : Math.max(10, width - displayWidth(lead));
      // (the snippet isolated: right-to-left text in it cannot move the columns before it)
      await out.write(`${c.dim(lead)}${isolate(renderSnippet(snippetOf(h), room, mark))}\n`);
    }
  }
}

/** What could not be searched, a line each on stderr. */
function warnings(result: GrepResult, ctx: CommandContext): void {
  for (const dir of result.empty) ctx.warn(sanitize(emptyDirectoryNote(dir)));
  for (const { error } of result.unreadable) ctx.warn(`${sanitize(error)} (not searched)`);
  for (const { file, reason } of result.ignored) ctx.warn(`${sanitize(file)}: not a session${reason ? ` (${reason})` : ""}, not searched; run \`pi-session check ${shellQuote(file)}\``);
  for (const f of result.files) {
    if (f.skipped.length === 0) continue;
    const lines = f.skipped.slice(0, 10).join(", ") + (f.skipped.length > 10 ? ", …" : "");
    ctx.warn(`${sanitize(fileName(f.path))}:${f.skipped[0]}: ${plural(f.skipped.length, "line")} pi skips could hold a match (${f.skipped.length === 1 ? "line" : "lines"} ${lines}), not searched; run \`pi-session repair ${shellQuote(f.path)}\``);
  }
}

export async function run(options: GrepOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await grep(options, ctx);
  warnings(result, ctx);
  // grep's convention: 0 something matched, 1 nothing did, 2 an error (whatever matched)
  const exitCode = result.unreadable.length > 0 ? ExitCode.Usage : result.matches > 0 ? ExitCode.Ok : ExitCode.Findings;
  const withHits = result.files.filter((f) => f.count > 0);
  if (options.filesWithMatches) {
    const files = withHits.map((f) => fileName(f.path));
    return { json: { pattern: result.pattern, files }, jsonl: () => files.map((file) => ({ file })), human: files.map((f) => `${sanitize(f)}\n`).join(""), exitCode };
  }
  if (options.count) {
    const counts = withHits.map((f) => ({ file: fileName(f.path), session: f.id, count: f.count }));
    return { json: { pattern: result.pattern, sessions: result.sessions, matches: result.matches, files: counts }, jsonl: () => counts, human: counts.map((x) => `${sanitize(x.file)}:${x.count}\n`).join(""), exitCode };
  }
  return {
    stream: async (out) => {
      if (ctx.jsonl) {
        for (const m of matchesOf(result)) await out.write(`${JSON.stringify(m)}\n`);
      } else if (ctx.json) {
        const sessions = withHits.map((f) => {
          // (an OpenClaw transcript: its key and label in its store, docs/stores.md, "OpenClaw's stores")
          const facts = f.path === "-" ? undefined : transcriptFacts(f.path, f.title);
          return { file: fileName(f.path), session: f.id, title: f.title, created: f.created, cwd: f.cwd, matches: f.count, ...(facts?.store === "openclaw" ? { agent: facts.agent, key: facts.key, label: facts.label } : {}) };
        });
        await out.write(`${JSON.stringify({ pattern: result.pattern, sessions: result.sessions, total: { sessions: withHits.length, matches: result.matches }, matches: [...matchesOf(result)], withMatches: sessions, skipped: result.files.filter((f) => f.skipped.length > 0).map((f) => ({ file: fileName(f.path), lines: f.skipped })), unreadable: result.unreadable }, null, 2)}\n`);
      } else await renderGrep(result, ctx.style, out);
    },
    exitCode,
  };
}
