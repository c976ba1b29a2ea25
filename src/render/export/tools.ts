import { createPatch } from "diff";
import { idHash } from "../../format/common/hash.js";
import type { Block, MessageBlock, Part, ToolCall, ToolResult, ToolShown } from "./blocks.js";
import { isNumber, isString } from "../../format/common/guards.js";

/**
 * Tool calls as what they did. pi's own tools (bash, read, write, edit, ls, find, grep) are shown
 * by their arguments' meaning: a command, a file in its language, a diff, a search; any other tool,
 * or arguments of a shape those tools do not have, as the JSON they are. No argument is ever lost:
 * what a view does not show is kept, as JSON, beside it (`rest`). Each call's result is attached
 * to it (`ToolPairing`), so that it shows directly under the call.
 */

const LANGUAGES: Record<string, string> = {
  ts: "ts", tsx: "tsx", mts: "ts", cts: "ts", js: "js", jsx: "jsx", mjs: "js", cjs: "js", json: "json", jsonl: "json",
  md: "md", markdown: "md", py: "python", rb: "ruby", go: "go", rs: "rust", java: "java", kt: "kotlin", kts: "kotlin",
  swift: "swift", c: "c", h: "c", cc: "cpp", cpp: "cpp", cxx: "cpp", hpp: "cpp", cs: "csharp", php: "php", lua: "lua",
  r: "r", sh: "sh", bash: "bash", zsh: "zsh", fish: "fish", ps1: "powershell", sql: "sql", html: "html", htm: "html",
  css: "css", scss: "scss", less: "less", vue: "vue", svelte: "svelte", xml: "xml", svg: "xml", yml: "yaml", yaml: "yaml",
  toml: "toml", ini: "ini", dockerfile: "dockerfile", makefile: "makefile", mk: "makefile", gradle: "groovy",
  scala: "scala", ex: "elixir", exs: "elixir", erl: "erlang", hs: "haskell", ml: "ocaml", dart: "dart", zig: "zig",
  nix: "nix", tf: "hcl", proto: "protobuf", graphql: "graphql", diff: "diff", patch: "diff", txt: "text",
};

/** The code block language of a file, from its name ("" when the name says none). */
export function languageOf(path: string): string {
  const name = path.split(/[/\\]/).pop()!.toLowerCase();
  if (name === "dockerfile" || name === "makefile") return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? (LANGUAGES[name.slice(dot + 1)] ?? "") : "";
}

/** Text that is no source to highlight: it holds what text files do not (U+FFFD for bytes that were not UTF-8, NUL, other controls). */
// eslint-disable-next-line no-control-regex
const BINARY = /[\u0000-\u0008\u000e-\u001f\ufffd]/;

/** The language to show `text` of the file `path` in: its own, or none when the text looks binary. */
export function languageFor(path: string, text: string): string {
  return BINARY.test(text) ? "" : languageOf(path);
}


/**
 * The view of a call: `name` and `args` as the session holds them, every string through `clean`
 * (control characters). A known tool whose arguments do not have the shape it takes
 * (a missing or mistyped field) shows them as JSON, as any other tool does.
 */
export function toolCall(id: string, name: string, args: unknown, clean: (s: unknown) => string): ToolCall {
  const json = (v: unknown) => clean(JSON.stringify(v ?? {}, null, 2));
  const a = args && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined;
  const call = (shown: ToolShown, used: string[]): ToolCall => {
    const rest = Object.fromEntries(Object.entries(a!).filter(([k]) => !used.includes(k)));
    return { id, name, shown, rest: Object.keys(rest).length > 0 ? json(rest) : "" };
  };
  const asJson = (): ToolCall => ({ id, name, shown: { kind: "json", args: json(args) }, rest: "" });
  if (!a) return asJson();
  const optional = (k: string, ok: (v: unknown) => boolean) => a[k] === undefined || ok(a[k]);
  switch (name) {
    case "bash":
      if (!isString(a.command) || !optional("timeout", isNumber)) return asJson();
      return call({ kind: "bash", command: clean(a.command), ...(isNumber(a.timeout) ? { timeout: a.timeout } : {}) }, ["command", "timeout"]);
    case "read":
      if (!isString(a.path) || !optional("offset", isNumber) || !optional("limit", isNumber)) return asJson();
      return call({ kind: "read", path: clean(a.path), ...(isNumber(a.offset) ? { offset: a.offset } : {}), ...(isNumber(a.limit) ? { limit: a.limit } : {}) }, ["path", "offset", "limit"]);
    case "write":
      if (!isString(a.path) || !isString(a.content)) return asJson();
      return call({ kind: "write", path: clean(a.path), content: clean(a.content), lang: languageFor(a.path, a.content) }, ["path", "content"]);
    case "edit": {
      if (!isString(a.path)) return asJson();
      // pi 1.6 takes `edits: [{ oldText, newText }]`; earlier versions one pair at the top level
      if (Array.isArray(a.edits)) {
        if (!a.edits.every((e) => e && typeof e === "object" && isString((e as Record<string, unknown>).oldText) && isString((e as Record<string, unknown>).newText) && Object.keys(e).length === 2)) return asJson();
        return call({ kind: "edit", path: clean(a.path), pairs: (a.edits as Array<{ oldText: string; newText: string }>).map((e) => ({ oldText: clean(e.oldText), newText: clean(e.newText) })) }, ["path", "edits"]);
      }
      if (!isString(a.oldText) || !isString(a.newText)) return asJson();
      return call({ kind: "edit", path: clean(a.path), pairs: [{ oldText: clean(a.oldText), newText: clean(a.newText) }] }, ["path", "oldText", "newText"]);
    }
    case "ls":
      if (!optional("path", isString) || !optional("limit", isNumber)) return asJson();
      return call({ kind: "search", tool: "ls", line: [[[clean(a.path ?? "."), true]], ...limit(a.limit)] }, ["path", "limit"]);
    case "find":
      if (!isString(a.pattern) || !optional("path", isString) || !optional("limit", isNumber)) return asJson();
      return call({ kind: "search", tool: "find", line: [[[clean(a.pattern), true], ["in"], [clean(a.path ?? "."), true]], ...limit(a.limit)] }, ["pattern", "path", "limit"]);
    case "grep": {
      const flags = ["ignoreCase", "literal"].every((k) => optional(k, (v) => typeof v === "boolean"));
      if (!isString(a.pattern) || !optional("path", isString) || !optional("glob", isString) || !flags || !optional("context", isNumber) || !optional("limit", isNumber)) return asJson();
      const line: Array<Array<[string, boolean?]>> = [[[clean(a.pattern), true], ["in"], [clean(a.path ?? "."), true]]];
      if (isString(a.glob)) line.push([["files"], [clean(a.glob), true]]);
      if (a.ignoreCase === true) line.push([["ignoring case"]]);
      if (a.literal === true) line.push([["literal"]]);
      if (isNumber(a.context)) line.push([[`${a.context} line${a.context === 1 ? "" : "s"} of context`]]);
      line.push(...limit(a.limit));
      return call({ kind: "search", tool: "grep", line }, ["pattern", "path", "glob", "ignoreCase", "literal", "context", "limit"]);
    }
    default:
      return asJson();
  }
}

/** A search's limit as a group of its header ("at most 20"), or none. */
function limit(value: unknown): Array<Array<[string]>> {
  return isNumber(value) ? [[[`at most ${value}`]]] : [];
}

/**
 * The unified diff of an edit's old and new text: its hunks only (no file headers), and without
 * the "no newline at end of file" notes (the texts are parts of a file, not whole files).
 */
export function editDiff(path: string, oldText: string, newText: string): string {
  const patch = createPatch(path, oldText, newText, "", "", { context: 3 });
  const lines = patch.split("\n");
  const first = lines.findIndex((l) => l.startsWith("@@"));
  return first < 0 ? "" : lines.slice(first).filter((l) => !l.startsWith("\\ ")).join("\n").replace(/\n$/, "");
}

/**
 * Puts each tool result under its call, in one pass over a branch's blocks: an assistant message
 * that makes calls is held until the entries after it are no longer its results; each result
 * joins its call (matched by the call's id). A result that finds no call waiting stays where it
 * is, marked: for a call further up the branch, or for none at all. Only hashes of the ids seen
 * are kept, so a branch of a million calls costs a few megabytes.
 */
export class ToolPairing {
  private held: MessageBlock | undefined;
  private readonly waiting = new Map<string, ToolCall>();
  private readonly seen = new Set<number>();

  /** The blocks ready to write after `block` (in order), some held back until their results come. */
  push(block: Block): Block[] {
    if (block.kind === "message" && block.toolCallId !== undefined) {
      const call = this.waiting.get(block.toolCallId);
      if (call) {
        call.result = resultOf(block);
        this.waiting.delete(block.toolCallId);
        return this.waiting.size === 0 ? this.release() : [];
      }
      const out = this.release();
      block.unmatched = this.seen.has(idHash(block.toolCallId)) ? "earlier" : "none";
      out.push(block);
      return out;
    }
    const out = this.release();
    const calls = block.kind === "message" ? block.parts.filter((p): p is Extract<Part, { kind: "tool" }> => p.kind === "tool") : [];
    if (calls.length === 0) {
      out.push(block);
      return out;
    }
    this.held = block as MessageBlock;
    for (const { call } of calls) {
      this.waiting.set(call.id, call);
      this.seen.add(idHash(call.id));
    }
    return out;
  }

  /** The block still held (at the end of the branch). */
  flush(): Block[] {
    return this.release();
  }

  private release(): Block[] {
    const held = this.held;
    this.held = undefined;
    // (a Map's clear makes a new table even when it is empty: most blocks wait for nothing)
    if (this.waiting.size > 0) this.waiting.clear();
    return held ? [held] : [];
  }
}

function resultOf(block: MessageBlock): ToolResult {
  const part = block.parts.find((p) => p.kind === "toolResult") as Extract<Part, { kind: "toolResult" }> | undefined;
  const result: ToolResult = { text: part?.text ?? "", isError: part?.isError ?? false, images: part?.images ?? [] };
  if (block.id) result.id = block.id;
  if (block.label) result.label = block.label;
  if (block.edit) result.edit = block.edit;
  if (block.resultDiff !== undefined) result.diff = block.resultDiff;
  if (block.exitCode !== undefined) result.exitCode = block.exitCode;
  return result;
}
