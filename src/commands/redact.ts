import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { CliError, ExitCode, shellQuote } from "../errors.js";
import { BufferSource, FileSource, type ByteSource } from "../format/read/source.js";
import { denyPattern } from "../format/redact/detector.js";
import { RejectedOutputError, stampOf, type FileStamp } from "../format/write/atomic.js";
import { redactionLeft, type UnreadPart } from "../format/write/redact.js";
import { annotation } from "../render/github.js";
import { sanitize } from "../render/safe.js";
import { layoutWidth, type Style } from "../render/style.js";
import { renderTable, type Column } from "../render/table.js";
import { cutToWidth, displayWidth } from "../render/width.js";
import { plural } from "../render/units.js";
import { openSource } from "../support/inputs/input.js";
import { leftMessage, Redaction } from "../support/inputs/redacted.js";
import { checkSource, countsOf, sessionPlan, storedAs, type RedactFileResult, type RedactStatus } from "../support/redact/check.js";
import { StoreRead } from "../support/workers/store-wide.js";
import { placeNote, REFUSED_ABORTED_UNREADABLE, renderWriterGithub, renderWriterReport, unreadable, writeEach, writerExitCode, writerInputs, writerJson, type Put, type StatusTable, type WriterRun } from "../support/writers/loop.js";
import { outName } from "../support/writers/output.js";
import { sessionIdOf, storedVersion, writeRefusal } from "../stores/index.js";

export interface RedactOptions {
  files: string[];
  /** A file (one session), a folder (several), or `-` (standard output). */
  out?: string;
  inPlace: boolean;
  check: boolean;
  force: boolean;
  format: "text" | "github";
  secrets: string[];
  deny: string[];
  dropImages: boolean;
}

/** The least length of a `--secret`: shorter ones are words of any text. */
const SECRET_LENGTH = 4;

export function options(args: Args): RedactOptions {
  const o: RedactOptions = {
    files: args.strings("files"),
    out: args.optionalString("out"),
    inPlace: args.flag("inPlace"),
    check: args.flag("check"),
    force: args.flag("force"),
    format: args.choice("format", ["text", "github"] as const, "text"),
    secrets: args.repeated("secret"),
    deny: args.repeated("deny"),
    dropImages: args.flag("dropImages"),
  };
  const modes = [o.out !== undefined && "-o", o.inPlace && "--in-place", o.check && "--check"].filter(Boolean);
  if (modes.length === 0) throw new CliError("redact writes a copy: give -o OUT (a file; a folder for several sessions; - for standard output), --in-place to replace each file, or --check to look only; e.g. pi-session redact session.jsonl -o shared.jsonl");
  if (modes.length > 1) throw new CliError(`redact takes one of -o, --in-place and --check, got ${modes.join(" and ")}`);
  // (a copy is plain JSONL, read again before it is put in place: compressing it would be a second
  // writer beside archive's, which checks what it compresses and keeps a manifest of it)
  if (o.out !== undefined && o.out !== "-" && /\.zst$/i.test(o.out) && !isDirectory(o.out)) {
    const plain = o.out.replace(/\.zst$/i, "");
    throw new CliError(`redact writes JSONL, not zstd: name the copy ${shellQuote(/\.jsonl$/i.test(plain) ? plain : `${plain}.jsonl`)}, then \`pi-session archive\` it to compress it`);
  }
  if (o.format === "github" && !o.check) throw new CliError("--format github annotates what --check finds: pi-session redact DIR --check --format github");
  for (const s of o.secrets) if (s.length < SECRET_LENGTH) throw new CliError(`--secret takes a value of ${SECRET_LENGTH} characters or more (a shorter one is a word of any text), got one of ${s.length}`);
  for (const [k, d] of o.deny.entries()) {
    try {
      denyPattern(d);
    } catch (error) {
      throw new CliError(`--deny ${k + 1} is not a JavaScript regular expression (${(error as Error).message}); e.g. --deny 'password=(\\S+)' (a group: only what it matched is replaced)`);
    }
  }
  return o;
}

/** Whether `path` is a folder that exists (an -o folder named `….zst` is a folder still). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

type Counts = Record<string, number>;

export type RedactReport = WriterRun<RedactStatus, RedactFileResult>;

const STATUS = {
  redacted: { text: "redacted", exit: ExitCode.Ok, paint: "green" },
  clean: { text: "no secrets found", many: "no secrets found", exit: ExitCode.Ok, paint: "green" },
  "needs-redact": { text: "holds secrets", many: "hold secrets", exit: ExitCode.Findings, paint: "red" },
  ...REFUSED_ABORTED_UNREADABLE,
} as const satisfies StatusTable<RedactStatus>;

/** The name of a stored session's redacted copy in a folder: a database transcript's by its id, an archive's without `.zst`. */
function copyName(path: string): string | undefined {
  if (path.endsWith(".zst")) return basename(path).slice(0, -".zst".length);
  const stored = writeRefusal(path, "redact") !== undefined && storedVersion(path) === undefined;
  return stored ? `${sessionIdOf(path) ?? "session"}.jsonl` : undefined;
}

/** Backups of `path` beside it (`FILE.bak`, `FILE.bak.1`, …: `repair`, `migrate` and `slim` keep them), which hold what it held. */
function backupsOf(path: string): string[] {
  try {
    const name = basename(path);
    return readdirSync(dirname(path))
      .filter((f) => f === `${name}.bak` || new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.bak\\.\\d+$`).test(f))
      .map((f) => join(dirname(path), f));
  } catch {
    return [];
  }
}

function redactOne(path: string, options: RedactOptions, redaction: Redaction, put: Put, stdin: Buffer | undefined): RedactFileResult {
  if (path === "-") return redactSource("<stdin>", new BufferSource("<stdin>", stdin!), { size: stdin!.length, mtimeMs: Date.now() }, undefined, options, redaction, put);
  const stored = storedAs(path);
  if (stored && options.inPlace) return { file: path, status: "refused", refusal: "content", reason: `kept in ${stored}; nothing was written: redact it to a copy, \`pi-session redact ${shellQuote(path)} -o ${shellQuote(copyName(path) ?? basename(path))}\`` };
  let source: ByteSource;
  let stamp: FileStamp;
  try {
    stamp = stored ? { size: -1, mtimeMs: -1 } : stampOf(path);
    source = openSource(path);
  } catch (error) {
    if (error instanceof CliError) return { file: path, status: "unreadable", reason: error.message };
    return unreadable(path, error);
  }
  return redactSource(path, source, stamp, stored, options, redaction, put);
}

/** `redactOne` once the session's bytes are open (closed here). */
function redactSource(path: string, source: ByteSource, stamp: FileStamp, stored: string | undefined, options: RedactOptions, redaction: Redaction, put: Put): RedactFileResult {
  try {
    if (options.check) return checkSource(path, source, redaction);
    const read = sessionPlan(path, source, redaction, false);
    if ("status" in read) return read;
    const { plan, detector } = read;
    const found = { findings: plan.findings, counts: countsOf(plan.findings) };
    const result = { ...found, changedLines: plan.changedLines, unread: plan.unread, imagesDropped: plan.imagesDropped };
    const lost = plan.unread.filter((u) => u.what !== "joined" && u.what !== "fused");
    // (in place, what cannot be read would be gone with no copy of it kept: the file is left as it is)
    if (options.inPlace && lost.length > 0) {
      const where = lost.length === 1 ? `line ${lost[0]!.line} could not be read` : `lines ${lost.map((u) => u.line).join(", ")} could not be read`;
      return { file: path, ...result, status: "refused", refusal: "content", reason: `${where} (said above); in place it would be lost with no copy kept; nothing was written: redact it to a copy (-o COPY), or \`pi-session repair\` it first` };
    }
    const nothing = plan.changedLines === 0;
    // (in place, a file with nothing to change is left as it is; a copy is written all the same: OUT holds every session)
    if (nothing && options.inPlace) return { file: path, ...result, status: "clean" };
    const check = (written: { file: string } | { bytes: Buffer }) => {
      const copy = "file" in written ? new FileSource(written.file) : new BufferSource(path, written.bytes);
      try {
        const left = redactionLeft(copy, detector);
        if (left) throw new RejectedOutputError(leftMessage(path, left, "nothing was written"));
      } finally {
        copy.close();
      }
    };
    const settled = put(path, stamp, (write) => redaction.write(source, plan, detector, write), stored ? copyName(path) : undefined, { check, ...(options.inPlace ? { backup: false } : {}) });
    if (settled.failed) return { file: path, ...result, ...settled.failed };
    const backups = options.inPlace ? backupsOf(path) : [];
    return { file: path, ...result, status: plan.findings.length > 0 || plan.imagesDropped > 0 ? "redacted" : "clean", ...settled.place, ...(backups.length > 0 ? { backups } : {}) };
  } finally {
    source.close();
  }
}

export async function redact(options: RedactOptions, ctx: CommandContext): Promise<RedactReport> {
  const redaction = await Redaction.load(options, ctx.env);
  const writer = { files: options.files, dryRun: false, check: options.check, out: options.out, force: options.force, format: options.format, full: false };
  const reading = { stored: true, archives: !options.inPlace, stdin: true };
  const inputs = writerInputs("redact", writer, ctx, reading);
  const stdin = options.files.length === 1 && options.files[0] === "-" && !options.inPlace ? await ctx.stdin() : undefined;
  const checked = options.check ? await checkEach(inputs.files, redaction, ctx) : undefined;
  const report = writeEach<RedactStatus, RedactFileResult>("redact", writer, ctx, Object.keys(STATUS) as RedactStatus[], (file, put) => checked?.get(file) ?? redactOne(file, options, redaction, put, stdin), reading, inputs);
  for (const r of report.files) for (const u of r.unread ?? []) ctx.warn(sanitize(`${r.file}:${u.line}: ${unreadText(u)}`));
  return report;
}

/**
 * `--check` of the sessions at `files` (standard input aside, read by the loop): read as `grep`
 * reads a store, on worker threads where the work calls for them (support/workers/), the results in
 * the files' order. Each thread's placeholders carry their whole hash under the run's key; they are
 * settled here in that order, as one thread reading the files in turn would have made them.
 */
async function checkEach(files: readonly string[], redaction: Redaction, ctx: CommandContext): Promise<Map<string, RedactFileResult>> {
  const paths = files.filter((f) => f !== "-");
  const out = new Map<string, RedactFileResult>();
  if (paths.length === 0) return out;
  // (no cache, nor the stores' facts kept: every session is read whole, as grep reads them)
  const reading = new StoreRead(ctx, false);
  const read = await reading.read("redact", paths, { stamps: paths.length < MANY_FILES, settings: redaction.settings });
  reading.done();
  for (const [k, path] of paths.entries()) {
    const r = read[k]!;
    for (const f of r.findings ?? []) f.placeholder = redaction.placeholders.settle(f.kind, f.placeholder);
    out.set(path, r);
  }
  return out;
}

/** Past this many sessions, none is stamped only to weigh the work (grep's measure: a stat of each would be a tenth of the run). */
const MANY_FILES = 256;

/** What is said on stderr after the report: backups that still hold a secret, and what resuming a redacted session does. */
function afterward(report: RedactReport, options: RedactOptions): string[] {
  const notes = report.files.flatMap((r) => (r.backups ?? []).map((b) => sanitize(`${b} holds ${r.file} as it was, secrets and all: remove it (rm ${shellQuote(b)}) unless it is to be kept`)));
  if (!options.check && report.files.some((r) => r.status === "redacted")) notes.push("resuming a redacted session in pi or OpenClaw sends its placeholders to the model in place of the secrets: share the copy, go on working in the original");
  return notes;
}

function unreadText(u: UnreadPart): string {
  switch (u.what) {
    case "torn":
      return `the last line was cut off mid-record; its ${plural(u.bytes, "byte")} were not read, and were dropped`;
    case "not-json":
      return `not JSON, and no record could be read from it; its ${plural(u.bytes, "byte")} were dropped`;
    case "fragment":
      return `${plural(u.bytes, "byte")} beside ${plural(u.records, "record")} on the line (a torn write) could not be read, and were dropped; the records were written each on a line`;
    case "too-long":
      return `the line is too long to read as text (${plural(u.bytes, "byte")}); dropped`;
    case "joined":
      return `lines ${u.line}-${u.lastLine} were one record split by raw newlines; written as one line`;
    case "fused":
      return `${plural(u.records, "record")} on one line (fused appends); written each on a line`;
  }
}

/** A file's kinds with their counts, or (`summarised`) how many kinds. */
function kindsOf(r: RedactFileResult, summarised: boolean): string {
  return summarised ? plural(Object.keys(r.counts ?? {}).length, "kind") : byKind(r.counts);
}

function byKind(counts: Counts | undefined): string {
  return Object.entries(counts ?? {})
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
}

/** `summarised`: the kinds are counted in the summary by rule above (`checkSummary`), and only their number is said here. */
function describe(r: RedactFileResult, summarised = false): string {
  const n = r.findings?.length ?? 0;
  const found = `${plural(n, "secret")}${n ? ` (${kindsOf(r, summarised)})` : ""}`;
  const images = r.imagesDropped ? `, ${plural(r.imagesDropped, "image")} dropped` : "";
  const unread = (r.unread ?? []).filter((u) => u.what !== "joined" && u.what !== "fused").length;
  const dropped = unread ? `; ${plural(unread, "unreadable part")} of lines dropped (said above)` : "";
  switch (r.status) {
    case "redacted":
      return `replaced ${found}${images} on ${plural(r.changedLines ?? 0, "line")}${dropped}; ${r.out ? `written to ${outName(r.out)}` : "replaced in place, no copy of the original kept"}`;
    case "clean":
      return `no secrets found${dropped}; ${r.out ? `copied to ${outName(r.out)}` : "left untouched"}`;
    case "needs-redact":
      return `holds ${found}; run \`pi-session redact ${shellQuote(r.file)} -o COPY\``;
    default:
      return `${STATUS[r.status].text}: ${r.reason ?? ""}`;
  }
}

/** `--check`: each secret a line, `file:line: kind (rule; entry, field)`, as `check` names what it finds. */
function findingLines(r: RedactFileResult): string {
  return (r.findings ?? []).map((f) => sanitize(`${r.file}:${f.line}: ${f.kind} (${f.rule}; entry ${f.entry ?? "-"}, ${f.field || "the line"})`) + "\n").join("");
}

/**
 * `--check` on a terminal: what was found by rule (its kind, how many findings, in how many
 * sessions), then each file's lines holding a secret on one line that fits the width, the rest
 * counted (`… 80 more`). A store's check finds thousands (a user name in every path), which a line
 * each buried; piped, every finding is a line still (`findingLines`).
 */
function checkSummary(result: RedactReport, style: Style, width: number): string {
  const byRule = new Map<string, { rule: string; kind: string; findings: number; files: Set<string> }>();
  for (const r of result.files) {
    for (const f of r.findings ?? []) {
      const key = `${f.rule}\0${f.kind}`;
      let row = byRule.get(key);
      if (!row) byRule.set(key, (row = { rule: f.rule, kind: f.kind, findings: 0, files: new Set() }));
      row.findings++;
      row.files.add(r.file);
    }
  }
  if (byRule.size === 0) return "";
  const rows = [...byRule.values()].sort((a, b) => b.findings - a.findings || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
  const columns: Column[] = [
    // (a rule's name gives way before its kind: `secretlint-…connection-string`)
    { head: "rule", priority: 1, flex: true, shrink: 9, min: 16, keep: "middle" },
    { head: "kind", priority: 2, flex: true, min: 10 },
    { head: "findings", priority: 1, align: "right" },
    { head: "sessions", priority: 3, align: "right" },
  ];
  const table = renderTable(columns, rows.map((r) => [sanitize(r.rule), r.kind, String(r.findings), String(r.files.size)]), style);
  const files = result.files.filter((r) => (r.findings?.length ?? 0) > 0).map((r) => `${linesOf(r, width)}\n`);
  return `${table}\n${files.join("")}\n`;
}

/** `FILE:3, 7, 12 … 80 more`: a file's lines that hold a secret, as many as fit `width`. */
function linesOf(r: RedactFileResult, width: number): string {
  const numbers = [...new Set((r.findings ?? []).map((f) => f.line))].sort((a, b) => a - b).map(String);
  let file = sanitize(r.file);
  // (the path gives way first, keeping its name, so that a line or two stand beside it)
  const listRoom = Math.min(24, displayWidth(numbers.join(", ")) + (numbers.length > 1 ? displayWidth(` … ${numbers.length} more`) : 0));
  if (displayWidth(file) + 1 + listRoom > width) file = cutToWidth(file, Math.max(16, width - 1 - listRoom), "file");
  let shown = numbers.length;
  const line = (k: number) => `${file}:${numbers.slice(0, k).join(", ")}${k < numbers.length ? ` … ${numbers.length - k} more` : ""}`;
  while (shown > 1 && displayWidth(line(shown)) > width) shown--;
  return line(shown);
}

export function renderRedact(result: RedactReport, style: Style, check: boolean): string {
  const width = layoutWidth(style);
  const summarised = check && width !== undefined;
  const lines = !check ? "" : width === undefined ? result.files.map(findingLines).join("") : checkSummary(result, style, width);
  return (
    lines +
    renderWriterReport(result, style, STATUS, (r) => describe(r, summarised), {
      extra: [{ head: "secrets", align: "right" }],
      cells: (r) => [r.findings === undefined ? "-" : String(r.findings.length)],
      note: (r) => (r.status === "redacted" ? `${byKind(r.counts)}; ${placeNote(r) || "in place"}` : r.status === "needs-redact" ? kindsOf(r, summarised) : r.out ? `copied ${placeNote(r)}` : (r.reason ?? "")),
    })
  );
}

export async function run(options: RedactOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await redact(options, ctx);
  const exitCode = writerExitCode(result.files, STATUS, options.check && result.empty.length > 0);
  const reportTo = result.reportTo ? { reportTo: result.reportTo } : {};
  // (the report first, then what is to be done about it)
  const after = afterward(result, options);
  const human = ctx.json
    ? ""
    : options.format === "github"
      ? renderWriterGithub(result, STATUS, (r) => (r.findings ?? []).map((f) => annotation("error", { file: r.file, line: f.line, title: f.kind }, `a secret (${f.kind}, found by ${f.rule}) in entry ${f.entry ?? "-"}, ${f.field || "the line"}; run pi-session redact to share a copy without it`)).join(""))
      : renderRedact(result, ctx.style, options.check);
  return { json: writerJson(result), human, jsonl: () => result.files.flatMap((r) => (r.findings ?? []).map((f) => ({ file: r.file, ...f }))), ...reportTo, ...(after.length > 0 ? { after } : {}), exitCode };
}
