import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode, type ExitCode as Code } from "../errors.js";
import { countBySeverity, Validator, type Finding, type Session } from "../format/index.js";
import { expandInputs, openPath } from "../input.js";
import { renderFindings } from "../render/findings.js";
import { plural, sanitize, type Style } from "../render/text.js";

export interface CheckOptions {
  files: string[];
  quiet?: boolean;
}

export interface FileReport {
  file: string;
  version: number | null;
  errors: number;
  warnings: number;
  info: number;
  findings: Finding[];
}

export interface CheckResult {
  files: FileReport[];
  /** Inputs that could not be read at all. */
  unreadable: Array<{ file: string; error: string }>;
  summary: { files: number; errors: number; warnings: number; failed: number };
}

export async function check(options: CheckOptions, ctx: CommandContext): Promise<CheckResult> {
  const files = expandInputs(options.files, ctx.sessionDir);
  const reports: FileReport[] = [];
  const unreadable: CheckResult["unreadable"] = [];
  for (const [i, file] of files.entries()) {
    ctx.progress(i, files.length, file);
    const validator = new Validator();
    let session: Session;
    try {
      session = await openPath(file, { onRecord: validator.onRecord, imageData: "length" });
    } catch (error) {
      unreadable.push({ file, error: (error as Error).message });
      continue;
    }
    const findings = validator.findings(session);
    session.close();
    const counts = countBySeverity(findings);
    reports.push({ file: session.name, version: session.header ? session.version : null, errors: counts.error, warnings: counts.warning, info: counts.info, findings });
  }
  ctx.progress(files.length, files.length);
  const errors = reports.reduce((n, r) => n + r.errors, 0);
  const warnings = reports.reduce((n, r) => n + r.warnings, 0);
  return { files: reports, unreadable, summary: { files: files.length, errors, warnings, failed: reports.filter((r) => r.errors > 0).length } };
}

export function checkExitCode(result: CheckResult): Code {
  if (result.unreadable.length > 0) return ExitCode.Usage;
  return result.summary.errors > 0 ? ExitCode.Findings : ExitCode.Ok;
}

export function renderCheck(result: CheckResult, style: Style, quiet = false): string {
  const { c } = style;
  let out = "";
  for (const r of result.files) {
    out += renderFindings(r.file, r.findings, style, { minSeverity: quiet ? "error" : "info" });
    if (!quiet || r.errors > 0) {
      const status = r.errors > 0 ? c.red("invalid") : r.warnings > 0 ? c.yellow("ok with warnings") : c.green("ok");
      out += `${sanitize(r.file)}: ${status} (${plural(r.errors, "error")}, ${plural(r.warnings, "warning")}${r.info ? `, ${plural(r.info, "note")}` : ""})\n`;
    }
  }
  const s = result.summary;
  out += `${c.bold("checked")} ${s.files} file${s.files === 1 ? "" : "s"}: ${s.failed > 0 ? c.red(`${s.failed} invalid`) : "0 invalid"}, ${plural(s.errors, "error")}, ${plural(s.warnings, "warning")}${result.unreadable.length ? `, ${c.red(`${result.unreadable.length} unreadable`)}` : ""}\n`;
  return out;
}

export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  const files = (args.files as string[]).map(String);
  const result = await check({ files, quiet: args.quiet === true }, ctx);
  for (const u of result.unreadable) ctx.warn(u.error);
  return { json: result, human: ctx.json ? "" : renderCheck(result, ctx.style, args.quiet === true), exitCode: checkExitCode(result) };
}
