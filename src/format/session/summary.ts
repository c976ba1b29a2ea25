import { BlockReads, PREVIEW_CAP } from "../read/pass-two.js";
import type { Session } from "./session.js";
import type { PreviewLine } from "./options.js";
import { messageText, type AgentMessage, type AnyEntry } from "../schema/types.js";
import { plural } from "../common/units.js";
import { messageGist } from "./labels.js";

/**
 * What an entry says in one line (`entrySummary`), and the same read from a line's bytes without
 * parsing the entry (`summaryFromBytes`: a line can hold megabytes of base64 image): the header
 * fields come first in every entry pi writes, and the text worth showing is found with a native
 * byte search, only a window of it decoded. `path` and `show` read the lines they show in a
 * second pass, a window of nodes at a time (`SummaryReader`); `tree`, which shows every entry,
 * makes them in pass one as it reads each line (`KeptSummaries`). The text is made safe and cut
 * to the terminal by the caller (`finish`).
 */
/** How many bytes of an entry's start hold its header fields. */
const HEAD = 600;
/** The fewest bytes of a string decoded for a preview. */
const TEXT_MIN = 64;
/** How much of a user message in OpenClaw's envelope a preview reads: past the envelope (`messageGist`). */
const ENVELOPE_WINDOW = 16 * 1024;
const ENVELOPE_START = /^(?:System: \[|\[|[^\n]*\((?:untrusted|metadata)\b)/i;

const TEXT_KEY = Buffer.from('"text":"');
const CONTENT_KEY = Buffer.from('"content":');
const THINKING_KEY = Buffer.from('"thinking":"');
const CALL_KEY = Buffer.from('"type":"toolCall"');
const COMMAND_KEY = Buffer.from('"command":"');
const ARGUMENTS_KEY = Buffer.from('"arguments":');
const IMAGE_KEY = Buffer.from('"type":"image"');
const TOKENS_KEY = Buffer.from('"tokensBefore":');
const STOP_KEY = Buffer.from('"stopReason":"');
const ERROR_KEY = Buffer.from('"errorMessage":"');

/** `end`, moved back to the first byte of the UTF-8 character it falls in: a cut there decodes cleanly (no U+FFFD). */
function charBoundary(bytes: Buffer, end: number): number {
  if (end >= bytes.length) return bytes.length;
  let e = end;
  while (e > end - 3 && e > 0 && (bytes[e]! & 0xc0) === 0x80) e--;
  return e;
}

/** A line's bytes, and the body of its long plain string if any (no key lies in it: searches skip it). */
export interface Line {
  bytes: Buffer;
  skipStart: number;
  skipEnd: number;
}

/** Where `key` first is in the line from `from` on (outside its long string), or -1. */
function find({ bytes, skipStart, skipEnd }: Line, key: Buffer, from = 0): number {
  // (a key searched for where it was found already is not searched again: a native search costs
  // more to call than to run, for every line a tree draws)
  if (from > 0 && bytes[from] === key[0]) {
    let k = 1;
    while (k < key.length && bytes[from + k] === key[k]) k++;
    if (k === key.length) return from;
  }
  if (skipStart < 0 || from >= skipEnd) return bytes.indexOf(key, from);
  const at = bytes.subarray(0, skipStart).indexOf(key, from);
  return at >= 0 ? at : bytes.indexOf(key, skipEnd);
}

/** The bytes from `key` on, decoded, or "" when the key is not in the line. */
function around(line: Line, key: Buffer, size: number, from = 0): string {
  const at = find(line, key, from);
  return at < 0 ? "" : line.bytes.toString("utf8", at, charBoundary(line.bytes, at + key.length + size));
}

/** The JSON string that follows `key` (a key ending in `:"`, or `:` before a string) in the line, decoded (cut at the window), or undefined. */
function stringAfter(line: Line, key: Buffer, size: number, from = 0): string | undefined {
  const body = key[key.length - 1] === 0x22 ? key.length : key.length + 1;
  const at = find(line, key, from);
  if (at < 0) return undefined;
  // Most strings hold no escape in the window: their bytes are the string. One look at each byte
  // of the window finds the closing quote or the first escape (native searches cost a call each,
  // and the escape search ran to the line's end).
  const { bytes } = line;
  const start = at + body;
  if (bytes[start - 1] === 0x22) {
    const limit = Math.min(bytes.length, at + key.length + size + 1);
    let i = start;
    let shown = 0;
    for (; i < limit; i++) {
      const b = bytes[i]!;
      if (b === 0x22 || b === 0x5c) break;
      if (b > 0x20 && b < 0x7f) shown++;
      else if (b >= 0xc3 && b !== 0xe1 && b !== 0xe2 && b !== 0xef && !(b === 0xe3 && bytes[i + 1] === 0x80)) shown++;
    }
    if (i < limit && bytes[i] === 0x22) return bytes.toString("utf8", start, i);
    // The window holds no quote and no escape, and enough to show, as the loop below asks: counted
    // are characters that cannot be whitespace (a lead byte that may start one, as U+00A0,
    // U+2000-U+205F, U+3000 and U+FEFF do, is not counted: at worst the loop below decides).
    if (i === limit && limit < bytes.length && shown * 4 > size) return bytes.toString("utf8", start, charBoundary(bytes, limit));
  }
  for (let window = size; ; window *= 4) {
    const text = around(line, key, window + 1, at);
    const { value, closed } = stringBody(text, body);
    // A window of escaped whitespace (`\t\t\n…`) flattens to little: widen it until the string
    // shows more characters than the preview (a quarter of the window: then the preview knows it
    // was cut, and ends in an ellipsis), or ends, as `preview` does.
    if (closed || value.replace(/\s+/g, " ").trim().length * 4 > size || window >= line.bytes.length) return value;
  }
}

/**
 * How many bytes of a string a summary of `max` characters decodes: enough for `max` characters
 * of any script (UTF-8 takes up to 4 bytes a character).
 */
export const summaryWindow = (max: number) => Math.max(TEXT_MIN, 4 * max);

/** `entrySummary` of the entry a line holds, read from the line's bytes (a window of each string: see `partialEntry`). */
export function summaryFromBytes(bytes: Buffer, type: string | undefined, role: string | undefined, window: number, skipStart = -1, skipEnd = -1): string {
  return entrySummary(partialEntry({ bytes, skipStart, skipEnd }, type, role, window));
}

/** A node's summary read from the file (pass two), for the few nodes a command shows. */
export function nodeSummary(session: Session, node: number, window: number): string {
  const { type, role } = session.nodeKind(node);
  return summaryFromBytes(session.previewBytes(node), type, role, window);
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

  /**
   * For a `SummaryReader` of `max` and `finish`. `budget` and `upTo` (bytes) default to
   * `KEPT_SUMMARIES_BUDGET` and `KEPT_SUMMARIES_UP_TO`.
   */
  constructor(
    readonly max: number,
    private readonly finish: (summary: string) => string,
    { budget = KEPT_SUMMARIES_BUDGET, upTo = KEPT_SUMMARIES_UP_TO }: { budget?: number; upTo?: number } = {},
  ) {
    this.budget = budget;
    this.upTo = upTo;
    this.window = summaryWindow(max);
    this.onPreviewLine = (node, line, type, role) => {
      // (nodes come in order; one out of it, or the budget spent, ends the keeping)
      if (this.full) return false;
      if (node !== this.kept + this.pending || this.used + this.at >= this.budget) {
        this.done();
        return false;
      }
      const summary = this.finish(summaryFromBytes(line, type, role, this.window));
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
    this.texts.push(Buffer.from(this.text.subarray(0, this.at)));
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
        out[k] = this.finish(summaryFromBytes(s.nodeHasLong(node) ? s.previewBytes(node) : blocks.line(j), type, role, this.window));
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
 * The string value of the first `"key":"…"` in `text` (cut at the window's end), or undefined.
 * With `bodyAt`, the string body starts there and `key` is not searched.
 */
function str(text: string, key: string, from = 0, bodyAt = -1): string | undefined {
  let start = bodyAt;
  if (start < 0) {
    const marker = `"${key}":"`;
    const at = text.indexOf(marker, from);
    if (at < 0) return undefined;
    start = at + marker.length;
  }
  return stringBody(text, start).value;
}

/** The JSON string whose body starts at `start`, decoded, and whether its closing quote is in `text`. */
function stringBody(text: string, start: number): { value: string; closed: boolean } {
  // The closing quote: the first one not escaped (preceded by an even run of backslashes).
  let i = start;
  let closed = false;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) {
      i = text.length;
      break;
    }
    let k = q - 1;
    while (k >= start && text.charCodeAt(k) === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) {
      i = q;
      closed = true;
      break;
    }
    i = q + 1;
  }
  let body = text.slice(start, i);
  if (body.indexOf("\\") < 0) return { value: body, closed }; // nothing to decode
  if (!closed) body = withoutCutEscape(body);
  try {
    return { value: JSON.parse(`"${body}"`) as string, closed };
  } catch {
    return { value: body, closed };
  }
}

/**
 * A string body cut by a window, without the escape the cut fell in (a backslash, or `\u` and
 * fewer than four digits), so that it decodes; an escaped backslash at the end is whole, and stays.
 */
function withoutCutEscape(body: string): string {
  const m = /\\(?:u[0-9a-fA-F]{0,3})?$/.exec(body);
  if (!m) return body;
  let k = m.index - 1;
  while (k >= 0 && body.charCodeAt(k) === 0x5c) k--;
  // (an odd run of backslashes before it: the match's backslash is the second half of `\\`)
  return (m.index - 1 - k) % 2 === 0 ? body.slice(0, m.index) : body;
}

function num(text: string, key: string): number | undefined {
  const m = new RegExp(`"${key}":(-?\\d+(?:\\.\\d+)?)`).exec(text);
  return m ? Number(m[1]) : undefined;
}

/** The string fields entrySummary shows, by entry type. */
const FIELDS: Record<string, string[]> = {
  model_change: ["provider", "modelId"],
  thinking_level_change: ["thinkingLevel"],
  compaction: ["summary"],
  branch_summary: ["summary"],
  custom: ["customType"],
  label: ["label", "targetId"],
  session_info: ["name"],
  context_edit: ["targetId"],
  usage: ["kind", "provider", "model"],
};

/**
 * Just enough of an entry, read from its line's bytes, for `entrySummary` (which says how an entry
 * reads in one line: this only finds what it looks at). A message's strings are found by a byte
 * search and only a window of each is decoded, in the order entrySummary looks: the command, the
 * text (string content, else the first text block), a tool call, the thinking, an image, the error.
 * Other entries keep their fields near the start of the line.
 */
export function partialEntry(line: Line, type: string | undefined, role: string | undefined, window: number): AnyEntry {
  // Keys are found by their bytes as JSON.stringify writes them (`"key":"`); a line written another
  // way (spaces after colons, as Python's json.dumps writes) is read whole, as it is valid JSON too.
  if (!compactJson(line.bytes)) {
    const whole = parsedWhole(line);
    if (whole) return whole;
  }
  // (object literals, not spreads: this runs for every line a tree draws)
  if (type === "message") {
    const content: Array<Record<string, unknown>> = [];
    const message: Record<string, unknown> = { role: role ?? "?", content };
    const entry = { type, id: "", parentId: null, timestamp: "", message } as AnyEntry;
    if (role === "bashExecution") {
      message.command = stringAfter(line, COMMAND_KEY, window);
      return entry;
    }
    // (the text: string content, else the first text block's, found once for both reads below)
    const at = find(line, CONTENT_KEY);
    const key = at >= 0 && line.bytes[at + CONTENT_KEY.length] === 0x22 ? CONTENT_KEY : TEXT_KEY;
    const keyAt = key === CONTENT_KEY ? at : find(line, TEXT_KEY, Math.max(0, at));
    const read = (size: number) => (keyAt < 0 ? undefined : stringAfter(line, key, size, keyAt));
    let text = read(window);
    // (a user message in OpenClaw's envelope is previewed by what follows it: read far enough to pass
    // it, whatever the first read's length says: a window of bytes decodes to fewer characters)
    if (role === "user" && text !== undefined && window < ENVELOPE_WINDOW && ENVELOPE_START.test(text)) text = read(ENVELOPE_WINDOW);
    if (text !== undefined) {
      content.push({ type: "text", text });
      return entry;
    }
    // every tool call's name (the summary lists them all), as far as a preview could show them
    for (let at = find(line, CALL_KEY), n = 0; at >= 0 && n < window / 4; n++) {
      const next = find(line, CALL_KEY, at + CALL_KEY.length);
      const head = around(line, CALL_KEY, 200, at);
      const call: Record<string, unknown> = { type: "toolCall", name: str(head, "name") ?? "?" };
      // (its command: the arguments' `command`, in the call's own bytes, before the next call)
      const args = find(line, ARGUMENTS_KEY, at);
      if (args >= 0 && (next < 0 || args < next)) {
        const command = line.bytes[args + ARGUMENTS_KEY.length] === 0x7b ? stringAfter(line, COMMAND_KEY, window, args) : undefined;
        const where = command === undefined ? -1 : find(line, COMMAND_KEY, args);
        if (command !== undefined && where === args + ARGUMENTS_KEY.length + 1) call.arguments = { command };
      }
      content.push(call);
      at = next;
    }
    if (content.length === 0) {
      const thinking = stringAfter(line, THINKING_KEY, window);
      if (thinking !== undefined) content.push({ type: "thinking", thinking });
      else if (find(line, IMAGE_KEY) >= 0) content.push({ type: "image" });
      else if (role === "assistant") {
        message.stopReason = stringAfter(line, STOP_KEY, 64);
        message.errorMessage = stringAfter(line, ERROR_KEY, window);
      }
    }
    return entry;
  }
  const { bytes } = line;
  const text = bytes.toString("utf8", 0, charBoundary(bytes, HEAD + (type === "custom_message" || type === "compaction" || type === "branch_summary" ? window : 0)));
  const fields: Record<string, unknown> = { type: type ?? "(no type)", id: "", parentId: null, timestamp: "" };
  for (const key of FIELDS[type ?? ""] ?? []) {
    const v = str(text, key);
    if (v !== undefined) fields[key] = v;
  }
  if (type === "compaction") {
    // (after the summary in pi's key order: searched in the whole line)
    const tokens = num(around(line, TOKENS_KEY, 24), "tokensBefore");
    if (tokens !== undefined) fields.tokensBefore = tokens;
  }
  if (type === "custom_message") fields.content = str(text, "content") ?? [{ type: "text", text: str(text, "text") ?? "" }];
  if (type === "context_edit") fields.replacement = /"replacement":null/.test(text) ? null : {};
  if (type === "active_tools_change") {
    const m = /"activeToolNames":\[([^\]]*)\]/.exec(text);
    try {
      fields.activeToolNames = m ? (JSON.parse(`[${m[1]}]`) as string[]) : [];
    } catch {
      fields.activeToolNames = [];
    }
  }
  return fields as AnyEntry;
}

/** Whether a line starts as JSON.stringify writes an object: `{"key":` with nothing between. */
function compactJson(bytes: Buffer): boolean {
  if (bytes[0] !== 0x7b || bytes[1] !== 0x22) return false;
  const close = bytes.indexOf(0x22, 2);
  return close > 0 && bytes[close + 1] === 0x3a && bytes[close + 2] !== 0x20;
}

/** A line read whole (its long string, if one was skipped, left empty), or undefined when it is not a whole JSON object. */
function parsedWhole({ bytes, skipStart, skipEnd }: Line): AnyEntry | undefined {
  const text = skipStart < 0 ? bytes.toString("utf8") : bytes.toString("utf8", 0, skipStart) + bytes.toString("utf8", skipEnd);
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as AnyEntry) : undefined;
  } catch {
    return undefined;
  }
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
