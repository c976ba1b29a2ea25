import { Calendar, dayKey, monthKey, weekKey } from "./calendar.js";
import { BLOCK_STRIDE, forEachBlock, forEachRecord, inheritedQuarters, totalTokens, UnpricedTally, UsageTotals, type UnpricedModel, type UsageAmounts, type UsageRecordView } from "./records.js";
import type { SessionUsage } from "./shared.js";

/**
 * A usage report: the records of many sessions (each entry once: `sharedRecords`) summed by day,
 * ISO week, month, session, project or model, as `usage` prints it.
 */

export const USAGE_GROUPS = ["day", "week", "month", "session", "project", "model", "agent", "key", "job", "channel", "kind"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** Groups by what a session is to its store (an OpenClaw agent, session key, cron job, channel or kind): the caller says each session's (`UsageReportOptions.facetOf`). */
export const FACET_GROUPS: ReadonlySet<UsageGroup> = new Set(["agent", "key", "job", "channel", "kind"]);

/** A facet group's key for a session that has none (pi's own sessions, an archive its index no longer names). */
const NO_FACET = "-";

/** A group's key when its records have no time (no entry timestamp, no header timestamp), or its session no cwd. */
const NO_DATE = "unknown";

/** The group of what has no key, while the groups are made: no key a session could hold (an agent named `-`, a cwd `unknown`). */
const NONE = "\u0000none";

interface UsageSums extends UsageAmounts {
  requests: number;
  /** input + output + cache read + cache write. */
  total: number;
  /** What the requests with no cost recorded would have cost at their models' list prices (beside `cost`, never in it). */
  estimatedCost: number;
  /** Tokens of requests with no cost recorded whose model has no price. */
  unpricedTokens: number;
}

interface ModelSums extends UsageSums {
  model: string;
  sessions: number;
}

export interface UsageRow extends UsageSums {
  /** The date (`YYYY-MM-DD`), week (`YYYY-Www`), month (`YYYY-MM`), session id, project's cwd, model, or an agent, key, cron job, channel or kind. */
  key: string;
  /** Sessions with a request of their own in the group. */
  sessions: number;
  /** Its models, the costliest first. */
  models: string[];
  /** A cron job's or a key's label (`Cron: <name>`), where the store gives one. */
  label?: string;
  /** `by: "key"`: the sub-agents this key's session spawned, each with its own sums (also its own row). */
  spawned?: Array<UsageSums & { key: string }>;
  /** With `breakdown`: the group's sums by model, the costliest first. */
  breakdown?: ModelSums[];
  /** `by: "model"`: whether its cost is recorded, estimated at list price, or unpriced (set by the command). */
  pricing?: string;
  /** The group of what has no value for the grouping (no date, no cwd, no agent, key, job, channel or kind): its `key` is a placeholder, `unknown` or `-`, not a value. */
  noKey?: true;
  /** A facet group's `-` row: why its sessions have no value there (what the store records of them). */
  why?: string;
  /** `by: "session"`: the file, when it was created, and what an earlier session holds too. */
  file?: string;
  /** Every file that holds the session, where there are several (copies, snapshots, checkpoints). */
  files?: string[];
  created?: string | null;
  cwd?: string | null;
  inherited?: UsageSums;
}

export interface UsageReportOptions {
  by: UsageGroup;
  calendar: Calendar;
  /** Local days (`Calendar.day`), inclusive. */
  since?: number;
  until?: number;
  breakdown?: boolean;
  /** For a facet group (`FACET_GROUPS`): each session's key, by its index in `sessions` (undefined: `NO_FACET`). */
  facetOf?: (index: number) => string | undefined;
}

export interface UsageReport {
  rows: UsageRow[];
  total: Omit<UsageRow, "key">;
  /** The models whose requests (those the report counts) have no price, the most tokens first. */
  unpriced: UnpricedModel[];
}

/** A session and its flags from `sharedRecords` (null: it inherits nothing). */
export interface AttributedSession {
  session: SessionUsage;
  shared: Uint8Array | null;
}

class Sums extends UsageTotals {
  requests = 0;
  readonly sessions = new Set<number>();

  /** `requests` requests of `session` that used `a` in all. */
  addRequests(a: UsageAmounts, requests: number, session: number): void {
    this.add(a);
    this.requests += requests;
    this.sessions.add(session);
  }

  out(): UsageSums {
    return { requests: this.requests, input: this.input, output: this.output, cacheRead: this.cacheRead, cacheWrite: this.cacheWrite, total: totalTokens(this), cost: this.cost, estimatedCost: this.estimated, unpricedTokens: this.unpriced };
  }
}

class Group extends Sums {
  readonly byModel = new Map<string, Sums>();
  private lastModel: string | undefined;
  private lastSums: Sums | undefined;

  addOwn(a: UsageAmounts, requests: number, session: number, model: string): void {
    this.addRequests(a, requests, session);
    let m = model === this.lastModel ? this.lastSums : this.byModel.get(model);
    if (!m) this.byModel.set(model, (m = new Sums()));
    this.lastModel = model;
    this.lastSums = m;
    m.addRequests(a, requests, session);
  }

  row(key: string, breakdown: boolean): UsageRow {
    const models = [...this.byModel].sort(([ka, a], [kb, b]) => b.cost - a.cost || (ka < kb ? -1 : ka > kb ? 1 : 0));
    const row: UsageRow = { key, sessions: this.sessions.size, ...this.out(), models: models.map(([k]) => k) };
    if (breakdown) row.breakdown = models.map(([model, s]) => ({ model, sessions: s.sessions.size, ...s.out() }));
    return row;
  }
}

const byKey = (a: UsageRow, b: UsageRow) => (a.noKey ? 1 : b.noKey ? -1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const byCost = (a: UsageRow, b: UsageRow) => b.cost - a.cost || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export function usageReport(sessions: readonly AttributedSession[], options: UsageReportOptions): UsageReport {
  const { by, calendar } = options;
  const breakdown = options.breakdown ?? false;
  const dated = by === "day" || by === "week" || by === "month";
  const facet = FACET_GROUPS.has(by);
  const keyOfDay = by === "week" ? weekKey : by === "month" ? monthKey : dayKey;
  const dayKeys = new Map<number, string>();
  const groups = new Map<string, Group>();
  // (`by: "session"`: one group per session id, whichever files hold it — a live file, a backup, a
  // checkpoint, a snapshot — and what each file inherits kept apart, see below)
  const sessionRows: Array<{ index: number; group: Group; inherited: Sums }> = [];
  const sessionGroups = new Map<string, Group>();
  const all = new Group();
  const filtered = options.since !== undefined || options.until !== undefined;
  let lastDay: number | undefined;
  let lastDayKey = "";
  let lastKey: string | undefined;
  let lastGroup: Group | undefined;
  const unpriced = new UnpricedTally();
  sessions.forEach(({ session, shared }, index) => {
    const fallback = calendar.day(session.created);
    // (the model each of its requests with no price was asked of, by model index)
    const asked = session.usage.asked ? new Map(session.usage.asked.map(([i, provider, model]) => [i, { provider, model }])) : undefined;
    let own: Group | undefined;
    const inheritedHere = new Sums();
    if (by === "session") {
      own = sessionGroups.get(session.id);
      if (!own) sessionGroups.set(session.id, (own = new Group()));
      sessionRows.push({ index, group: own, inherited: inheritedHere });
    }
    /** Requests of one day and model: `a` summed. */
    const take = (day: number | undefined, model: string, modelIndex: number, a: UsageAmounts, requests: number, inherited: boolean) => {
      if (filtered && (day === undefined || (options.since !== undefined && day < options.since) || (options.until !== undefined && day > options.until))) return;
      if (inherited) {
        inheritedHere.addRequests(a, requests, index);
        return;
      }
      all.addOwn(a, requests, index, model);
      if (a.unpriced) unpriced.add(model, asked?.get(modelIndex), a.unpriced);
      let group = own;
      if (!group) {
        let key: string;
        if (dated) {
          if (day === undefined) key = NONE;
          else {
            let k = day === lastDay ? lastDayKey : dayKeys.get(day);
            if (k === undefined) dayKeys.set(day, (k = keyOfDay(day)));
            lastDay = day;
            key = lastDayKey = k;
          }
        } else key = by === "project" ? (session.cwd ?? NONE) : facet ? (options.facetOf?.(index) ?? NONE) : model;
        // (requests come in runs of one day and one model)
        group = key === lastKey ? lastGroup : groups.get(key);
        if (!group) groups.set(key, (group = new Group()));
        lastKey = key;
        lastGroup = group;
      }
      group.addOwn(a, requests, index, model);
    };
    // A session is read by its quarter hours (a few dozen blocks), but those in which it inherits a
    // record, which are read record by record; unless the zone puts a quarter hour across two days
    // (then every record).
    const b = session.usage.blocks;
    let aligned = true;
    for (let at = 0; aligned && at < b.length; at += BLOCK_STRIDE) if (!Number.isNaN(b[at]!) && calendar.blockDay(b[at]!) === undefined) aligned = false;
    const byRecord = (r: UsageRecordView) => take(Number.isNaN(r.time) ? fallback : calendar.day(r.time), r.model, r.modelIndex, r, 1, r.inherited);
    if (aligned) {
      const mixed = shared === null ? undefined : inheritedQuarters(session.usage, shared);
      forEachBlock(session.usage, (q) => take(Number.isNaN(q.block) ? fallback : calendar.blockDay(q.block), q.model, q.modelIndex, q, q.requests, false), mixed);
      if (mixed) forEachRecord(session.usage, shared, byRecord, mixed);
    } else forEachRecord(session.usage, shared, byRecord);
  });
  let rows: UsageRow[];
  if (by === "session") {
    // A session held by several files is one row: its own requests are every file's own, and what
    // it inherits is the least any of its files does (a copy inherits the session's own entries
    // from the file that holds them first: those are not another session's); its file is the
    // first that holds it.
    const first = new Map<Group, { index: number; inherited: Sums; files: string[] }>();
    for (const { index, group, inherited } of sessionRows) {
      const seen = first.get(group);
      if (!seen) first.set(group, { index, inherited, files: [sessions[index]!.session.file] });
      else {
        seen.files.push(sessions[index]!.session.file);
        if (inherited.requests < seen.inherited.requests) seen.inherited = inherited;
      }
    }
    rows = [...first]
      .filter(([group, { inherited }]) => group.requests > 0 || inherited.requests > 0)
      .map(([group, { index, inherited, files }]) => {
        const s = sessions[index]!.session;
        return { ...group.row(s.id, breakdown), file: s.file, ...(files.length > 1 ? { files } : {}), created: Number.isNaN(s.created) ? null : new Date(s.created).toISOString(), cwd: s.cwd, inherited: inherited.out() };
      })
      .sort((a, b) => (a.created ?? "\uffff") < (b.created ?? "\uffff") ? -1 : (a.created ?? "\uffff") > (b.created ?? "\uffff") ? 1 : a.file! < b.file! ? -1 : a.file! > b.file! ? 1 : 0);
  } else {
    rows = [...groups].map(([key, group]) => (key === NONE ? { ...group.row(facet ? NO_FACET : NO_DATE, breakdown), noKey: true as const } : group.row(key, breakdown))).sort(dated ? byKey : byCost);
  }
  const { key: _, ...total } = all.row("", breakdown);
  return { rows, total, unpriced: unpriced.list() };
}
