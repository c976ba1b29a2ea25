import { applyLabel, sessionName } from "../session/labels.js";
import type { LineRecord } from "../read/line-table.js";
import type { OpenOptions } from "../session/session.js";
import type { AgentMessage, AnyEntry, SessionHeader } from "../schema/types.js";
import { entryUsage, estimateOf, totalTokens, UnpricedTally, type UnpricedModel, type UsageAmounts } from "./records.js";
import type { PriceOf } from "./prices.js";

/**
 * Totals gathered in pass one from every entry: counts, models, tokens and cost, name, labels.
 * `show` and `ls` read these; nothing here needs a second pass.
 */
export interface SessionStats {
  entriesByType: Record<string, number>;
  messagesByRole: Record<string, number>;
  messageCount: number;
  /** "provider/model" -> assistant messages (and model changes) naming it. */
  models: Record<string, number>;
  thinkingLevels: Record<string, number>;
  /** Tokens and cost as pi's /session counts them (usage/records.ts): total = input + output + cache read + cache write. */
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
  /** What its requests with no cost recorded would have cost at list price (`records.ts`, `estimateOf`), and the tokens no price is known for. */
  estimatedCost: number;
  unpricedTokens: number;
  /** Those tokens by model, and the provider and model each was asked of (what a price file names). */
  unpriced: UnpricedModel[];
  /** The latest `session_info` name (an empty name clears it, as in pi). */
  name: string | undefined;
  compactions: Array<{ line: number; id: string | undefined; tokensBefore: number | undefined; firstKeptEntryId: string | undefined }>;
  /** Current labels: target id -> label. */
  labels: Map<string, { label: string; line: number }>;
}

export class StatsCollector {
  private readonly unpriced = new UnpricedTally();

  /** `priceOf`: the prices a request with no cost recorded is estimated by (none: not estimated). */
  constructor(private readonly priceOf?: PriceOf) {}

  /** What was gathered (the unpriced models listed when asked: `totals` holds them as they come). */
  get stats(): SessionStats {
    this.totals.unpriced = this.unpriced.list();
    return this.totals;
  }

  private readonly totals: SessionStats = {
    entriesByType: {},
    messagesByRole: {},
    messageCount: 0,
    models: {},
    thinkingLevels: {},
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    cost: 0,
    estimatedCost: 0,
    unpricedTokens: 0,
    unpriced: [],
    name: undefined,
    compactions: [],
    labels: new Map(),
  };

  readonly onRecord: NonNullable<OpenOptions["onRecord"]> = (value, record) => {
    if (record.kind === "header") {
      const h = value as SessionHeader;
      if (typeof h.thinkingLevel === "string") bump(this.totals.thinkingLevels, h.thinkingLevel);
      return;
    }
    this.add(value as AnyEntry, record);
  };

  private add(entry: AnyEntry, record: LineRecord): void {
    const s = this.totals;
    bump(s.entriesByType, typeof entry.type === "string" ? entry.type : "(none)");
    // tokens and cost as pi's /session counts them (usage/records.ts)
    const used = entryUsage(entry);
    if (used) {
      this.addUsage(used.amounts);
      if (this.priceOf) {
        const { estimated, unpriced } = estimateOf(used.amounts, used.pricing, this.priceOf);
        s.estimatedCost += estimated;
        s.unpricedTokens += unpriced;
        if (unpriced > 0) this.unpriced.add(used.key, used.pricing, unpriced);
      }
    }
    switch (entry.type) {
      case "message": {
        const m = entry.message as AgentMessage | undefined;
        if (!m || typeof m !== "object") break;
        s.messageCount++;
        bump(s.messagesByRole, typeof m.role === "string" ? m.role : "(none)");
        if (m.role === "assistant") bump(s.models, this.modelKey(m.provider, m.model));
        break;
      }
      case "model_change":
        bump(s.models, `${String(entry.provider)}/${String(entry.modelId)}`);
        break;
      case "thinking_level_change":
        bump(s.thinkingLevels, String(entry.thinkingLevel));
        break;
      case "compaction":
        s.compactions.push({
          line: record.line,
          id: record.id,
          tokensBefore: typeof entry.tokensBefore === "number" ? entry.tokensBefore : undefined,
          firstKeptEntryId: typeof entry.firstKeptEntryId === "string" ? entry.firstKeptEntryId : undefined,
        });
        break;
      case "session_info":
        s.name = sessionName(entry);
        break;
      case "label":
        applyLabel(s.labels, entry, (label) => ({ label, line: record.line }));
        break;
    }
  }

  /** `provider/model` keys made once for each pair (a session has a few, named on every assistant message). */
  private readonly modelKeys = new Map<string | undefined, Map<string | undefined, string>>();

  private modelKey(provider: unknown, model: unknown): string {
    if (!((typeof provider === "string" || provider === undefined) && (typeof model === "string" || model === undefined))) return `${String(provider ?? "?")}/${String(model ?? "?")}`;
    let byModel = this.modelKeys.get(provider);
    if (!byModel) this.modelKeys.set(provider, (byModel = new Map()));
    let key = byModel.get(model);
    if (key === undefined) byModel.set(model, (key = `${String(provider ?? "?")}/${String(model ?? "?")}`));
    return key;
  }

  private addUsage(a: UsageAmounts): void {
    const t = this.totals.tokens;
    t.input += a.input;
    t.output += a.output;
    t.cacheRead += a.cacheRead;
    t.cacheWrite += a.cacheWrite;
    t.total += totalTokens(a);
    this.totals.cost += a.cost;
  }
}

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}
