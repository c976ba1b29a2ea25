import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode, shellQuote } from "../errors.js";
import { formatBytes, plural } from "../render/units.js";
import { sanitize } from "../render/safe.js";
import type { Style } from "../render/style.js";
import { archiveOf, archivedPath, listSessionFiles, lockOf, refOf, resolveInput, sessionIdOf, sessionStamp, storeRoots, transcriptFacts } from "../stores/index.js";
import { ls } from "../support/listing/sessions.js";
import { archiveFile, ChangedMeanwhile, type ManifestLine } from "../support/writers/archive.js";

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
  /** The archive folder (default: `archive/` beside the session directory or folder; inside an OpenClaw root). */
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
  size?: number;
  compressed?: number;
  sha256?: string;
  reason?: string;
}

export interface ArchiveResult {
  files: ArchiveEntry[];
  summary: { archived: number; wouldArchive: number; skipped: number; refused: number; failed: number; freed: number; compressed: number; gateway: number; gatewayBytes: number };
}

export async function archive(options: ArchiveOptions, ctx: CommandContext, now = Date.now()): Promise<ArchiveResult> {
  const chosen: Array<{ path: string; named: boolean }> = [];
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
    if (filtered) for (const dir of options.inputs.length === 0 ? [undefined] : dirs) for (const row of (await ls({ ...filters, ...(dir ? { dir } : { store: "all" }) }, ctx)).sessions) chosen.push({ path: row.path, named: false });
    else for (const root of roots) for (const path of listSessionFiles(root)) chosen.push({ path, named: false });
  }
  for (const name of names) chosen.push({ path: resolveInput(name, ctx.sessionDir, ctx.env), named: true });
  const files: ArchiveEntry[] = [];
  const seen = new Set<string>();
  let done = 0;
  for (const { path, named } of chosen) {
    ctx.progress(done++, chosen.length, path);
    if (seen.has(path)) continue;
    seen.add(path);
    files.push(archiveOne(path, named, dirs, options, ctx, now));
  }
  ctx.progress(chosen.length, chosen.length);
  const count = (s: ArchiveStatus) => files.filter((f) => f.status === s).length;
  const moved = files.filter((f) => f.status === "archived" || f.status === "would-archive");
  return {
    files,
    summary: {
      archived: count("archived"),
      wouldArchive: count("would-archive"),
      skipped: count("skipped"),
      refused: count("refused"),
      failed: count("failed"),
      freed: moved.reduce((a, f) => a + (f.size ?? 0), 0),
      compressed: moved.reduce((a, f) => a + (f.compressed ?? 0), 0),
      gateway: count("gateway"),
      gatewayBytes: files.filter((f) => f.status === "gateway").reduce((a, f) => a + (f.size ?? 0), 0),
    },
  };
}

/** One session archived (`dirs`: the folders given, which a session found in one is archived relative to). */
function archiveOne(path: string, named: boolean, dirs: readonly string[], options: ArchiveOptions, ctx: CommandContext, now: number): ArchiveEntry {
  const ref = refOf(path);
  if (ref.kind === "transcript") {
    // (OpenClaw's SQLite era, agent-core's databases: the database is its owner's to change)
    const size = sessionStamp(path)?.size;
    return { file: path, status: "gateway", ...(size !== undefined && size >= 0 ? { size } : {}), reason: `in ${ref.container}, which its owner alone changes: OpenClaw's \`openclaw sessions cleanup\` archives and prunes its transcripts; \`pi-session cat ${shellQuote(path)} > FILE\` takes a copy first` };
  }
  if (path.endsWith(".zst")) return { file: path, status: "skipped", reason: "already a compressed archive" };
  if (path.endsWith(".sqlite")) return { file: path, status: "gateway", reason: "a database, which its owner alone changes" };
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
  const place = archiveOf(path, ctx.sessionDir, dirs);
  const folder = options.to !== undefined ? resolve(options.to) : place.archive;
  const target = archivedPath(path, { root: place.root, archive: folder });
  if (options.dryRun) return { file: path, status: "would-archive", archive: target, size: st.size };
  try {
    const moved = archiveFile(path, target, folder, sessionIdOf(path) ?? null);
    if (moved.status === "skipped") return { file: path, status: "skipped", size: st.size, reason: moved.reason };
    const line: ManifestLine = moved.line;
    return { file: path, status: "archived", archive: target, size: line.size, compressed: line.compressed, sha256: line.sha256 };
  } catch (error) {
    return { file: path, status: error instanceof ChangedMeanwhile ? "skipped" : "failed", size: st.size, reason: (error as Error).message };
  }
}

export async function run(options: ArchiveOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await archive(options, ctx);
  for (const f of result.files) if (f.status === "failed" || f.status === "refused") ctx.warn(sanitize(`${f.file}: ${f.reason}`));
  const exitCode = result.summary.failed > 0 || result.summary.refused > 0 ? ExitCode.Usage : ExitCode.Ok;
  return { json: result, jsonl: () => result.files, human: ctx.json ? "" : renderArchive(result, ctx.style, options.dryRun), exitCode };
}

const LABEL: Record<ArchiveStatus, string> = { archived: "archived", "would-archive": "would archive", skipped: "skipped", refused: "refused", gateway: "left (database)", failed: "failed" };

export function renderArchive(result: ArchiveResult, style: Style, dryRun: boolean): string {
  const { c } = style;
  const lines = result.files.map((f) => {
    const label = LABEL[f.status].padEnd(15);
    const paint = f.status === "archived" || f.status === "would-archive" ? c.green : f.status === "failed" || f.status === "refused" ? c.red : c.dim;
    const size = f.size !== undefined ? `  ${formatBytes(f.size)}${f.compressed !== undefined ? ` → ${formatBytes(f.compressed)}` : ""}` : "";
    const where = f.archive ? `\n${" ".repeat(17)}→ ${sanitize(f.archive)}` : "";
    const why = f.reason ? `\n${" ".repeat(17)}${c.dim(sanitize(f.reason))}` : "";
    return `${paint(label)}  ${sanitize(f.file)}${size}${where}${why}`;
  });
  const s = result.summary;
  const moved = dryRun ? s.wouldArchive : s.archived;
  const tail = moved === 0 && s.gateway === 0 ? "nothing to archive" : `${plural(moved, "session")} ${dryRun ? "would be archived" : "archived"}: ${formatBytes(s.freed)} ${dryRun ? "would be freed" : `freed (${formatBytes(s.compressed)} in the archive)`}${s.gateway > 0 ? `; ${plural(s.gateway, "transcript")} in a database left to its owner` : ""}`;
  return `${lines.join("\n")}${lines.length > 0 ? "\n" : ""}${c.bold(tail)}\n`;
}
