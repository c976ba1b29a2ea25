import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode, shellQuote } from "../errors.js";
import { formatBytes, formatCount, plural } from "../render/units.js";
import { sanitize } from "../render/safe.js";
import { layoutWidth, type Style } from "../render/style.js";
import { type Segment, wrapSegments } from "../render/width.js";
import { archiveOf, archivedPath, keeperOf, type Keeper, listSessionFiles, lockOf, refOf, resolveInput, sessionIdOf, sessionStamp, storeRoots, transcriptFacts } from "../stores/index.js";
import { openPath } from "../support/inputs/input.js";
import { ls } from "../support/listing/sessions.js";
import { archiveFile, ChangedMeanwhile, compressedSize, recordElsewhere, type ManifestLine } from "../support/writers/archive.js";

/**
 * `archive [DIR|SESSION...]`: sessions moved into an archive folder, zstd-compressed, checked, and
 * only then removed from where they were (docs/commands.md, "archive"). Chosen by `ls`'s filters
 * (`archive --older-than 30d` moves exactly what `ls --older-than 30d` lists) or named.
 */
export interface ArchiveOptions {
  inputs: string[];
  cwd?: string;
  agent?: string;
  kind?: string;
  olderThan?: number;
  largerThan?: number;
  /** The archive folder (default: `archive/` beside pi's session directory, inside an OpenClaw root, else in the session's folder). */
  to?: string;
  dryRun: boolean;
}

export function options(args: Args): ArchiveOptions {
  return {
    inputs: args.strings("inputs"),
    cwd: args.optionalString("cwd"),
    agent: args.optionalString("agent"),
    kind: args.optionalString("kind"),
    olderThan: args.before("olderThan", "older-than", Date.now()),
    largerThan: args.bytes("largerThan", "larger-than"),
    to: args.optionalString("to"),
    dryRun: args.flag("dryRun"),
  };
}

/** A session written this recently is left alone unless named: an agent may be writing it. */
export const RECENT_MS = 10 * 60_000;

export type ArchiveStatus = "archived" | "would-archive" | "skipped" | "refused" | "gateway" | "failed";

export interface ArchiveEntry {
  file: string;
  status: ArchiveStatus;
  /** Where it went (or would go). */
  archive?: string;
  /** The session's bytes. */
  size?: number;
  /** Its archive's bytes (with `--dry-run`, what they would be). */
  compressed?: number;
  sha256?: string;
  /** `gateway`: whose it is to move, and their command that retires it. */
  keeper?: Keeper;
  reason?: string;
}

/** Sessions left to their owner, by owner and what they are (`archive` moves none of them). */
export interface LeftToOwner extends Keeper {
  count: number;
  bytes: number;
}

export interface ArchiveResult {
  files: ArchiveEntry[];
  summary: {
    archived: number;
    wouldArchive: number;
    skipped: number;
    refused: number;
    failed: number;
    /** The bytes of the sessions moved (or that would be). */
    moved: number;
    /** Their archives' bytes. */
    compressed: number;
    /** What the disk gains: `moved` less `compressed` (negative where an archive is larger than what it holds). */
    freed: number;
    gateway: number;
    gatewayBytes: number;
    /** The sessions left to their owners, a group each owner and kind. */
    left: LeftToOwner[];
  };
}

export async function archive(options: ArchiveOptions, ctx: CommandContext, now = Date.now()): Promise<ArchiveResult> {
  const chosen: Array<{ path: string; named: boolean; status?: string }> = [];
  const filters = { cwd: options.cwd, agent: options.agent, kind: options.kind, olderThan: options.olderThan, largerThan: options.largerThan };
  // (every session of every store is not what a bare `archive` should move: what to move is said)
  if (options.inputs.length === 0 && Object.values(filters).every((v) => v === undefined)) throw new CliError("archive needs what to move: a filter (--older-than 3m, --larger-than 10M, --cwd, --agent, --kind), or the sessions or folders to archive; --dry-run shows what it would move");
  const dirs = options.inputs.filter((i) => i !== "-" && existsSync(i) && statSync(i).isDirectory());
  const names = options.inputs.filter((i) => !dirs.includes(i));
  if (names.includes("-")) throw new CliError("archive moves stored sessions; - (standard input) is not one");
  if (options.inputs.length === 0 || dirs.length > 0) {
    // (the selection `ls` makes with the same filters: what it lists is what moves; with none, every
    // session it lists, which needs no session read to know)
    const filtered = Object.values(filters).some((v) => v !== undefined);
    const roots = options.inputs.length === 0 ? storeRoots(ctx.sessionDir, ctx.env, "all") : dirs;
    if (filtered) for (const dir of options.inputs.length === 0 ? [undefined] : dirs) for (const row of (await ls({ ...filters, ...(dir ? { dir } : { store: "all" }) }, ctx)).sessions) chosen.push({ path: row.path, named: false, status: row.status });
    else for (const root of roots) for (const path of listSessionFiles(root)) chosen.push({ path, named: false });
  }
  for (const name of names) chosen.push({ path: resolveInput(name, ctx.sessionDir, ctx.env), named: true });
  const files: ArchiveEntry[] = [];
  const seen = new Set<string>();
  let done = 0;
  for (const one of chosen) {
    ctx.progress(done++, chosen.length, one.path);
    if (seen.has(one.path)) continue;
    seen.add(one.path);
    files.push(await archiveOne(one, options, ctx, now));
  }
  ctx.progress(chosen.length, chosen.length);
  const count = (s: ArchiveStatus) => files.filter((f) => f.status === s).length;
  const moved = files.filter((f) => f.status === "archived" || f.status === "would-archive");
  const gateway = files.filter((f) => f.status === "gateway");
  const left = new Map<string, LeftToOwner>();
  for (const f of gateway) {
    const k = f.keeper!;
    const key = `${k.owner}\0${k.what}`;
    const group = left.get(key) ?? { ...k, count: 0, bytes: 0 };
    group.count++;
    group.bytes += f.size ?? 0;
    left.set(key, group);
  }
  const movedBytes = moved.reduce((a, f) => a + (f.size ?? 0), 0);
  const compressed = moved.reduce((a, f) => a + (f.compressed ?? 0), 0);
  return {
    files,
    summary: {
      archived: count("archived"),
      wouldArchive: count("would-archive"),
      skipped: count("skipped"),
      refused: count("refused"),
      failed: count("failed"),
      moved: movedBytes,
      compressed,
      freed: movedBytes - compressed,
      gateway: gateway.length,
      gatewayBytes: gateway.reduce((a, f) => a + (f.size ?? 0), 0),
      left: [...left.values()],
    },
  };
}

/** Whether a file holds a session (else why not: empty, pi's event stream, other JSON lines), as `ls` says it from its row's status where it has one. */
async function notASession(path: string, status: string | undefined): Promise<string | undefined> {
  // (an empty file is said so, found or named alike)
  if (status !== undefined) return status.startsWith("not a session") ? (sessionStamp(path)?.size === 0 ? "the file is empty" : status.replace(/^not a session:?\s*/, "") || "no session header, no entries") : undefined;
  let session;
  try {
    session = await openPath(path, { skim: true, skimUsage: false });
  } catch {
    // (what cannot be read is said when it is moved: the move reads it whole)
    return undefined;
  }
  try {
    if (session.size === 0) return "the file is empty";
    const kind = session.fileKind;
    return kind === "session" ? undefined : kind === "event-stream" ? "pi's --mode json event stream" : "no session header, no entries";
  } finally {
    session.close();
  }
}

/** One session archived: `named` on the command line, or found (in a folder, or by `ls`'s filters, with its row's `status`). */
async function archiveOne({ path, named, status }: { path: string; named: boolean; status?: string }, options: ArchiveOptions, ctx: CommandContext, now: number): Promise<ArchiveEntry> {
  // (what its owner alone moves: OpenClaw's agents with a database, every file of them; agent-core's databases)
  const keeper = keeperOf(path);
  if (keeper) {
    const size = sessionStamp(path)?.size;
    return { file: path, status: "gateway", keeper, ...(size !== undefined && size >= 0 ? { size } : {}), reason: `${keeper.owner}'s to move${keeper.command ? `: \`${keeper.command}\` retires ${keeper.what}` : ""}` };
  }
  if (refOf(path).kind !== "file") return { file: path, status: "skipped", reason: "already a compressed archive" };
  let st;
  try {
    st = statSync(path);
  } catch (error) {
    return { file: path, status: "failed", reason: (error as Error).message };
  }
  if (!named && now - st.mtimeMs < RECENT_MS) return { file: path, status: "skipped", size: st.size, reason: `written in the last ${RECENT_MS / 60_000} minutes (an agent may be writing it); name it to archive it anyway` };
  // (an OpenClaw transcript a key names now is the gateway's live conversation: moved, the key would start anew)
  const facts = transcriptFacts(path, null);
  if (!named && facts.store === "openclaw" && facts.key && !facts.archived && !facts.copyOf) return { file: path, status: "skipped", size: st.size, reason: `the current session of ${facts.key}: OpenClaw would start that conversation anew without it; name it to archive it anyway` };
  const lock = lockOf(path);
  if (lock?.live) return { file: path, status: "refused", size: st.size, reason: `an OpenClaw gateway is writing it (its lock ${lock.lock} names process ${lock.pid}, which is running)` };
  // (a file that holds no session is no session to archive: named, refused; found among sessions, passed over)
  const not = await notASession(path, status);
  if (not !== undefined) return { file: path, status: named ? "refused" : "skipped", size: st.size, reason: `holds no session (${not}); nothing was moved${named ? `: \`pi-session check ${shellQuote(path)}\` says what it holds` : ""}` };
  const place = archiveOf(path, ctx.sessionDir);
  const folder = options.to !== undefined ? resolve(options.to) : place.archive;
  const target = archivedPath(path, { root: place.root, archive: folder });
  if (options.dryRun) return { file: path, status: "would-archive", archive: target, size: st.size, ...packedSize(path) };
  try {
    // (where it went, recorded where it would have gone, before it goes: the tool finds it there)
    if (folder !== place.archive) recordElsewhere(place.archive, folder);
    const moved = archiveFile(path, target, folder, sessionIdOf(path) ?? null);
    if (moved.status === "skipped") return { file: path, status: "skipped", size: st.size, reason: moved.reason };
    const line: ManifestLine = moved.line;
    return { file: path, status: "archived", archive: target, size: line.size, compressed: line.compressed, sha256: line.sha256 };
  } catch (error) {
    return { file: path, status: error instanceof ChangedMeanwhile ? "skipped" : "failed", size: st.size, reason: (error as Error).message };
  }
}

/** What a session's archive would weigh (`--dry-run`): compressed as `archive` compresses it, in memory, written nowhere. */
function packedSize(path: string): { compressed?: number } {
  try {
    return { compressed: compressedSize(readFileSync(path)) };
  } catch {
    return {};
  }
}

export async function run(options: ArchiveOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await archive(options, ctx);
  for (const f of result.files) if (f.status === "failed" || f.status === "refused") ctx.warn(sanitize(`${f.file}: ${f.reason}`));
  const exitCode = result.summary.failed > 0 || result.summary.refused > 0 ? ExitCode.Usage : ExitCode.Ok;
  // (one session that could not be moved: stderr has said so, as every error is; stdout stays empty)
  const onlyError = result.files.length === 1 && (result.files[0]!.status === "failed" || result.files[0]!.status === "refused");
  return { json: result, jsonl: () => result.files, human: ctx.json || onlyError ? "" : renderArchive(result, ctx.style, options.dryRun), exitCode };
}

const LABEL: Record<ArchiveStatus, string> = { archived: "archived", "would-archive": "would archive", skipped: "skipped", refused: "refused", gateway: "left (owner's)", failed: "failed" };

export function renderArchive(result: ArchiveResult, style: Style, dryRun: boolean): string {
  const { c } = style;
  // (sessions left to their owner are one line of the summary, not one each)
  const lines = result.files
    .filter((f) => f.status !== "gateway")
    .map((f) => {
      const label = LABEL[f.status].padEnd(15);
      const paint = f.status === "archived" || f.status === "would-archive" ? c.green : f.status === "failed" || f.status === "refused" ? c.red : c.dim;
      const size = f.size !== undefined ? `  ${formatBytes(f.size)}${f.compressed !== undefined ? ` → ${formatBytes(f.compressed)}` : ""}` : "";
      const where = f.archive ? `\n${" ".repeat(17)}→ ${sanitize(f.archive)}` : "";
      const why = f.reason ? `\n${" ".repeat(17)}${c.dim(sanitize(f.reason))}` : "";
      return `${paint(label)}  ${sanitize(f.file)}${size}${where}${why}`;
    });
  const s = result.summary;
  const n = dryRun ? s.wouldArchive : s.archived;
  const takes = dryRun ? "would take" : "takes";
  const sessions = n === 1 ? "the session" : "the sessions";
  const gain = s.freed > 0 ? `${formatBytes(s.freed)} ${dryRun ? "would be freed" : "freed"}` : `nothing ${dryRun ? "would be freed" : "freed"} (the archive ${s.freed === 0 ? `${takes} as much as ${sessions}` : `${takes} ${formatBytes(-s.freed)} more than ${sessions}`})`;
  const moved = n === 0 ? "nothing to archive" : `${plural(n, "session")} ${dryRun ? "would be archived" : "archived"} (${formatBytes(s.moved)} into ${formatBytes(s.compressed)}): ${gain}`;
  const width = layoutWidth(style);
  const tail = [...wrapSegments([[moved, c.bold]], width, "  "), ...leftLines(s.left).flatMap((segments) => wrapSegments(segments, width, "  "))];
  return `${lines.join("\n")}${lines.length > 0 ? "\n" : ""}${tail.join("\n")}\n`;
}

/** One of what a keeper keeps (`Keeper.what`, a plural whose first word is the noun): "transcripts" -> "transcript". */
const oneOf = (what: string) => what.replace(/^(\w+?)s\b/, "$1");

/** The sessions left to their owners, a line each owner: how many of what, and the owner's command that retires each kind (a command never broken across lines). */
function leftLines(left: readonly LeftToOwner[]): Segment[][] {
  const owners = [...new Set(left.map((l) => l.owner))];
  return owners.map((owner) => {
    const groups = left.filter((l) => l.owner === owner);
    const bytes = groups.reduce((a, g) => a + g.bytes, 0);
    const what = groups.map((g) => `${formatCount(g.count)} ${g.count === 1 ? oneOf(g.what) : g.what}`).join(" and ");
    const out: Segment[] = [[`left to ${owner}, which alone moves them: ${what} (${formatBytes(bytes)})`]];
    groups.filter((g) => g.command).forEach((g, i) => out.push([i === 0 ? "; " : ", "], [`\`${g.command}\``, undefined, "unbroken"], [` retires ${g.what}`]));
    return out;
  });
}
