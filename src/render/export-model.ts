import { IMAGE_DATA_LENGTH, type AgentMessage, type AnyEntry, type ContentBlock } from "../format/index.js";
import type { Redactor } from "./redact.js";

/**
 * What an export shows, independent of the format: a branch as blocks (messages with their
 * parts, summaries, short notes), built one entry at a time. Markdown and HTML render these.
 * Every string passes through the redactor and loses its control characters here, once.
 */

export type Part =
  | { kind: "text"; text: string }
  | { kind: "thinking"; text: string }
  | { kind: "toolCall"; name: string; args: string }
  | { kind: "toolResult"; text: string; isError: boolean; images: Array<Extract<Part, { kind: "image" }>> }
  | { kind: "image"; mime: string; bytes: number; data: string }
  | { kind: "shell"; command: string; output: string; exitCode: number | null | undefined }
  | { kind: "folded"; summary: string; text: string };

export interface MessageBlock {
  kind: "message";
  role: string;
  title: string;
  /** Short facts for the heading: model, time. */
  meta: string[];
  id?: string;
  label?: string;
  /** A context edit on this entry (path view): replaced or dropped in later contexts. */
  edit?: "replaced" | "dropped";
  parts: Part[];
}

export interface SummaryBlock {
  kind: "summary";
  title: string;
  meta: string[];
  id?: string;
  text: string;
  label?: string;
}

export interface NoteBlock {
  kind: "note";
  text: string;
}

export type Block = MessageBlock | SummaryBlock | NoteBlock;

// C0/C1 controls other than tab and newline, and bidi overrides: never in an export.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNCLEAN = /[\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/;

/** The length of an image block's base64 data, also when pass two left the data out. */
export function imageDataLength(b: Record<string | symbol, unknown>): number {
  const omitted = b[IMAGE_DATA_LENGTH];
  if (typeof omitted === "number") return omitted;
  return typeof b.data === "string" ? b.data.length : 0;
}

export class BlockBuilder {
  constructor(
    private readonly redactor: Redactor,
    private readonly labels: ReadonlyMap<string, string>,
    private readonly edits: ReadonlyMap<string, "replaced" | "dropped">,
  ) {}

  /** Redacted, and without control characters (ESC, CR, …). */
  clean(s: unknown): string {
    const text = this.redactor.text(String(s ?? ""));
    // Most texts hold none: one search, and the string is kept as it is.
    if (!UNCLEAN.test(text)) return text;
    return text.replace(/\r\n?/g, "\n").replace(CONTROL, "");
  }

  private time(ms: unknown): string | undefined {
    // pi's own timestamps (`2026-05-04T06:57:01.123Z`) need no Date (days past 28 and hour 24 may
    // roll over, so they take the long way).
    if (typeof ms === "string" && ISO_UTC.test(ms) && ms.slice(8, 10) <= "28" && ms.slice(11, 13) <= "23" && !Number.isNaN(Date.parse(ms))) return `${ms.slice(0, 10)} ${ms.slice(11, 19)}`;
    const t = typeof ms === "number" ? ms : typeof ms === "string" ? Date.parse(ms) : NaN;
    return Number.isNaN(t) ? undefined : new Date(t).toISOString().replace("T", " ").slice(0, 19);
  }

  private image(b: Record<string, unknown>): Extract<Part, { kind: "image" }> {
    const data = typeof b.data === "string" ? b.data : "";
    return { kind: "image", mime: String(b.mimeType ?? "image/?"), bytes: Math.floor((imageDataLength(b) * 3) / 4), data };
  }

  parts(content: AgentMessage["content"]): Part[] {
    if (content == null) return [];
    if (typeof content === "string") return [{ kind: "text", text: this.clean(content) }];
    const out: Part[] = [];
    for (const block of content as ContentBlock[]) {
      if (!block || typeof block !== "object") continue;
      const b = block as Record<string, unknown>;
      if (b.type === "text") out.push({ kind: "text", text: this.clean(b.text) });
      else if (b.type === "thinking") out.push({ kind: "thinking", text: this.clean(b.thinking) });
      else if (b.type === "toolCall") out.push({ kind: "toolCall", name: this.clean(b.name), args: this.clean(JSON.stringify(b.arguments ?? {}, null, 2)) });
      else if (b.type === "image") out.push(this.image(b));
      else out.push({ kind: "text", text: this.clean(`[${String(b.type)} block]`) });
    }
    return out;
  }

  /** One message (of an entry, or of a rebuilt context). */
  message(m: AgentMessage, entry?: AnyEntry): Block {
    const id = entry?.id;
    const label = id ? this.labels.get(id) : undefined;
    const edit = id ? this.edits.get(id) : undefined;
    const when = this.time(m.timestamp ?? entry?.timestamp);
    const meta = (extra: Array<string | undefined>) => [...extra, when].filter((x): x is string => !!x);
    const base = { kind: "message" as const, ...(id ? { id: this.clean(id) } : {}), ...(label ? { label: this.clean(label) } : {}), ...(edit ? { edit } : {}) };
    switch (m.role) {
      case "user":
        return { ...base, role: "user", title: "User", meta: meta([]), parts: this.parts(m.content) };
      case "assistant":
        return { ...base, role: "assistant", title: "Assistant", meta: meta([this.clean(`${m.provider ?? "?"}/${m.model ?? "?"}`), m.stopReason === "error" ? this.clean(`error: ${m.errorMessage ?? ""}`) : m.stopReason === "aborted" ? "aborted" : undefined]), parts: this.parts(m.content) };
      case "toolResult": {
        const parts = this.parts(m.content);
        const text = parts.filter((p) => p.kind === "text").map((p) => (p as { text: string }).text).join("\n");
        const images = parts.filter((p): p is Extract<Part, { kind: "image" }> => p.kind === "image");
        return { ...base, role: "toolResult", title: "Tool result", meta: meta([this.clean(m.toolName ?? ""), m.isError ? "error" : undefined]), parts: [{ kind: "toolResult", text, isError: !!m.isError, images }] };
      }
      case "bashExecution":
        return { ...base, role: "bashExecution", title: "Shell", meta: meta([m.excludeFromContext ? "not sent to the model" : undefined]), parts: [{ kind: "shell", command: this.clean(m.command), output: this.clean(m.output), exitCode: m.exitCode }] };
      case "custom":
      case "hookMessage":
        return { ...base, role: "custom", title: "Extension message", meta: meta([this.clean(m.customType ?? "")]), parts: this.parts(m.content) };
      case "system": {
        // pi's system messages carry the prompt in named sections (null removes one) and the tools.
        const sections = m.sections && typeof m.sections === "object" ? Object.entries(m.sections as Record<string, unknown>) : [];
        const text = [typeof m.content === "string" ? m.content : "", ...sections.map(([k, v]) => (v === null ? `[${k}: removed]` : `[${k}]\n${String(v)}`))].filter(Boolean).join("\n\n");
        const tools = [...(Array.isArray(m.toolsAdded) ? m.toolsAdded : [])].map((t) => String((t as { name?: unknown }).name ?? "?"));
        const meta2 = meta([tools.length ? `tools: ${this.clean(tools.join(", "))}` : undefined]);
        return { ...base, role: "system", title: "System prompt", meta: meta2, parts: text ? [{ kind: "folded", summary: "Prompt sections", text: this.clean(text) }] : [] };
      }
      case "compactionSummary":
        return { kind: "summary", title: "Compaction summary", meta: meta([typeof m.tokensBefore === "number" ? `${m.tokensBefore.toLocaleString("en-US")} tokens before` : undefined]), text: this.clean(m.summary), ...(id ? { id: this.clean(id) } : {}) };
      case "branchSummary":
        return { kind: "summary", title: "Branch summary", meta: meta([]), text: this.clean(m.summary), ...(id ? { id: this.clean(id) } : {}) };
      default:
        return { ...base, role: String(m.role), title: this.clean(`Message (${String(m.role)})`), meta: meta([]), parts: this.parts(m.content) };
    }
  }

  /** The blocks of one entry of the branch (`--view path`); empty for entries shown elsewhere. */
  entry(e: AnyEntry): Block[] {
    switch (e.type) {
      case "message":
        return e.message && typeof e.message === "object" ? [this.message(e.message as AgentMessage, e)] : [];
      case "custom_message":
        return [this.message({ role: "custom", customType: e.customType as string, content: e.content as AgentMessage["content"], timestamp: Date.parse(e.timestamp) }, e)];
      case "compaction":
        return [{ kind: "summary", title: "Compaction", id: this.clean(e.id), meta: [typeof e.tokensBefore === "number" ? `${e.tokensBefore.toLocaleString("en-US")} tokens before` : "", this.time(e.timestamp) ?? ""].filter(Boolean), text: this.clean(e.summary), ...(this.labels.get(e.id) ? { label: this.clean(this.labels.get(e.id)) } : {}) }];
      case "branch_summary":
        return e.summary ? [{ kind: "summary", title: "Branch summary", id: this.clean(e.id), meta: [this.time(e.timestamp) ?? ""].filter(Boolean), text: this.clean(e.summary) }] : [];
      case "model_change":
        return [{ kind: "note", text: this.clean(`Model: ${String(e.provider)}/${String(e.modelId)}`) }];
      case "thinking_level_change":
        return [{ kind: "note", text: this.clean(`Thinking level: ${String(e.thinkingLevel)}`) }];
      case "session_info":
        return e.name ? [{ kind: "note", text: this.clean(`Session named “${String(e.name)}”`) }] : [];
      default:
        return []; // labels and context edits show on their targets; usage, custom state and harness moves are not conversation
    }
  }
}
