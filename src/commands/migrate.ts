import { existsSync } from "node:fs";
import { basename } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { Session } from "../format/session/session.js";
import { stampOf } from "../format/write/atomic.js";
import { planMigration, writeMigration } from "../format/write/migrate.js";
import { formatDiff } from "../format/write/rewrite.js";
import { openSource } from "../support/inputs/input.js";
import { storedVersion, v3Copy } from "../stores/index.js";
import { plural } from "../render/units.js";
import { renderDiff } from "../render/diff.js";
import { type Style } from "../render/style.js";
import { annotation } from "../render/github.js";
import { copyOf } from "../support/writers/write-back.js";
import { unreadable, writeEach, REFUSED_ABORTED_UNREADABLE, placeNote, renderWriterGithub, renderWriterReport, writerExitCode, writerJson, writerOptions, type Put, type StatusTable, type WriterFileResult, type WriterOptions, type WriterRun } from "../support/writers/loop.js";
import { outName } from "../support/writers/output.js";

export type MigrateOptions = WriterOptions;

export function options(args: Args): MigrateOptions {
  return writerOptions(args);
}

export type MigrateStatus = "migrated" | "current" | "refused" | "needs-migrate" | "would-migrate" | "aborted" | "unreadable";

export interface MigrateFileResult extends WriterFileResult<MigrateStatus> {
  from: number | null;
  changedLines?: number;
  diff?: string;
  /** A session pi cannot open as stored (agent-core's format 4): its v3 copy, written by an earlier run and up to date. */
  copy?: string;
}

export type MigrateResult = WriterRun<MigrateStatus, MigrateFileResult>;

const STATUS = {
  migrated: { text: "migrated", exit: ExitCode.Ok, paint: "green" },
  current: { text: "already current", exit: ExitCode.Ok, paint: "green" },
  "needs-migrate": { text: "needs migrating", many: "need migrating", exit: ExitCode.Findings, paint: "yellow" },
  "would-migrate": { text: "would migrate", exit: ExitCode.Findings, paint: "yellow" },
  ...REFUSED_ABORTED_UNREADABLE,
} as const satisfies StatusTable<MigrateStatus>;

/** No stamp to hold a file to: a stored session is never written in its place. */
const NOT_REPLACED = { size: -1, mtimeMs: -1 };

/**
 * A session stored in a form pi cannot open (agent-core's format 4, `from`): its lines as pi's,
 * which every reader of this tool reads (`openSource`), written as a new file beside it (or to
 * `--out`); the original is left byte for byte as it is.
 */
function migrateStored(path: string, from: number, options: MigrateOptions, put: Put, besideOf: (path: string, beside: string) => string): MigrateFileResult {
  const base = { file: path, from };
  let bytes: Buffer;
  try {
    const source = openSource(path);
    try {
      bytes = source.read(0, source.size);
    } finally {
      source.close();
    }
  } catch (error) {
    return { ...unreadable(path, error), from };
  }
  const changedLines = bytes.toString("utf8").split("\n").length - 1;
  // (a copy an earlier run wrote, its bytes, or those and more that pi wrote after them, having
  // opened it: nothing left to do, as ls and show say; one that differs is refused unless --force,
  // which keeps it as a backup. Its name is the store's; where it goes, --out's)
  const beside = v3Copy(path)!;
  const copy = besideOf(path, basename(beside.path));
  if (copy === beside.path ? beside.current : v3Copy(path, copy)!.current) return { ...base, status: "current", copy };
  if (options.check) return { ...base, status: "needs-migrate" };
  if (options.dryRun) return { ...base, status: "would-migrate", changedLines };
  if (!options.force && existsSync(copy)) return { ...base, status: "refused", refusal: "output-exists", reason: `its v3 copy ${copy} does not begin with the session's lines (changed since it was written, or the session has); nothing written: pass --force to write it again, the copy kept as a backup (.bak)` };
  const { failed, place } = put(path, NOT_REPLACED, (write) => write(bytes), basename(beside.path), { keepReplaced: true });
  if (failed) return { ...base, ...failed };
  return { ...base, status: "migrated", changedLines, ...place };
}

function migrateOne(path: string, options: MigrateOptions, put: Put, besideOf: (path: string, beside: string) => string): MigrateFileResult {
  const stored = storedVersion(path);
  if (stored !== undefined) return migrateStored(path, stored, options, put, besideOf);
  let session: Session;
  let stamp;
  try {
    stamp = stampOf(path);
    session = Session.open(openSource(path));
  } catch (error) {
    return { ...unreadable(path, error), from: null };
  }
  try {
    const plan = planMigration(session);
    const base = { file: path, from: plan.from };
    if (plan.status === "refused") return { ...base, status: "refused", refusal: "content", reason: plan.reason };
    if (plan.status === "current") {
      // to --out, a current file is copied as it is: OUT holds every file
      if (options.out === undefined || options.check || options.dryRun) return { ...base, status: "current" };
      const { failed, place } = put(path, stamp, copyOf(path));
      return failed ? { ...base, ...failed } : { ...base, status: "current", ...place };
    }
    if (options.check) return { ...base, status: "needs-migrate" };
    if (options.dryRun) {
      const r = writeMigration(session, undefined, { diff: true });
      return { ...base, status: "would-migrate", changedLines: r.changedLines, diff: formatDiff(path, path, r.hunks) };
    }
    let changedLines = 0;
    const { failed, place } = put(path, stamp, (write) => {
      changedLines = writeMigration(session, write).changedLines;
    });
    if (failed) return { ...base, ...failed };
    return { ...base, status: "migrated", changedLines, ...place };
  } finally {
    session.close();
  }
}

export async function migrate(options: MigrateOptions, ctx: CommandContext): Promise<MigrateResult> {
  return writeEach<MigrateStatus, MigrateFileResult>("migrate", options, ctx, Object.keys(STATUS) as MigrateStatus[], (file, put, _dirOf, besideOf) => migrateOne(file, options, put, besideOf));
}

function describe(r: MigrateFileResult): string {
  const from = r.from === null ? "" : ` v${r.from}`;
  switch (r.status) {
    case "migrated":
      if (r.from !== null && r.from > 3) return `migrated${from} -> v3 (${plural(r.changedLines ?? 0, "line")}); written to ${outName(r.out)}, the original left as it is${r.backup ? `; the copy it replaced is kept as ${r.backup}` : ""}`;
      return `migrated${from} -> v3 (${plural(r.changedLines ?? 0, "line")} changed)${r.backup ? `; the original is kept as ${r.backup}` : ""}${r.out ? `; written to ${outName(r.out)}` : ""}`;
    case "would-migrate":
      if (r.from !== null && r.from > 3) return `would migrate${from} -> v3 (${plural(r.changedLines ?? 0, "line")} to write beside it); nothing written`;
      return `would migrate${from} -> v3 (${plural(r.changedLines ?? 0, "line")} to change); nothing written`;
    case "needs-migrate":
      return `needs migrating${from} -> v3; run \`pi-session migrate ${r.file}\``;
    case "current":
      if (r.copy) return `v${r.from} (agent-core's storage format), left as it is; its v3 copy ${r.copy} is up to date`;
      return r.out ? `already v3; copied to ${outName(r.out)}` : `already v3; left untouched`;
    default:
      return `${STATUS[r.status].text}: ${r.reason ?? ""}`;
  }
}

export function renderMigrate(result: MigrateResult, style: Style, full = false): string {
  const diffs = result.files.map((r) => (r.diff ? renderDiff(r.diff, style, full) : "")).join("");
  return (
    diffs +
    renderWriterReport(result, style, STATUS, describe, {
      extra: [{ head: "from" }],
      cells: (r) => [r.from === null ? "-" : `v${r.from}`],
      note: (r) => (r.status === "migrated" ? `${plural(r.changedLines ?? 0, "line")}; ${placeNote(r)}` : r.copy ? `v3 copy up to date: ${r.copy}` : r.out ? `copied ${placeNote(r)}` : (r.reason ?? (r.changedLines !== undefined ? plural(r.changedLines, "line") : ""))),
    })
  );
}

export async function run(options: MigrateOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await migrate(options, ctx);
  const human = ctx.json
    ? ""
    : options.format === "github"
      ? renderWriterGithub(result, STATUS, (r) => (r.status === "needs-migrate" ? annotation("error", { file: r.file, line: 1, title: "needs-migrate" }, describe(r)) : ""))
      : renderMigrate(result, ctx.style, options.full);
  return { json: writerJson(result), human, ...(result.reportTo ? { reportTo: result.reportTo } : {}), exitCode: writerExitCode(result.files, STATUS, options.check === true && result.empty.length > 0) };
}
