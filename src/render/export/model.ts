import { imageBytes, PLAIN_TEXT } from "../../format/read/pass-two.js";
import type { AgentMessage, AnyEntry, ContentBlock } from "../../format/schema/types.js";
import type { Block, MessageBlock, Part, SummaryBlock } from "./blocks.js";
import { toolCall } from "./tools.js";
import { formatCount, formatDateTime } from "../units.js";

/**
 * What an export shows, independent of the format: a branch as blocks (messages with their
 * parts, summaries, short notes), built one entry at a time. Markdown and HTML render these.
 * Every string loses its control characters here, once (`export --redact` reads a redacted copy:
 * support/inputs/redacted.ts).
 */

// C0/C1 controls other than tab and newline, and bidi overrides: never in an export.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNCLEAN = /[\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/**
 * Rendered Markdown also loses the invisible characters that could hide text or reorder it where
 * it no longer sits in a code block: zero-width space, word joiner, zero-width no-break space, the
 * Mongolian vowel separator and the bidi marks (LRM, RLM, ALM). Zero-width (non-)joiners stay:
 * emoji sequences and several scripts need them.
 */
const INVISIBLE = /[\u200b\u2060\ufeff\u180e\u200e\u200f\u061c]/g;
const HAS_INVISIBLE = /[\u200b\u2060\ufeff\u180e\u200e\u200f\u061c]/;

export class BlockBuilder {
  /** `literal`: every text as it was (fenced), errors in the heading's facts, as before Markdown was rendered. */
  constructor(
    private readonly labels: ReadonlyMap<string, string>,
    private readonly edits: ReadonlyMap<string, "replaced" | "dropped">,
    private readonly literal = false,
  ) {}

  /**
   * While an entry that pass one found plain (`PLAIN_TEXT`) is built: its own strings cannot hold
   * what `clean` removes, so they are not searched (a tenth of a long export's time). Strings from
   * elsewhere (labels) are always searched.
   */
  private plain = false;

  /** Without control characters (ESC, CR, …). */
  clean(s: unknown): string {
    let text = String(s ?? "");
    // Most texts hold none: one search, and the string is kept as it is. (A plain line is ASCII:
    // nothing invisible either.)
    if (this.plain) return text;
    if (UNCLEAN.test(text)) text = text.replace(/\r\n?/g, "\n").replace(CONTROL, "");
    if (!this.literal && HAS_INVISIBLE.test(text)) text = text.replace(INVISIBLE, "");
    return text;
  }

  /** `clean` for a string that is not the current entry's own. */
  private cleanForeign(s: unknown): string {
    const plain = this.plain;
    this.plain = false;
    try {
      return this.clean(s);
    } finally {
      this.plain = plain;
    }
  }

  /** `YYYY-MM-DD HH:MM:SS` (UTC) of a time in ms or a date string; undefined if it is none. */
  time(ms: unknown): string | undefined {
    return typeof ms === "number" || typeof ms === "string" ? formatDateTime(ms) : undefined;
  }

  private image(b: Record<string, unknown>): Extract<Part, { kind: "image" }> {
    const data = typeof b.data === "string" ? b.data : "";
    return { kind: "image", mime: String(b.mimeType ?? "image/?"), bytes: imageBytes(b), data };
  }

  /** The parts of a message's content; `markdown`: its texts are Markdown (see `Part`). */
  parts(content: AgentMessage["content"], markdown = false): Part[] {
    if (content == null) return [];
    if (typeof content === "string") return [{ kind: "text", text: this.clean(content), markdown }];
    const out: Part[] = [];
    for (const block of content as ContentBlock[]) {
      if (!block || typeof block !== "object") continue;
      const b = block as Record<string, unknown>;
      if (b.type === "text") out.push({ kind: "text", text: this.clean(b.text), markdown });
      else if (b.type === "thinking") out.push({ kind: "thinking", text: this.clean(b.thinking) });
      else if (b.type === "toolCall") {
        if (this.literal) out.push({ kind: "toolCall", name: this.clean(b.name), args: this.clean(JSON.stringify(b.arguments ?? {}, null, 2)) });
        else out.push({ kind: "tool", call: toolCall(this.clean(b.id), this.clean(b.name), b.arguments, (s) => this.clean(s)) });
      }
      else if (b.type === "image") out.push(this.image(b));
      else out.push({ kind: "text", text: this.clean(`[${String(b.type)} block]`) });
    }
    return out;
  }

  /** One message (of an entry, or of a rebuilt context). */
  message(m: AgentMessage, entry?: AnyEntry): Block {
    const id = entry?.id;
    const when = this.time(m.timestamp ?? entry?.timestamp);
    // The heading's facts: up to two, then the time (objects built field by field: this runs for
    // every message of a branch, and spreads showed in profiles).
    const meta = (a?: string, b?: string): string[] => {
      const out: string[] = [];
      if (a) out.push(a);
      if (b) out.push(b);
      if (when) out.push(when);
      return out;
    };
    switch (m.role) {
      case "user":
        return this.messageBlock(id, "user", "User", meta(), this.parts(m.content, true));
      case "assistant": {
        const model = this.clean(`${m.provider ?? "?"}/${m.model ?? "?"}`);
        const failed = m.stopReason === "error" || m.stopReason === "aborted" ? m.stopReason : undefined;
        if (this.literal || !failed) {
          return this.messageBlock(id, "assistant", "Assistant", meta(model, m.stopReason === "error" ? this.clean(`error: ${m.errorMessage ?? ""}`) : failed), this.parts(m.content, true));
        }
        // The message's error (a provider's can be hundreds of characters) as a block of its own.
        const block = this.messageBlock(id, "assistant", "Assistant", meta(model, failed), this.parts(m.content, true));
        const message = this.clean(m.errorMessage ?? "");
        if (message) block.error = { kind: failed, message };
        return block;
      }
      case "toolResult": {
        const parts = this.parts(m.content);
        const texts: string[] = [];
        const images: Array<Extract<Part, { kind: "image" }>> = [];
        for (const p of parts) {
          if (p.kind === "text") texts.push(p.text);
          else if (p.kind === "image") images.push(p);
        }
        const block = this.messageBlock(id, "toolResult", "Tool result", meta(this.clean(m.toolName ?? ""), m.isError ? "error" : undefined), [{ kind: "toolResult", text: texts.join("\n"), isError: !!m.isError, images }]);
        if (!this.literal && typeof m.toolCallId === "string") {
          block.toolCallId = this.clean(m.toolCallId);
          const details = m.details && typeof m.details === "object" ? (m.details as Record<string, unknown>) : {};
          if (typeof details.diff === "string") block.resultDiff = this.clean(details.diff);
          const code = details.exitCode ?? details.exit_code;
          if (typeof code === "number") block.exitCode = code;
        }
        return block;
      }
      case "bashExecution":
        return this.messageBlock(id, "bashExecution", "Shell", meta(m.excludeFromContext ? "not sent to the model" : undefined), [{ kind: "shell", command: this.clean(m.command), output: this.clean(m.output), exitCode: m.exitCode }]);
      case "custom":
      case "hookMessage":
        return this.messageBlock(id, "custom", "Extension message", meta(this.clean(m.customType ?? "")), this.parts(m.content));
      case "system": {
        // pi's system messages carry the prompt in named sections (null removes one) and the tools.
        const sections = m.sections && typeof m.sections === "object" ? Object.entries(m.sections as Record<string, unknown>) : [];
        const text = [typeof m.content === "string" ? m.content : "", ...sections.map(([k, v]) => (v === null ? `[${k}: removed]` : `[${k}]\n${String(v)}`))].filter(Boolean).join("\n\n");
        const tools = [...(Array.isArray(m.toolsAdded) ? m.toolsAdded : [])].map((t) => String((t as { name?: unknown }).name ?? "?"));
        return this.messageBlock(id, "system", "System prompt", meta(tools.length ? `tools: ${this.clean(tools.join(", "))}` : undefined), text ? [{ kind: "folded", summary: "Prompt sections", text: this.clean(text) }] : []);
      }
      case "compactionSummary":
        return this.summaryBlock(id, "Compaction summary", meta(typeof m.tokensBefore === "number" ? `${formatCount(m.tokensBefore)} tokens before` : undefined), m.summary);
      case "branchSummary":
        return this.summaryBlock(id, "Branch summary", meta(), m.summary);
      default:
        return this.messageBlock(id, String(m.role), this.clean(`Message (${String(m.role)})`), meta(), this.parts(m.content));
    }
  }

  private messageBlock(id: string | undefined, role: string, title: string, meta: string[], parts: Part[]): MessageBlock {
    const block: MessageBlock = { kind: "message", role, title, meta, parts };
    if (id) {
      block.id = this.clean(id);
      const label = this.labels.get(id);
      if (label) block.label = this.cleanForeign(label);
      const edit = this.edits.get(id);
      if (edit) block.edit = edit;
    }
    return block;
  }

  private summaryBlock(id: string | undefined, title: string, meta: string[], text: unknown): SummaryBlock {
    const block: SummaryBlock = { kind: "summary", title, meta, text: this.clean(text) };
    if (id) block.id = this.clean(id);
    return block;
  }

  /** The blocks of one entry of the branch (`--view path`); empty for entries shown elsewhere. */
  entry(e: AnyEntry): Block[] {
    this.plain = (e as { [PLAIN_TEXT]?: boolean })[PLAIN_TEXT] === true;
    try {
      return this.entryBlocks(e);
    } finally {
      this.plain = false;
    }
  }

  private entryBlocks(e: AnyEntry): Block[] {
    switch (e.type) {
      case "message":
        return e.message && typeof e.message === "object" ? [this.message(e.message as AgentMessage, e)] : [];
      case "custom_message":
        return [this.message({ role: "custom", customType: e.customType as string, content: e.content as AgentMessage["content"], timestamp: Date.parse(e.timestamp) }, e)];
      case "compaction":
        return [{ kind: "summary", title: "Compaction", id: this.clean(e.id), meta: [typeof e.tokensBefore === "number" ? `${formatCount(e.tokensBefore)} tokens before` : "", this.time(e.timestamp) ?? ""].filter(Boolean), text: this.clean(e.summary), ...(this.labels.get(e.id) ? { label: this.cleanForeign(this.labels.get(e.id)) } : {}) }];
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
