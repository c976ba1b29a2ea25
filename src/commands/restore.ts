import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode } from "../errors.js";
import { formatBytes, plural } from "../render/units.js";
import { sanitize } from "../render/safe.js";
import type { Style } from "../render/style.js";
import { archiveFolderHolding, archivedNamed, MANIFEST, readManifest, resolveInput, storeRoots, type ManifestLine } from "../stores/index.js";
import { restoreFile } from "../support/writers/archive.js";

/**
 * `restore SESSION...`: archived sessions put back where they were (docs/commands.md, "archive"),
 * checked the same way, never over a file written there since. SESSION is an archive's path, or
 * the id (or a unique prefix) of a session the archive folders of the stores found hold.
 */
export interface RestoreOptions {
  sessions: string[];
  dryRun: boolean;
}

export function options(args: Args): RestoreOptions {
  return { sessions: args.strings("sessions"), dryRun: args.flag("dryRun") };
}

export type RestoreStatus = "restored" | "would-restore" | "skipped" | "failed";

export interface RestoreEntry {
  file: string;
  status: RestoreStatus;
  archive: string;
  size?: number;
  reason?: string;
}

/** The file of the one live session `id` names in the stores, if any. */
function liveSession(id: string, ctx: CommandContext): string | undefined {
  try {
    return resolveInput(id, ctx.sessionDir, ctx.env);
  } catch {
    return undefined;
  }
}

/** What SESSION names: an archive (its folder and manifest line). */
function find(session: string, ctx: CommandContext): Array<{ archive: string; folder: string; line: ManifestLine }> {
  if (existsSync(session)) {
    const folder = archiveFolderHolding(session);
    const line = folder ? readManifest(folder).get(relative(folder, resolve(session))) : undefined;
    if (!folder || !line || line.action !== "archive") throw new CliError(`${session}: not an archive \`pi-session archive\` made (no line of it in a ${MANIFEST} above it); nothing was restored`);
    return [{ archive: resolve(session), folder, line }];
  }
  // (the stores' archives, wherever \`--to\` took them: what \`ls --archived\` lists)
  const named = archivedNamed(session, ctx.sessionDir, ctx.env);
  const found = named.found.map((s) => ({ archive: s.path, folder: s.folder, line: s.line! }));
  if (found.length === 0) {
    // (a session of that id where it lives: restored already, or never archived; named, not "no such id")
    const live = liveSession(session, ctx);
    if (live !== undefined) throw new CliError(`${session}: not archived: the session is where it lives, ${live} (restored already, or never archived); nothing was restored`);
    const roots = storeRoots(ctx.sessionDir, ctx.env, "all");
    const gone = named.missing.length > 0 ? ` (not looked in: ${named.missing.join(", ")}, recorded as an archive folder, is not there)` : "";
    throw new CliError(`${session}: no archived session of that id in the archives of ${roots.length > 0 ? roots.join(", ") : "the stores (none found)"}${gone}; give the archive's path, or run \`pi-session ls --archived\``);
  }
  const ids = new Set(found.map((f) => f.line.id));
  if (ids.size > 1) throw new CliError(`${session}: names ${ids.size} archived sessions (${[...ids].slice(0, 4).join(", ")}); give more of the id, or the archive's path`);
  return found;
}

export async function run(options: RestoreOptions, ctx: CommandContext): Promise<CommandOutcome> {
  if (options.sessions.length === 0) throw new CliError("restore needs the archived sessions to put back: their ids or their archives' paths (`pi-session ls --archived` lists them)");
  if (options.sessions.includes("-")) throw new CliError("restore puts archived sessions back where they were; - (standard input) is no archive: give an archive's path or an archived session's id (`pi-session ls --archived` lists them)");
  const files: RestoreEntry[] = [];
  for (const session of options.sessions) {
    for (const { archive, folder, line } of find(session, ctx)) {
      if (options.dryRun) {
        files.push({ file: line.path, status: existsSync(line.path) ? "skipped" : "would-restore", archive, size: line.size, ...(existsSync(line.path) ? { reason: `${line.path} exists; restore leaves it` } : {}) });
        continue;
      }
      try {
        const r = restoreFile(archive, line, folder);
        files.push(r.status === "skipped" ? { file: line.path, status: "skipped", archive, reason: r.reason } : { file: line.path, status: "restored", archive, size: line.size });
      } catch (error) {
        files.push({ file: line.path, status: "failed", archive, reason: (error as Error).message });
      }
    }
  }
  for (const f of files) if (f.status === "failed" || f.status === "skipped") ctx.warn(sanitize(`${f.file}: ${f.reason}`));
  const result = { files, summary: { restored: files.filter((f) => f.status === "restored").length, skipped: files.filter((f) => f.status === "skipped").length, failed: files.filter((f) => f.status === "failed").length } };
  const exitCode = result.summary.failed > 0 || result.summary.skipped > 0 ? ExitCode.Usage : ExitCode.Ok;
  return { json: result, jsonl: () => files, human: ctx.json ? "" : renderRestore(files, ctx.style, options.dryRun), exitCode };
}

function renderRestore(files: RestoreEntry[], style: Style, dryRun: boolean): string {
  const { c } = style;
  const lines = files.map((f) => `${(f.status === "restored" || f.status === "would-restore" ? c.green : c.red)(f.status.replace("-", " ").padEnd(13))}  ${sanitize(f.file)}${f.size !== undefined ? `  ${formatBytes(f.size)}` : ""}`);
  const n = files.filter((f) => f.status === (dryRun ? "would-restore" : "restored")).length;
  return `${lines.join("\n")}\n${c.bold(`${plural(n, "session")} ${dryRun ? "would be restored" : "restored"}`)}\n`;
}
