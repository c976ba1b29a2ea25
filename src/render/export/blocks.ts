/**
 * What an export is made of, independent of its format: blocks (messages with their parts,
 * summaries, short notes) and tool calls with their results. `model.ts` builds them, `tools.ts`
 * reads tool calls, `document.ts` writes them as Markdown or HTML.
 */

export type Part =
  /** `markdown`: the text is Markdown a person or the model wrote (user and assistant text), shown rendered unless the export is literal. */
  | { kind: "text"; text: string; markdown?: boolean }
  | { kind: "thinking"; text: string }
  /** A tool call as its arguments' JSON (`--literal`: the export as it was). */
  | { kind: "toolCall"; name: string; args: string }
  /** A tool call as what it did, its result under it (`ToolPairing`). */
  | { kind: "tool"; call: ToolCall }
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
  /** An assistant's error (`stopReason` error or aborted), shown as a block of its own (not in a literal export: there it is in `meta`). */
  error?: { kind: "error" | "aborted"; message: string };
  /** A tool result's: the id of the call it answers (not in a literal export). */
  toolCallId?: string;
  /** A tool result that found no call waiting for it: its call is further up the branch, or there is none. */
  unmatched?: "earlier" | "none";
  /** A tool result's details: the edit tool's diff, a shell tool's exit code. */
  resultDiff?: string;
  exitCode?: number;
}

export interface SummaryBlock {
  kind: "summary";
  title: string;
  meta: string[];
  id?: string;
  /** Markdown the model wrote (a compaction's or branch's summary). */
  text: string;
  label?: string;
}

interface NoteBlock {
  kind: "note";
  text: string;
}

export type Block = MessageBlock | SummaryBlock | NoteBlock;

/** What a call shows, by tool. */
export type ToolShown =
  | { kind: "bash"; command: string; timeout?: number }
  | { kind: "read"; path: string; offset?: number; limit?: number }
  | { kind: "write"; path: string; content: string; lang: string }
  | { kind: "edit"; path: string; pairs: Array<{ oldText: string; newText: string }> }
  /** A search's header: groups of words (each a text, and whether it is code), read " · " apart. */
  | { kind: "search"; tool: "ls" | "find" | "grep"; line: Array<Array<[text: string, code?: boolean]>> }
  | { kind: "json"; args: string };

/** A tool result, as shown under its call (or, unmatched, where it stands). */
export interface ToolResult {
  text: string;
  isError: boolean;
  images: Array<Extract<Part, { kind: "image" }>>;
  /** The result entry's own id, label, time and context edit (its heading when it stands alone). */
  id?: string;
  label?: string;
  edit?: "replaced" | "dropped";
  /** The edit tool's own unified diff of what it changed (`details.diff`). */
  diff?: string;
  /** A shell tool's exit code, where its details give one. */
  exitCode?: number;
}

export interface ToolCall {
  id: string;
  name: string;
  shown: ToolShown;
  /** Arguments the view does not show, as JSON ("" when every one is shown). */
  rest: string;
  /** The result, once it has come (`ToolPairing`). */
  result?: ToolResult;
}
