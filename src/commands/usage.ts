import { resolve } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode, shellQuote } from "../errors.js";
import { dayKey, type Calendar } from "../format/usage/calendar.js";
import type { UnpricedModel } from "../format/usage/records.js";
import { sharedRecords, type SessionUsage } from "../format/usage/shared.js";
import { FACET_GROUPS, usageReport, USAGE_GROUPS, type UsageGroup, type UsageRow } from "../format/usage/report.js";
import { emptyDirectoryNote, namedNonSessions, STORE_CHOICES, type StoreChoice, storeInputs, transcriptFacts } from "../stores/index.js";
import { csvLine } from "../render/csv.js";
import { renderTable, type Column } from "../render/table.js";
import { layoutWidth, type Style } from "../render/style.js";
import { costBar, formatCost, formatCount, formatTime, formatTokens, plural } from "../render/units.js";
import { displayWidth, preview, wrapSegments } from "../render/width.js";
import { sanitize, sanitizeOneLine } from "../render/safe.js";
import { calendarFor, dayRange } from "../support/inputs/dates.js";
import { UsageCache, usageCachePath } from "../support/usage/cache.js";
import { priceBook } from "../support/usage/prices.js";
import { unpricedNames, unpricedNotice } from "../support/usage/price-file.js";
import type { UsageFile } from "../support/usage/read.js";
import { StoreRead, type ReadCache } from "../support/workers/store-wide.js";

export interface UsageOptions {
  /** Files and directories (default: the session directory, every project). */
  inputs: string[];
  /** With no inputs: which stores (pi's session directory, OpenClaw's roots). */
  store?: StoreChoice;
  /** Each directory's archive folder too (`archive`'s). */
  archived?: boolean;
  /** A price file of the user's over the build's table (`--prices`). */
  prices?: string;
  by: UsageGroup;
  /** `YYYY-MM-DD`, `YYYYMMDD`, or `7d` / `4w` / `3m` (that long before today). */
  since?: string;
  until?: string;
  /** An IANA zone for days, weeks and months (default: the machine's). */
  timezone?: string;
  cwd?: string;
  breakdown?: boolean;
  format?: "text" | "csv";
  /** Neither read nor write the usage cache. */
  noCache?: boolean;
}

export function options(args: Args): UsageOptions {
  return {
    inputs: args.strings("inputs"),
    store: args.choice("store", STORE_CHOICES, "all"),
    archived: args.flag("archived"),
    prices: args.optionalString("prices"),
    by: args.choice("by", USAGE_GROUPS, "day"),
    since: args.optionalString("since"),
    until: args.optionalString("until"),
    timezone: args.optionalString("timezone"),
    cwd: args.optionalString("cwd"),
    breakdown: args.flag("breakdown"),
    format: args.choice("format", ["text", "csv"] as const, "text"),
    noCache: args.raw("cache") === false,
  };
}

export interface UsageResult {
  by: UsageGroup;
  timezone: string;
  since?: string;
  until?: string;
  cwd?: string;
  rows: UsageRow[];
  total: Omit<UsageRow, "key">;
  /** Sessions read (files that hold one). */
  sessions: number;
  /** Usage on lines pi skips: not counted (`pi-session repair` keeps those records). */
  skipped: { requests: number; cost: number; files: Array<{ file: string; lines: number[]; requests: number; cost: number; wholeFile?: boolean }> };
  /** Files that could not be read at all. */
  unreadable: Array<{ file: string; error: string }>;
  /** Files named one by one that hold no session (in a directory, such files are passed over quietly). */
  ignored?: Array<{ file: string; reason?: string }>;
  /** Directories given that hold no session file. */
  empty?: string[];
  /**
   * What the archive of the directories read holds in the report's range (sessions with requests
   * of their own, and their sums): counted with `--archived` (`counted`), else left out, and said.
   */
  archived?: { counted: boolean; sessions: number; requests: number; total: number; cost: number; estimatedCost: number };
  /** The prices estimates were made with: the build's table (pi-ai's registry, dated), and the user's file over it. */
  prices?: { source: string; generatedAt: string; file?: string };
  /** The models whose requests the report counts have no price: as the rows name each, the provider and model id it was asked of (what `--prices` names; null: none recorded), and its unpriced tokens, the most first. */
  unpriced: UnpricedModel[];
}

export async function usage(options: UsageOptions, ctx: CommandContext): Promise<UsageResult> {
  const calendar = calendarFor(options.timezone, ctx.env);
  const { since, until } = dayRange(options.since, options.until, calendar, Date.now());
  // (a price file of the user's: every estimate read with it, none from the cache, which holds the build's)
  const prices = options.prices !== undefined ? resolve(options.prices) : undefined;
  const book = priceBook(prices);
  const cache = options.noCache || prices !== undefined ? undefined : new UsageCache(usageCachePath(ctx.env));
  const reading = new StoreRead(ctx, !options.noCache);
  const { files: given, named, empty, archived, missing } = storeInputs(options.inputs, ctx.sessionDir, ctx.env, options.store, options.archived);
  for (const m of missing) ctx.warn(sanitize(`${m.folder}: recorded in ${m.recordedIn} as where sessions were archived to (--to), and not there now (a disk not mounted?); what it holds is not counted`));
  // (the archive is read either way: counted with --archived, else what it holds is said, not dropped without a word)
  const archivedSet = new Set(archived);
  const givenSet = new Set(given);
  const paths = options.archived ? given : [...given, ...archived.filter((p) => !givenSet.has(p))];
  // Every file's usage: from the cache when it holds the file unchanged, else read (worker threads for many).
  const found = new Map<number, UsageFile>();
  const held: ReadCache<UsageFile> | undefined = cache && {
    holds(path, index, stamp) {
      const file = cache.get(path, stamp);
      if (file) found.set(index, file);
      return file !== undefined;
    },
    keep: (_path, stamp, file) => file.kind !== "unreadable" && cache.set(stamp, file),
  };
  const settings = prices !== undefined ? { prices } : {};
  const read = await reading.read("usage", paths, { cache: held, settings });
  const stdin = paths.includes("-") ? await (await import("../support/usage/read.js")).readUsage("-", ctx.stdin, settings) : undefined;
  const files = Array.from(read, (file, index) => file ?? found.get(index) ?? stdin!);
  cache?.save();
  let result: UsageResult;
  try {
    const live = files.filter((f) => !archivedSet.has(f.path));
    result = report(options.archived ? files : live, options, calendar, since, until);
    if (archived.length > 0) result.archived = archiveSums(result, options.archived ? live : files, options, calendar, since, until);
  } finally {
    // (the amounts a report asks for are read from the cache as it was opened: none is asked for after)
    cache?.close();
  }
  result.prices = { source: book.source, generatedAt: book.generatedAt, ...(prices !== undefined ? { file: prices } : {}) };
  // (--by model: whose cost is recorded, estimated at list price, or neither)
  if (options.by === "model") for (const row of result.rows) row.pricing = row.unpricedTokens > 0 ? (row.cost > 0 || row.estimatedCost > 0 ? "partly unpriced" : "unpriced") : row.estimatedCost > 0 ? (row.cost > 0 ? "recorded and estimated" : "estimated") : "recorded";
  result.ignored = namedNonSessions(files, named);
  result.empty = empty;
  if (options.by === "session") await nameSessions(result, ctx, !options.noCache);
  reading.done();
  return result;
}

/**
 * What the archive adds to a report (`report`, its files with or without the archived sessions;
 * `other`, the files of the report it is not): the sessions with requests of their own and their
 * sums, each entry once across both (a fork archived adds only what its parent does not hold).
 */
function archiveSums(report_: UsageResult, other: UsageFile[], options: UsageOptions, calendar: Calendar, since: number | undefined, until: number | undefined): UsageResult["archived"] {
  let otherTotal: UsageResult["total"];
  try {
    otherTotal = report(other, options, calendar, since, until).total;
  } catch {
    return undefined;
  }
  const [withArchive, without] = options.archived ? [report_.total, otherTotal] : [otherTotal, report_.total];
  return {
    counted: options.archived === true,
    sessions: withArchive.sessions - without.sessions,
    requests: withArchive.requests - without.requests,
    total: withArchive.total - without.total,
    cost: withArchive.cost - without.cost,
    estimatedCost: withArchive.estimatedCost - without.estimatedCost,
  };
}

/**
 * `--by session`: each row named as `ls` names its session (the label its store gives, else its
 * name or first user message: `ls`'s own rows, from its cache), so that a cost says which session it is.
 */
async function nameSessions(result: UsageResult, ctx: CommandContext, useCache: boolean): Promise<void> {
  const rows = result.rows.filter((row) => row.label === undefined && row.file !== undefined && row.file !== "<stdin>");
  const unlabelled = rows.filter((row) => {
    const label = transcriptFacts(row.file!).label;
    if (label) row.label = label;
    return !label;
  });
  const { sessionTitles } = await import("../support/workers/titles.js");
  const titles = await sessionTitles(unlabelled.map((row) => row.file!), ctx, useCache);
  unlabelled.forEach((row, i) => {
    if (titles[i]) row.label = titles[i]!;
  });
}

function report(files: UsageFile[], options: UsageOptions, calendar: Calendar, since: number | undefined, until: number | undefined): UsageResult {
  const unreadable = files.filter((f) => f.kind === "unreadable").map((f) => ({ file: f.path, error: f.error ?? "cannot read" }));
  const read = files.filter((f) => f.kind === "session");
  if (read.length === 0 && unreadable.length > 0) {
    throw new CliError(`no session could be read (${plural(unreadable.length, "file")}; the first: ${unreadable[0]!.error})`);
  }
  // Each entry once, over every session given; then the ones asked for.
  const sessions: SessionUsage[] = read.map((f) => ({ file: f.path === "-" ? "<stdin>" : f.path, id: f.id ?? f.path, created: f.created === null ? NaN : Date.parse(f.created), cwd: f.cwd, usage: f.usage }));
  const shared = sharedRecords(sessions);
  const wanted = options.cwd === undefined ? undefined : resolve(options.cwd);
  const chosen = sessions.map((session, i) => ({ session, shared: shared[i]! })).filter(({ session }) => wanted === undefined || (session.cwd !== null && resolve(session.cwd) === wanted));
  // (what each session is to its store, for --by agent, key, job, channel and kind)
  const facts = FACET_GROUPS.has(options.by) ? chosen.map(({ session }) => transcriptFacts(session.file)) : [];
  const facetOf = (i: number): string | undefined => (facts[i]?.[options.by as "agent" | "key" | "job" | "channel" | "kind"] ?? undefined) || undefined;
  const report = usageReport(chosen, { by: options.by, calendar, since, until, breakdown: options.breakdown, facetOf });
  // (a cron job's row is named by its label, a key's by its label too, where sessions.json gives one)
  if (options.by === "job" || options.by === "key") {
    const labels = new Map<string, string>();
    facts.forEach((f, i) => {
      const k = facetOf(i);
      if (k !== undefined && f.label) labels.set(k, f.label);
    });
    for (const row of report.rows) if (labels.has(row.key)) row.label = labels.get(row.key);
  }
  // (the `-` row of a facet: why those sessions have none, as far as their store says)
  if (FACET_GROUPS.has(options.by)) {
    const none = report.rows.find((r) => r.noKey);
    if (none) {
      let archives = 0;
      let pi = 0;
      let other = 0;
      facts.forEach((f, i) => {
        if (facetOf(i) !== undefined || !chosen[i]!.session.usage.entries.length) return;
        if (f.store !== "openclaw") pi++;
        else if (f.archived) archives++;
        else other++;
      });
      const parts = [archives ? `${plural(archives, "reset or deleted archive")} its store records no ${options.by} for` : "", pi ? `${plural(pi, "pi session")} (pi has no ${options.by})` : "", other ? `${plural(other, "OpenClaw transcript")} with no ${options.by} in its index` : ""].filter(Boolean);
      if (parts.length > 0) none.why = parts.join("; ");
    }
  }
  if (options.by === "key") {
    // A sub-agent's key row stays; its spawner's row also says what the sub-agents it spawned cost
    // (`spawned`; shown under it with --breakdown), so that a task's whole cost can be read off.
    const spawnerOf = new Map<string, string>();
    facts.forEach((f, i) => {
      const k = facetOf(i);
      if (k !== undefined && f.spawnedBy) spawnerOf.set(k, f.spawnedBy);
    });
    const byKey = new Map(report.rows.map((r) => [r.key, r]));
    for (const [child, parent] of spawnerOf) {
      const c = byKey.get(child);
      const p = byKey.get(parent);
      if (!c || !p) continue;
      (p.spawned ??= []).push({ key: c.key, requests: c.requests, input: c.input, output: c.output, cacheRead: c.cacheRead, cacheWrite: c.cacheWrite, total: c.total, cost: c.cost, estimatedCost: c.estimatedCost, unpricedTokens: c.unpricedTokens });
    }
  }
  const skipped: UsageResult["skipped"] = { requests: 0, cost: 0, files: [] };
  for (const { session } of chosen) {
    const s = session.usage.skipped;
    if (s.requests === 0) continue;
    skipped.requests += s.requests;
    skipped.cost += s.cost;
    skipped.files.push({ file: session.file, lines: s.lines, requests: s.requests, cost: s.cost, ...(s.wholeFile ? { wholeFile: true } : {}) });
  }
  return {
    by: options.by,
    timezone: calendar.timeZone,
    ...(since !== undefined ? { since: dayKey(since) } : {}),
    ...(until !== undefined ? { until: dayKey(until) } : {}),
    ...(wanted !== undefined ? { cwd: wanted } : {}),
    rows: report.rows,
    total: report.total,
    sessions: chosen.length,
    skipped,
    unreadable,
    unpriced: report.unpriced,
  };
}

/** The first column's head, by group. */
const KEY_HEADS: Record<UsageGroup, string> = { day: "date", week: "week", month: "month", session: "session", project: "project", model: "model", agent: "agent", key: "key", job: "job", channel: "channel", kind: "kind" };

/** A model as a table shows it: without its provider (`--by model` keys keep it). */
const shortModel = (m: string) => (m.includes("/") && !m.startsWith("Tools/") ? m.slice(m.indexOf("/") + 1) : m);

/** The widest a model's or a facet's key is kept whole while other columns can give way. */
const KEY_KEPT = 40;

/**
 * The table, and which columns a narrow terminal gives up first: at 80 columns a day's row keeps
 * the date, cost, its bar, total tokens, requests, input and output; the cache columns, models and
 * sessions go first (`--wide` or piped output has them all).
 */
export function renderUsage(result: UsageResult, style: Style): string {
  const { c } = style;
  const bySession = result.by === "session";
  if (result.rows.length === 0) {
    // (no session at all, a folder without them: stderr has said so, and there is nothing to report)
    if (result.sessions === 0 && (result.empty?.length ?? 0) > 0) return "";
    const range = result.since && result.until ? ` between ${result.since} and ${result.until}` : result.since ? ` since ${result.since}` : result.until ? ` until ${result.until}` : "";
    return `${c.dim(`no usage${range} in ${plural(result.sessions, "session")}`)}\n`;
  }
  const dash = (s: string) => (s === "" ? s : s === "-" ? c.dim(s) : s);
  const estimating = result.total.estimatedCost > 0 || result.total.unpricedTokens > 0;
  // (a model's or a facet's key keeps its width, up to KEY_KEPT columns, while a less important
  // column can go: two models alike but for their end, `anthropic/claude-opus-4-1` and
  // `anthropic/claude-sonnet-4-5`, must not read alike; cut, it keeps both ends)
  const keyWidth = () => Math.min(KEY_KEPT, Math.max(0, ...rows.map((r) => displayWidth(r[0]!))));
  const columns = (): Column[] => [
    { head: KEY_HEADS[result.by], priority: 1, ...(result.by === "project" ? { flex: true, min: 16, max: 48, keep: "end" as const } : result.by === "session" ? { flex: true, min: 28, max: 60, keep: "mark" as const } : result.by === "model" || FACET_GROUPS.has(result.by) ? { flex: true, min: Math.max(16, keyWidth()), max: 48, keep: "middle" as const } : {}) },
    ...(bySession ? [{ head: "created", priority: 9 }] : []),
    ...(bySession ? [] : [{ head: "sessions", priority: 12, align: "right" as const }]),
    { head: "requests", priority: 5, align: "right" },
    { head: "input", priority: 6, align: "right" },
    { head: "output", priority: 7, align: "right" },
    { head: "cache read", priority: 10, align: "right" },
    { head: "cache write", priority: 11, align: "right" },
    { head: "total", priority: 3, align: "right" },
    { head: "cost", priority: 2, align: "right", paint: (t) => (t.startsWith("$") ? c.bold(t) : t) },
    // (what the requests with no cost recorded would have cost at list price: beside cost, never in it)
    ...(estimating ? [{ head: "estimated", priority: 8.5, align: "right" as const, paint: (t: string) => (t.startsWith("~") ? c.yellow(t) : dash(t)) }] : []),
    ...(bySession ? [{ head: "inherited", priority: 8, align: "right" as const, paint: dash }] : []),
    { head: "", priority: 4, paint: (t) => c.cyan(t) },
    { head: "models", priority: 9, flex: true, min: 12, max: 60, paint: (t) => c.dim(t) },
  ];
  const maxCost = Math.max(...result.rows.map((r) => r.cost));
  const cells = (key: string, r: Omit<UsageRow, "key">, bar: boolean, extra: { created?: string; inherited?: string } = {}) => [
    key,
    ...(bySession ? [extra.created ?? ""] : []),
    ...(bySession ? [] : [r.sessions > 0 ? String(r.sessions) : ""]),
    formatTokens(r.requests),
    formatTokens(r.input),
    formatTokens(r.output),
    formatTokens(r.cacheRead),
    formatTokens(r.cacheWrite),
    formatTokens(r.total),
    // (requests whose provider recorded no cost are not free ones: said, not shown as $0.00)
    r.cost === 0 && r.requests > 0 ? "-" : formatCost(r.cost),
    ...(estimating ? [r.estimatedCost > 0 ? `~${formatCost(r.estimatedCost)}${r.unpricedTokens > 0 ? "+" : ""}` : r.unpricedTokens > 0 ? "unpriced" : "-"] : []),
    ...(bySession ? [extra.inherited ?? ""] : []),
    bar ? costBar(r.cost, maxCost, 10) : "",
    // (model ids are the session's text: shown, never sent to the terminal)
    sanitizeOneLine(r.models.map(shortModel).join(", ")),
  ];
  const rows: string[][] = [];
  for (const r of result.rows) {
    // (a job's row by its label, its id after; the id alone where the store gives no label)
    rows.push(cells(r.label ? `${preview(r.label, bySession ? 48 : 200)} (${r.key.length > 12 ? `${r.key.slice(0, 8)}…` : r.key})` : preview(r.key, 200), r, true, { created: formatTime(r.created ?? undefined), inherited: r.inherited && r.inherited.requests > 0 ? formatCost(r.inherited.cost) : "-" }));
    for (const m of r.breakdown ?? []) rows.push(cells(`  ${preview(result.by === "model" ? m.model : shortModel(m.model), 200)}`, { ...m, models: [] }, false));
    if (r.breakdown) for (const k of r.spawned ?? []) rows.push(cells(`  ↳ ${preview(k.key, 200)}`, { ...k, sessions: 0, models: [] }, false));
  }
  rows.push(cells("total", { ...result.total, models: [] }, false));
  const table = renderTable(columns(), rows, style).trimEnd().split("\n");
  // the totals line in bold, apart from the rows
  const last = table.pop()!;
  // (the sessions the report holds; those read besides, with no usage in the range or the project, said apart)
  const counted = result.total.sessions;
  const sessions = `${plural(counted, "session")}${counted !== result.sessions ? ` (of ${formatCount(result.sessions)} read)` : ""}`;
  const noCost = result.rows.some((r) => r.cost === 0 && r.requests > 0) ? "; -: no cost recorded" : "";
  const t = result.total;
  const estimate = !estimating ? "" : `; estimated: what requests with no cost recorded would have cost at ${sanitize(result.prices?.source ?? "list")} prices (${result.prices?.generatedAt.slice(0, 10) ?? "-"}${result.prices?.file ? `, and ${sanitize(result.prices.file)}` : ""})${t.unpricedTokens > 0 ? `; ${formatTokens(t.unpricedTokens)} tokens with no price (+): ${sanitize(unpricedNames(result.unpriced))}${result.unpriced.some((u) => u.provider !== null) ? " (a price file to fill in for --prices FILE follows on stderr)" : ""}` : ""}`;
  const why = result.rows.find((r) => r.why)?.why;
  const footer = `${sessions}; ${result.by === "session" || result.by === "project" || result.by === "model" || FACET_GROUPS.has(result.by) ? "" : `days in ${sanitize(result.timezone)}; `}each shared entry counted once${noCost}${estimate}${why ? `; ${result.by} -: ${why}` : ""}`;
  const zone = wrapSegments([[footer, c.dim]], layoutWidth(style), "").join("\n");
  return `${table.join("\n")}\n${c.bold(last)}\n${zone}\n`;
}

/** The version of a `--jsonl` row's shape (docs/reference.md, "`--json` shapes"): raised when a field changes meaning or goes. */
const ROW_VERSION = 1;

const CSV_HEADS = ["sessions", "requests", "input", "output", "cacheRead", "cacheWrite", "total", "cost", "estimatedCost", "unpricedTokens"] as const;

/** A cost for CSV: a sum of float costs rounded to 10 decimal places (no `92.20222174999999`), exact otherwise. */
const csvCost = (n: number) => Number(n.toFixed(10));

/** The report as CSV (RFC 4180): a header line, a row a group; with `--breakdown`, a row a group and model. */
export function renderUsageCsv(result: UsageResult): string {
  const bySession = result.by === "session";
  const breakdown = result.rows.some((r) => r.breakdown);
  const head = [result.by, ...(breakdown ? ["model"] : []), ...CSV_HEADS, ...(breakdown ? [] : ["models"]), ...(bySession ? ["file", "inheritedRequests", "inheritedCost"] : [])];
  const lines = [csvLine(head)];
  for (const r of result.rows) {
    const tail = bySession ? [r.file ?? "", r.inherited?.requests ?? 0, csvCost(r.inherited?.cost ?? 0)] : [];
    // (requests whose provider recorded no cost: an empty cost, as the table's `-`, not a 0 that reads as free)
    const values = (g: Record<(typeof CSV_HEADS)[number], number>) => CSV_HEADS.map((k) => (k === "cost" ? (g.cost === 0 && g.requests > 0 ? "" : csvCost(g[k])) : k === "estimatedCost" ? csvCost(g[k]) : g[k]));
    // (the group of what has no key: an empty cell, not its placeholder, which is no text of a session's)
    const key = r.noKey ? "" : r.key;
    if (breakdown) for (const m of r.breakdown ?? []) lines.push(csvLine([key, m.model, ...values(m), ...tail]));
    else lines.push(csvLine([key, ...values(r), r.models.join(" "), ...tail]));
  }
  return lines.join("");
}

/** What pi cannot read and what could not be read at all, a line each on stderr; the archive's sessions left out, in one. */
function warnings(result: UsageResult, ctx: CommandContext): void {
  const a = result.archived;
  if (a && !a.counted && a.sessions > 0) {
    const sums = [`${formatTokens(a.total)} tokens`, a.cost > 0 ? `${formatCost(a.cost)} recorded` : "", a.estimatedCost > 0 ? `~${formatCost(a.estimatedCost)} estimated` : ""].filter(Boolean).join(", ");
    ctx.warn(`${plural(a.sessions, "archived session")} not counted (${sums}): add --archived`);
  }
  for (const dir of result.empty ?? []) ctx.warn(sanitize(emptyDirectoryNote(dir)));
  for (const { error } of result.unreadable) ctx.warn(`${sanitize(error)} (left out of the report)`);
  for (const { file, reason } of result.ignored ?? []) ctx.warn(`${sanitize(file)}: not a session${reason ? ` (${reason})` : ""}, left out of the report; run \`pi-session check ${shellQuote(file)}\``);
  for (const s of result.skipped.files) {
    const what = `${plural(s.requests, "request")} (${formatCost(s.cost)})`;
    const repair = `not counted; run \`pi-session repair ${shellQuote(s.file)}\``;
    if (s.wholeFile) {
      ctx.warn(`${sanitize(s.file)}: ${what} in a file pi reads nothing of (its first record is no session header), ${repair}`);
      continue;
    }
    const lines = s.lines.length === 1 ? `on a line pi cannot read (line ${s.lines[0]})` : `on lines pi cannot read (lines ${s.lines.join(", ")}${s.lines.length >= 10 ? ", …" : ""})`;
    ctx.warn(`${sanitize(s.file)}:${s.lines[0]}: ${what} ${lines}, ${repair}`);
  }
}

export async function run(options: UsageOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await usage(options, ctx);
  warnings(result, ctx);
  // (the models with no price, and a price file for them to fill in: for the person running it, on
  // stderr, after the report whose last line points to it; --json carries the models as data, `unpriced`)
  const notice = ctx.json ? undefined : unpricedNotice(result.unpriced, result.prices?.file);
  const after = notice ? { after: notice } : {};
  if (options.format === "csv") return { human: renderUsageCsv(result), ...after, exitCode: ExitCode.Ok };
  // (a row a line, each saying its shape's version and its grouping: rows of several runs, several stores, go in one table)
  return { json: result, jsonl: () => result.rows.map((r) => ({ version: ROW_VERSION, by: result.by, ...r })), human: ctx.json ? "" : renderUsage(result, ctx.style), ...after, exitCode: ExitCode.Ok };
}
