import { targetModelAt, tracedMessages } from "./branch.js";
import { toLlmMessages } from "./context.js";
import type { Session } from "../session/session.js";
import type { AgentMessage, ContentBlock } from "../schema/types.js";

/**
 * What pi 1.6 sends a provider for a leaf: its context (`buildSessionContext`), converted
 * (`convertToLlm`: `toLlmMessages`), then transformed as pi-ai's `transformMessages` does before
 * any provider sees it. Each message keeps the node it came from, so that a problem in what is
 * sent can be named by the entry and line that caused it. The pairing rule a provider holds the
 * sequence to (`pairingProblems`) is here too: the linear check over a whole tree
 * (`pairing.ts`) must agree with it.
 */

/** The model a sequence is sent to: what `transformMessages` compares each assistant turn with. */
export interface TargetModel {
  provider: string | undefined;
  api: string | undefined;
  id: string | undefined;
  /** Whether the model reads images (else they become a placeholder). The file does not say: default true. */
  images?: boolean;
}

/** A message as it is sent, with the node (entry) it came from; a synthetic result comes from its call's node. */
export interface SentMessage {
  message: AgentMessage;
  node: number;
  /** A result pi supplies for a call left unanswered ("No result provided"). */
  synthetic?: true;
}

/** A context message and the node it came from. */
interface TracedMessage {
  message: AgentMessage;
  node: number;
}

const USER_IMAGE_PLACEHOLDER = "(image omitted: model does not support images)";
const TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: model does not support images)";
/** The text of the result pi supplies for an unanswered call. */
const NO_RESULT_TEXT = "No result provided";

/** Images as one placeholder a run, for a model without vision. */
function withoutImages(content: ContentBlock[], placeholder: string): ContentBlock[] {
  const out: ContentBlock[] = [];
  let lastWasPlaceholder = false;
  for (const block of content) {
    if (block.type === "image") {
      if (!lastWasPlaceholder) out.push({ type: "text", text: placeholder });
      lastWasPlaceholder = true;
      continue;
    }
    out.push(block);
    lastWasPlaceholder = (block as { text?: unknown }).text === placeholder;
  }
  return out;
}

/** One message as the transform's first pass leaves it: content never null, images and another model's thinking handled. */
function prepared(m: AgentMessage, model: TargetModel): AgentMessage {
  let msg = m.content == null ? { ...m, content: [] } : m;
  if (model.images === false && Array.isArray(msg.content)) {
    if (msg.role === "user") msg = { ...msg, content: withoutImages(msg.content, USER_IMAGE_PLACEHOLDER) };
    else if (msg.role === "toolResult") msg = { ...msg, content: withoutImages(msg.content, TOOL_IMAGE_PLACEHOLDER) };
  }
  if (msg.role !== "assistant" || !Array.isArray(msg.content)) return msg;
  const same = msg.provider === model.provider && msg.api === model.api && msg.model === model.id;
  const content = msg.content.flatMap((block): ContentBlock[] => {
    const b = block as Record<string, unknown>;
    if (b.type === "thinking") {
      // another model's thinking (and its signature) means nothing to this one
      if (!same) return [];
      if (b.redacted || b.thinkingSignature) return [block];
      return !b.thinking || (typeof b.thinking === "string" && b.thinking.trim() === "") ? [] : [block];
    }
    if (b.type === "text") return same ? [block] : [{ type: "text", text: b.text as string }];
    if (b.type === "toolCall" && !same && b.thoughtSignature) {
      const { thoughtSignature: _, ...rest } = b;
      return [rest as ContentBlock];
    }
    return [block];
  });
  return { ...msg, content };
}

/** The tool calls of an assistant message's content. */
export function toolCallsOf(m: AgentMessage): Array<{ id: unknown; name: unknown }> {
  return Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>).filter((b) => b?.type === "toolCall").map((b) => ({ id: b.id, name: b.name })) : [];
}

/** Whether pi leaves this assistant turn out of what it sends (it ended in an error or was aborted). */
export function isSkippedTurn(m: AgentMessage): boolean {
  return m.stopReason === "error" || m.stopReason === "aborted";
}

/**
 * The transform's second pass, streamed: errored and aborted assistant turns dropped; a call left
 * unanswered when the next assistant turn, user message or the end comes gets pi's error result;
 * a system message that comes while calls wait is held until they are answered; every result
 * passes as it is. `now` dates the synthetic results (pi uses the time of sending).
 */
function* sendSequence(messages: Iterable<TracedMessage>, model: TargetModel, now: () => number = Date.now): Generator<SentMessage> {
  let pending: Array<{ id: unknown; name: unknown }> = [];
  let pendingNode = -1;
  let answered = new Set<unknown>();
  const held: SentMessage[] = [];
  function* close(): Generator<SentMessage> {
    if (pending.length > 0) {
      for (const call of pending) {
        if (answered.has(call.id)) continue;
        const message: AgentMessage = { role: "toolResult", toolCallId: call.id as string, toolName: call.name as string, content: [{ type: "text", text: NO_RESULT_TEXT }], isError: true, timestamp: now() };
        yield { message, node: pendingNode, synthetic: true };
      }
      pending = [];
      answered = new Set();
    }
    yield* held;
    held.length = 0;
  }
  for (const { message: raw, node } of messages) {
    const message = prepared(raw, model);
    switch (message.role) {
      case "assistant": {
        yield* close();
        if (isSkippedTurn(message)) break;
        const calls = toolCallsOf(message);
        if (calls.length > 0) {
          pending = calls;
          pendingNode = node;
          answered = new Set();
        }
        yield { message, node };
        break;
      }
      case "toolResult":
        answered.add(message.toolCallId);
        yield { message, node };
        break;
      case "system":
        if (pending.length > 0) held.push({ message, node });
        else yield { message, node };
        break;
      case "user":
        yield* close();
        yield { message, node };
        break;
      default:
        yield { message, node };
    }
  }
  yield* close();
}

/** Context messages converted as pi's `convertToLlm` converts them, each with its node. */
function* llmMessages(messages: Iterable<TracedMessage>): Generator<TracedMessage> {
  for (const { message, node } of messages) for (const m of toLlmMessages([message])) yield { message: m, node };
}

/** What pi sends for the leaf `node` of `session`, to `model` (default: the leaf's own, `targetModelAt`). */
export function sentAt(session: Session, node: number, model: TargetModel = targetModelAt(session, node), now?: () => number): Generator<SentMessage> {
  return sendSequence(llmMessages(tracedMessages(session, node)), model, now);
}

/** Why a provider refuses a result (the pairing rule). */
export type PairingProblem = "orphan" | "duplicate" | "empty-id";

/**
 * The provider's pairing rule, a message at a time: `see` says what is wrong with a message
 * (undefined: nothing). A result must answer a call of the assistant turn right before it (only
 * results between them), once; its `toolCallId` must be a non-empty string.
 */
export class PairingCheck {
  private turn: Set<unknown> | undefined;
  private answered = new Set<unknown>();

  see(message: AgentMessage): PairingProblem | undefined {
    if (message.role === "assistant") {
      this.turn = new Set(toolCallsOf(message).map((c) => c.id));
      this.answered = new Set();
      return undefined;
    }
    if (message.role !== "toolResult") {
      this.turn = undefined;
      return undefined;
    }
    const id = message.toolCallId;
    if (typeof id !== "string" || id === "") return "empty-id";
    if (!this.turn?.has(id)) return "orphan";
    if (this.answered.has(id)) return "duplicate";
    this.answered.add(id);
    return undefined;
  }
}

/** The results a provider refuses in a sent sequence (`PairingCheck`); `index`: the result's place in `sent`. */
export function pairingProblems(sent: readonly SentMessage[]): Array<{ index: number; problem: PairingProblem; callId: unknown }> {
  const check = new PairingCheck();
  const out: Array<{ index: number; problem: PairingProblem; callId: unknown }> = [];
  sent.forEach(({ message }, index) => {
    const problem = check.see(message);
    if (problem) out.push({ index, problem, callId: message.toolCallId });
  });
  return out;
}
