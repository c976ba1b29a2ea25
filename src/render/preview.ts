import type { AnyEntry, Session } from "../format/index.js";
import { entrySummary } from "./text.js";

/**
 * A node's one-line summary read from the first bytes of its line only, so that `tree` and `path`
 * never parse whole entries (a line can hold megabytes of base64 image). The fields a summary
 * needs come early in every entry pi writes; a string cut by the window is shown cut.
 */
const WINDOW = 2048;

export function nodePreview(session: Session, node: number): string {
  const { type, role } = session.nodeKind(node);
  const text = session.nodeBytes(node, WINDOW).toString("utf8");
  return entrySummary(partialEntry(text, type, role));
}

/** The string value of the first `"key":"…"` in `text` (cut at the window's end), or undefined. */
function str(text: string, key: string, from = 0): string | undefined {
  const marker = `"${key}":"`;
  const at = text.indexOf(marker, from);
  if (at < 0) return undefined;
  const start = at + marker.length;
  let i = start;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  let body = text.slice(start, Math.min(i, text.length));
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

/** Just enough of an entry, rebuilt from the start of its line, for `entrySummary`. */
export function partialEntry(text: string, type: string | undefined, role: string | undefined): AnyEntry {
  const base = { type: type ?? "(no type)", id: "", parentId: null, timestamp: "" };
  if (type === "message") {
    const contentAt = text.indexOf('"content":');
    const content: Array<Record<string, unknown>> = [];
    const plain = contentAt >= 0 && text[contentAt + 10] === '"' ? str(text, "content", contentAt) : undefined;
    const t = plain ?? str(text, "text", Math.max(0, contentAt));
    if (t !== undefined) content.push({ type: "text", text: t });
    const call = text.indexOf('"type":"toolCall"');
    if (call >= 0) content.push({ type: "toolCall", name: str(text, "name", call) ?? "?" });
    if (text.includes('"type":"thinking"')) content.push({ type: "thinking", thinking: "" });
    if (text.includes('"type":"image"')) content.push({ type: "image" });
    return {
      ...base,
      type: "message",
      message: { role: role ?? "?", content, command: str(text, "command"), stopReason: str(text, "stopReason"), errorMessage: str(text, "errorMessage") },
    } as AnyEntry;
  }
  const fields: Record<string, unknown> = {};
  for (const key of ["provider", "modelId", "thinkingLevel", "summary", "customType", "label", "targetId", "name", "kind", "model"]) {
    const v = str(text, key);
    if (v !== undefined) fields[key] = v;
  }
  const tokens = num(text, "tokensBefore");
  if (tokens !== undefined) fields.tokensBefore = tokens;
  if (type === "custom_message") fields.content = str(text, "content") ?? [{ type: "text", text: str(text, "text") ?? "" }];
  if (type === "context_edit") fields.replacement = /"replacement":null/.test(text) ? null : {};
  if (type === "active_tools_change") {
    const m = /"activeToolNames":\[([^\]]*)\]/.exec(text);
    fields.activeToolNames = m ? (JSON.parse(`[${m[1]}]`) as string[]) : [];
  }
  return { ...base, ...fields } as AnyEntry;
}
