import { finding, FINDING_INFO, type Finding } from "../check/findings.js";
import { migrateHeader } from "../schema/migrations.js";
import { parseLine } from "../read/salvage.js";
import type { Session } from "../session/session.js";
import { rewriteLines, type RewriteOptions, type RewriteResult } from "./rewrite.js";
import { CURRENT_VERSION } from "../schema/types.js";
import { quickFindings } from "../check/validate.js";

/**
 * Migration to v3 (docs/commands.md, `migrate`), as pi's `migrateSessionEntries` does it, with deterministic v1 ids
 * (the reader's), changed lines re-serialised with their keys in order, every other line kept
 * byte-for-byte. A v3 file is current; a newer one, or a corrupted one, is refused: migrate never
 * drops a line (`repair` does that, saying so).
 */

export type MigrationStatus = "current" | "needed" | "refused";

export interface MigrationPlan {
  status: MigrationStatus;
  from: number | null;
  /** Why a file is refused, and the findings behind it. */
  reason?: string;
  findings: Finding[];
}

export function planMigration(session: Session): MigrationPlan {
  const findings = quickFindings(session);
  const from = session.header ? session.version : null;
  const errors = findings.filter((f) => f.severity === "error" && !f.causedBy && f.code !== "version-unsupported");
  if (session.size > 0 && !session.isSessionLike) return { status: "refused", from, reason: `${findings[0]!.message}; nothing to migrate`, findings };
  if (!session.header || session.size === 0) {
    const first = errors[0] ?? finding("header-missing", "no session header", { line: 1 });
    return { status: "refused", from, reason: `${first.line ? `line ${first.line}: ` : ""}${first.message}; ${nextStep(first)}`, findings };
  }
  if (typeof session.header.version !== "undefined" && typeof session.header.version !== "number") {
    return { status: "refused", from, reason: `the header's version is not a number; ${FINDING_INFO["version-invalid"].hint}`, findings };
  }
  if (session.version > CURRENT_VERSION) {
    return { status: "refused", from, reason: `version ${session.version} is newer than this tool's ${CURRENT_VERSION}; upgrade pi-session`, findings };
  }
  if (errors.length > 0) {
    const first = errors[0]!;
    return { status: "refused", from, reason: `damaged (line ${first.line ?? 1}: ${first.message}); ${nextStep(first)}`, findings };
  }
  return { status: session.version < CURRENT_VERSION ? "needed" : "current", from, findings };
}

/** What to do about the error that stops a migration: repair mends most; where it does not, the finding's own hint says what will. */
function nextStep(error: Finding): string {
  return error.next?.startsWith("pi-session repair") ? "run `pi-session repair` first" : error.hint;
}

/**
 * Writes the migrated file through `write` (or only computes the diff), in one pass over the
 * bytes. Only for a plan whose status is "needed".
 */
export function writeMigration(session: Session, write: ((chunk: string | Uint8Array) => void) | undefined, options: Pick<RewriteOptions, "diff"> = {}): RewriteResult {
  const legacy = session.version;
  return rewriteLines(
    session.source,
    (index, bytes) => {
      const record = session.record(index);
      if (record.kind !== "header" && record.kind !== "extra-header" && record.kind !== "entry") return null;
      const parsed = parseLine(bytes, index === 0);
      const value = parsed.value as Record<string, unknown>;
      const cr = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? "\r" : "";
      // pi sets the version on every session record, not only the first.
      if (record.kind !== "entry") return [JSON.stringify(migrateHeader(value, CURRENT_VERSION)) + cr];
      const upgraded = session.upgrade(value, record);
      // v2 lines other than hookMessage ones do not change: keep their bytes.
      if (legacy >= 2 && upgraded === value) return null;
      return [JSON.stringify(upgraded) + cr];
    },
    write,
    options,
  );
}
