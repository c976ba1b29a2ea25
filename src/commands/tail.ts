import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { sessionFolderName } from "../format/write/fork.js";
import { UsageTotals } from "../format/usage/records.js";
import { renderNotice, renderTailLine, statusLine } from "../render/terminal/tail.js";
import { FollowedSession, type TailEntry, type TailEvents, type TailNotice } from "../support/follow/session.js";
import { followUntil } from "../support/follow/loop.js";
import { emptyDirectoryNote, listSessionFiles, resolveInput, storeInputs, transcriptFacts } from "../stores/index.js";
import { sanitize, sanitizeOneLine } from "../render/safe.js";
import { displayWidth } from "../render/width.js";
import { plural } from "../render/units.js";
import { mostRecentlyActive } from "../support/listing/sessions.js";

/**
 * `tail [SESSION]`: the last entries of a session's current branch, and with `-f` every entry as
 * it is written, until interrupted (docs/commands.md, "tail"; SPEC §17). `--all` follows every
 * session of a store or folder, new ones as they appear.
 */
export interface TailOptions {
  /** The session (a path, id, prefix or OpenClaw key); with `all`, the store or folder. */
  session?: string;
  lines: number;
  follow: boolean;
  full: boolean;
  all: boolean;
}

export function options(args: Args): TailOptions {
  return { session: args.optionalString("session"), lines: args.number("lines") ?? 10, follow: args.flag("follow"), full: args.flag("full"), all: args.flag("all") };
}

/** How wide `--all`'s label column is at most. */
const LABEL = 12;

export async function run(options: TailOptions, ctx: CommandContext): Promise<CommandOutcome> {
  if (options.session === "-" && options.all) throw new CliError("--all follows every session of a store or a folder; - (standard input) is one session: `pi-session tail -` shows its last entries");
  if (options.session === "-" && options.follow) throw new CliError("- (standard input) is read once and nothing more is written to it, so there is nothing to follow: `pi-session tail -` (without -f) shows its last entries");
  if (options.follow && ctx.json) throw new CliError("--json writes one document when the command is done, and `tail -f` is never done: use --jsonl, a JSON value a line as each entry comes");
  const out = new Output(options, ctx);
  const resolveName = (name: string) => {
    try {
      return resolveInput(name, ctx.sessionDir, ctx.env);
    } catch {
      return undefined;
    }
  };
  const sessions: FollowedSession[] = [];
  out.sessions = sessions;
  const known = new Set<string>();
  const follow = (path: string, name: string | undefined, label?: string | null, bytes?: Buffer) => {
    const s = new FollowedSession(path, name, out, ctx, resolveName, !options.all, label ?? undefined, bytes);
    sessions.push(s);
    known.add(path);
    return s;
  };
  const storeArgs = options.session !== undefined ? [options.session] : [];
  /** The store's live sessions (`liveOnes`), each with its store's label; `say`: a folder with none said on stderr. */
  const listStore = (say = false) => {
    try {
      const { files, empty } = storeInputs(storeArgs, ctx.sessionDir, ctx.env);
      const live = liveOnes(files);
      if (say) for (const dir of empty) ctx.warn(sanitize(emptyDirectoryNote(dir)));
      if (say && empty.length === 0 && live.length === 0) ctx.warn(`no live session in ${sanitize(storeArgs[0] ?? "the stores found")}: ${plural(files.length, "archive or copy", "archives or copies")}, which nothing writes to`);
      return live;
    } finally {
      ctx.run.release();
    }
  };
  if (options.all) {
    // (the latest entries of the store, from its most recently active sessions, in time order)
    const files = listStore(true);
    const latest = new Set((await latestFirst(files.map((f) => f.path), ctx)).slice(0, options.lines));
    out.hold();
    for (const { path, label } of files) {
      const s = follow(path, undefined, label);
      if (latest.has(path)) s.start(options.lines);
      else if (options.follow) s.startAtEnd();
    }
    out.release(options.lines);
  } else if (options.session === "-") {
    // (standard input: its last entries, as of a file; nothing to follow)
    out.file = "<stdin>";
    follow("<stdin>", undefined, undefined, await ctx.stdin()).start(options.lines, { strict: true });
  } else {
    const { path, name } = await pickSession(options.session, ctx);
    out.file = path;
    follow(path, name).start(options.lines, { strict: true });
  }
  if (!options.follow) {
    out.end();
    return out.outcome();
  }
  const main = sessions[0]!;
  if (!options.all && !main.followable) {
    out.notice({ session: main, notice: "end", message: `${main.path} is an archive (or in cold storage): nothing more is written to it, so there is nothing to follow` });
    out.end();
    return out.outcome();
  }
  try {
    await followUntil(ctx.interrupted(), sessions, {
      ...(options.all ? { newSessions: () => listStore().filter((f) => !known.has(f.path)).map((f) => follow(f.path, undefined, f.label)), root: options.session !== undefined && existsSync(options.session) ? resolve(options.session) : undefined } : {}),
      afterEach: () => out.drawStatus(sessions),
    });
  } finally {
    out.end();
  }
  return out.outcome();
}

/** The session `name` names (a path, an id, a prefix, a key), and the name where it is not a path; none: the most recently active one here, else anywhere (said). */
async function pickSession(name: string | undefined, ctx: CommandContext): Promise<{ path: string; name: string | undefined }> {
  if (name !== undefined) {
    const path = resolveInput(name, ctx.sessionDir, ctx.env);
    ctx.run.release();
    return { path, name: existsSync(name) ? undefined : name };
  }
  const here = resolve(".");
  const project = join(ctx.sessionDir, sessionFolderName(here));
  const inProject = existsSync(project) ? await latestFirst(listSessionFiles(project, false), ctx) : [];
  if (inProject.length > 0) {
    ctx.warn(`tail: the most recently active session of this directory's project (${here}): ${inProject[0]}`);
    return { path: inProject[0]!, name: undefined };
  }
  const everywhere = await latestFirst(liveOnes(storeInputs([], ctx.sessionDir, ctx.env).files).map((f) => f.path), ctx);
  if (everywhere.length === 0) throw new CliError(`no session to tail: none in ${project} (this directory's project) nor in any store found; name one (\`pi-session tail FILE\`), or run \`pi-session ls\` to see where sessions are`);
  ctx.warn(`tail: no session of this directory's project (${here}); the most recently active session of every store found: ${everywhere[0]}`);
  return { path: everywhere[0]!, name: undefined };
}

/** Sessions, the most recently active first: by their last activity, as `ls` sorts them (one rule: `mostRecentlyActive`). */
async function latestFirst(paths: readonly string[], ctx: CommandContext): Promise<string[]> {
  try {
    return await mostRecentlyActive(paths, ctx);
  } finally {
    ctx.run.release();
  }
}

/** The live sessions among `paths` (not the archives a reset or a delete left, nor the importer's copies of a database's: nothing is written to them), each with its store's label. */
function liveOnes(paths: readonly string[]): Array<{ path: string; label: string | null }> {
  const out: Array<{ path: string; label: string | null }> = [];
  for (const path of paths) {
    const facts = transcriptFacts(path, null);
    if (facts.archived !== null || facts.copyOf !== null || facts.besideDatabase || facts.cold) continue;
    out.push({ path, label: facts.label });
  }
  return out;
}

/** Where what `tail` says goes: lines on stdout as they come (human or `--jsonl`), or one document (`--json`), and the status line. */
class Output implements TailEvents {
  /** Entries made new (after the first read). */
  private entries = 0;
  /** `--all`'s first read, held to be put in time order: each entry with the notices said under it. */
  private held: Array<{ time: number; session: FollowedSession; write: () => void; notices: Array<() => void> }> | undefined;
  /** Notices held that came before any entry of their session. */
  private heldAlone: Array<() => void> = [];
  private readonly doc: { entries: unknown[]; notices: unknown[] } = { entries: [], notices: [] };
  private statusText: string | undefined;
  /** The session followed (not `--all`), as the document names it. */
  file: string | undefined;
  /** The sessions followed (`--all`: their labels set the label column's width). */
  sessions: readonly FollowedSession[] = [];

  constructor(
    private readonly options: TailOptions,
    private readonly ctx: CommandContext,
  ) {}

  /** `--all`'s label column: as wide as the widest label of the sessions followed, at most `LABEL`. */
  private labelWidth(): number {
    let widest = 1;
    for (const s of this.sessions) widest = Math.max(widest, displayWidth(sanitizeOneLine(s.label)));
    return Math.min(LABEL, widest);
  }

  /** Holds what comes until `release` (`--all`'s first read, put in time order). */
  hold(): void {
    this.held = [];
  }

  /** What was held: the last `n` entries in time order, each with its notices (which `-n` does not count). */
  release(n: number): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const write of this.heldAlone) write();
    this.heldAlone = [];
    const ordered = held.map((h, i) => ({ ...h, i })).sort((a, b) => a.time - b.time || a.i - b.i);
    for (const h of ordered.slice(Math.max(0, ordered.length - n))) {
      h.write();
      for (const write of h.notices) write();
    }
  }

  entry(e: TailEntry): void {
    if (this.statusText !== undefined) this.entries++;
    const file = e.session.path;
    const write = () => {
      if (this.ctx.json) return void this.doc.entries.push({ file, line: e.line, entry: e.entry });
      if (this.ctx.jsonl) return this.write(JSON.stringify({ file, line: e.line, entry: e.entry, ...(e.usage ? { usage: e.usage.amounts, ...(this.options.all ? {} : { totals: totalsOf(e.session.totals) }) } : {}) }) + "\n");
      this.write(renderTailLine({ ...(this.options.all ? { label: e.session.label } : {}), line: e.line, entry: e.entry, ...(e.usage ? { usage: e.usage.amounts } : {}) }, this.ctx.style, this.labelWidth(), this.options.full));
    };
    if (this.held) this.held.push({ time: timeOf(e.entry.timestamp), session: e.session, write, notices: [] });
    else write();
  }

  notice(n: TailNotice): void {
    const { session, ...rest } = n;
    const value = { file: session.path, ...rest };
    const write = () => {
      if (this.ctx.json) return void this.doc.notices.push(value);
      if (this.ctx.jsonl) return this.write(JSON.stringify(value) + "\n");
      this.write(renderNotice(n.message, n.notice, n.severity, this.ctx.style, this.options.all ? session.label : undefined, this.labelWidth()));
    };
    // (what the first read of `--all` finds is said under the entry it is about: held with it)
    if (this.held) {
      let k = this.held.length - 1;
      while (k >= 0 && this.held[k]!.session !== session) k--;
      const owner = this.held[k];
      if (owner) owner.notices.push(write);
      else this.heldAlone.push(write);
    } else write();
  }

  /** The running totals on the status line (a terminal's stderr only; human output only). */
  drawStatus(sessions: readonly FollowedSession[]): void {
    if (this.ctx.json || this.ctx.jsonl) return;
    const totals = new UsageTotals();
    for (const s of sessions) totals.add(s.totals);
    // (--all: what came since it started; one session: its whole totals, as `usage` counts them)
    const what = this.options.all ? `${sessions.length} sessions (totals since started)` : sessions[0]!.path;
    const text = statusLine(what, this.entries, totals, this.ctx.statusColumns);
    // (drawn again only when it says something new: an idle follow writes nothing)
    if (text === this.statusText) return;
    this.statusText = text;
    this.ctx.status(text);
  }

  end(): void {
    this.ctx.status(undefined);
  }

  outcome(): CommandOutcome {
    if (this.ctx.json) return { json: { file: this.file ?? null, ...this.doc }, exitCode: ExitCode.Ok };
    return { exitCode: ExitCode.Ok };
  }

  /** A piece of output written at once (the status line taken down first, and drawn again after). */
  private write(text: string): void {
    if (this.statusText !== undefined) this.ctx.status(undefined);
    this.ctx.stdoutSync(text);
    if (this.statusText !== undefined) this.ctx.status(this.statusText);
  }
}

/** The session's totals as `usage` names them (`total`: tokens as pi totals them). */
function totalsOf(t: UsageTotals): { input: number; output: number; cacheRead: number; cacheWrite: number; total: number; cost: number } {
  return { input: t.input, output: t.output, cacheRead: t.cacheRead, cacheWrite: t.cacheWrite, total: t.total, cost: t.cost };
}

function timeOf(t: unknown): number {
  const ms = typeof t === "number" ? t : typeof t === "string" ? Date.parse(t) : Number.NaN;
  return Number.isFinite(ms) ? ms : 0;
}
