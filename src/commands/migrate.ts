import { basename } from "node:path";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode, type ExitCode as Code } from "../errors.js";
import { formatDiff, openSessionSync, planMigration, stampOf, writeMigration, type Session } from "../format/index.js";
import { sanitize, type Style } from "../render/text.js";
import { writeBack, type WriteOptions, type WriteOutcome } from "./write-back.js";
import { overFiles, renderSummaryTable, writerOptions } from "./writers.js";

export interface MigrateOptions extends WriteOptions {
  files: string[];
  dryRun?: boolean;
  check?: boolean;
}

export type MigrateStatus = "migrated" | "current" | "refused" | "needs-migrate" | "would-migrate" | "aborted" | "unreadable";

export interface MigrateFileResult {
  file: string;
  from: number | null;
  status: MigrateStatus;
  changedLines?: number;
  backup?: string;
  out?: string;
  reason?: string;
  diff?: string;
}

export interface MigrateResult {
  files: MigrateFileResult[];
  summary: Record<MigrateStatus, number>;
}

function migrateOne(path: string, options: MigrateOptions, many: boolean): MigrateFileResult {
  let session: Session;
  let stamp;
  try {
    stamp = stampOf(path);
    session = openSessionSync(path);
  } catch (error) {
    return { file: path, from: null, status: "unreadable", reason: (error as Error).message };
  }
  try {
    const plan = planMigration(session);
    const base = { file: path, from: plan.from };
    if (plan.status === "refused") return { ...base, status: "refused", reason: plan.reason };
    if (plan.status === "current") return { ...base, status: "current" };
    if (options.check) return { ...base, status: "needs-migrate" };
    if (options.dryRun) {
      const r = writeMigration(session, undefined, { diff: true });
      return { ...base, status: "would-migrate", changedLines: r.changedLines, diff: formatDiff(path, path, r.hunks) };
    }
    let changedLines = 0;
    const written: WriteOutcome = writeBack(path, stamp, options, many, (write) => {
      changedLines = writeMigration(session, write).changedLines;
    });
    if (written.error) return { ...base, status: written.error === "aborted" ? "aborted" : "refused", reason: written.reason };
    for (const leftover of written.cleaned) process.stderr.write(`pi-session: removed ${leftover}, left by an interrupted run\n`);
    return { ...base, status: "migrated", changedLines, ...(written.backup ? { backup: written.backup } : {}), ...(written.out ? { out: written.out } : {}) };
  } finally {
    session.close();
  }
}

const STATUSES = ["migrated", "current", "refused", "needs-migrate", "would-migrate", "aborted", "unreadable"] as const satisfies readonly MigrateStatus[];

export async function migrate(options: MigrateOptions, ctx: CommandContext): Promise<MigrateResult> {
  return overFiles<MigrateStatus, MigrateFileResult>("migrate", options.files, ctx, STATUSES, (file, many) => migrateOne(file, options, many));
}

export function migrateExitCode(result: MigrateResult): Code {
  const s = result.summary;
  if (s.aborted > 0 || s.unreadable > 0 || result.files.some((f) => f.status === "refused" && f.reason?.startsWith("refused to overwrite"))) return ExitCode.Usage;
  if (s["needs-migrate"] > 0 || s["would-migrate"] > 0 || s.refused > 0) return ExitCode.Findings;
  return ExitCode.Ok;
}

const STATUS_TEXT: Record<MigrateStatus, string> = {
  migrated: "migrated",
  current: "already current",
  refused: "refused",
  "needs-migrate": "needs migrating",
  "would-migrate": "would migrate",
  aborted: "aborted",
  unreadable: "unreadable",
};

function describe(r: MigrateFileResult): string {
  const from = r.from === null ? "" : ` v${r.from}`;
  switch (r.status) {
    case "migrated":
      return `migrated${from} -> v3 (${r.changedLines} lines changed)${r.backup ? `; the original is kept as ${r.backup}` : ""}${r.out ? `; written to ${r.out}` : ""}`;
    case "would-migrate":
      return `would migrate${from} -> v3 (${r.changedLines} lines change); nothing written`;
    case "needs-migrate":
      return `needs migrating${from} -> v3; run \`pi-session migrate ${r.file}\``;
    case "current":
      return `already v3; left untouched`;
    default:
      return `${STATUS_TEXT[r.status]}: ${r.reason ?? ""}`;
  }
}

export function renderMigrate(result: MigrateResult, style: Style, tableFor: boolean): string {
  const { c } = style;
  let out = "";
  for (const r of result.files) if (r.diff) out += sanitize(r.diff);
  if (!tableFor) {
    for (const r of result.files) {
      const paint = r.status === "migrated" || r.status === "current" ? c.green : r.status === "would-migrate" || r.status === "needs-migrate" ? c.yellow : c.red;
      out += `${sanitize(r.file)}: ${paint(sanitize(describe(r)))}\n`;
    }
    return out;
  }
  out += renderSummaryTable(
    ["file", "from", "result", "note"],
    result.files.map((r) => [r.file, r.from === null ? "-" : `v${r.from}`, STATUS_TEXT[r.status], r.status === "migrated" ? `${r.changedLines} lines; ${r.backup ? `backup ${basename(r.backup)}` : `-> ${r.out}`}` : (r.reason ?? (r.changedLines !== undefined ? `${r.changedLines} lines` : ""))]),
    result.summary,
    STATUS_TEXT,
    style,
  );
  return out;
}

export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await migrate(writerOptions(args), ctx);
  return { json: result, human: ctx.json ? "" : renderMigrate(result, ctx.style, result.files.length > 1), exitCode: migrateExitCode(result) };
}
