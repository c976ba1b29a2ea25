import type { CommandContext } from "../../command.js";
import { shellQuote } from "../../errors.js";
import { CliError } from "../../errors.js";
import { countBySeverity, type Finding } from "../../format/check/findings.js";
import { quickFindings, Validator } from "../../format/check/validate.js";
import { EntryNotFoundError, resolveEntry } from "../../format/context/branch.js";
import type { LineRecord } from "../../format/read/line-table.js";
import { applyLabel, sessionName } from "../../format/session/labels.js";
import type { OpenOptions, Session } from "../../format/session/session.js";
import { StatsCollector, type SessionStats } from "../../format/usage/stats.js";
import { estimateOf, UnpricedTally } from "../../format/usage/records.js";
import type { PriceOf } from "../../format/usage/prices.js";
import { openInput, requireSession, type SourceAs } from "./input.js";
import { sessionFindings } from "./verdict.js";
import { storedUsage, type StoredRequest } from "../../stores/index.js";
import { plural } from "../../render/units.js";

/**
 * Opens FILE for a read-only command and says on stderr what pi would skip or choke on, so a user
 * is never shown a partial picture silently.
 */
async function openForDisplay(file: string, ctx: CommandContext, options: OpenOptions, as?: SourceAs): Promise<Session> {
  const session = await openInput(file, ctx, options, as);
  try {
    requireSession(session, ctx.sessionDir);
  } catch (error) {
    session.close();
    throw error;
  }
  return session;
}

export interface FullRead {
  session: Session;
  findings: Finding[];
  stats: SessionStats;
}

/** Every entry parsed in one pass, validated and totalled (`show`). */
export async function readFull(file: string, ctx: CommandContext, priceOf?: PriceOf): Promise<FullRead> {
  const validator = new Validator();
  const stats = new StatsCollector(priceOf);
  const session = await openForDisplay(file, ctx, {
    onRecord: (value, record: LineRecord) => {
      validator.onRecord(value, record);
      stats.onRecord(value, record);
    },
    skim: true, // neither reads more of a message than the skim gives
  });
  const findings = sessionFindings(session, validator, file === "-" ? "-" : session.name);
  warnSkipped(session, findings, ctx, true);
  // (what a session used, where its store keeps that apart from its messages: agent-core's ledger, as `usage` counts it)
  const stored = file === "-" ? undefined : storedUsage(session.name);
  return { session, findings, stats: stored ? withStoredUsage(stats.stats, stored, priceOf) : stats.stats };
}

/** `stats` with its tokens and cost those of the store's requests, each with no cost estimated by the model its message asked, as `usage` counts it. */
function withStoredUsage(stats: SessionStats, requests: readonly StoredRequest[], priceOf: PriceOf | undefined): SessionStats {
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  let cost = 0;
  let estimatedCost = 0;
  let unpricedTokens = 0;
  const unpricedBy = new UnpricedTally();
  for (const { key, amounts: a, pricing } of requests) {
    tokens.input += a.input;
    tokens.output += a.output;
    tokens.cacheRead += a.cacheRead;
    tokens.cacheWrite += a.cacheWrite;
    cost += a.cost;
    if (!priceOf) continue;
    const { estimated, unpriced } = estimateOf(a, pricing, priceOf);
    estimatedCost += estimated;
    unpricedTokens += unpriced;
    if (unpriced > 0) unpricedBy.add(key, pricing, unpriced);
  }
  tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
  return { ...stats, tokens, cost, estimatedCost, unpricedTokens, unpriced: unpricedBy.list() };
}

export interface ShapeRead {
  session: Session;
  findings: Finding[];
  /** Current labels: target id -> label. */
  labels: Map<string, string>;
  /** The session's name (the latest session_info), if any. */
  name: string | undefined;
}

/**
 * The tree's shape from the scanner, parsing only label entries (`tree`, `path`, `context`): the
 * lines a command needs are read again, one by one, in pass two, but for what `previewLines`
 * (`OpenOptions`) takes of each line in pass one.
 */
export async function readShape(file: string, ctx: CommandContext, previewLines?: OpenOptions["previewLines"], as?: SourceAs): Promise<ShapeRead> {
  const labels = new Map<string, string>();
  let name: string | undefined;
  const session = await openForDisplay(file, ctx, {
    previewLines,
    only: new Set(["label", "session_info"]),
    onRecord: (entry) => {
      if (entry.type === "session_info") {
        name = sessionName(entry);
        return;
      }
      applyLabel(labels, entry, (label) => label);
    },
  }, as);
  const findings = quickFindings(session);
  warnSkipped(session, findings, ctx);
  return { session, findings, labels, name };
}

/**
 * A session a writer copies whole (`fork`): opened as `readShape` opens it, its findings returned
 * and none said (what is damaged is refused, not warned of and copied short).
 */
export async function readToCopy(file: string, ctx: CommandContext): Promise<{ session: Session; findings: Finding[] }> {
  const session = await openForDisplay(file, ctx, { only: new Set(["label", "session_info"]) });
  return { session, findings: quickFindings(session) };
}

const SKIPPED_LINE_CODES = new Set(["line-invalid-json", "line-fused", "line-torn", "line-nul", "line-not-object"]);

/**
 * What pi would skip or choke on, said on stderr: the lines it skips, else the first error. With
 * `full` (the findings are `check`'s: `show`) the count of errors too, as `check` counts them; a
 * read of the tree's shape alone (`tree`, `path`) states no count, since it has not judged the
 * conversation, and sends to `check` for the verdict.
 */
function warnSkipped(session: Session, findings: Finding[], ctx: CommandContext, full = false): void {
  const skipped = findings.filter((f) => SKIPPED_LINE_CODES.has(f.code)).map((f) => f.line!);
  const errors = countBySeverity(findings).error;
  const check = `run \`pi-session check ${shellQuote(session.name)}\` for details`;
  if (skipped.length > 0) {
    const list = skipped.slice(0, 5).join(", ") + (skipped.length > 5 ? ", …" : "");
    ctx.warn(`${session.name}:${skipped[0]}: skipped ${plural(skipped.length, "unreadable line")} (line${skipped.length > 1 ? "s" : ""} ${list}); ${check}`);
  } else if (errors > 0) {
    const first = findings.find((f) => f.severity === "error" && !f.causedBy)!;
    ctx.warn(`${session.name}${first.line ? `:${first.line}` : ""}: ${full ? `invalid: ${plural(errors, "error")} (${first.code})` : `${first.code}: ${first.message}`}; ${check}`);
  }
}

/** The node ENTRY names (an id or a unique prefix of one), or an error saying how to find the ids. */
export function nodeFor(session: Session, query: string): number {
  try {
    return resolveEntry(session, query);
  } catch (error) {
    if (error instanceof EntryNotFoundError) {
      const file = shellQuote(session.name);
      throw new CliError(`${session.name}: ${error.message}; run \`pi-session path ${file} --leaves\` or \`pi-session tree ${file}\` to see the ids`);
    }
    throw error;
  }
}
