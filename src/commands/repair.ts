import { basename } from "node:path";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode, type ExitCode as Code } from "../errors.js";
import { FileSource, formatDiff, openSessionSync, planRepair, quickFindings, stampOf, writeRepair, type RepairAction, type RepairPlan } from "../format/index.js";
import { sanitize, type Style } from "../render/text.js";
import { writeBack, type WriteOptions } from "./write-back.js";
import { overFiles, renderSummaryTable, writerOptions } from "./writers.js";

export interface RepairOptions extends WriteOptions {
  files: string[];
  dryRun?: boolean;
  check?: boolean;
}

export type RepairStatus = "repaired" | "clean" | "needs-repair" | "would-repair" | "incomplete" | "refused" | "aborted" | "unreadable";

export interface RepairFileResult {
  file: string;
  status: RepairStatus;
  actions: RepairAction[];
  /** Records in the result (header included). */
  kept?: number;
  /** Input lines whose content is gone (each listed in `actions`). */
  dropped?: number;
  backup?: string;
  out?: string;
  /** Errors `check` still finds in the result (then the status is "incomplete"). */
  remainingErrors?: number;
  reason?: string;
  diff?: string;
}

export interface RepairResult {
  files: RepairFileResult[];
  summary: Record<RepairStatus, number>;
}

function looksLikeSession(source: FileSource, plan: RepairPlan): string | undefined {
  if (source.size === 0) return "the file is empty; there is nothing to repair";
  if (!plan.sessionLike) return "no session header and no entry with an id: this is not a pi session file";
  return undefined;
}

function repairOne(path: string, options: RepairOptions, many: boolean): RepairFileResult {
  let source: FileSource | undefined;
  let stamp;
  let plan: RepairPlan;
  try {
    stamp = stampOf(path);
    source = new FileSource(path);
    // Planned from each line's own scan: repair builds no index of the session first.
    plan = planRepair(source, stamp.mtimeMs);
  } catch (error) {
    source?.close();
    if (!(error as NodeJS.ErrnoException).code) throw error;
    return { file: path, status: "unreadable", actions: [], reason: (error as Error).message };
  }
  try {
    const notSession = looksLikeSession(source, plan);
    if (notSession) return { file: path, status: "refused", actions: [], reason: notSession };
    const dropped = new Set(plan.actions.filter((a) => a.dropped).map((a) => a.line)).size;
    const base = { file: path, actions: plan.actions, kept: plan.keptRecords, dropped };
    if (!plan.changed) return { ...base, status: "clean" };
    if (options.check) return { ...base, status: "needs-repair" };
    if (options.dryRun) {
      const r = writeRepair(source, plan, undefined, { diff: true });
      return { ...base, status: "would-repair", diff: formatDiff(path, path, r.hunks) };
    }
    const written = writeBack(path, stamp, options, many, (write) => {
      writeRepair(source, plan, write);
    });
    for (const leftover of written.cleaned) process.stderr.write(`pi-session: removed ${leftover}, left by an interrupted run\n`);
    if (written.error) return { ...base, status: written.error === "aborted" ? "aborted" : "refused", reason: written.reason };
    const result = written.out ?? path;
    const after = openSessionSync(result);
    const remainingErrors = quickFindings(after).filter((f) => f.severity === "error").length;
    after.close();
    return {
      ...base,
      status: remainingErrors > 0 ? "incomplete" : "repaired",
      remainingErrors,
      ...(written.backup ? { backup: written.backup } : {}),
      ...(written.out ? { out: written.out } : {}),
    };
  } finally {
    source.close();
  }
}

const STATUSES = ["repaired", "clean", "needs-repair", "would-repair", "incomplete", "refused", "aborted", "unreadable"] as const satisfies readonly RepairStatus[];

export async function repair(options: RepairOptions, ctx: CommandContext): Promise<RepairResult> {
  return overFiles<RepairStatus, RepairFileResult>("repair", options.files, ctx, STATUSES, (file, many) => repairOne(file, options, many));
}

export function repairExitCode(result: RepairResult): Code {
  const s = result.summary;
  if (s.aborted > 0 || s.unreadable > 0 || result.files.some((f) => f.reason?.startsWith("refused to overwrite"))) return ExitCode.Usage;
  if (s["needs-repair"] > 0 || s["would-repair"] > 0 || s.incomplete > 0 || s.refused > 0) return ExitCode.Findings;
  return ExitCode.Ok;
}

const STATUS_TEXT: Record<RepairStatus, string> = {
  repaired: "repaired",
  clean: "nothing to repair",
  "needs-repair": "needs repair",
  "would-repair": "would repair",
  incomplete: "repaired, errors remain",
  refused: "refused",
  aborted: "aborted",
  unreadable: "unreadable",
};

function describe(r: RepairFileResult): string {
  const counts = `${r.actions.length} action${r.actions.length === 1 ? "" : "s"}, ${r.dropped ?? 0} line${r.dropped === 1 ? "" : "s"} dropped, ${r.kept ?? 0} records kept`;
  switch (r.status) {
    case "repaired":
      return `repaired (${counts}); ${r.backup ? `the original is kept as ${r.backup}` : `written to ${r.out}`}; it now passes check`;
    case "incomplete":
      return `repaired (${counts}) but ${r.remainingErrors} error(s) remain; run \`pi-session check ${r.out ?? r.file}\``;
    case "would-repair":
      return `would repair (${counts}); nothing written`;
    case "needs-repair":
      return `needs repair (${counts}); run \`pi-session repair ${r.file}\``;
    case "clean":
      return "nothing to repair; left untouched";
    default:
      return `${STATUS_TEXT[r.status]}: ${r.reason ?? ""}`;
  }
}

export function renderRepair(result: RepairResult, style: Style, many: boolean): string {
  const { c } = style;
  let out = "";
  for (const r of result.files) {
    if (r.diff) out += sanitize(r.diff);
    for (const a of r.actions) {
      const paint = a.dropped ? c.red : a.code === "reference-missing" ? c.yellow : c.cyan;
      out += `${sanitize(r.file)}:${a.line}: ${paint(a.code)}: ${sanitize(a.message)}\n`;
    }
    if (!many) {
      const paint = r.status === "repaired" || r.status === "clean" ? c.green : r.status === "would-repair" || r.status === "needs-repair" ? c.yellow : c.red;
      out += `${sanitize(r.file)}: ${paint(sanitize(describe(r)))}\n`;
    }
  }
  if (many) {
    out += renderSummaryTable(
      ["file", "result", "actions", "dropped", "note"],
      result.files.map((r) => [r.file, STATUS_TEXT[r.status], String(r.actions.length), String(r.dropped ?? 0), r.backup ? `backup ${basename(r.backup)}` : r.out ? `-> ${r.out}` : (r.reason ?? "")]),
      result.summary,
      STATUS_TEXT,
      style,
    );
  }
  return out;
}

export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await repair(writerOptions(args), ctx);
  return { json: result, human: ctx.json ? "" : renderRepair(result, ctx.style, result.files.length > 1), exitCode: repairExitCode(result) };
}
