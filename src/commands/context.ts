import type { Args } from "../args.js";
import type { CommandContext, CommandOutcome } from "../command.js";
import { ExitCode } from "../errors.js";
import { contextMessages, contextParts, contextSettingsAt, RawMessage } from "../format/context/branch.js";
import type { BuiltContext } from "../format/context/context.js";
import { PairingCheck, sentAt, type PairingProblem, type SentMessage } from "../format/context/send.js";
import type { AgentMessage } from "../format/schema/types.js";
import type { Session } from "../format/session/session.js";
import { RawJson, writeAll, writeJsonLines, writeJsonWithArray, type Sink } from "../render/sink.js";
import type { Style } from "../render/style.js";
import { renderMessage, renderSettings, textLines } from "../render/terminal/message.js";
import { nodeFor, readShape } from "../support/inputs/read.js";

export interface ContextOptions {
  file: string;
  /** The leaf whose context is rebuilt (default: the current leaf). */
  leaf?: string;
  /** What pi sends the provider: the context converted (`convertToLlm`) and transformed as pi-ai does before sending. */
  llm?: boolean;
  /** On a terminal, every message whole (piped, it always is). */
  full?: boolean;
}

export function options(args: Args): ContextOptions {
  return { file: args.string("file"), leaf: args.optionalString("leaf"), llm: args.flag("llm"), full: args.flag("full") };
}

/** Thinking level, model and active tools at the leaf: `--json` prints them beside the messages, as pi's SessionContext has them (plus `activeToolNames`). */
export type ContextSettings = Omit<BuiltContext, "messages">;

/**
 * The context of a leaf, open: its settings known, its messages read one at a time as they are
 * written (a gigabyte branch is never held in memory). Close it when done.
 */
export class ContextResult {
  readonly settings: ContextSettings;

  constructor(
    private readonly session: Session,
    private readonly node: number,
    private readonly llm: boolean,
  ) {
    this.settings = node === -1 ? { thinkingLevel: "off", model: null, activeToolNames: null } : contextSettingsAt(session, node);
  }

  /** The messages, as pi would build them. */
  *messages(): Generator<AgentMessage> {
    yield* contextMessages(this.session, this.node);
  }

  /** With `llm`: what pi sends, each message traced to its entry, a result pi supplies marked `synthetic`. */
  *sent(): Generator<SentMessage> {
    if (this.node !== -1) yield* sentAt(this.session, this.node);
  }

  /** The line of the entry a node is. */
  lineOf(node: number): number {
    return this.session.nodeLine(node);
  }

  /**
   * The messages for JSON: one pi passes through unchanged is copied from the file as its bytes,
   * not parsed and written again. With `llm`, what is sent (the transform may change any message).
   */
  *jsonItems(): Generator<AgentMessage | RawJson> {
    if (this.llm) {
      for (const s of this.sent()) yield s.message;
      return;
    }
    for (const m of contextParts(this.session, this.node)) yield m instanceof RawMessage ? new RawJson(m.bytes) : m;
  }

  close(): void {
    this.session.close();
  }
}

/** Opens the context pi rebuilds for the leaf (see `ContextResult`). */
export async function context(options: ContextOptions, ctx: CommandContext): Promise<ContextResult> {
  const { session } = await readShape(options.file, ctx);
  try {
    const node = options.leaf !== undefined ? nodeFor(session, options.leaf) : session.leafNode;
    return new ContextResult(session, node, options.llm === true);
  } catch (error) {
    session.close();
    throw error;
  }
}


/**
 * The conversation as people read it, a message at a time (with `llm`: what is sent, each result
 * pi supplies or a provider refuses said so); on a terminal long parts fold unless `full`.
 */
export function* renderContext(result: ContextResult, style: Style, llm = false, full = false): Generator<string> {
  yield renderSettings(result.settings, style);
  if (!llm) {
    for (const m of result.messages()) yield "\n" + renderMessage(m, style, full);
    return;
  }
  const check = new PairingCheck();
  const refused: Record<PairingProblem, string> = { "empty-id": "it names no call", orphan: "its call is not in the turn right before it", duplicate: "its call was already answered" };
  for (const s of result.sent()) {
    const m = s.message;
    const problem = check.see(m);
    const note = problem ? `a provider refuses this (line ${result.lineOf(s.node)}): ${refused[problem]}` : s.synthetic ? `supplied by pi: no result was recorded for the call on line ${result.lineOf(s.node)}` : undefined;
    const text = renderMessage(m, style, full);
    yield "\n" + (note ? text.replace("\n", `\n${textLines(`(${note})`, style, 2, problem ? style.c.red : style.c.dim).join("\n")}\n`) : text);
  }
}

function* settingsThenMessages(result: ContextResult): Generator<unknown> {
  yield result.settings;
  yield* result.jsonItems();
}

export async function run(options: ContextOptions, ctx: CommandContext): Promise<CommandOutcome> {
  const result = await context(options, ctx);
  const stream = async (out: Sink) => {
    try {
      // --jsonl: the settings first, then a message a line
      if (ctx.jsonl) return await writeJsonLines(out, settingsThenMessages(result));
      if (ctx.json) return await writeJsonWithArray(out, {}, "messages", result.jsonItems(), result.settings, true);
      await writeAll(out, renderContext(result, ctx.style, options.llm === true, options.full === true));
    } finally {
      result.close();
    }
  };
  return { stream, exitCode: ExitCode.Ok };
}
