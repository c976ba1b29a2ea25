import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { formatBytes } from "../format/common/units.js";
import { Session } from "../format/session/session.js";
import { stampOf } from "../format/write/atomic.js";
import { DEFAULT_MIN_SIZE, planSlim, SLIM_KINDS, writeSlim, type SlimKind, type SlimResult } from "../format/write/slim.js";
import { openSource } from "../support/inputs/input.js";
import { annotation } from "../render/github.js";
import { type Style } from "../render/style.js";
import { plural } from "../render/units.js";
import { unreadable, writeEach, REFUSED_ABORTED_UNREADABLE, placeNote, renderWriterGithub, renderWriterReport, writerExitCode, writerJson, writerOptions, type Put, type Settled, type StatusTable, type WriterFileResult, type WriterOptions, type WriterRun } from "../support/writers/loop.js";
import { outName } from "../support/writers/output.js";

export interface SlimOptions extends WriterOptions {
  /** The least size of a payload slimmed (`--min-size`). */
  minSize: number;
}

export function options(args: Args): SlimOptions {
  return { ...writerOptions(args), minSize: args.bytes("minSize", "min-size") ?? DEFAULT_MIN_SIZE };
}

export type SlimStatus = "slimmed" | "clean" | "would-slim" | "needs-slim" | "refused" | "aborted" | "unreadable";

export interface SlimFileResult extends WriterFileResult<SlimStatus> {
  /** The least size of a payload slimmed (`--min-size`). */
  minSize: number;
  bytesBefore?: number;
  bytesAfter?: number;
  saved?: Record<SlimKind, number>;
  entriesSlimmed?: number;
  liveEntries?: number;
}

export type SlimReport = WriterRun<SlimStatus, SlimFileResult>;

const STATUS = {
  slimmed: { text: "slimmed", exit: ExitCode.Ok, paint: "green" },
  clean: { text: "nothing to slim", exit: ExitCode.Ok, paint: "green" },
  "would-slim": { text: "would slim", exit: ExitCode.Findings, paint: "yellow" },
  "needs-slim": { text: "could be slimmed", exit: ExitCode.Findings, paint: "yellow" },
  ...REFUSED_ABORTED_UNREADABLE,
} as const satisfies StatusTable<SlimStatus>;

const KIND_NAMES: Record<SlimKind, string> = { toolOutput: "tool output", images: "images", thinking: "thinking", text: "text", summaries: "summaries", other: "other" };

function counts(r: SlimResult): Pick<SlimFileResult, "bytesBefore" | "bytesAfter" | "saved" | "entriesSlimmed" | "liveEntries"> {
  return { bytesBefore: r.bytesBefore, bytesAfter: r.bytesAfter, saved: r.saved, entriesSlimmed: r.entriesSlimmed, liveEntries: r.liveEntries };
}

function slimOne(path: string, options: SlimOptions, put: Put): SlimFileResult {
  return { minSize: options.minSize, ...slimFile(path, options, put) };
}

function slimFile(path: string, options: SlimOptions, put: Put): Omit<SlimFileResult, "minSize"> {
  let session: Session;
  let stamp;
  try {
    stamp = stampOf(path);
    session = Session.open(openSource(path));
  } catch (error) {
    return unreadable(path, error);
  }
  try {
    const plan = planSlim(session);
    if (plan.status === "refused") return { file: path, status: "refused", refusal: "content", reason: plan.reason };
    if (options.check || options.dryRun) {
      const dry = writeSlim(session, plan, options.minSize, undefined);
      if (dry.entriesSlimmed === 0) return { file: path, ...counts(dry), status: "clean" };
      return { file: path, ...counts(dry), status: options.check ? "needs-slim" : "would-slim" };
    }
    // Written in the same pass that finds what to slim (the file is read twice in all: the index,
    // then this); when nothing changed, the new file is thrown away and the original left as it is.
    let done: SlimResult | undefined;
    let settled: Settled;
    try {
      settled = put(path, stamp, (write) => {
        done = writeSlim(session, plan, options.minSize, write);
        // (to --out the file is written all the same: OUT holds every file)
        if (done.entriesSlimmed === 0 && options.out === undefined) throw new NothingToSlim();
      });
    } catch (error) {
      if (error instanceof NothingToSlim) return { file: path, ...counts(done!), status: "clean" };
      throw error;
    }
    const { failed, place } = settled;
    if (failed) return { file: path, ...(done ? counts(done) : {}), ...failed };
    return { file: path, ...counts(done!), status: done!.entriesSlimmed === 0 ? "clean" : "slimmed", ...place };
  } finally {
    session.close();
  }
}

/** Thrown from the writer when a file had nothing to slim: its new copy is dropped. */
class NothingToSlim extends Error {}

export async function slim(options: SlimOptions, ctx: CommandContext): Promise<SlimReport> {
  return writeEach<SlimStatus, SlimFileResult>("slim", options, ctx, Object.keys(STATUS) as SlimStatus[], (file, put) => slimOne(file, options, put));
}

/** `212 MB -> 18.1 MB (saved 194 MB: tool output 180 MB, images 10.1 MB, ...)` */
function sizes(r: SlimFileResult): string {
  const saved = (r.bytesBefore ?? 0) - (r.bytesAfter ?? 0);
  const kinds = SLIM_KINDS.filter((k) => (r.saved?.[k] ?? 0) > 0)
    .sort((a, b) => r.saved![b] - r.saved![a])
    .map((k) => `${KIND_NAMES[k]} ${formatBytes(r.saved![k])}`);
  return `${formatBytes(r.bytesBefore ?? 0)} -> ${formatBytes(r.bytesAfter ?? 0)} (saved ${formatBytes(saved)}${kinds.length ? `: ${kinds.join(", ")}` : ""})`;
}

function entries(r: SlimFileResult): string {
  return `${plural(r.entriesSlimmed ?? 0, "entry", "entries")} slimmed, ${plural(r.liveEntries ?? 0, "live entry", "live entries")} kept whole`;
}

function describe(r: SlimFileResult): string {
  switch (r.status) {
    case "slimmed":
      return `slimmed ${sizes(r)}; ${entries(r)}; ${r.backup ? `the original is kept as ${r.backup}` : `written to ${outName(r.out)}`}`;
    case "would-slim":
      return `would slim ${sizes(r)}; ${entries(r)}; nothing written`;
    case "needs-slim":
      return `could be slimmed ${sizes(r)}; run \`pi-session slim ${r.file}\``;
    case "clean":
      return `nothing to slim (${plural(r.liveEntries ?? 0, "live entry", "live entries")}; nothing behind them holds ${formatBytes(r.minSize)} or more, or an image); ${r.out ? `copied to ${outName(r.out)}` : "left untouched"}`;
    default:
      return `${STATUS[r.status].text}: ${r.reason ?? ""}`;
  }
}

export function renderSlim(result: SlimReport, style: Style): string {
  const sized = (r: SlimFileResult, n: number | undefined) => (r.bytesBefore === undefined || n === undefined ? "-" : formatBytes(n));
  return renderWriterReport(result, style, STATUS, describe, {
    extra: [
      { head: "before", align: "right" },
      { head: "after", align: "right" },
    ],
    cells: (r) => [sized(r, r.bytesBefore), r.status === "slimmed" || r.status === "would-slim" || r.status === "needs-slim" ? sized(r, r.bytesAfter) : sized(r, r.bytesBefore)],
    note: (r) => (r.status === "slimmed" ? `${plural(r.entriesSlimmed ?? 0, "entry", "entries")}; ${placeNote(r)}` : r.out ? `copied ${placeNote(r)}` : r.reason ?? (r.entriesSlimmed ? plural(r.entriesSlimmed, "entry", "entries") : "")),
  });
}

/** `--min-size`: a whole number of bytes, at least 1 (`1K`, `2M` read as KB and MB). */

export async function run(options: SlimOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await slim(options, ctx);
  const human = ctx.json
    ? ""
    : options.format === "github"
      ? renderWriterGithub(result, STATUS, (r) => (r.status === "needs-slim" ? annotation("warning", { file: r.file, line: 1, title: "needs-slim" }, describe(r)) : ""))
      : renderSlim(result, ctx.style);
  return { json: writerJson(result), human, ...(result.reportTo ? { reportTo: result.reportTo } : {}), exitCode: writerExitCode(result.files, STATUS, options.check === true && result.empty.length > 0) };
}
