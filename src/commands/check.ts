import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode, type ExitCode as Code } from "../errors.js";
import { countBySeverity, type Finding, type Severity } from "../format/check/findings.js";
import { Validator } from "../format/check/validate.js";
import type { Session } from "../format/session/session.js";
import { sessionFindings } from "../support/inputs/verdict.js";
import { annotation, type AnnotationLevel } from "../render/github.js";
import { openPath } from "../support/inputs/input.js";
import { emptyDirectoryNote, expandInputs } from "../stores/index.js";
import { hintFor, renderFindings } from "../render/findings.js";
import { renderTable, type Column } from "../render/table.js";
import { layoutWidth, type Style } from "../render/style.js";
import { plural } from "../render/units.js";
import { preview, wrapSegments } from "../render/width.js";
import { sanitize } from "../render/safe.js";

export interface CheckOptions {
  files: string[];
  quiet?: boolean;
  /** Each finding's hint under it (why it matters, in pi's and the providers' words). */
  verbose?: boolean;
  /** "github": the findings as GitHub Actions annotations. */
  format?: "text" | "github";
}

export function options(args: Args): CheckOptions {
  return { files: args.strings("files"), quiet: args.flag("quiet"), verbose: args.flag("verbose"), format: args.choice("format", ["text", "github"] as const, "text") };
}

export interface FileReport {
  file: string;
  /** How the session was named, where not by its path (an id, a prefix, a key): what a next step names it by. */
  as?: string;
  version: number | null;
  errors: number;
  warnings: number;
  info: number;
  findings: Finding[];
}

export interface CheckResult {
  files: FileReport[];
  /** Directories given that hold no session file (said on stderr; exit 2). */
  emptyDirectories: string[];
  /** Inputs that could not be read at all. */
  unreadable: Array<{ file: string; error: string }>;
  summary: { files: number; errors: number; warnings: number; failed: number };
}

export async function check(options: CheckOptions, ctx: CommandContext): Promise<CheckResult> {
  const emptyDirectories: string[] = [];
  const named = new Map<string, string>();
  const files = expandInputs(options.files, ctx.sessionDir, { empty: emptyDirectories, named, env: ctx.env });
  // (a gate that checked nothing must not pass: a directory one level too high, a typo)
  for (const dir of emptyDirectories) ctx.warn(sanitize(emptyDirectoryNote(dir)));
  const reports: FileReport[] = [];
  const unreadable: CheckResult["unreadable"] = [];
  for (const [i, file] of files.entries()) {
    ctx.progress(i, files.length, file);
    const validator = new Validator();
    let session: Session;
    try {
      session = await openPath(file, { onRecord: validator.onRecord, skim: true, skimUsage: false }, ctx.stdin);
    } catch (error) {
      unreadable.push({ file, error: (error as Error).message });
      continue;
    }
    const findings = sessionFindings(session, validator, file === "-" ? "-" : session.name);
    session.close();
    const counts = countBySeverity(findings);
    reports.push({ file: session.name, ...(named.has(file) ? { as: named.get(file)! } : {}), version: session.header ? session.version : null, errors: counts.error, warnings: counts.warning, info: counts.info, findings });
  }
  ctx.progress(files.length, files.length);
  const errors = reports.reduce((n, r) => n + r.errors, 0);
  const warnings = reports.reduce((n, r) => n + r.warnings, 0);
  return { files: reports, unreadable, emptyDirectories, summary: { files: files.length, errors, warnings, failed: reports.filter((r) => r.errors > 0).length } };
}

export function checkExitCode(result: CheckResult): Code {
  if (result.unreadable.length > 0 || result.emptyDirectories.length > 0) return ExitCode.Usage;
  return result.summary.errors > 0 ? ExitCode.Findings : ExitCode.Ok;
}

/** The findings that say a file holds no session at all (each the only finding of its file). */
const NOT_A_SESSION = new Set(["file-empty", "file-not-session", "file-event-stream"]);

/** A file's state in words: no session at all, invalid (errors), ok with warnings, ok. */
function verdict(r: FileReport): "not a session" | "invalid" | "ok with warnings" | "ok" {
  if (r.findings.length === 1 && NOT_A_SESSION.has(r.findings[0]!.code)) return "not a session";
  return r.errors > 0 ? "invalid" : r.warnings > 0 ? "ok with warnings" : "ok";
}

export function renderCheck(result: CheckResult, style: Style, quiet = false, verbose = false): string {
  const { c } = style;
  // (nothing checked, only folders with no session: stderr has said so, and stdout reports nothing)
  if (result.summary.files === 0 && result.unreadable.length === 0 && result.emptyDirectories.length > 0) return "";
  const paint = (v: string) => (v === "invalid" ? c.red(v) : v === "ok" ? c.green(v) : v === "not a session" ? c.dim(v) : c.yellow(v));
  let out = "";
  for (const r of result.files) out += renderFindings(r.file, r.findings, style, { minSeverity: quiet ? "error" : "info", verbose, as: r.as });
  const shown = result.files.filter((r) => !quiet || r.errors > 0);
  if (result.files.length === 1) {
    for (const r of shown) {
      const counts = ` (${plural(r.errors, "error")}, ${plural(r.warnings, "warning")}${r.info ? `, ${plural(r.info, "note")}` : ""})`;
      // (the path is never broken: on a line of its own where it does not fit beside the rest)
      for (const line of wrapSegments([[`${sanitize(r.file)}:`, undefined, "unbroken"], [" "], [verdict(r), paint], [counts]], layoutWidth(style))) out += `${line}\n`;
    }
  } else if (shown.length > 0) {
    const columns: Column[] = [
      { head: "file", priority: 1, flex: true, min: 16, max: 80, keep: "file" },
      { head: "v", priority: 6 },
      { head: "result", priority: 2, paint },
      { head: "errors", priority: 3, align: "right" },
      { head: "warnings", priority: 4, align: "right" },
      { head: "notes", priority: 5, align: "right" },
    ];
    out += renderTable(columns, shown.map((r) => [preview(r.file, 300), r.version === null ? "-" : String(r.version), verdict(r), String(r.errors), String(r.warnings), String(r.info)]), style);
  }
  const s = result.summary;
  out += `${c.bold("checked")} ${plural(s.files, "file")}: ${s.failed > 0 ? c.red(`${s.failed} invalid`) : "0 invalid"}, ${plural(s.errors, "error")}, ${plural(s.warnings, "warning")}${result.unreadable.length ? `, ${c.red(`${result.unreadable.length} unreadable`)}` : ""}\n`;
  return out;
}

const LEVEL = { error: "error", warning: "warning", info: "notice" } as const satisfies Record<Severity, AnnotationLevel>;

/**
 * Every root finding as a GitHub Actions annotation on its file and line (`--quiet`: errors only),
 * with how many findings it causes and the command that mends it, then the summary.
 */
/**
 * The findings as GitHub Actions annotations: errors and warnings (`quiet`: errors alone); the
 * notes (info: nothing to mend, as a call pi answers for itself) only with `verbose`, as CI
 * wants what fails or may.
 */
export function renderCheckGithub(result: CheckResult, quiet = false, verbose = false): string {
  if (result.summary.files === 0 && result.unreadable.length === 0 && result.emptyDirectories.length > 0) return "";
  let out = "";
  for (const r of result.files) {
    const caused = new Map<string, number>();
    for (const f of r.findings) if (f.causedBy) caused.set(`${f.causedBy.code}:${f.causedBy.line}`, (caused.get(`${f.causedBy.code}:${f.causedBy.line}`) ?? 0) + 1);
    for (const f of r.findings) {
      if (f.causedBy || (quiet && f.severity !== "error") || (f.severity === "info" && !verbose)) continue;
      const more = caused.get(`${f.code}:${f.line}`);
      const text = `${f.message}${more ? `, and ${plural(more, "finding")} it causes` : ""} (${hintFor(f.hint, r.file)}${f.next ? `; next: ${hintFor(f.next, r.file)}` : ""})`;
      out += annotation(LEVEL[f.severity], { file: r.file, ...(f.line !== undefined ? { line: f.line } : {}), title: f.code }, text);
    }
  }
  for (const u of result.unreadable) out += annotation("error", { file: u.file, title: "unreadable" }, u.error);
  const s = result.summary;
  return out + `checked ${plural(s.files, "file")}: ${s.failed} invalid, ${plural(s.errors, "error")}, ${plural(s.warnings, "warning")}\n`;
}

export async function run(options: CheckOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await check(options, ctx);
  for (const u of result.unreadable) ctx.warn(u.error);
  const human = ctx.json ? "" : options.format === "github" ? renderCheckGithub(result, options.quiet, options.verbose) : renderCheck(result, ctx.style, options.quiet, options.verbose);
  const findings = function* () {
    for (const r of result.files) for (const f of r.findings) yield { file: r.file, ...f };
  };
  return { json: result, jsonl: findings, human, exitCode: checkExitCode(result) };
}
