import type { AnyEntry, Session } from "../format/index.js";
import { entrySummary, preview } from "./text.js";

/**
 * A node's one-line summary, from its line's bytes without parsing the entry (a line can hold
 * megabytes of base64 image): the header fields come first in every entry pi writes, and the text
 * worth showing is found with a native byte search. `tree` and `path` compute these in pass one,
 * from bytes already in memory.
 */
const HEAD = 600;
/** The fewest bytes of a string decoded for a preview. */
const TEXT_MIN = 64;

const TEXT_KEY = Buffer.from('"text":"');
const CONTENT_KEY = Buffer.from('"content":"');
const THINKING_KEY = Buffer.from('"thinking":"');
const CALL_KEY = Buffer.from('"type":"toolCall"');
const COMMAND_KEY = Buffer.from('"command":"');

/** `end`, moved back to the first byte of the UTF-8 character it falls in: a cut there decodes cleanly (no U+FFFD). */
function charBoundary(bytes: Buffer, end: number): number {
  if (end >= bytes.length) return bytes.length;
  let e = end;
  while (e > end - 3 && e > 0 && (bytes[e]! & 0xc0) === 0x80) e--;
  return e;
}

/** A line's bytes, and the body of its long plain string if any (no key lies in it: searches skip it). */
interface Line {
  bytes: Buffer;
  skipStart: number;
  skipEnd: number;
}

/** Where `key` first is in the line (outside its long string), or -1. */
function find({ bytes, skipStart, skipEnd }: Line, key: Buffer): number {
  if (skipStart < 0) return bytes.indexOf(key);
  const at = bytes.subarray(0, skipStart).indexOf(key);
  return at >= 0 ? at : bytes.indexOf(key, skipEnd);
}

/** The bytes from `key` on, decoded, or "" when the key is not in the line. */
function around(line: Line, key: Buffer, size: number): string {
  const at = find(line, key);
  return at < 0 ? "" : line.bytes.toString("utf8", at, charBoundary(line.bytes, at + key.length + size));
}

/** The JSON string that follows `key` in the line, decoded (cut at the window), or undefined. */
function stringAfter(line: Line, key: Buffer, size: number): string | undefined {
  const text = around(line, key, size);
  return text ? str(text, "", 0, key.length) : undefined;
}

export function previewFromBytes(bytes: Buffer, type: string | undefined, role: string | undefined, max = 200, skipStart = -1, skipEnd = -1): string {
  const line: Line = { bytes, skipStart, skipEnd };
  // Enough bytes for `max` characters of any script (UTF-8 takes up to 4 bytes a character).
  const window = Math.max(TEXT_MIN, 4 * max);
  if (type === "message") {
    // Only the part that will be shown is decoded, in the order entrySummary looks: the command,
    // the first text (or plain string content), a tool call, the thinking; else the whole start.
    let summary: string | undefined;
    if (role === "bashExecution") summary = `$ ${stringAfter(line, COMMAND_KEY, window) ?? ""}`;
    else summary = stringAfter(line, TEXT_KEY, window) ?? stringAfter(line, CONTENT_KEY, window);
    if (summary === undefined && role === "assistant") {
      const call = around(line, CALL_KEY, 200);
      const name = call ? str(call, "name") : undefined;
      if (name !== undefined) summary = `→ ${name}(…)`;
      else {
        const thinking = stringAfter(line, THINKING_KEY, window);
        if (thinking !== undefined) summary = `(thinking) ${thinking}`;
      }
    }
    if (summary !== undefined) return preview(summary, max);
  }
  const text = bytes.toString("utf8", 0, charBoundary(bytes, HEAD + (type === "custom_message" || type === "compaction" || type === "branch_summary" ? window : 0)));
  return preview(entrySummary(partialEntry(text, type, role)), max);
}

/** A node's preview read from the file (pass two), for the few nodes a command shows. */
export function nodePreview(session: Session, node: number, max = 200): string {
  const { type, role } = session.nodeKind(node);
  return previewFromBytes(session.previewBytes(node), type, role, max);
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
  // The closing quote: the first one not escaped (preceded by an even run of backslashes).
  let i = start;
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
      break;
    }
    i = q + 1;
  }
  let body = text.slice(start, i);
  if (body.indexOf("\\") < 0) return body; // nothing to decode
  if (i >= text.length) body = body.replace(/\\(u[0-9a-fA-F]{0,3})?$/, "");
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body;
  }
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

/** Just enough of an entry, rebuilt from the start of its line, for `entrySummary`. */
export function partialEntry(text: string, type: string | undefined, role: string | undefined): AnyEntry {
  const base = { type: type ?? "(no type)", id: "", parentId: null, timestamp: "" };
  if (type === "message") {
    // Only what entrySummary will show, found in the order it looks: command, text, tool calls,
    // thinking, image, error.
    const message: Record<string, unknown> = { role: role ?? "?" };
    const content: Array<Record<string, unknown>> = [];
    message.content = content;
    if (role === "bashExecution") {
      message.command = str(text, "command");
      return { ...base, message } as AnyEntry;
    }
    const contentAt = text.indexOf('"content":');
    const plain = contentAt >= 0 && text.charCodeAt(contentAt + 10) === 0x22 ? str(text, "content", contentAt) : undefined;
    const t = plain ?? str(text, "text", Math.max(0, contentAt));
    if (t !== undefined) {
      content.push({ type: "text", text: t });
      return { ...base, message } as AnyEntry;
    }
    const call = text.indexOf('"type":"toolCall"');
    if (call >= 0) content.push({ type: "toolCall", name: str(text, "name", call) ?? "?" });
    else if (text.includes('"type":"thinking"')) content.push({ type: "thinking", thinking: str(text, "thinking") ?? "" });
    else if (text.includes('"type":"image"')) content.push({ type: "image" });
    else if (role === "assistant") {
      message.stopReason = str(text, "stopReason");
      message.errorMessage = str(text, "errorMessage");
    }
    return { ...base, message } as AnyEntry;
  }
  const fields: Record<string, unknown> = {};
  for (const key of FIELDS[type ?? ""] ?? []) {
    const v = str(text, key);
    if (v !== undefined) fields[key] = v;
  }
  if (type === "compaction") {
    const tokens = num(text, "tokensBefore");
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
  return { ...base, ...fields } as AnyEntry;
}
