import { BlockReads, PREVIEW_CAP } from "../read/pass-two.js";
import type { Session } from "./session.js";
import type { PreviewLine } from "./options.js";
import { messageText, type AgentMessage, type AnyEntry } from "../schema/types.js";
import { plural } from "../common/units.js";
import { messageGist } from "./labels.js";
import { partialEntry, summaryWindow } from "./line-summary.js";
import type { ScanFields } from "../read/scanner.js";

/**
 * What an entry says in one line (`entrySummary`), and the same read from a line's bytes without
 * parsing the entry (`summaryFromBytes`; how, in line-summary.ts). `show` reads the lines it shows
 * in a second pass, a window of nodes at a time (`SummaryReader`); `tree`, which shows every entry,
 * makes them in pass one as it reads each line (`KeptSummaries`), and `path` too while the session
 * reads as mostly one chain. The text is made safe and cut to the terminal by the caller (`finish`).
 */

/**
 * `entrySummary` of the entry a line holds, read from the line's bytes (a window of each string:
 * see `partialEntry`); `truncated` and `fields` as `partialEntry` takes them.
 */
export function summaryFromBytes(bytes: Buffer, type: string | undefined, role: string | undefined, window: number, truncated = false, fields?: ScanFields): string {
  return entrySummary(partialEntry(bytes, type, role, window, truncated, fields));
}

/** A node's summary read from the file (pass two), for the few nodes a command shows. */
export function nodeSummary(session: Session, node: number, window: number): string {
  const { type, role } = session.nodeKind(node);
  return summaryFromBytes(session.previewBytes(node), type, role, window, session.previewIsTruncated(node));
}

/** How many nodes a window of summaries holds, and the most bytes it reads at once. */
export const SUMMARY_WINDOW = 4096;
const BLOCK = 4 * 1024 * 1024;

/**
 * The memory the summaries made in pass one may take (`KeptSummaries`): enough for every entry of
 * a 200 MB session of the corpus's shape (11 MiB) or of OpenClaw's heartbeats (26 MiB for 457,000
 * entries); past it, the rest are read again as before.
 */
const KEPT_SUMMARIES_BUDGET = 32 * 1024 * 1024;
/**
 * The size from which a session keeps no summaries from pass one: its index leaves them no room
 * under the memory bound, and a second read costs it little beside the first (BENCHMARKS.md,
 * "previews in pass one").
 */
const KEPT_SUMMARIES_UP_TO = 256 * 1024 * 1024;

/**
 * How many entries that do not follow the one before them (a fork, a new root, a link ahead) a
 * session may have and still read as mostly one chain (`KeptSummaries`' `chain`): 16, and one in
 * each 1,024 entries. The benchmark's linear sessions, their damage and all, have 5 (two thirds of
 * their entries on the branch shown); its branched ones, one every 80 to 200 entries (a few hundred
 * on the branch shown), and stop keeping within their first 1-4 % of entries (BENCHMARKS.md,
 * "previews in pass one").
 */
const CHAIN_FORKS = 16;
const CHAIN_ENTRIES_A_FORK = 1024;

/**
 * Finished summaries made in pass one (`OpenOptions.previewLines`), so that the nodes a command
 * shows need not be read again (`SummaryReader`), for the first nodes of the file as long as they
 * fit the budget. A window of nodes' summaries is kept as one buffer of UTF-8, with where each
 * ends: kept as strings they held what they were cut from, and a window's strings joined took
 * two bytes a character where one had an ellipsis, and long to join (BENCHMARKS.md, "previews in
 * pass one").
 */
export class KeptSummaries {
  private readonly texts: Buffer[] = [];
  private readonly ends: Int32Array[] = [];
  /** The window being filled: its text so far, and where each of its `pending` summaries ends. */
  private text = Buffer.allocUnsafe(64 * 1024);
  private at = 0;
  private readonly pendingEnds = new Int32Array(SUMMARY_WINDOW);
  private pending = 0;
  private used = 0;
  /** Nodes `0..kept` have their summaries sealed; the `pending` after them, made. */
  private kept = 0;
  private full = false;
  private readonly window: number;

  private readonly budget: number;
  private readonly upTo: number;
  /** Entries so far that do not follow the one before them. */
  private forks = 0;

  /**
   * For a `SummaryReader` of `max` and `finish`. `budget` and `upTo` (bytes) default to
   * `KEPT_SUMMARIES_BUDGET` and `KEPT_SUMMARIES_UP_TO`. `chain`: kept only while the entries read
   * as mostly one chain (`CHAIN_FORKS`), where most of them are on the branch `path` shows; a
   * session branched all through shows few of its entries on one branch, which are read again.
   */
  constructor(
    readonly max: number,
    private readonly finish: (summary: string) => string,
    { budget = KEPT_SUMMARIES_BUDGET, upTo = KEPT_SUMMARIES_UP_TO, chain = false }: { budget?: number; upTo?: number; chain?: boolean } = {},
  ) {
    this.budget = budget;
    this.upTo = upTo;
    this.window = summaryWindow(max);
    this.onPreviewLine = (node, line, type, role, truncated, fields, follows) => {
      // (nodes come in order; one out of it, a fork where only a chain is kept, or the budget spent, ends the keeping)
      if (this.full) return false;
      if (chain && !follows) this.forks++;
      if (node !== this.kept + this.pending || this.forks > CHAIN_FORKS + node / CHAIN_ENTRIES_A_FORK || this.used + this.at >= this.budget) {
        this.done();
        return false;
      }
      const summary = this.finish(summaryFromBytes(line, type, role, this.window, truncated, fields));
      // (a UTF-16 unit is at most three bytes of UTF-8)
      if (this.at + 3 * summary.length > this.text.length) {
        const grown = Buffer.allocUnsafe(Math.max(2 * this.text.length, this.at + 3 * summary.length));
        this.text.copy(grown, 0, 0, this.at);
        this.text = grown;
      }
      this.at += this.text.write(summary, this.at);
      this.pendingEnds[this.pending++] = this.at;
      if (this.pending === SUMMARY_WINDOW) this.seal();
      return true;
    };
  }

  private readonly onPreviewLine: PreviewLine;

  /** What pass one asks for (`OpenOptions.previewLines`): none past `upTo` bytes. */
  readonly previewLines = (size: number): PreviewLine | undefined => {
    if (size < this.upTo) return this.onPreviewLine;
    this.done();
    return undefined;
  };

  /** Ends the keeping (pass one is over, or the budget spent): what is pending is sealed. */
  done(): this {
    if (this.pending > 0) this.seal();
    this.full = true;
    this.text = Buffer.alloc(0);
    return this;
  }

  /** Whether `node`'s summary is kept. */
  has(node: number): boolean {
    return node >= 0 && node < this.kept;
  }

  /** The kept summary of `node`, or undefined. */
  get(node: number): string | undefined {
    if (!this.has(node)) return undefined;
    const w = Math.floor(node / SUMMARY_WINDOW);
    const k = node - w * SUMMARY_WINDOW;
    const ends = this.ends[w]!;
    return this.texts[w]!.toString("utf8", k === 0 ? 0 : ends[k - 1]!, ends[k]!);
  }

  private seal(): void {
    // (by `copy`: `Buffer.from` of a buffer took twice its time for 200 KB, 117 µs against 59)
    const sealed = Buffer.allocUnsafe(this.at);
    this.text.copy(sealed, 0, 0, this.at);
    this.texts.push(sealed);
    this.ends.push(this.pendingEnds.slice(0, this.pending));
    this.used += this.at + 4 * this.pending;
    this.kept += this.pending;
    this.at = 0;
    this.pending = 0;
  }
}

/**
 * Summaries of a tree's or a branch's nodes, a window at a time: a million entries are read with
 * one more pass over their lines and the memory of one window. A window's lines are read in file
 * order (nodes are numbered so), in large reads that take in the lines between unless they lie
 * far apart (`BlockReads`). Each summary is handed to `finish` (which makes it the text shown:
 * flattened, safe, cut to `max` columns) as it is read.
 */
export class SummaryReader {
  private order = new Int32Array(0);
  private readonly window: number;

  constructor(
    private readonly session: Session,
    max: number,
    private readonly finish: (summary: string) => string,
    /** Summaries made in pass one: their nodes are not read (kept for another `max`: none are used). */
    kept?: KeptSummaries,
  ) {
    this.window = summaryWindow(max);
    this.kept = kept?.max === max ? kept : undefined;
  }

  private readonly kept: KeptSummaries | undefined;

  /** The finished summaries of `nodes[0..count)` into `out[0..count)`, in the order given (-1: no node, ""). */
  read(nodes: Int32Array, count: number, out: string[]): void {
    const s = this.session;
    // Most windows come in file order (a branch, a linear run): no sort then.
    let ascending = true;
    for (let k = 1; k < count && ascending; k++) ascending = nodes[k]! >= nodes[k - 1]!;
    let order: Int32Array | undefined;
    if (!ascending) {
      if (this.order.length < count) this.order = new Int32Array(Math.max(count, SUMMARY_WINDOW));
      order = this.order.subarray(0, count);
      for (let k = 0; k < count; k++) order[k] = k;
      order.sort((a, b) => nodes[a]! - nodes[b]!);
    }
    const at = order ? (j: number) => order![j]! : (j: number) => j;
    const nodeAt = (j: number) => nodes[at(j)]!;
    const kept = this.kept;
    // a line with a long string (an image) is read in two pieces of its own (`previewBytes`); a
    // node whose summary was kept is not read
    const blocks = new BlockReads(s.source, { count, offset: (j) => (nodeAt(j) < 0 ? 0 : s.nodeOffset(nodeAt(j))), length: (j) => (nodeAt(j) < 0 ? 0 : Math.min(s.nodeLength(nodeAt(j)), PREVIEW_CAP)), omitted: (j) => nodeAt(j) < 0 || s.nodeHasLong(nodeAt(j)) || kept?.has(nodeAt(j)) === true }, BLOCK);
    for (let j = 0; j < count; j++) {
      const k = at(j);
      const node = nodes[k]!;
      if (node < 0) out[k] = "";
      else if (kept?.has(node)) out[k] = kept.get(node)!;
      else if (j > 0 && node === nodeAt(j - 1)) out[k] = out[at(j - 1)]!;
      else {
        const type = s.nodeType(node);
        const role = type === "message" ? s.nodeRole(node) : undefined;
        out[k] = this.finish(summaryFromBytes(s.nodeHasLong(node) ? s.previewBytes(node) : blocks.line(j), type, role, this.window, s.previewIsTruncated(node)));
      }
    }
  }
}

/**
 * `items` with each one's node summarised (through `reader`), in the order given, a window at a
 * time (see `SummaryReader`).
 */
export function* withSummaries<T>(reader: SummaryReader, items: Iterable<T>, nodeOf: (item: T) => number | undefined): Generator<[item: T, summary: string]> {
  const window: T[] = [];
  const nodes = new Int32Array(SUMMARY_WINDOW);
  const summaries: string[] = [];
  const flush = function* (): Generator<[T, string]> {
    reader.read(nodes, window.length, summaries);
    for (let k = 0; k < window.length; k++) yield [window[k]!, summaries[k]!];
    window.length = 0;
  };
  for (const item of items) {
    nodes[window.length] = nodeOf(item) ?? -1;
    window.push(item);
    if (window.length === SUMMARY_WINDOW) yield* flush();
  }
  yield* flush();
}


/**
 * A call in a preview: its name, and its command where its arguments start with one as a string
 * (the first key, as a line's bytes show it before anything else of the call is read).
 */
function callGist(call: { name?: unknown; arguments?: unknown }): string {
  const args = call.arguments;
  const command = args && typeof args === "object" && !Array.isArray(args) && Object.keys(args)[0] === "command" ? (args as { command?: unknown }).command : undefined;
  return typeof command === "string" && command.trim() !== "" ? `${String(call.name)} ${command}` : `${String(call.name)}(…)`;
}

/** The text that best says what an entry holds, in one line once flattened (unsafe to print as it is: callers make it safe). */
export function entrySummary(entry: AnyEntry): string {
  switch (entry.type) {
    case "message": {
      const m = entry.message as AgentMessage | undefined;
      if (!m || typeof m !== "object") return "";
      if (m.role === "bashExecution") return `$ ${String(m.command ?? "")}`;
      const text = messageText(m);
      // (a message that came in on an OpenClaw channel: what the person wrote, without its envelope)
      if (text) return m.role === "user" ? messageGist(text) : text;
      if (Array.isArray(m.content)) {
        // (a call by its command where it has one, as export and context show it: `→ exec git status`)
        const calls = m.content.filter((b) => b?.type === "toolCall").map((b) => callGist(b as { name?: unknown; arguments?: unknown }));
        if (calls.length > 0) return `→ ${calls.join(", ")}`;
        const thinking = m.content.find((b) => b?.type === "thinking") as { thinking?: unknown } | undefined;
        if (thinking) return `(thinking) ${typeof thinking.thinking === "string" ? thinking.thinking : ""}`.trimEnd();
        if (m.content.some((b) => b?.type === "image")) return "(image)";
      }
      if (m.role === "assistant" && m.stopReason === "error") return `(error: ${String(m.errorMessage ?? "")})`;
      return "";
    }
    case "model_change":
      return `${String(entry.provider)}/${String(entry.modelId)}`;
    case "thinking_level_change":
      return String(entry.thinkingLevel);
    case "compaction":
      return `${typeof entry.tokensBefore === "number" ? `${plural(entry.tokensBefore, "token")} → ` : ""}${String(entry.summary ?? "")}`;
    case "branch_summary":
      return String(entry.summary ?? "");
    case "custom_message":
      return typeof entry.content === "string" ? entry.content : messageText({ role: "custom", content: entry.content as AgentMessage["content"] });
    case "custom":
      return String(entry.customType ?? "");
    case "label":
      return entry.label ? `${String(entry.label)} → ${String(entry.targetId)}` : `(cleared) → ${String(entry.targetId)}`;
    case "session_info":
      return String(entry.name ?? "");
    case "context_edit":
      return entry.replacement === null ? `drop ${String(entry.targetId)}` : `edit ${String(entry.targetId)}`;
    case "usage":
      return `${String(entry.kind)} ${String(entry.provider)}/${String(entry.model)}`;
    case "active_tools_change":
      return Array.isArray(entry.activeToolNames) ? entry.activeToolNames.join(", ") : "";
    default:
      return "";
  }
}

/** `message/user`, `compaction`, … of a node, from the line table alone. */
export function kindName(session: Session, node: number): string {
  const type = session.nodeType(node);
  if (type === "message") return `message/${session.nodeRole(node) ?? "?"}`;
  return type ?? "(no type)";
}
