import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode, shellQuote } from "../errors.js";
import { parseQuery, QueryError, type SearchQuery } from "../format/search/query.js";
import { runsOf } from "../format/search/terms.js";
import { fold } from "../format/search/fold.js";
import type { Sink } from "../render/sink.js";
import { sanitize } from "../render/safe.js";
import { sessionHead } from "../render/session-head.js";
import { renderSnippet, snippetOf } from "../render/snippet.js";
import { layoutWidth, type Style } from "../render/style.js";
import { plural } from "../render/units.js";
import { matchColumns, matchLead, pipedMatch } from "../render/match-line.js";
import { displayWidth, isolate } from "../render/width.js";
import { emptyDirectoryNote, namedNonSessions, resolveInput, STORE_CHOICES, type StoreChoice, storeInputs, transcriptFacts } from "../stores/index.js";
import { entryFilter, filterOptions, filterSettings, type FilterOptions } from "../support/inputs/filters.js";
import { shownTitle } from "../support/inputs/titles.js";
import { damaged, refused, SearchIndex } from "../support/search/index-db.js";
import { findHits, ScopeSession, type SearchHit } from "../support/search/query.js";
import { updateSearchIndex, waitToWrite } from "../support/workers/search-index.js";

export interface SearchOptions extends FilterOptions {
  query: string;
  inputs: string[];
  /** With no inputs: which stores (pi's session directory, OpenClaw's roots). */
  store?: StoreChoice;
  /** Each directory's archive folder too (`archive`'s). */
  archived?: boolean;
  /** `-F`: the query is one string, found as it is (`grep -F -i`). */
  fixed?: boolean;
  /** At most this many matches (default: a screenful on a terminal, else `PIPED_LIMIT`). */
  limit?: number;
  /** Every match. */
  all?: boolean;
  /** `--session-dir` as given: the command under a match that names its session by id gives it too. */
  sessionDir?: string;
}

/** How many matches a search gives where it is not on a terminal, unless asked otherwise (`--limit`, `--all`). */
const PIPED_LIMIT = 20;

export function options(args: Args): SearchOptions {
  const filters = filterOptions(args);
  const query = args.optionalString("query");
  if (query === undefined) throw new CliError("`search` needs QUERY, the words to find (in quotes for several: pi-session search 'deploy staging'; -F for a string as it is); one that starts with - goes after --");
  const limit = args.number("limit");
  const all = args.flag("all");
  if (all && limit !== undefined) throw new CliError("--all and --limit do not go together: --all gives every match, --limit N the best N");
  return {
    query,
    inputs: args.strings("inputs"),
    store: args.choice("store", STORE_CHOICES, "all"),
    archived: args.flag("archived"),
    fixed: args.flag("fixed-strings"),
    limit,
    all,
    sessionDir: args.optionalString("session-dir"),
    ...filters,
  };
}

/** A match, as `--json` and `--jsonl` give it: `grep`'s, and its score. */
export interface SearchMatch {
  file: string;
  session: string | null;
  line: number;
  id: string | null;
  type: string;
  role: string;
  timestamp: string | null;
  field: string;
  start: number;
  end: number;
  snippet: string;
  score: number;
}

export interface SearchResult {
  query: SearchQuery;
  /** Sessions searched. */
  sessions: number;
  /** Best first. */
  hits: SearchHit[];
  /** Every match was found (else the best, as many as asked). */
  complete: boolean;
  /** How many were asked for (undefined: all). */
  limit: number | undefined;
  /** The limit is a terminal's screenful (neither --limit nor --all given): the output stops where the screen is full. */
  screenful: boolean;
  unreadable: Array<{ file: string; error: string }>;
  ignored: Array<{ file: string; reason?: string }>;
  empty: string[];
  skipped: Array<{ file: string; lines: number[] }>;
  /** What was said of the index (kept in memory, not in the cache folder). */
  notes: string[];
  /** `--session-dir` as given. */
  sessionDir: string | undefined;
}

/** The limit a search runs with: as asked, else every match (`--all`), else a screenful on a terminal, else `PIPED_LIMIT`. */
function limitOf(options: SearchOptions, ctx: CommandContext): number | undefined {
  if (options.all) return undefined;
  if (options.limit !== undefined) return options.limit;
  // (a screenful: never more matches than the terminal has lines; the renderer stops where the screen is full)
  if (!ctx.json && !ctx.jsonl && ctx.style.terminalWidth !== undefined) return Math.max(5, ctx.style.terminalRows ?? 24);
  return PIPED_LIMIT;
}

export async function search(options: SearchOptions, ctx: CommandContext): Promise<SearchResult> {
  let query: SearchQuery;
  try {
    query = parseQuery(options.query, options.fixed);
  } catch (error) {
    if (error instanceof QueryError) throw new CliError(`${JSON.stringify(options.query)}: ${error.message}; e.g. pi-session search 'deploy staging', or -F 'a string as it is'`);
    throw error;
  }
  if (options.inputs.includes("-")) throw new CliError("`search` reads sessions where they are kept, not standard input; `pi-session grep -F -i PATTERN -` searches standard input");
  const settings = filterSettings(options, ctx.env, Date.now());
  const { files, named, empty } = storeInputs(options.inputs, ctx.sessionDir, ctx.env, options.store, options.archived);
  const limit = limitOf(options, ctx);
  const notes: string[] = [];
  // (a listing of an absolute folder is of absolute, normal paths already)
  const absolute = files.map((f) => (isAbsolute(f) ? f : resolve(f)));
  // (the folders named: a session the index holds under one, no longer listed and gone, is dropped)
  const folders = options.inputs.map((i) => resolve(i)).filter((i) => statSync(i, { throwIfNoEntry: false })?.isDirectory());
  // (an index found damaged while it is used is made again, once; one whose folder refuses a write, a full
  // disk, an I/O error, is made in memory for the run)
  let memory = false;
  for (let attempt = 0; ; attempt++) {
    const index = memory ? await SearchIndex.inMemory() : await SearchIndex.open(ctx.env, (note) => notes.push(note), (i) => waitToWrite(i, ctx));
    try {
      const update = await updateSearchIndex(index, absolute, ctx, options.inputs.length === 0 ? "all" : folders);
      const held = update.directory;
      const scope: ScopeSession[] = [];
      const kinds: Array<{ path: string; kind: string }> = [];
      files.forEach((path, k) => {
        const slot = held.slotOf(absolute[k]!, k);
        if (slot < 0) return;
        kinds.push({ path, kind: held.kinds[slot]! });
        if (held.kinds[slot] !== "session") return;
        const session = new ScopeSession(held.id(slot), path, absolute[k]!, held.skips(slot), index);
        if (settings.cwd !== undefined && (session.cwd === null || resolve(session.cwd) !== settings.cwd)) return;
        scope.push(session);
      });
      const sessions = kinds.filter((k) => k.kind === "session").length;
      // (the days asked for, a little wider: the index narrows by the time in ms, the filter decides by the day in the zone)
      const DAY = 86_400_000;
      const found = findHits(index, query, scope, { entry: entryFilter(settings), currentBranch: settings.currentBranch, roles: settings.roles, from: settings.since === undefined ? undefined : (settings.since - 2) * DAY, to: settings.until === undefined ? undefined : (settings.until + 3) * DAY }, limit);
      const byAbs = new Map(files.map((f, k) => [absolute[k]!, f]));
      // (what the output says of each session with a match, read before the index is closed)
      for (const h of found.hits) void h.session.held;
      return {
        query,
        sessions,
        hits: found.hits,
        complete: found.complete,
        limit,
        screenful: !options.all && options.limit === undefined && !ctx.json && !ctx.jsonl && ctx.style.terminalWidth !== undefined,
        // (each named as it was given, as grep names it: the index reads by the absolute path)
        unreadable: update.unreadable.map((u) => {
          const given = byAbs.get(u.file) ?? u.file;
          return { file: given, error: u.error.startsWith(u.file) ? given + u.error.slice(u.file.length) : u.error.split(u.file).join(given) };
        }),
        ignored: namedNonSessions(kinds, named),
        empty,
        skipped: found.skipped.map((s) => ({ file: s.session.path, lines: s.lines })),
        notes,
        sessionDir: options.sessionDir,
      };
    } catch (error) {
      if (index.file !== ":memory:" && refused(error)) {
        index.rollback();
        notes.push(`the search index cannot be written in ${index.file} (${(error as Error).message}); this search makes it in memory`);
        memory = true;
        continue;
      }
      if (attempt === 0 && damaged(error)) {
        index.close();
        SearchIndex.discard(index.file);
        continue;
      }
      throw error;
    } finally {
      try {
        index.close();
      } catch {
        // (closed already, to be made again)
      }
    }
  }
}

/** Each match as `--json`/`--jsonl` give it. */
export function* matchesOf(result: SearchResult): Generator<SearchMatch> {
  for (const h of result.hits) {
    yield { file: h.session.path, session: h.session.headerId, line: h.line, id: h.id ?? null, type: h.type, role: h.role, timestamp: h.timestamp ?? null, field: h.field, start: h.start, end: h.end, snippet: renderSnippet(snippetOf(h), undefined), score: h.score };
  }
}

/** The sessions with matches, in the order of their best, each with its matches in order. */
function bySession(hits: readonly SearchHit[]): Array<{ session: ScopeSession; hits: SearchHit[] }> {
  const groups = new Map<number, { session: ScopeSession; hits: SearchHit[] }>();
  for (const h of hits) {
    let g = groups.get(h.session.id);
    if (!g) groups.set(h.session.id, (g = { session: h.session, hits: [] }));
    g.hits.push(h);
  }
  return [...groups.values()];
}

/**
 * How to open a session's entry again: `pi-session show SESSION ENTRY`, the session by the start
 * of its id where that names it alone in the stores searched (else by its path), the entry by its
 * id (the start of a long one). The stores are those `--session-dir` named, when it did: an id is
 * looked up there, so the command gives it too, as it was given.
 */
function showCommand(session: ScopeSession, id: string, ctx: Pick<CommandContext, "sessionDir" | "env">, named: Map<number, string>, sessionDir: string | undefined): string {
  let arg = named.get(session.id);
  if (arg === undefined) {
    arg = shellQuote(session.path);
    const sid = session.headerId;
    if (sid) {
      for (const prefix of [sid.slice(0, 8), sid]) {
        try {
          if (resolve(resolveInput(prefix, ctx.sessionDir, ctx.env)) === session.abs) {
            arg = sessionDir === undefined ? shellQuote(prefix) : `--session-dir ${shellQuote(sessionDir)} ${shellQuote(prefix)}`;
            break;
          }
        } catch {
          // (not found, or not alone: the next, else the path)
        }
      }
    }
    named.set(session.id, arg);
  }
  return `pi-session show ${arg} ${shellQuote(id.length > 12 ? id.slice(0, 8) : id)}`;
}

/**
 * On a terminal: a screenful, a session at a time in the order of its best match (its file, its
 * title and when it began), each match a line (line, id, role, time, a snippet with the match
 * marked, cut to the width) and under it the command that opens it. Piped: `file:line:id:role:
 * snippet`, a match a line, best first (as `grep`'s lines).
 */
export async function renderSearch(result: SearchResult, style: Style, out: Sink, ctx: Pick<CommandContext, "sessionDir" | "env">): Promise<void> {
  const { c } = style;
  const mark = (m: string) => (c.isColorSupported ? c.bold(c.red(m)) : m);
  if (style.terminalWidth === undefined) {
    for (const h of result.hits) await out.write(`${pipedMatch(h.session.path, h, mark)}\n`);
    return;
  }
  const width = layoutWidth(style);
  // (the screen's rows, less the footer's two and the one the shell's prompt takes after it: a
  // screenful leaves its first line in view)
  // (--limit N and --all give what they ask for, however many screens it takes)
  let room = result.screenful ? (style.terminalRows ?? Infinity) - 3 : Infinity;
  let shown = 0;
  const named = new Map<number, string>();
  let first = true;
  for (const g of bySession(result.hits)) {
    const head = sessionHead(g.session.path, shownTitle(g.session.abs, g.session.title), g.session.created, style, width);
    const cost = head.length + (first ? 0 : 1);
    // (a session whose head and first match do not fit is left for --limit or --all)
    if (shown > 0 && cost + 2 > room) break;
    await out.write(`${first ? "" : "\n"}${head.join("\n")}\n`);
    room -= cost;
    first = false;
    const columns = matchColumns(g.hits);
    const lineWidth = columns.line;
    for (const h of g.hits) {
      if (shown > 0 && room < 2) break;
      const lead = matchLead(h, columns);
      const snippetRoom = width === undefined ? undefined : Math.max(10, width - displayWidth(lead));
      await out.write(`${c.dim(lead)}${isolate(renderSnippet(snippetOf(h), snippetRoom, mark))}\n`);
      room--;
      shown++;
      if (h.id === undefined) continue;
      // (a command is never cut: a long path wraps, and takes the lines it takes)
      const command = `${" ".repeat(lineWidth + 4)}${showCommand(h.session, h.id, ctx, named, result.sessionDir)}`;
      await out.write(`${c.dim(command)}\n`);
      room -= width === undefined ? 1 : Math.max(1, Math.ceil(displayWidth(command) / width));
    }
  }
  const more = shown < result.hits.length || !result.complete;
  if (more) await out.write(`\n${c.dim(`the best ${plural(shown, "match", "matches")}; --limit N for more, --all for every one`)}\n`);
}

/** What could not be searched, and what was said of the index, a line each on stderr. */
function warnings(result: SearchResult, ctx: CommandContext): void {
  const unspaced = !result.query.fixed && result.query.items.some((i) => runsOf(fold(i.text)).some((r) => r.kind === "unspaced"));
  // (on a terminal, nothing found is said: an empty screen reads as a search still running, or broken)
  if (result.hits.length === 0 && !unspaced && !ctx.json && !ctx.jsonl && ctx.style.terminalWidth !== undefined && result.sessions > 0) {
    ctx.warn(`nothing matched ${sanitize(JSON.stringify(result.query.text))}${result.query.fixed ? " (-F)" : ""} in ${plural(result.sessions, "session")}`);
  }
  for (const note of result.notes) ctx.warn(sanitize(note));
  for (const dir of result.empty) ctx.warn(sanitize(emptyDirectoryNote(dir)));
  for (const { error } of result.unreadable) ctx.warn(`${sanitize(error)} (not searched)`);
  for (const { file, reason } of result.ignored) ctx.warn(`${sanitize(file)}: not a session${reason ? ` (${reason})` : ""}, not searched; run \`pi-session check ${shellQuote(file)}\``);
  for (const { file, lines } of result.skipped) {
    const list = lines.slice(0, 10).join(", ") + (lines.length > 10 ? ", …" : "");
    ctx.warn(`${sanitize(file)}:${lines[0]}: ${plural(lines.length, "line")} pi skips could hold a match (${lines.length === 1 ? "line" : "lines"} ${list}), not searched; run \`pi-session repair ${shellQuote(file)}\``);
  }
  // (a word of a script written without spaces sits inside a longer run of letters, and is no
  // whole word there: what was found is only where it stands alone, and said so)
  if (unspaced) {
    const text = sanitize(JSON.stringify(result.query.text));
    if (result.hits.length === 0) ctx.warn(`no whole word ${text}: in Chinese, Japanese or Thai a word sits inside a longer run of letters; -F finds it as a substring: pi-session search -F ${shellQuote(result.query.text)}`);
    else ctx.warn(`${text} is found where it stands as a whole word; in Chinese, Japanese or Thai a word mostly sits inside a longer run of letters, where -F finds it: pi-session search -F ${shellQuote(result.query.text)}`);
  }
  // (piped: only the best; said, so that a script knows to ask for all)
  if (!result.complete && (ctx.json || ctx.jsonl || ctx.style.terminalWidth === undefined) && result.limit !== undefined) {
    ctx.warn(`the best ${plural(result.hits.length, "match", "matches")} (--limit ${result.limit}); --all for every one`);
  }
}

export async function run(options: SearchOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await search(options, ctx);
  warnings(result, ctx);
  // grep's convention: 0 something matched, 1 nothing did, 2 an error (whatever matched)
  const exitCode = result.unreadable.length > 0 ? ExitCode.Usage : result.hits.length > 0 ? ExitCode.Ok : ExitCode.Findings;
  return {
    stream: async (out) => {
      if (ctx.jsonl) {
        for (const m of matchesOf(result)) await out.write(`${JSON.stringify(m)}\n`);
      } else if (ctx.json) {
        const sessions = bySession(result.hits).map(({ session: s, hits }) => {
          // (an OpenClaw transcript: its key and label in its store, docs/stores.md, "OpenClaw's stores")
          const facts = transcriptFacts(s.abs, s.title);
          return { file: s.path, session: s.headerId, title: s.title, created: s.created, cwd: s.cwd, matches: hits.length, ...(facts.store === "openclaw" ? { agent: facts.agent, key: facts.key, label: facts.label } : {}) };
        });
        const doc = { query: result.query.text, fixed: result.query.fixed, sessions: result.sessions, total: { sessions: sessions.length, matches: result.hits.length }, complete: result.complete, matches: [...matchesOf(result)], withMatches: sessions, skipped: result.skipped, unreadable: result.unreadable };
        await out.write(`${JSON.stringify(doc, null, 2)}\n`);
      } else await renderSearch(result, ctx.style, out, ctx);
    },
    exitCode,
  };
}
