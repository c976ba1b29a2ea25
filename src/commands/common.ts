import type { CommandContext } from "../command.js";
import { shellQuote } from "../errors.js";
import { StatsCollector, Validator, type Finding, type LineRecord, type Session, type SessionStats } from "../format/index.js";
import { openInput, requireSession } from "../input.js";

export interface ReadResult {
  session: Session;
  findings: Finding[];
  stats: SessionStats;
}

/**
 * Opens FILE for a read-only command, validating and gathering totals in the same pass, and says on
 * stderr what pi would skip or choke on, so a user is never shown a partial picture silently.
 */
export async function readForDisplay(file: string, ctx: CommandContext): Promise<ReadResult> {
  const validator = new Validator();
  const stats = new StatsCollector();
  const session = await openInput(file, ctx.sessionDir, {
    onRecord: (value, record: LineRecord) => {
      validator.onRecord(value, record);
      stats.onRecord(value, record);
    },
  });
  try {
    requireSession(session);
  } catch (error) {
    session.close();
    throw error;
  }
  const findings = validator.findings(session);
  warnSkipped(session, findings, ctx);
  return { session, findings, stats: stats.stats };
}

const SKIPPED_LINE_CODES = new Set(["line-invalid-json", "line-fused", "line-torn", "line-nul", "line-not-object"]);

function warnSkipped(session: Session, findings: Finding[], ctx: CommandContext): void {
  const skipped = findings.filter((f) => SKIPPED_LINE_CODES.has(f.code)).map((f) => f.line!);
  const errors = findings.filter((f) => f.severity === "error").length;
  const check = `run \`pi-session check ${shellQuote(session.name)}\` for details`;
  if (skipped.length > 0) {
    const list = skipped.slice(0, 5).join(", ") + (skipped.length > 5 ? ", …" : "");
    ctx.warn(`${session.name}:${skipped[0]}: skipped ${skipped.length} unreadable line${skipped.length > 1 ? "s" : ""} (line${skipped.length > 1 ? "s" : ""} ${list}); ${check}`);
  } else if (errors > 0) {
    const first = findings.find((f) => f.severity === "error")!;
    ctx.warn(`${session.name}${first.line ? `:${first.line}` : ""}: ${errors} problem${errors > 1 ? "s" : ""} found (${first.code}); ${check}`);
  }
}
