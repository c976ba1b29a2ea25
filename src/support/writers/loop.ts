import { existsSync, statSync } from "node:fs";
import { isStdout, outName } from "./output.js";
import { basename, dirname, join } from "node:path";
import type { CommandContext } from "../../command.js";
import { CliError, describeFsError, ExitCode, shellQuote } from "../../errors.js";
import { emptyDirectoryNote, expandInputs, lockOf, writeRefusal } from "../../stores/index.js";
import { renderTable, type Column } from "../../render/table.js";
import { annotation } from "../../render/github.js";
import { layoutWidth, type Style } from "../../render/style.js";
import { preview, wrapSegments, type Segment } from "../../render/width.js";
import { sanitize } from "../../render/safe.js";
import type { Args } from "../../args.js";
import type { FileStamp, Producer } from "../../format/write/atomic.js";
import { outTargets, writeBack, type WriteOptions, type WriteOutcome } from "./write-back.js";

/**
 * What the writing commands (`migrate`, `repair`, `slim`) share: the loop over files, the
 * options, the exit code, and the report (a line a file, or a table for several).
 */

/**
 * Why a file was not written, as data (the exit code is decided from it, never from the words):
 * "content": the file itself is refused (corrupted, too new, not a session): work left, exit 1;
 * "output-exists": `--out` names a file that exists and `--force` was not given: exit 2;
 * "locked": an OpenClaw gateway is writing the file (its `.lock` names a live process): exit 2.
 */
type Refusal = "content" | "output-exists" | "locked";

/** A file result the shared parts read. */
export interface WriterFileResult<S extends string> {
  file: string;
  status: S;
  refusal?: Refusal;
  reason?: string;
  backup?: string;
  out?: string;
}

/** How a writer's statuses count (exit codes as README says), checked by `satisfies` so no status is left out. */
/** A writer's statuses: how a file's is said (`many`: how the count says it where it is not one, "2 need repair"), its exit code, its colour. */
export type StatusTable<S extends string> = Record<S, { text: string; many?: string; exit: ExitCode; paint: "green" | "yellow" | "red" }>;

/** A writer's result: a report a file, and how many files ended in each status. */
export interface WriterReport<S extends string, R extends WriterFileResult<S>> {
  files: R[];
  summary: Record<S, number>;
}

/** A writer's run: its report, and whether it was over several files (`writeEach`: then a table). */
export interface WriterRun<S extends string, R extends WriterFileResult<S>> extends WriterReport<S, R> {
  many: boolean;
  /** Directories given that hold no session file (said on stderr; with --check, exit 2). */
  empty: string[];
  /** "stderr": the session went to stdout (`--out -`), so the report goes to stderr. */
  reportTo?: "stderr";
}

/** What `--json` prints of a run: the report. */
export function writerJson<S extends string, R extends WriterFileResult<S>>({ files, summary }: WriterRun<S, R>): WriterReport<S, R> {
  return { files, summary };
}

/** The statuses every writer has: the file refused (work left), the write abandoned, the file unreadable. */
export const REFUSED_ABORTED_UNREADABLE = {
  refused: { text: "refused", exit: ExitCode.Findings, paint: "red" },
  aborted: { text: "aborted", exit: ExitCode.Usage, paint: "red" },
  unreadable: { text: "unreadable", exit: ExitCode.Usage, paint: "red" },
} as const satisfies StatusTable<"refused" | "aborted" | "unreadable">;

/** The statuses of a file nothing was done to for a reason the run must say: refused, or its write abandoned. */
const FAILED: ReadonlySet<string> = new Set(["refused", "aborted"]);

/**
 * A file a writer could not open, as its result: the reason as the read-only commands give it
 * (`describeFsError`: the file, the cause, what to do), said on stderr by `writeEach`. An error
 * that is not the file system's is a bug, and is thrown on.
 */
export function unreadable(path: string, error: unknown): { file: string; status: "unreadable"; reason: string } {
  if (!(error as NodeJS.ErrnoException).code) throw error;
  return { file: path, status: "unreadable", reason: describeFsError(path, error).message };
}

/** The worst exit code over the files: 2 for unreadable, aborted or refused output; 1 for work left; else 0. */
/** The exit code of a writer's run; `emptyGate`: a `--check` given a directory with no session file (a gate that checked nothing: exit 2). */
export function writerExitCode<S extends string>(files: ReadonlyArray<WriterFileResult<S>>, table: StatusTable<S>, emptyGate = false): ExitCode {
  let code: ExitCode = emptyGate ? ExitCode.Usage : ExitCode.Ok;
  for (const f of files) {
    const exit = f.refusal === "output-exists" || f.refusal === "locked" ? ExitCode.Usage : table[f.status].exit;
    if (exit > code) code = exit;
  }
  return code;
}

/**
 * The per-file loop of a writing command: inputs expanded (directories searched), stdin refused,
 * progress shown, and a count by status. `many`, decided here once: several files, or a directory
 * given (however many files it holds), so `--out` is a directory and the report a table.
 * `reading.stored`: the command reads sessions its store keeps for another program, or compressed
 * (a database transcript, agent-core's format 4, a `.zst` archive) to write them elsewhere, and
 * refuses to write them in place itself (`redact`); every other writer refuses them here.
 * `reading.archives`: a directory's archives are read too; `reading.stdin`: `-` is read, to `--out`
 * or with `--check` (`redact`; `repair` to `--out` as ever). `inputs`: the files, where the command
 * expanded them first (`writerInputs`: `redact --check` reads them on worker threads before).
 */
export function writeEach<S extends string, R extends WriterFileResult<S>>(
  command: string,
  options: WriterOptions,
  ctx: CommandContext,
  statuses: readonly S[],
  one: (file: string, put: Put, dirOf: (path: string) => string, besideOf: (path: string, beside: string) => string) => R,
  reading: WriterReading = { stored: false },
  { files, empty, origins, many }: WriterInputs = writerInputs(command, options, ctx, reading),
): WriterRun<S, R> {
  const inputs = options.files;
  const results: R[] = [];
  const pause = Number(ctx.env.PI_SESSION_TEST_PAUSE_MS);
  const write: WriteOptions = { backupDir: options.backupDir, force: options.force, stdout: ctx.stdoutSync, ...(pause ? { beforeCommit: () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause) } : {}) };
  const targetOf = options.out !== undefined ? outTargets(options.out, inputs, files, origins, many) : undefined;
  const put: Put = (path, stamp, produce, beside, how) => {
    // (a transcript an OpenClaw gateway is writing is left alone; a lock its writer left behind is said and passed over)
    const lock = path === "-" || options.out !== undefined ? undefined : lockOf(path);
    if (lock?.live) return { failed: { status: "refused", refusal: "locked", reason: `${path} is being written: its lock ${lock.lock} names process ${lock.pid}, which is running; nothing was written (stop the OpenClaw gateway, or wait, and run again)` } };
    if (lock) ctx.warn(sanitize(`${lock.lock} names process ${lock.pid}, which is not running here: a stale lock, passed over`));
    return settle(writeBack(path, stamp, { ...write, ...how }, produce, targetBeside(path, beside)), ctx.warn);
  };
  // (a new file beside the original, the original left as it is: in --out's folder where one is given)
  const targetBeside = (path: string, beside: string | undefined) => {
    const out = targetOf?.(path);
    return beside === undefined ? out : out ? (out.inDir ? { file: join(dirname(out.file), beside), inDir: true } : out) : { file: join(dirname(path), beside), inDir: false };
  };
  for (const [i, file] of files.entries()) {
    ctx.progress(i, files.length, basename(file));
    const r = one(file, put, (path) => dirname(targetOf?.(path).file ?? path), (path, beside) => targetBeside(path, beside)!.file);
    // (on stderr, as the read-only commands say it: the report on stdout is for what was done)
    if (r.status === "unreadable" && r.reason) ctx.warn(sanitize(r.reason));
    // (one file refused or abandoned is an error, said there as every error is, stdout left empty;
    // a run over several reports each in its table, the exit code saying it)
    else if (!many && FAILED.has(r.status) && r.reason) ctx.warn(sanitize(`${r.file}: ${r.reason.startsWith(r.status) ? "" : `${r.status}: `}${r.reason}`));
    results.push(r);
  }
  ctx.progress(files.length, files.length);
  const summary = Object.fromEntries(statuses.map((s) => [s, 0])) as Record<S, number>;
  for (const r of results) summary[r.status]++;
  return { files: results, summary, many, empty, ...(isStdout(options.out) ? { reportTo: "stderr" as const } : {}) };
}

/** What a writer reads: stored sessions (a database's, agent-core's), archives named, standard input. */
interface WriterReading {
  stored: boolean;
  archives?: boolean;
  stdin?: boolean;
}

/** A writer's files, its inputs expanded: directories given that held none (`empty`), where each came from, whether there are several. */
export interface WriterInputs {
  files: string[];
  empty: string[];
  origins: Map<string, string>;
  many: boolean;
}

/**
 * The files a writer's inputs name (`writeEach` takes them, or expands them itself): standard
 * input refused where the writer does not read it, each directory given that holds no session said.
 */
export function writerInputs(command: string, options: Pick<WriterOptions, "files" | "out" | "check">, ctx: CommandContext, reading: WriterReading): WriterInputs {
  const inputs = options.files;
  // (standard input can be repaired, or redacted, to --out: nothing to replace; or looked at, with redact --check)
  const stdinRead = inputs.length === 1 && (options.out !== undefined || (reading.stdin === true && options.check));
  if (inputs.includes("-") && !((command === "repair" || reading.stdin === true) && stdinRead)) {
    if (command === "repair") throw new CliError("repair reads standard input only with --out FILE (where the repaired session goes): pi-session repair - --out FIXED.jsonl");
    if (reading.stdin) throw new CliError(`${command} reads standard input alone, and only with -o OUT (where the copy goes) or --check: pi-session ${command} - -o - < session.jsonl > copy.jsonl`);
    throw new CliError(`${command} writes files: give paths, not - (stdin)`);
  }
  const empty: string[] = [];
  const origins = new Map<string, string>();
  // (archives and copies in a directory are left alone: a writer touches them only when named)
  const files = expandInputs(inputs, ctx.sessionDir, { empty, origins, archives: reading.archives === true, env: ctx.env });
  for (const dir of empty) ctx.warn(sanitize(emptyDirectoryNote(dir)));
  if (!reading.stored) for (const file of files) refuseStored(command, file);
  const many = files.length > 1 || inputs.some((f) => existsSync(f) && statSync(f).isDirectory());
  return { files, empty, origins, many };
}

/** The options every writer takes, from the parsed arguments. */
export interface WriterOptions {
  files: string[];
  dryRun: boolean;
  check: boolean;
  /** A file (one input) or a directory (several) to write to instead of in place. */
  out?: string;
  /** Where backups go (default: beside the file). */
  backupDir?: string;
  /** Replace an existing --out file. */
  force: boolean;
  format: "text" | "github";
  /** `--full`: a dry run's diff whole on a terminal too. */
  full: boolean;
}

/**
 * Writes a file's new content (`produce`) in its place, keeping a backup, or to `--out`, and says
 * how that went (`Settled`). `beside`: a new file of that name beside the original (in `--out`'s
 * folder where one is given), the original left as it is (`migrate` of agent-core's format 4). `PI_SESSION_TEST_PAUSE_MS`, a test hook, waits that long between
 * writing the new content and committing it, so that a test can change the file meanwhile.
 */
export type Put = (path: string, stamp: FileStamp, produce: Producer, beside?: string, how?: Pick<WriteOptions, "check" | "backup" | "keepReplaced">) => Settled;

export function writerOptions(args: Args): WriterOptions {
  return {
    files: args.strings("files"),
    dryRun: args.flag("dryRun"),
    check: args.flag("check"),
    out: args.optionalString("out"),
    backupDir: args.optionalString("backupDir"),
    force: args.flag("force"),
    format: args.choice("format", ["text", "github"] as const, "text"),
    full: args.flag("full"),
  };
}

/**
 * `--check --format github`: GitHub Actions annotations, from `lines` for a file with work left
 * (its own findings), an error on the file for one that is refused, unreadable or aborted, then
 * the counts.
 */
export function renderWriterGithub<S extends string, R extends WriterFileResult<S>>(
  result: { files: R[]; summary: Record<S, number> },
  table: StatusTable<S>,
  lines: (r: R) => string,
): string {
  let out = "";
  for (const r of result.files) {
    // (a refusal on the line its reason names, else on the file's first: a line for GitHub to show it at)
    if (table[r.status].exit === ExitCode.Usage || r.refusal) out += annotation("error", { file: r.file, line: Number(/\bline (\d+)/.exec(r.reason ?? "")?.[1] ?? 1), title: r.status }, r.reason ?? table[r.status].text);
    else out += lines(r);
  }
  return out + summaryLine(result.summary, table);
}

/** What a file's result says of `writeBack`: why it was not written, or where it went (`written`: the bytes, where they went to stdout). */
export type Settled =
  | { failed: { status: "aborted" | "refused"; refusal?: Refusal; reason: string }; place?: undefined; written?: undefined }
  | { failed?: undefined; place: { backup?: string; out?: string }; written?: Buffer };

/**
 * `writeBack`'s outcome as a file's result takes it, the same for every writer: the leftovers of
 * an interrupted run it removed are said on stderr; then either why nothing was written, or the
 * backup kept or the --out file.
 */
function settle(written: WriteOutcome, warn: (message: string) => void): Settled {
  for (const leftover of written.cleaned) warn(`removed ${leftover}, left by an interrupted run`);
  if (written.error === "aborted") return { failed: { status: "aborted", reason: written.reason! } };
  if (written.error === "exists") return { failed: { status: "refused", refusal: "output-exists", reason: written.reason! } };
  if (written.error === "rejected") return { failed: { status: "aborted", reason: written.reason! } };
  return { place: { ...(written.backup ? { backup: written.backup } : {}), ...(written.out ? { out: written.out } : {}) }, ...(written.written ? { written: written.written } : {}) };
}

/** Where the result went: the backup kept, or the --out file. */
export function placeNote(r: WriterFileResult<string>): string {
  return r.backup ? `backup ${basename(r.backup)}` : r.out ? `-> ${outName(r.out)}` : "";
}

/**
 * The report: for one file, a line saying what happened (`describe`); for a directory run, a
 * table (file, the command's own columns, result, note) and the counts under it.
 */
export function renderWriterReport<S extends string, R extends WriterFileResult<S>>(
  result: WriterRun<S, R>,
  style: Style,
  table: StatusTable<S>,
  describe: (r: R) => string,
  columns: { extra: Array<Pick<Column, "head" | "align">>; cells: (r: R) => string[]; note: (r: R) => string },
): string {
  const { c } = style;
  // (no file at all, a folder without sessions: stderr has said so, and there is nothing to report)
  if (result.files.length === 0) return "";
  // (one file that could not be read, or was refused or abandoned: stderr has said so, stdout stays empty)
  if (!result.many) return result.files.filter((r) => r.status !== "unreadable" && !FAILED.has(r.status)).flatMap((r) => wrapSegments([[`${sanitize(r.file)}:`, undefined, "unbroken"], [" "], [sanitize(describe(r)), c[table[r.status].paint]]], layoutWidth(style))).map((l) => `${l}\n`).join("");
  // The file, its result and the note matter most on a narrow terminal; the command's own counts go first.
  const statusOf = result.files.map((r) => r.status);
  const layout: Column[] = [
    { head: "file", priority: 1, flex: true, min: 16, max: 60, keep: "file" },
    ...columns.extra.map((col, k): Column => ({ ...col, priority: 4 + k })),
    { head: "result", priority: 2, paint: (text, row) => c[table[statusOf[row]!].paint](text) },
    // (a note says why a file was refused and what to run: it wraps, never cut)
    { head: "note", priority: 3, flex: true, min: 20, max: 70, wrap: true },
  ];
  const rows = result.files.map((r) => [preview(r.file, 300), ...columns.cells(r), table[r.status].text, preview(columns.note(r), 2000)]);
  // (the counts fit the width too, a count never split from what it counts)
  const counts = summaryLine(result.summary, table).trimEnd().split(", ");
  const segments: Segment[] = counts.flatMap((part, i): Segment[] => [...(i > 0 ? [[", "] as Segment] : []), [part, undefined, "unbroken"]]);
  return renderTable(layout, rows, style) + wrapSegments(segments, layoutWidth(style), "").map((l) => `${l}\n`).join("");
}

/** "3 migrated, 1 refused": the non-zero counts of a summary, in words. */
function summaryLine<S extends string>(summary: Record<S, number>, table: StatusTable<S>): string {
  const parts = (Object.entries(summary) as Array<[S, number]>).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${n === 1 ? table[k].text : (table[k].many ?? table[k].text)}`);
  return `${parts.join(", ") || "no files"}\n`;
}

/**
 * A session its store keeps for another program to write (a transcript in OpenClaw's database), or
 * in a form pi cannot open (agent-core's format 4, which `migrate` alone reads to write a copy),
 * or a `.zst` archive (compressed): a writer refuses it before anything is written, saying how to
 * get a file it can work on (the store's words: `writeRefusal`).
 */
function refuseStored(command: string, file: string): void {
  const why = writeRefusal(file, command);
  if (why !== undefined) throw new CliError(why);
  if (file.endsWith(".zst")) throw new CliError(`${file}: a zstd-compressed archive; nothing was written. For a file of it: \`pi-session cat ${shellQuote(file)} > ${shellQuote(basename(file).replace(/\.zst$/, ""))}\`, then \`pi-session ${command}\` that file`);
}
