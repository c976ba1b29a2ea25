import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { BufferSource, formatDiff, openSessionSync, planRepair, stampOf, Validator, writeRepair, type ByteSource, type Finding, type RepairAction, type RepairPlan } from "../format/index.js";
import { openSource } from "../support/inputs/input.js";
import { renderFindings } from "../render/findings.js";
import { layoutWidth, type Style } from "../render/style.js";
import { plural } from "../render/units.js";
import { renderDiff } from "../render/diff.js";
import { sanitize } from "../render/safe.js";
import { wrapSegments } from "../render/width.js";
import { annotation } from "../render/github.js";
import { overFiles, REFUSED_ABORTED_UNREADABLE, placeNote, renderWriterGithub, renderWriterReport, writerExitCode, writerJson, writerOptions, type Put, type StatusTable, type WriterFileResult, type WriterOptions, type WriterRun } from "../support/writers/loop.js";

export type RepairOptions = WriterOptions;

export function options(args: Args): RepairOptions {
  return writerOptions(args);
}

export type RepairStatus = "repaired" | "clean" | "needs-repair" | "would-repair" | "incomplete" | "refused" | "aborted" | "unreadable";

export interface RepairFileResult extends WriterFileResult<RepairStatus> {
  actions: RepairAction[];
  /** Records in the result (header included). */
  kept?: number;
  /** Input lines whose content is gone (each listed in `actions`). */
  dropped?: number;
  /** Errors `check` still finds in the result (then the status is "incomplete"), each with its line and reason. */
  remainingErrors?: number;
  remaining?: Finding[];
  diff?: string;
}

export type RepairResult = WriterRun<RepairStatus, RepairFileResult>;

const STATUS = {
  repaired: { text: "repaired", exit: ExitCode.Ok, paint: "green" },
  clean: { text: "nothing to repair", exit: ExitCode.Ok, paint: "green" },
  "needs-repair": { text: "needs repair", exit: ExitCode.Findings, paint: "yellow" },
  "would-repair": { text: "would repair", exit: ExitCode.Findings, paint: "yellow" },
  incomplete: { text: "repaired, errors remain", exit: ExitCode.Findings, paint: "red" },
  ...REFUSED_ABORTED_UNREADABLE,
} as const satisfies StatusTable<RepairStatus>;

function looksLikeSession(source: ByteSource, plan: RepairPlan): string | undefined {
  if (source.size === 0) return "the file is empty; there is nothing to repair";
  if (plan.fileKind === "event-stream") return "pi's --mode json event stream (what `pi --mode json` prints), not a session file; there is nothing to repair";
  if (plan.fileKind === "other") return "no session header and no entry with an id: this is not a pi session file";
  return undefined;
}

function repairOne(path: string, options: RepairOptions, put: Put, stdin: Buffer | undefined): RepairFileResult {
  let source: ByteSource | undefined;
  let stamp;
  let plan: RepairPlan;
  try {
    // (standard input, read whole before: `repair - --out FILE`)
    stamp = path === "-" ? { size: stdin!.length, mtimeMs: Date.now() } : stampOf(path);
    source = path === "-" ? new BufferSource("<stdin>", stdin!) : openSource(path);
    // Planned from each line's own scan: repair builds no index of the session first.
    plan = planRepair(source, stamp.mtimeMs);
  } catch (error) {
    source?.close();
    if (!(error as NodeJS.ErrnoException).code) throw error;
    return { file: path, status: "unreadable", actions: [], reason: (error as Error).message };
  }
  try {
    const notSession = looksLikeSession(source, plan);
    if (notSession) return { file: path, status: "refused", refusal: "content", actions: [], reason: notSession };
    const dropped = new Set(plan.actions.filter((a) => a.dropped).map((a) => a.line)).size;
    const base = { file: path === "-" ? "<stdin>" : path, actions: plan.actions, kept: plan.keptRecords, dropped };
    if (!plan.changed) {
      // conversation damage repair leaves (a v1 file's): the file is not clean, whatever its lines
      if (!plan.actions.some((a) => a.code === "conversation-left")) return { ...base, status: "clean" };
      const remaining = findingsOf(path).filter((f) => f.severity === "error");
      return { ...base, status: "incomplete", remainingErrors: remaining.length, remaining };
    }
    if (options.check) return { ...base, status: "needs-repair" };
    if (options.dryRun) {
      const r = writeRepair(source, plan, undefined, { diff: true });
      return { ...base, status: "would-repair", diff: formatDiff(path, path, r.hunks) };
    }
    const { failed, place } = put(path, stamp, (write) => {
      writeRepair(source, plan, write);
    });
    if (failed) return { ...base, ...failed };
    const result = place.out ?? path;
    const remaining = findingsOf(result).filter((f) => f.severity === "error");
    return {
      ...base,
      status: remaining.length > 0 ? "incomplete" : "repaired",
      remainingErrors: remaining.length,
      ...(remaining.length > 0 ? { remaining } : {}),
      ...place,
    };
  } finally {
    source.close();
  }
}

/** A file's findings, as `check` finds them (the conversation's rules too). */
function findingsOf(path: string): Finding[] {
  const validator = new Validator();
  const session = openSessionSync(path, { onRecord: validator.onRecord, skim: true, skimUsage: false });
  try {
    return validator.findings(session);
  } finally {
    session.close();
  }
}

export async function repair(options: RepairOptions, ctx: CommandContext): Promise<RepairResult> {
  const stdin = options.files.includes("-") && options.out !== undefined ? await ctx.stdin() : undefined;
  return overFiles<RepairStatus, RepairFileResult>("repair", options, ctx, Object.keys(STATUS) as RepairStatus[], (file, put) => repairOne(file, options, put, stdin));
}

function describe(r: RepairFileResult): string {
  const counts = `${plural(r.actions.length, "action")}, ${plural(r.dropped ?? 0, "line")} dropped, ${plural(r.kept ?? 0, "record")} kept`;
  switch (r.status) {
    case "repaired":
      return `repaired (${counts}); ${r.backup ? `the original is kept as ${r.backup}` : `written to ${r.out}`}; it now passes check`;
    case "incomplete":
      if (!r.backup && !r.out) return `left untouched: ${plural(r.remainingErrors ?? 0, "error")} that repair does not mend here (listed above)`;
      return `repaired (${counts}), but ${plural(r.remainingErrors ?? 0, "error")} that repair does not mend remain${r.remainingErrors === 1 ? "s" : ""} (listed above)`;
    case "would-repair":
      return `would repair (${counts}); nothing written`;
    case "needs-repair":
      return `needs repair (${counts}); run \`pi-session repair ${r.file}\``;
    case "clean":
      return "nothing to repair; left untouched";
    default:
      return `${STATUS[r.status].text}: ${r.reason ?? ""}`;
  }
}

export function renderRepair(result: RepairResult, style: Style, full = false): string {
  const { c } = style;
  let out = "";
  for (const r of result.files) {
    if (r.diff) out += renderDiff(r.diff, style, full);
    for (const a of r.actions) {
      const paint = a.dropped ? c.red : a.code === "reference-missing" ? c.yellow : c.cyan;
      for (const line of wrapSegments([[`${sanitize(r.file)}:${a.line}: `], [a.code, paint], [`: ${sanitize(a.message)}`]], layoutWidth(style))) out += `${line}\n`;
    }
    if (r.remaining) out += renderFindings(r.out ?? r.file, r.remaining, style);
  }
  return (
    out +
    renderWriterReport(result, style, STATUS, describe, {
      extra: [{ head: "actions", align: "right" }, { head: "dropped", align: "right" }],
      cells: (r) => [String(r.actions.length), String(r.dropped ?? 0)],
      note: (r) => placeNote(r) || (r.reason ?? ""),
    })
  );
}

/** An action as an annotation: an error where data goes, a notice for a reference kept as it is, else a warning. */
function actionAnnotation(file: string, a: RepairAction): string {
  return annotation(a.dropped ? "error" : a.code === "reference-missing" ? "notice" : "warning", { file, line: a.line, title: a.code }, a.message);
}

export async function run(options: RepairOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await repair(options, ctx);
  const human = ctx.json
    ? ""
    : options.format === "github"
      ? renderWriterGithub(result, STATUS, (r) => r.actions.map((a) => actionAnnotation(r.file, a)).join(""))
      : renderRepair(result, ctx.style, options.full);
  return { json: writerJson(result), human, exitCode: writerExitCode(result.files, STATUS, options.check === true && result.empty.length > 0) };
}
