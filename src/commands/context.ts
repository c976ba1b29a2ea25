import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { contextMessages, contextParts, contextSettingsAt, RawMessage, toLlmMessages, type AgentMessage, type BuiltContext, type ContentBlock } from "../format/index.js";
import { RawJson, writeAll, writeJsonLines, writeJsonWithArray, type Sink } from "../render/sink.js";
import { formatBytes, plural, preview, sanitize, type Style } from "../render/text.js";
import { readShape } from "./common.js";
import { nodeFor } from "./path.js";

/** Roles pi's convertToLlm passes through unchanged. */
const LLM_PASS_THROUGH = new Set(["system", "user", "assistant", "toolResult"]);

export interface ContextOptions {
  file: string;
  leaf?: string;
  llm?: boolean;
}

/** `--json` prints exactly pi's SessionContext plus `activeToolNames`. */
export type ContextResult = BuiltContext;

const TOOL_RESULT_LINES = 20;

function clip(text: string, maxLines: number, style: Style): string {
  const lines = text.split("\n");
  if (lines.length <= maxLines) return sanitize(text);
  return sanitize(lines.slice(0, maxLines).join("\n")) + "\n" + style.c.dim(`… ${plural(lines.length - maxLines, "more line")}`);
}

function renderBlocks(content: AgentMessage["content"], style: Style, maxLines: number): string {
  const { c } = style;
  if (content == null) return c.dim("(no content)");
  if (typeof content === "string") return clip(content, maxLines, style);
  const parts: string[] = [];
  for (const block of content as ContentBlock[]) {
    if (!block || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    switch (b.type) {
      case "text":
        parts.push(clip(String(b.text ?? ""), maxLines, style));
        break;
      case "thinking":
        parts.push(c.dim(c.italic(`[thinking] ${clip(String(b.thinking ?? ""), 6, style)}`)));
        break;
      case "toolCall":
        parts.push(c.yellow(`→ ${sanitize(String(b.name))} `) + c.dim(preview(JSON.stringify(b.arguments ?? {}), 300)));
        break;
      case "image":
        parts.push(c.dim(`[image ${sanitize(String(b.mimeType ?? "?"))}, ${formatBytes(Math.floor((String(b.data ?? "").length * 3) / 4))}]`));
        break;
      default:
        parts.push(c.dim(`[${sanitize(String(b.type))} block]`));
    }
  }
  return parts.join("\n");
}

function heading(m: AgentMessage, style: Style): string {
  const { c } = style;
  const role = sanitize(String(m.role));
  let extra = "";
  if (m.role === "assistant") extra = ` ${sanitize(`${m.provider ?? "?"}/${m.model ?? "?"}`)}${m.stopReason && m.stopReason !== "stop" && m.stopReason !== "toolUse" ? ` (${sanitize(String(m.stopReason))})` : ""}`;
  else if (m.role === "toolResult") extra = ` ${sanitize(String(m.toolName ?? ""))}${m.isError ? " (error)" : ""}`;
  else if (m.role === "custom") extra = ` ${sanitize(String(m.customType ?? ""))}`;
  else if (m.role === "compactionSummary" && typeof m.tokensBefore === "number") extra = ` (${plural(m.tokensBefore, "token")} before)`;
  const title = `── ${role}${extra} `;
  const paint = m.role === "user" ? c.green : m.role === "assistant" ? c.cyan : c.magenta;
  return paint(c.bold(title + "─".repeat(Math.max(3, Math.min(style.width, 80) - title.length))));
}

function renderMessage(m: AgentMessage, style: Style): string {
  let body: string;
  switch (m.role) {
    case "bashExecution":
      body = `$ ${sanitize(String(m.command ?? ""))}\n${clip(String(m.output ?? ""), TOOL_RESULT_LINES, style)}${m.exitCode ? `\n(exit ${m.exitCode})` : ""}`;
      break;
    case "compactionSummary":
    case "branchSummary":
      body = sanitize(String(m.summary ?? ""));
      break;
    case "system":
      body = typeof m.content === "string" && m.content ? clip(m.content, 10, style) : style.c.dim("(system prompt and tools)");
      break;
    default:
      body = renderBlocks(m.content, style, m.role === "toolResult" ? TOOL_RESULT_LINES : Number.POSITIVE_INFINITY);
  }
  return `${heading(m, style)}\n${body}\n`;
}

function renderHeader(settings: Omit<ContextResult, "messages">, count: number | undefined, style: Style): string {
  const model = settings.model ? `${settings.model.provider}/${settings.model.modelId}` : "none";
  const n = count === undefined ? "" : `${plural(count, "message")} · `;
  return style.c.dim(sanitize(`${n}model ${model} · thinking ${settings.thinkingLevel}${settings.activeToolNames ? ` · tools ${settings.activeToolNames.join(", ")}` : ""}`)) + "\n";
}

/** Streams the context one message at a time: a gigabyte branch is never held in memory. */
export async function run(args: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  const options: ContextOptions = { file: args.file as string, leaf: args.leaf as string | undefined, llm: args.llm === true };
  const { session } = await readShape(options.file, ctx);
  let node: number;
  try {
    node = options.leaf !== undefined ? nodeFor(session, options.leaf) : session.leafNode;
  } catch (error) {
    session.close();
    throw error;
  }
  const llm = options.llm === true;
  const messages = function* (): Generator<AgentMessage> {
    for (const m of contextMessages(session, node)) yield* llm ? toLlmMessages([m]) : [m];
  };
  // For JSON, messages pi passes through unchanged are copied from the file, not parsed and
  // re-serialised (convertToLlm passes these four roles through too).
  const jsonItems = function* (): Generator<AgentMessage | RawJson> {
    for (const m of contextParts(session, node)) {
      if (m instanceof RawMessage) {
        if (!llm || LLM_PASS_THROUGH.has(m.role)) {
          yield new RawJson(m.bytes);
          continue;
        }
        yield* toLlmMessages([JSON.parse(m.bytes.toString("utf8")) as AgentMessage]);
        continue;
      }
      yield* llm ? toLlmMessages([m]) : [m];
    }
  };
  const stream = async (out: Sink) => {
    try {
      const settings = node === -1 ? { thinkingLevel: "off", model: null, activeToolNames: null } : contextSettingsAt(session, node);
      if (ctx.jsonl) {
        // the settings first, then a message a line
        return await writeJsonLines(out, (function* () {
          yield settings;
          yield* jsonItems();
        })());
      }
      if (ctx.json) {
        await writeJsonWithArray(out, {}, "messages", jsonItems(), settings, true);
        return;
      }
      await out.write(renderHeader(settings, undefined, ctx.style));
      await writeAll(out, (function* () {
        for (const m of messages()) yield "\n" + renderMessage(m, ctx.style);
      })());
    } finally {
      session.close();
    }
  };
  return { stream, exitCode: ExitCode.Ok };
}
