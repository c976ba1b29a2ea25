import { CliError } from "../../errors.js";
import type { ByteSource } from "../../format/read/source.js";
import type { SessionDetector } from "../../format/redact/detector.js";
import { stampOf } from "../../format/write/atomic.js";
import type { RedactFinding, RedactPlan, UnreadPart } from "../../format/write/redact.js";
import { storedLines, storedVersion, writeRefusal } from "../../stores/index.js";
import { openSource } from "../inputs/input.js";
import { Redaction, type RedactionSettings } from "../inputs/redacted.js";
import { unreadable, type WriterFileResult } from "../writers/loop.js";

/**
 * A session read for secrets as `redact` reads it, the result as its report gives it: what every
 * mode reads first (`sessionPlan`), and `redact --check`'s whole answer for a file (`checkSource`),
 * which a worker thread gives for a store's sessions (`checkPath`, the pool's `redact` task) as
 * this thread gives it for standard input.
 */

export type RedactStatus = "redacted" | "clean" | "needs-redact" | "refused" | "aborted" | "unreadable";

/** Secrets found by kind, in the order first found. */
type Counts = Record<string, number>;

export interface RedactFileResult extends WriterFileResult<RedactStatus> {
  /** Each secret found: line, entry, field, rule, kind, placeholder (never the value). */
  findings?: RedactFinding[];
  /** By kind. */
  counts?: Counts;
  /** Lines written again. */
  changedLines?: number;
  /** What could not be read and was dropped (or lines that were one record, joined). */
  unread?: UnreadPart[];
  imagesDropped?: number;
  /** Backups beside the file that hold it as it was, secrets and all (`--in-place`). */
  backups?: string[];
}

/** Where a session is kept otherwise than as a file of pi's lines (a database, an archive, agent-core's format): never written in place. */
export function storedAs(path: string): string | undefined {
  if (writeRefusal(path, "redact") !== undefined) return storedVersion(path) !== undefined ? "agent-core's storage format 4, which pi cannot open" : "OpenClaw's database, which OpenClaw alone writes";
  if (path.endsWith(".zst")) return "a zstd-compressed archive";
  return undefined;
}

export function countsOf(findings: readonly RedactFinding[]): Counts {
  const counts: Counts = {};
  for (const f of findings) counts[f.kind] = (counts[f.kind] ?? 0) + 1;
  return counts;
}

/** Lines as the file holds them, where the store reads them otherwise (agent-core's format 4: its v3 lines' own lines). */
function inFileLines(path: string, plan: RedactPlan): void {
  const map = storedLines(path);
  if (!map) return;
  for (const f of plan.findings) f.line = map(f.line) || f.line;
  for (const u of plan.unread) u.line = map(u.line) || u.line;
}

/** What a session is read for first in every mode: what to replace (`findOnly`: secrets alone, `--check`), or why it is refused. */
export function sessionPlan(path: string, source: ByteSource, redaction: Redaction, findOnly: boolean): { plan: RedactPlan; detector: SessionDetector } | RedactFileResult {
  const { records, detector } = redaction.session(source);
  if (records === 0) return { file: path, status: "refused", refusal: "content", reason: `not a pi session file (none of its first lines is a JSON record: ${source.size === 0 ? "it is empty" : "a binary file, or another program's"}); nothing was written` };
  const plan = redaction.plan(source, detector, findOnly);
  inFileLines(path, plan);
  return { plan, detector };
}

/** `redact --check`'s answer for the session `source` holds (closed by the caller). */
export function checkSource(path: string, source: ByteSource, redaction: Redaction): RedactFileResult {
  const read = sessionPlan(path, source, redaction, true);
  if ("status" in read) return read;
  const { findings } = read.plan;
  return { file: path, findings, counts: countsOf(findings), status: findings.length > 0 ? "needs-redact" : "clean" };
}

/** The run's redaction in this worker thread, loaded once for the run's settings (its key names it). */
let loaded: { key: string; redaction: Promise<Redaction> } | undefined;

/**
 * `redact --check`'s answer for `path`, read in a worker thread (tasks.ts) under the run's settings:
 * its placeholders carry their whole hash, for the run to `settle` in its order.
 */
export async function checkPath(path: string, settings: RedactionSettings): Promise<RedactFileResult> {
  const key = Buffer.from(settings.key).toString("hex");
  if (loaded?.key !== key) loaded = { key, redaction: Redaction.inWorker(settings) };
  const redaction = await loaded.redaction;
  let source: ByteSource;
  try {
    // (a file's stamp, as every mode takes it before it reads: an error says the same)
    if (!storedAs(path)) stampOf(path);
    source = openSource(path);
  } catch (error) {
    if (error instanceof CliError) return { file: path, status: "unreadable", reason: error.message };
    return unreadable(path, error);
  }
  try {
    return checkSource(path, source, redaction);
  } finally {
    source.close();
  }
}
