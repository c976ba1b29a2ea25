import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { countBySeverity, type Finding } from "../format/check/findings.js";
import { Validator } from "../format/check/validate.js";
import { BufferSource, type ByteSource } from "../format/read/source.js";
import { openSessionBuffer, openSessionSync } from "../format/session/session.js";
import { createFile, stampOf, TargetExistsError, type FileStamp } from "../format/write/atomic.js";
import { planRepair, writeRepair, type RepairAction, type RepairPlan } from "../format/write/repair/index.js";
import { formatDiff } from "../format/write/rewrite.js";
import { splitSessions } from "../format/write/split.js";
import { openSource } from "../support/inputs/input.js";
import { cwdAround } from "../stores/index.js";
import { renderFindings } from "../render/findings.js";
import { layoutWidth, type Style } from "../render/style.js";
import { formatCount, plural } from "../render/units.js";
import { renderDiff } from "../render/diff.js";
import { sanitize } from "../render/safe.js";
import { wrapSegments } from "../render/width.js";
import { annotation } from "../render/github.js";
import { unreadable, writeEach, REFUSED_ABORTED_UNREADABLE, placeNote, renderWriterGithub, renderWriterReport, writerExitCode, writerJson, writerOptions, type Put, type StatusTable, type WriterFileResult, type WriterOptions, type WriterRun } from "../support/writers/loop.js";
import { outName } from "../support/writers/output.js";

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
  /** The later sessions of a file that held several, each with where it begins and the file it went (or would go) to. */
  sessions?: Array<{ line: number; id: string; file: string }>;
}

export type RepairResult = WriterRun<RepairStatus, RepairFileResult>;

const STATUS = {
  repaired: { text: "repaired", exit: ExitCode.Ok, paint: "green" },
  clean: { text: "nothing to repair", exit: ExitCode.Ok, paint: "green" },
  "needs-repair": { text: "needs repair", many: "need repair", exit: ExitCode.Findings, paint: "yellow" },
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

function repairOne(path: string, options: RepairOptions, put: Put, dirOf: (path: string) => string, stdin: Buffer | undefined): RepairFileResult {
  let source: ByteSource | undefined;
  let stamp;
  let plan: RepairPlan;
  try {
    // (standard input, read whole before: `repair - --out FILE`)
    stamp = path === "-" ? { size: stdin!.length, mtimeMs: Date.now() } : stampOf(path);
    source = path === "-" ? new BufferSource("<stdin>", stdin!) : openSource(path);
    // Planned from each line's own scan: repair builds no index of the session first.
    plan = planRepair(source, stamp.mtimeMs, cwdAround);
  } catch (error) {
    source?.close();
    return { ...unreadable(path, error), actions: [] };
  }
  try {
    const notSession = looksLikeSession(source, plan);
    if (notSession) return { file: path, status: "refused", refusal: "content", actions: [], reason: notSession };
    if (plan.laterSessions.length > 0) return repairSessions(path, source, stamp, plan, options, put, dirOf(path));
    const dropped = new Set(plan.actions.filter((a) => a.dropped).map((a) => a.line)).size;
    const base = { file: path === "-" ? "<stdin>" : path, actions: plan.actions, kept: plan.keptRecords, dropped };
    if (!plan.changed) {
      // conversation damage repair leaves (a v1 file's): the file is not clean, whatever its lines
      if (!plan.actions.some((a) => a.code === "conversation-left")) {
        // to --out, a clean file is copied as it is: OUT holds every file
        if (options.out === undefined || options.check || options.dryRun) return { ...base, status: "clean" };
        const { failed, place } = put(path, stamp, (write) => writeRepair(source, plan, write));
        return failed ? { ...base, ...failed } : { ...base, status: "clean", ...place };
      }
      const remaining = errorsOf(findingsOf(path));
      return { ...base, status: "incomplete", remainingErrors: countBySeverity(remaining).error, remaining };
    }
    if (options.check) return { ...base, status: "needs-repair" };
    if (options.dryRun) {
      const r = writeRepair(source, plan, undefined, { diff: true });
      return { ...base, status: "would-repair", diff: formatDiff(path, path, r.hunks) };
    }
    const { failed, place, written } = put(path, stamp, (write) => {
      writeRepair(source, plan, write);
    });
    if (failed) return { ...base, ...failed };
    const remaining = errorsOf(findingsOf(place.out ?? path, written));
    return {
      ...base,
      status: remaining.length > 0 ? "incomplete" : "repaired",
      remainingErrors: countBySeverity(remaining).error,
      ...(remaining.length > 0 ? { remaining } : {}),
      ...place,
    };
  } finally {
    source.close();
  }
}

/**
 * A file of several sessions one after another: the first repaired in its place, each later one
 * written (repaired) to a file of its own beside the result, named as pi names a session's file.
 * The new files are written first, so that the original is replaced only once every session it
 * holds is somewhere else too; one that cannot be written leaves the original as it was.
 */
function repairSessions(path: string, source: ByteSource, stamp: FileStamp, whole: RepairPlan, options: RepairOptions, put: Put, dir: string): RepairFileResult {
  const parts = splitSessions(source, whole.laterSessions, stamp.mtimeMs);
  const later = parts.slice(1).map((p) => ({ line: p.start!.line, id: p.start!.id, file: join(dir, p.fileName!) }));
  const writing = options.check || options.dryRun ? "would write it to" : "written to";
  const actions = parts.flatMap((p, i) => {
    if (i === 0) return p.plan.actions;
    const { id, timestamp } = p.start!;
    const split: RepairAction = { code: "session-split", line: p.firstLine, dropped: false, message: `another session begins here (id ${id}${timestamp ? `, started ${timestamp}` : ""}): ${writing} ${later[i - 1]!.file}, as pi names a session's file` };
    return [split, ...p.plan.actions];
  });
  const dropped = new Set(actions.filter((a) => a.dropped).map((a) => a.line)).size;
  const base = { file: path === "-" ? "<stdin>" : path, actions, kept: parts.reduce((n, p) => n + p.plan.keptRecords, 0), dropped, sessions: later };
  if (options.check) return { ...base, status: "needs-repair" };
  if (options.dryRun) {
    const r = writeRepair(parts[0]!.source, parts[0]!.plan, undefined, { diff: true });
    return { ...base, status: "would-repair", diff: formatDiff(path, path, r.hunks) };
  }
  const made: string[] = [];
  const undo = (): void => {
    for (const f of made) rmSync(f, { force: true });
  };
  for (const [i, p] of parts.slice(1).entries()) {
    try {
      createFile(later[i]!.file, (write) => writeRepair(p.source, p.plan, write));
      made.push(later[i]!.file);
    } catch (error) {
      undo();
      if (error instanceof TargetExistsError) return { ...base, status: "refused", refusal: "output-exists", reason: `${error.path} is there already (a session of that name); nothing was written` };
      throw error;
    }
  }
  const { failed, place } = put(path, stamp, (write) => writeRepair(parts[0]!.source, parts[0]!.plan, write));
  if (failed) {
    undo();
    return { ...base, ...failed };
  }
  const result = place.out ?? path;
  const remaining = [result, ...made].flatMap((f) => errorsOf(findingsOf(f)));
  return { ...base, status: remaining.length > 0 ? "incomplete" : "repaired", remainingErrors: countBySeverity(remaining).error, ...(remaining.length > 0 ? { remaining } : {}), ...place };
}

/** The errors among a file's findings, each with what it causes (the verdict's errors, as `check` counts them). */
function errorsOf(findings: Finding[]): Finding[] {
  const roots = new Set(findings.filter((f) => f.severity === "error" && !f.causedBy).map((f) => `${f.code}:${f.line}`));
  return findings.filter((f) => (f.causedBy ? roots.has(`${f.causedBy.code}:${f.causedBy.line}`) : roots.has(`${f.code}:${f.line}`)));
}

/** A file's findings, as `check` finds them (the conversation's rules too); `written`: its bytes, where they went to stdout. */
function findingsOf(path: string, written?: Buffer): Finding[] {
  const validator = new Validator();
  const options = { onRecord: validator.onRecord, skim: true, skimUsage: false };
  const session = written ? openSessionBuffer("<stdout>", written, options) : openSessionSync(path, options);
  try {
    // (the file repair wrote, judged by itself: what the store around it says, repair cannot mend)
    return validator.findings(session);
  } finally {
    session.close();
  }
}

export async function repair(options: RepairOptions, ctx: CommandContext): Promise<RepairResult> {
  const stdin = options.files.includes("-") && options.out !== undefined ? await ctx.stdin() : undefined;
  return writeEach<RepairStatus, RepairFileResult>("repair", options, ctx, Object.keys(STATUS) as RepairStatus[], (file, put, dirOf) => repairOne(file, options, put, dirOf, stdin));
}

function describe(r: RepairFileResult): string {
  const counts = `${plural(r.actions.length, "action")}, ${plural(r.dropped ?? 0, "line")} dropped, ${plural(r.kept ?? 0, "record")} kept`;
  switch (r.status) {
    case "repaired":
      return `repaired (${counts}); ${r.backup ? `the original is kept as ${r.backup}` : `written to ${outName(r.out)}`}${r.sessions ? `; ${plural(r.sessions.length, "later session")} written to ${r.sessions.map((s) => s.file).join(", ")}` : ""}; ${r.sessions ? "they pass" : "it now passes"} check`;
    case "incomplete":
      if (!r.backup && !r.out) return `left untouched: ${plural(r.remainingErrors ?? 0, "error")} that repair does not mend here (listed above)`;
      return `repaired (${counts}), but ${plural(r.remainingErrors ?? 0, "error")} that repair does not mend remain${r.remainingErrors === 1 ? "s" : ""} (listed above)`;
    case "would-repair":
      return `would repair (${counts}); nothing written`;
    case "needs-repair":
      return `needs repair (${counts}); run \`pi-session repair ${r.file}\``;
    case "clean":
      return r.out ? `nothing to repair; copied to ${outName(r.out)}` : "nothing to repair; left untouched";
    default:
      return `${STATUS[r.status].text}: ${r.reason ?? ""}`;
  }
}

export function renderRepair(result: RepairResult, style: Style, full = false): string {
  const { c } = style;
  let out = "";
  for (const r of result.files) {
    if (r.diff) out += renderDiff(r.diff, style, full);
    // (a file refused or abandoned had nothing done to it: its actions are not said as if taken; --json keeps them)
    const done = r.status !== "refused" && r.status !== "aborted";
    for (const a of done ? foldActions(r.actions) : []) {
      const paint = a.dropped ? c.red : a.code === "reference-missing" ? c.yellow : c.cyan;
      const count = a.count > 1 ? ` (${formatCount(a.count)}, lines ${formatCount(a.line)}-${formatCount(a.last)})` : "";
      for (const line of wrapSegments([[`${sanitize(r.file)}:${a.line}:`, undefined, "unbroken"], [" "], [a.code, paint], [count], [`: ${sanitize(a.message)}${a.count > 1 ? `, and ${formatCount(a.count - 1)} more like it` : ""}`]], layoutWidth(style))) out += `${line}\n`;
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

/** Actions of one code from this many on are said once, with their count and lines (`--json` lists each). */
const FOLD_ACTIONS = 6;

/** The actions for people: each code with many actions once (the first one's words, how many, from which line to which). */
function foldActions(actions: readonly RepairAction[]): Array<RepairAction & { count: number; last: number }> {
  const byCode = new Map<string, RepairAction[]>();
  for (const a of actions) {
    const list = byCode.get(a.code);
    if (list) list.push(a);
    else byCode.set(a.code, [a]);
  }
  const out: Array<RepairAction & { count: number; last: number }> = [];
  for (const a of actions) {
    const same = byCode.get(a.code)!;
    if (same.length < FOLD_ACTIONS) out.push({ ...a, count: 1, last: a.line });
    else if (same[0] === a) out.push({ ...a, count: same.length, last: same[same.length - 1]!.line });
  }
  return out;
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
  return { json: writerJson(result), human, ...(result.reportTo ? { reportTo: result.reportTo } : {}), exitCode: writerExitCode(result.files, STATUS, options.check === true && result.empty.length > 0) };
}
