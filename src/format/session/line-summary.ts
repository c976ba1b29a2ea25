import { emptyFields, scanShapeOf, Verdict, type ScanFields } from "../read/scanner.js";
import { decodeString } from "../read/scan-values.js";
import type { AnyEntry } from "../schema/types.js";

/**
 * Just enough of an entry for its one-line summary (`entrySummary`, summary.ts), read from its
 * line's bytes without parsing the entry: a line can hold megabytes of base64 image, and a tree
 * draws every line. Only a window of each string is decoded (`summaryWindow`).
 *
 * A message is read one of three ways, chosen by its line alone, so that pass one (which makes a
 * tree's previews as it reads each line) and pass two (which reads the few lines `path` or `show`
 * shows) read each line alike:
 *
 * - by the scanner's slots (read/scanner.ts: where the content starts, each block's text, thinking,
 *   tool call name and arguments): pass one's own scan of the line, or in pass two a scan of its
 *   copy (`scanShapeOf`). Its strings are where the slots say, found without a search
 *   (BENCHMARKS.md, "previews by the scanner's slots");
 * - parsed, where the scanner kept no slots (it defers on an escaped key) or they say nothing of
 *   what a summary shows (no text, tool call or thinking: an image, an error, a bash run), and for
 *   a line not written as `JSON.stringify` writes (spaces after the colons);
 * - by a search for its keys' bytes, in a line of over a megabyte besides its long string, whose
 *   preview reads only its start (`previewIsTruncated`: no JSON to scan or parse). A line's long
 *   string (a base64 image, usually) cut short (`previewCut`) leaves it JSON.
 *
 * A message's text is its string content, else its first text block's (the summary of a parsed
 * entry joins them all; a preview shows the first). Other entries keep their fields near the start
 * of the line, and are read there.
 */

/** How many bytes of an entry's start hold its header fields. */
const HEAD = 600;
/** The fewest bytes of a string decoded for a preview. */
const TEXT_MIN = 64;
/** How much of a user message in OpenClaw's envelope a preview reads: past the envelope (`messageGist`). */
const ENVELOPE_WINDOW = 16 * 1024;
const ENVELOPE_START = /^(?:System: \[|\[|[^\n]*\((?:untrusted|metadata)\b)/i;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const COLON = 0x3a;

const TEXT_KEY = Buffer.from('"text":"');
const CONTENT_KEY = Buffer.from('"content":');
const THINKING_KEY = Buffer.from('"thinking":"');
const CALL_KEY = Buffer.from('"type":"toolCall"');
const COMMAND_KEY = Buffer.from('"command":"');
const COMMAND_NAME = Buffer.from('"command"');
const ARGUMENTS_KEY = Buffer.from('"arguments":');
const IMAGE_KEY = Buffer.from('"type":"image"');
const TOKENS_KEY = Buffer.from('"tokensBefore":');
const STOP_KEY = Buffer.from('"stopReason":"');
const ERROR_KEY = Buffer.from('"errorMessage":"');

/** `ScanFields.textKind`: a text block's text, a thinking block's thinking, a tool call's name, where its arguments start. */
const TEXT = 1;
const THINKING = 2;
const NAME = 3;
const ARGUMENTS = 4;

/**
 * How many bytes of a string a summary of `max` characters decodes: enough for `max` characters
 * of any script (UTF-8 takes up to 4 bytes a character).
 */
export const summaryWindow = (max: number) => Math.max(TEXT_MIN, 4 * max);

/**
 * The entry a line holds, as far as its summary reads it, from the bytes of it a preview reads
 * (`previewCut`). `truncated`: they end before the line does (`previewIsTruncated`); `fields`:
 * pass one's scan of them with their texts (else they are scanned here).
 */
export function partialEntry(bytes: Buffer, type: string | undefined, role: string | undefined, window: number, truncated = false, fields?: ScanFields): AnyEntry {
  // (the slots are places, whatever spaces the line was written with)
  if (type === "message" && !truncated) {
    const f = fields ?? scanned(bytes);
    const slotted = f && messageFromSlots(bytes, f, role, window);
    if (slotted) return slotted;
    const whole = parsedWhole(bytes);
    if (whole) return firstTextOnly(whole);
  } else if (!compactJson(bytes)) {
    // Keys are found by their bytes as JSON.stringify writes them (`"key":"`); a line written
    // another way (spaces after colons, as Python's json.dumps writes) is read whole, as it is
    // valid JSON too (a whole message's line was parsed above, whatever its spaces).
    const whole = parsedWhole(bytes);
    if (whole) return firstTextOnly(whole);
  }
  if (type !== "message") return otherEntry(bytes, type, window);
  return messageFromSearch(bytes, role, window);
}

/** The fields a scan of a copy of `bytes` leaves (pass two), or undefined where the scanner cannot say. */
const shape = emptyFields();
function scanned(bytes: Buffer): ScanFields | undefined {
  return scanShapeOf(bytes, shape) === Verdict.Valid && shape.object ? shape : undefined;
}

/** A message read by the scanner's slots; undefined where they do not say what its summary shows. */
function messageFromSlots(bytes: Buffer, f: ScanFields, role: string | undefined, window: number): AnyEntry | undefined {
  if (f.texts < 0 || role === "bashExecution") return undefined;
  // (object literals, not spreads: this runs for every line a tree draws)
  const content: Array<Record<string, unknown>> = [];
  const entry = { type: "message", id: "", parentId: null, timestamp: "", message: { role: role ?? "?", content } } as AnyEntry;
  let open = f.contentStart >= 0 && bytes[f.contentStart] === QUOTE ? f.contentStart : -1;
  for (let k = 0; open < 0 && k < f.texts; k++) if (f.textKind[k] === TEXT) open = f.textOpen[k]!;
  if (open >= 0) {
    content.push({ type: "text", text: messageTextAt(bytes, open, role, window) });
    return entry;
  }
  // every tool call's name (the summary lists them all), as far as a preview could show them; its
  // command where its arguments start with one (a call's arguments follow its name in the slots)
  for (let k = 0; k < f.texts && content.length < window / 4; k++) {
    if (f.textKind[k] !== NAME) continue;
    const call: Record<string, unknown> = { type: "toolCall", name: decodeString(bytes, f.textOpen[k]!, f.textClose[k]!) };
    const command = f.textKind[k + 1] === ARGUMENTS && k + 1 < f.texts ? commandAt(bytes, f.textOpen[k + 1]!, window) : undefined;
    if (command !== undefined) call.arguments = { command };
    content.push(call);
  }
  if (content.length > 0) return entry;
  for (let k = 0; k < f.texts; k++) {
    if (f.textKind[k] !== THINKING) continue;
    content.push({ type: "thinking", thinking: stringAt(bytes, f.textOpen[k]!, window) });
    return entry;
  }
  return undefined;
}

/** A message's text, its string opening at `open`: a window of it, or for a user's message in OpenClaw's envelope, enough to pass the envelope. */
function messageTextAt(bytes: Buffer, open: number, role: string | undefined, window: number): string {
  const text = stringAt(bytes, open, window);
  // (a user message in OpenClaw's envelope is previewed by what follows it: read far enough to pass
  // it, whatever the first read's length says, as a window of bytes decodes to fewer characters;
  // unless the first read was the whole string)
  if (role === "user" && !stringWhole && window < ENVELOPE_WINDOW && ENVELOPE_START.test(text)) return stringAt(bytes, open, ENVELOPE_WINDOW);
  return text;
}

/** The `command` string that the arguments object at `at` starts with, or undefined (a call shows it only then). */
function commandAt(bytes: Buffer, at: number, window: number): string | undefined {
  if (bytes[at] !== OPEN_BRACE) return undefined;
  let i = spaceFrom(bytes, at + 1);
  for (let k = 0; k < COMMAND_NAME.length; k++) if (bytes[i + k] !== COMMAND_NAME[k]) return undefined;
  i = spaceFrom(bytes, i + COMMAND_NAME.length);
  if (bytes[i] !== COLON) return undefined;
  i = spaceFrom(bytes, i + 1);
  return bytes[i] === QUOTE ? stringAt(bytes, i, window) : undefined;
}

function spaceFrom(bytes: Buffer, at: number): number {
  let i = at;
  for (let c = bytes[i]; c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = bytes[++i]);
  return i;
}

/** A message read by a search for its keys' bytes (a line truncated for its preview): in the order entrySummary looks, the command, the text, a tool call, the thinking, an image, the error. */
function messageFromSearch(bytes: Buffer, role: string | undefined, window: number): AnyEntry {
  const content: Array<Record<string, unknown>> = [];
  const message: Record<string, unknown> = { role: role ?? "?", content };
  const entry = { type: "message", id: "", parentId: null, timestamp: "", message } as AnyEntry;
  if (role === "bashExecution") {
    message.command = stringAfter(bytes, COMMAND_KEY, window);
    return entry;
  }
  // (the text: string content, else the first text block's)
  const at = bytes.indexOf(CONTENT_KEY);
  const stringContent = at >= 0 && bytes[at + CONTENT_KEY.length] === QUOTE;
  const open = stringContent ? at + CONTENT_KEY.length : keyEnd(bytes, TEXT_KEY, Math.max(0, at));
  if (open >= 0) {
    content.push({ type: "text", text: messageTextAt(bytes, open, role, window) });
    return entry;
  }
  for (let at = bytes.indexOf(CALL_KEY), n = 0; at >= 0 && n < window / 4; n++) {
    const next = bytes.indexOf(CALL_KEY, at + CALL_KEY.length);
    const head = around(bytes, CALL_KEY, 200, at);
    const call: Record<string, unknown> = { type: "toolCall", name: str(head, "name") ?? "?" };
    // (its command: the arguments' `command`, in the call's own bytes, before the next call)
    const args = bytes.indexOf(ARGUMENTS_KEY, at);
    if (args >= 0 && (next < 0 || args < next)) {
      const command = commandAt(bytes, args + ARGUMENTS_KEY.length, window);
      if (command !== undefined) call.arguments = { command };
    }
    content.push(call);
    at = next;
  }
  if (content.length === 0) {
    const thinking = stringAfter(bytes, THINKING_KEY, window);
    if (thinking !== undefined) content.push({ type: "thinking", thinking });
    else if (bytes.indexOf(IMAGE_KEY) >= 0) content.push({ type: "image" });
    else if (role === "assistant") {
      message.stopReason = stringAfter(bytes, STOP_KEY, 64);
      message.errorMessage = stringAfter(bytes, ERROR_KEY, window);
    }
  }
  return entry;
}

/** An entry other than a message: its fields, near the start of its line (a compaction's tokens searched for). */
function otherEntry(bytes: Buffer, type: string | undefined, window: number): AnyEntry {
  const text = bytes.toString("utf8", 0, charBoundary(bytes, HEAD + (type === "custom_message" || type === "compaction" || type === "branch_summary" ? window : 0)));
  const fields: Record<string, unknown> = { type: type ?? "(no type)", id: "", parentId: null, timestamp: "" };
  for (const key of FIELDS[type ?? ""] ?? []) {
    const v = str(text, key);
    if (v !== undefined) fields[key] = v;
  }
  if (type === "compaction") {
    // (after the summary in pi's key order: searched in the whole line)
    const tokens = num(around(bytes, TOKENS_KEY, 24), "tokensBefore");
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

/** A parsed message with only its text as a preview shows it (string content, else the first text block); any other entry as it is. */
function firstTextOnly(entry: AnyEntry): AnyEntry {
  const m = entry.message as { role?: unknown; content?: unknown } | undefined;
  if (entry.type !== "message" || !m || typeof m !== "object" || !Array.isArray(m.content)) return entry;
  const block = (m.content as unknown[]).find((b): b is { text: string } => !!b && (b as { type?: unknown }).type === "text" && typeof (b as { text?: unknown }).text === "string");
  return block ? ({ ...entry, message: { ...m, content: [{ type: "text", text: block.text }] } } as AnyEntry) : entry;
}

/** Whether a line starts as JSON.stringify writes an object: `{"key":` with nothing between. */
function compactJson(bytes: Buffer): boolean {
  if (bytes[0] !== OPEN_BRACE || bytes[1] !== QUOTE) return false;
  const close = bytes.indexOf(QUOTE, 2);
  return close > 0 && bytes[close + 1] === COLON && bytes[close + 2] !== 0x20;
}

/** A line read whole, or undefined when it is not a whole JSON object. */
function parsedWhole(bytes: Buffer): AnyEntry | undefined {
  try {
    const value = JSON.parse(bytes.toString("utf8")) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as AnyEntry) : undefined;
  } catch {
    return undefined;
  }
}

/** `end`, moved back to the first byte of the UTF-8 character it falls in: a cut there decodes cleanly (no U+FFFD). */
function charBoundary(bytes: Buffer, end: number): number {
  if (end >= bytes.length) return bytes.length;
  let e = end;
  while (e > end - 3 && e > 0 && (bytes[e]! & 0xc0) === 0x80) e--;
  return e;
}

/** Where the string after `key` (a key ending in `:"`) opens: its quote; -1 when the key is not in the line from `from` on. */
function keyEnd(bytes: Buffer, key: Buffer, from = 0): number {
  const at = bytes.indexOf(key, from);
  return at < 0 ? -1 : at + key.length - 1;
}

/** The bytes from `key` on, decoded, or "" when the key is not in the line. */
function around(bytes: Buffer, key: Buffer, size: number, from = 0): string {
  const at = bytes.indexOf(key, from);
  return at < 0 ? "" : bytes.toString("utf8", at, charBoundary(bytes, at + key.length + size));
}

/** The JSON string that follows `key` (a key ending in `:"`) in the line, decoded (cut at the window), or undefined. */
function stringAfter(bytes: Buffer, key: Buffer, size: number): string | undefined {
  const open = keyEnd(bytes, key);
  return open < 0 ? undefined : stringAt(bytes, open, size);
}

/** Whether the last string `stringAt` gave back was whole (its closing quote within the window): a wider read gives the same. */
let stringWhole = false;

/** The JSON string whose opening quote is at `open`, decoded, cut at a window of `size` bytes (widened where it flattens to little). */
function stringAt(bytes: Buffer, open: number, size: number): string {
  stringWhole = false;
  const start = open + 1;
  // Most strings hold no escape in the window: their bytes are the string. One look at each byte
  // of the window finds the closing quote or the first escape (native searches cost a call each,
  // and the escape search ran to the line's end).
  const limit = Math.min(bytes.length, start + size + 1);
  let i = start;
  let shown = 0;
  for (; i < limit; i++) {
    const b = bytes[i]!;
    if (b === QUOTE || b === BACKSLASH) break;
    if (b > 0x20 && b < 0x7f) shown++;
    else if (b >= 0xc3 && b !== 0xe1 && b !== 0xe2 && b !== 0xef && !(b === 0xe3 && bytes[i + 1] === 0x80)) shown++;
  }
  if (i < limit && bytes[i] === QUOTE) {
    stringWhole = true;
    return bytes.toString("utf8", start, i);
  }
  // The window holds no quote and no escape, and enough to show, as the loop below asks: counted
  // are characters that cannot be whitespace (a lead byte that may start one, as U+00A0,
  // U+2000-U+205F, U+3000 and U+FEFF do, is not counted: at worst the loop below decides).
  if (i === limit && limit < bytes.length && shown * 4 > size) return bytes.toString("utf8", start, charBoundary(bytes, limit));
  for (let window = size; ; window *= 4) {
    const text = bytes.toString("utf8", open, charBoundary(bytes, start + window + 1));
    const { value, closed } = stringBody(text, 1);
    // A window of escaped whitespace (`\t\t\n…`) flattens to little: widen it until the string
    // shows more characters than the preview (a quarter of the window: then the preview knows it
    // was cut, and ends in an ellipsis), or ends, as `preview` does.
    if (closed || value.replace(/\s+/g, " ").trim().length * 4 > size || window >= bytes.length) {
      stringWhole = closed;
      return value;
    }
  }
}

/**
 * The string value of the first `"key":"…"` in `text` (cut at the window's end), or undefined.
 */
function str(text: string, key: string): string | undefined {
  const marker = `"${key}":"`;
  const at = text.indexOf(marker);
  return at < 0 ? undefined : stringBody(text, at + marker.length).value;
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
