import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { Session } from "../format/session/session.js";
import { stampOf } from "../format/write/atomic.js";
import { planMigration, writeMigration } from "../format/write/migrate.js";
import { formatDiff } from "../format/write/rewrite.js";
import { openSource } from "../support/inputs/input.js";
import { plural } from "../render/units.js";
import { renderDiff } from "../render/diff.js";
import { type Style } from "../render/style.js";
import { annotation } from "../render/github.js";
import { copyOf } from "../support/writers/write-back.js";
import { unreadable, writeEach, REFUSED_ABORTED_UNREADABLE, placeNote, renderWriterGithub, renderWriterReport, writerExitCode, writerJson, writerOptions, type Put, type StatusTable, type WriterFileResult, type WriterOptions, type WriterRun } from "../support/writers/loop.js";

export type MigrateOptions = WriterOptions;

export function options(args: Args): MigrateOptions {
  return writerOptions(args);
}

export type MigrateStatus = "migrated" | "current" | "refused" | "needs-migrate" | "would-migrate" | "aborted" | "unreadable";

export interface MigrateFileResult extends WriterFileResult<MigrateStatus> {
  from: number | null;
  changedLines?: number;
  diff?: string;
}

export type MigrateResult = WriterRun<MigrateStatus, MigrateFileResult>;

const STATUS = {
  migrated: { text: "migrated", exit: ExitCode.Ok, paint: "green" },
  current: { text: "already current", exit: ExitCode.Ok, paint: "green" },
  "needs-migrate": { text: "needs migrating", exit: ExitCode.Findings, paint: "yellow" },
  "would-migrate": { text: "would migrate", exit: ExitCode.Findings, paint: "yellow" },
  ...REFUSED_ABORTED_UNREADABLE,
} as const satisfies StatusTable<MigrateStatus>;

function migrateOne(path: string, options: MigrateOptions, put: Put): MigrateFileResult {
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
  return writeEach<MigrateStatus, MigrateFileResult>("migrate", options, ctx, Object.keys(STATUS) as MigrateStatus[], (file, put) => migrateOne(file, options, put));
}

function describe(r: MigrateFileResult): string {
  const from = r.from === null ? "" : ` v${r.from}`;
  switch (r.status) {
    case "migrated":
      return `migrated${from} -> v3 (${plural(r.changedLines ?? 0, "line")} changed)${r.backup ? `; the original is kept as ${r.backup}` : ""}${r.out ? `; written to ${r.out}` : ""}`;
    case "would-migrate":
      return `would migrate${from} -> v3 (${plural(r.changedLines ?? 0, "line")} to change); nothing written`;
    case "needs-migrate":
      return `needs migrating${from} -> v3; run \`pi-session migrate ${r.file}\``;
    case "current":
      return r.out ? `already v3; copied to ${r.out}` : `already v3; left untouched`;
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
      note: (r) => (r.status === "migrated" ? `${plural(r.changedLines ?? 0, "line")}; ${placeNote(r)}` : r.out ? `copied ${placeNote(r)}` : (r.reason ?? (r.changedLines !== undefined ? plural(r.changedLines, "line") : ""))),
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
  return { json: writerJson(result), human, exitCode: writerExitCode(result.files, STATUS, options.check === true && result.empty.length > 0) };
}
