import type { Block, MessageBlock, Part, ToolCall, ToolResult } from "./blocks.js";
import { editDiff, languageFor } from "./tools.js";
import { markdownHtml, safeMarkdown } from "./markdown.js";

/**
 * Markdown and HTML for export blocks. Session text is untrusted. What a person or the model wrote
 * as Markdown (user and assistant text, summaries) is rendered, made safe by `safeMarkdown`: parsed
 * and written again so that it cannot change the document around it. Everything else (tool calls
 * and output, shell runs, thinking, and every text of a `literal` export) sits in a fenced block
 * longer than any backtick run inside it (so it cannot close the fence, and HTML in it is code,
 * not markup) or in escaped inline text. In HTML everything is escaped, and the page allows no
 * scripts and no network at all (Content-Security-Policy).
 */

export interface ExportStyle {
  thinking: "collapsed" | "full" | "omit";
  toolResults: "collapsed" | "full" | "omit";
  images: "placeholder" | "embed";
  /** Every text fenced as it was, nothing rendered (the export before Markdown was rendered). */
  literal?: boolean;
}

export interface ExportMeta {
  title: string;
  /** [label, value, whether the value is an identifier shown as code] */
  rows: Array<[string, string, boolean?]>;
}

const SAFE_IMAGE = /^image\/(png|jpeg|gif|webp)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function imageLabel(p: Extract<Part, { kind: "image" }>): string {
  const kb = p.bytes / 1024;
  return `image: ${p.mime}, ${kb < 1 ? `${p.bytes} B` : kb < 1024 ? `${kb.toFixed(1)} KB` : `${(kb / 1024).toFixed(1)} MB`}`;
}

function embeddable(p: Extract<Part, { kind: "image" }>): boolean {
  return SAFE_IMAGE.test(p.mime) && BASE64.test(p.data) && p.data.length > 0;
}

// ---------------------------------------------------------------- Markdown

/** The length of the longest run of `c` in `text`. */
function longestRun(text: string, c: string): number {
  let longest = 0;
  for (let i = text.indexOf(c); i !== -1; ) {
    let j = i + 1;
    while (text[j] === c) j++;
    longest = Math.max(longest, j - i);
    i = text.indexOf(c, j);
  }
  return longest;
}

/** The number of lines of `text` (0 when empty). */
function lineCount(text: string): number {
  if (text === "") return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * Markdown is made as a list of pieces, not one string: session text stays the flat string
 * `JSON.parse` made and is encoded for output as it is, where a string built around it is
 * flattened and encoded by a slower path (BENCHMARKS.md, "export's pieces"). `out.join("")` is the Markdown.
 */
export type Pieces = string[];

/** A fenced block that nothing inside can close: the fence is longer than any backtick run. */
function fence(out: Pieces, text: string, info = ""): void {
  const f = "`".repeat(Math.max(3, longestRun(text, "`") + 1));
  out.push(`${f}${info}\n`, text, text.endsWith("\n") || text === "" ? f : `\n${f}`);
}

/** Inline code that contains any text (backtick runs included). */
function code(text: string): string {
  // An id, a tool name: nothing to pad or outrun (every heading has one).
  if (text.indexOf("`") < 0 && text.indexOf("\n") < 0 && text[0] !== " " && text !== "") return `\`${text}\``;
  const one = text.replace(/\n/g, " ");
  const d = "`".repeat(longestRun(one, "`") + 1);
  const pad = one.startsWith("`") || one.endsWith("`") || one.startsWith(" ") ? " " : "";
  return `${d}${pad}${one}${pad}${d}`;
}

/** Whatever `inline` would change: non-printable or non-ASCII characters, markup, double spaces, a list or quote start. */
const INLINE_MARKUP = /[^\x20-\x7e]|[\\`*_[\]<>&|~#!]| {2}|^\d+[.)]|^[-+=]/;

/** One line of literal text in Markdown: every character that could be markup is escaped. */
function inline(text: string): string {
  // Most headings and facts (roles, model names, times) hold nothing to escape.
  if (!INLINE_MARKUP.test(text)) return text;
  return text
    .replace(/\s+/g, " ")
    .replace(/[\\`*_[\]<>&|~#!]/g, (c) => `\\${c}`)
    .replace(/^(\d+)([.)])/, "$1\\$2")
    .replace(/^([-+=])/, "\\$1");
}

function mdDetails(out: Pieces, summary: string, body: () => void): void {
  out.push(`<details><summary>${escapeHtml(summary)}</summary>\n\n`);
  body();
  out.push("\n\n</details>");
}

/** Pushes a part's pieces; false when it shows nothing (thinking omitted). */
function mdPart(out: Pieces, p: Part, style: ExportStyle): boolean {
  switch (p.kind) {
    case "text":
      if (p.markdown && !style.literal) out.push(safeMarkdown(p.text));
      else fence(out, p.text, "text");
      return true;
    case "thinking":
      if (style.thinking === "omit") return false;
      if (style.thinking === "full") {
        out.push("**Thinking**\n\n");
        fence(out, p.text, "text");
      } else mdDetails(out, "Thinking", () => fence(out, p.text, "text"));
      return true;
    case "toolCall":
      out.push(`**Tool call** ${code(p.name)}\n\n`);
      fence(out, p.args, "json");
      return true;
    case "tool":
      mdTool(out, p.call, style);
      return true;
    case "toolResult":
      mdOutput(out, p, style, "text", outputSummary(p));
      return true;
    case "image":
      out.push(style.images === "embed" && embeddable(p) ? `![${inline(p.mime)}](data:${p.mime};base64,${p.data})` : `*\\[${inline(imageLabel(p))}\\]*`);
      return true;
    case "shell":
      fence(out, `$ ${p.command}\n${p.output}`, "console");
      if (p.exitCode) out.push(`\n\n*exit code ${p.exitCode}*`);
      return true;
    case "folded":
      mdDetails(out, p.summary, () => fence(out, p.text, "text"));
      return true;
  }
}

/** A tool's output (collapsed unless `--tool-results full`; omitted with `omit`), its images under it. */
function mdOutput(out: Pieces, r: { text: string; images: Array<Extract<Part, { kind: "image" }>> }, style: ExportStyle, lang: string, summary: string): void {
  if (style.toolResults === "omit") {
    out.push(`*(tool output omitted)*`);
    return;
  }
  const body = () => {
    fence(out, r.text, lang);
    for (const image of r.images) {
      out.push("\n\n");
      mdPart(out, image, style);
    }
  };
  if (style.toolResults === "full") body();
  else mdDetails(out, summary, body);
}

/** `Output (12 lines)`, `Error output (1 line, exit code 2)`, with what the result entry says of itself. */
function outputSummary(r: { text: string; isError: boolean }, what = "Output", result?: ToolResult): string {
  const lines = lineCount(r.text);
  // (a result with no text, or only blank lines, is said to be empty: "1 line" of nothing misleads)
  const facts = [r.text.trim() === "" ? "empty" : `${lines} line${lines === 1 ? "" : "s"}`];
  if (result?.exitCode !== undefined) facts.push(`exit code ${result.exitCode}`);
  let summary = `${r.isError ? `Error ${what.toLowerCase()}` : what} (${facts.join(", ")})`;
  if (result?.id) summary += ` · ${result.id}`;
  if (result?.label) summary += ` · 🔖 ${result.label}`;
  if (result?.edit) summary += ` · ${result.edit === "dropped" ? "dropped from" : "replaced in"} the model's context by a later edit`;
  return summary.replace(/\s+/g, " ");
}

/** `lines 10-59`, `from line 10`, `50 lines`: the part of a file a read asked for. */
function readRange(s: { offset?: number; limit?: number }): string {
  if (s.offset !== undefined && s.limit !== undefined) return `lines ${s.offset}-${s.offset + s.limit - 1}`;
  if (s.offset !== undefined) return `from line ${s.offset}`;
  return s.limit !== undefined ? `the first ${s.limit} lines` : "";
}

/** An edit's diff: the tool's own (its result's `details.diff`), else each old and new text as a unified diff. */
function diffOf(call: ToolCall, s: Extract<ToolCall["shown"], { kind: "edit" }>): string {
  return call.result?.diff ?? s.pairs.map((p) => editDiff(s.path, p.oldText, p.newText)).join("\n");
}

/** A tool call as what it did, then, under it, its result (or that it has none on this branch). */
function mdTool(out: Pieces, call: ToolCall, style: ExportStyle): void {
  const s = call.shown;
  const r = call.result;
  const head = (name: string, rest: string) => out.push(`**${name}**${rest ? ` ${rest}` : ""}`);
  let lang = "text";
  let what = "Output";
  switch (s.kind) {
    case "bash":
      head("bash", s.timeout !== undefined ? `· *timeout ${s.timeout} s*` : "");
      out.push("\n\n");
      fence(out, s.command, "sh");
      break;
    case "read": {
      const range = readRange(s);
      head("read", `${code(s.path)}${range ? ` · ${range}` : ""}`);
      lang = r ? languageFor(s.path, r.text) || "text" : "text";
      what = "Content";
      break;
    }
    case "write":
      head("write", `${code(s.path)} · ${lineCount(s.content)} line${lineCount(s.content) === 1 ? "" : "s"}`);
      out.push("\n\n");
      fence(out, s.content, s.lang || "text");
      break;
    case "edit":
      head("edit", code(s.path));
      out.push("\n\n");
      fence(out, diffOf(call, s), "diff");
      break;
    case "search":
      head(s.tool, s.line.map((group) => group.map(([t, isCode]) => (isCode ? code(t) : inline(t))).join(" ")).join(" · "));
      break;
    case "json":
      head("Tool call", code(call.name));
      out.push("\n\n");
      fence(out, s.args, "json");
      break;
  }
  if (call.rest) {
    out.push("\n\n*other arguments:*\n\n");
    fence(out, call.rest, "json");
  }
  out.push("\n\n");
  if (!r) out.push("*(no result on this branch)*");
  else mdOutput(out, r, style, lang, outputSummary(r, what, r));
}

/** What a result that stands apart from its call says of it. */
function unmatchedNote(b: MessageBlock): string {
  return b.unmatched === "none" ? "No tool call with this id comes before it on this branch." : "The result of a tool call further up the branch (not the one just before it).";
}

function mdHeading(b: { title: string; meta: string[]; id?: string; label?: string }): string {
  const label = b.label ? ` — 🔖 ${inline(b.label)}` : "";
  let meta = "";
  for (const m of b.meta) meta += `${meta ? " · " : ""}${inline(m)}`;
  if (b.id) meta += `${meta ? " · " : ""}${code(b.id)}`;
  return `### ${inline(b.title)}${label}\n\n${meta ? `*${meta}*\n\n` : ""}`;
}

export function markdownHeader(meta: ExportMeta): string {
  return `# ${inline(meta.title)}\n\n${meta.rows.map(([k, v, isCode]) => `- **${inline(k)}:** ${isCode ? code(v) : inline(v)}`).join("\n")}\n\n---\n\n`;
}

export function markdownTotals(meta: ExportMeta): string {
  return `---\n\n**${inline(meta.title)}**\n\n${meta.rows.map(([k, v, isCode]) => `- **${inline(k)}:** ${isCode ? code(v) : inline(v)}`).join("\n")}\n`;
}

/** Pushes a block's Markdown pieces onto `out`. */
export function markdownBlock(out: Pieces, b: Block, style: ExportStyle): void {
  if (b.kind === "note") {
    out.push(`> ${inline(b.text)}\n\n`);
    return;
  }
  out.push(mdHeading(b));
  if (b.kind === "summary") {
    if (style.literal) fence(out, b.text, "text");
    else out.push(safeMarkdown(b.text));
    out.push("\n\n");
    return;
  }
  if (b.edit) out.push(`> ✎ ${b.edit === "dropped" ? "Dropped from the model's context by a later context edit." : "Replaced in the model's context by a later context edit."}\n\n`);
  if (b.unmatched) out.push(`> ${unmatchedNote(b)}\n\n`);
  let shown = false;
  for (const p of b.parts) {
    const mark = out.length;
    if (shown) out.push("\n\n");
    if (mdPart(out, p, style)) shown = true;
    else out.length = mark;
  }
  if (b.error) {
    // a quote that holds the message as it was
    if (shown) out.push("\n\n");
    const lines = [`**${b.error.kind === "error" ? "Error" : "Aborted"}**`, ""];
    const body: Pieces = [];
    fence(body, b.error.message, "text");
    lines.push(...body.join("").split("\n"));
    out.push(lines.map((l) => (l ? `> ${l}` : ">")).join("\n"));
    shown = true;
  }
  if (shown) out.push("\n\n");
}

// ---------------------------------------------------------------- HTML

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --muted: #59636e; --line: #d1d9e0; --user: #0969da; --assistant: #1a7f37; --tool: #8250df; --note: #9a6700; --code: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --code: #151b23; } }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 1rem; overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 2rem; color: var(--muted); font-size: .9rem; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
section { border-left: 3px solid var(--line); padding: .25rem 0 .25rem 1rem; margin: 1.5rem 0; }
section.user { border-color: var(--user); } section.assistant { border-color: var(--assistant); } section.toolResult, section.bashExecution { border-color: var(--tool); } section.summary { border-color: var(--note); }
h2 { font-size: 1rem; margin: 0 0 .5rem; } h2 .meta { font-weight: 400; color: var(--muted); font-size: .85rem; margin-left: .5rem; }
.label { background: var(--note); color: #fff; border-radius: 1rem; padding: 0 .5rem; font-size: .8rem; margin-left: .5rem; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: .5rem 0; }
pre { background: var(--code); padding: .75rem; border-radius: 6px; overflow-x: auto; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
details { margin: .5rem 0; } summary { cursor: pointer; color: var(--muted); }
.note { color: var(--muted); font-style: italic; margin: 1rem 0; }
.edit { color: var(--note); font-size: .9rem; }
img { max-width: 100%; }
`;

/** Styles for rendered Markdown and error blocks (a literal page, as before, has none of them). */
const MARKDOWN_CSS = `.md { margin: .5rem 0; overflow-wrap: anywhere; } .md > :first-child { margin-top: 0; } .md > :last-child { margin-bottom: 0; }
.md h4, .md h5, .md h6 { margin: 1rem 0 .5rem; } .md h4 { font-size: 1rem; } .md h5 { font-size: .95rem; } .md h6 { font-size: .9rem; color: var(--muted); }
.md p, .md ul, .md ol, .md blockquote, .md table { margin: .5rem 0; } .md ul, .md ol { padding-left: 1.5rem; }
.md blockquote { border-left: 3px solid var(--line); margin-left: 0; padding-left: .75rem; color: var(--muted); }
.md code { background: var(--code); padding: .1rem .3rem; border-radius: 4px; font: .875em ui-monospace, SFMono-Regular, Menlo, monospace; } .md pre code { background: none; padding: 0; font: inherit; }
.md table { border-collapse: collapse; display: block; overflow-x: auto; } .md th, .md td { border: 1px solid var(--line); padding: .3rem .6rem; } .md th { background: var(--code); }
.md hr { border: 0; border-top: 1px solid var(--line); }
.error { border: 1px solid #cf222e; border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0; } .error strong { color: #cf222e; } .error pre { margin: .25rem 0 0; }
:root { --add-fg: #1a7f37; --add-bg: #dafbe1; --del-fg: #cf222e; --del-bg: #ffebe9; }
@media (prefers-color-scheme: dark) { :root { --add-fg: #3fb950; --add-bg: #12261e; --del-fg: #f85149; --del-bg: #25171c; } }
.tool { margin: .75rem 0; } .tool p.call { margin: .5rem 0 .25rem; } .tool pre { margin: .25rem 0; }
pre.diff .add { color: var(--add-fg); background: var(--add-bg); display: inline-block; width: 100%; } pre.diff .del { color: var(--del-fg); background: var(--del-bg); display: inline-block; width: 100%; } pre.diff .hunk { color: var(--muted); }
`;

export function htmlHeader(meta: ExportMeta, literal = false): string {
  const title = escapeHtml(meta.title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>${title}</title>
<style>${CSS}${literal ? "" : MARKDOWN_CSS}</style>
</head>
<body>
<main>
<h1 dir="auto" lang="">${title}</h1>
<dl>${meta.rows.map(([k, v, isCode]) => `<dt>${escapeHtml(k)}</dt><dd>${isCode ? `<code>${escapeHtml(v)}</code>` : escapeHtml(v)}</dd>`).join("")}</dl>
`;
}

export function htmlTotals(meta: ExportMeta): string {
  return `<footer><h2 dir="auto">${escapeHtml(meta.title)}</h2><dl>${meta.rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("")}</dl></footer>\n`;
}

export const HTML_FOOTER = `</main>
</body>
</html>
`;

function htmlPart(p: Part, style: ExportStyle): string {
  switch (p.kind) {
    case "text":
      return p.markdown && !style.literal ? `<div class="md" lang="">${markdownHtml(p.text)}</div>` : `<div class="text" dir="auto" lang="">${escapeHtml(p.text)}</div>`;
    case "thinking":
      if (style.thinking === "omit") return "";
      return style.thinking === "full" ? `<div class="thinking"><strong>Thinking</strong><pre>${escapeHtml(p.text)}</pre></div>` : `<details class="thinking"><summary>Thinking</summary><pre>${escapeHtml(p.text)}</pre></details>`;
    case "toolCall":
      return `<div class="call"><strong>Tool call</strong> <code>${escapeHtml(p.name)}</code><pre>${escapeHtml(p.args)}</pre></div>`;
    case "tool":
      return htmlTool(p.call, style);
    case "toolResult": {
      if (!style.literal) return htmlOutput(p, style, "", outputSummary(p));
      // (a literal export writes output as it always has)
      if (style.toolResults === "omit") return `<p class="note">(tool output omitted)</p>`;
      const body = `<pre>${escapeHtml(p.text)}</pre>${p.images.map((i) => htmlPart(i, style)).join("")}`;
      return style.toolResults === "full" ? body : `<details class="output"><summary>${escapeHtml(outputSummary(p))}</summary>${body}</details>`;
    }
    case "image":
      return style.images === "embed" && embeddable(p) ? `<img alt="${escapeHtml(p.mime)}" src="data:${p.mime};base64,${p.data}">` : `<p class="note">[${escapeHtml(imageLabel(p))}]</p>`;
    case "shell":
      return `<pre>${escapeHtml(`$ ${p.command}\n${p.output}`)}</pre>${p.exitCode ? `<p class="note">exit code ${escapeHtml(String(p.exitCode))}</p>` : ""}`;
    case "folded":
      return `<details><summary>${escapeHtml(p.summary)}</summary><pre>${escapeHtml(p.text)}</pre></details>`;
  }
}

/** A tool's output in HTML, as `mdOutput` writes it in Markdown. */
function htmlOutput(r: { text: string; images: Array<Extract<Part, { kind: "image" }>> }, style: ExportStyle, lang: string, summary: string): string {
  if (style.toolResults === "omit") return `<p class="note">(tool output omitted)</p>`;
  const body = `${codeHtml(r.text, lang)}${r.images.map((i) => htmlPart(i, style)).join("")}`;
  return style.toolResults === "full" ? body : `<details class="output"><summary>${escapeHtml(summary)}</summary>${body}</details>`;
}

/** A code block, its language named (for whoever styles it); a diff's lines marked added, removed or a hunk's head, for colour. */
function codeHtml(text: string, lang: string): string {
  const cls = lang ? ` class="language-${escapeHtml(lang)}"` : "";
  if (lang !== "diff") return `<pre><code${cls}>${escapeHtml(text)}</code></pre>`;
  const lines = text.split("\n").map((l) => {
    const kind = l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : l.startsWith("@@") ? "hunk" : "";
    return kind ? `<span class="${kind}">${escapeHtml(l)}</span>` : escapeHtml(l);
  });
  return `<pre class="diff"><code${cls}>${lines.join("\n")}</code></pre>`;
}

/** A tool call in HTML, as `mdTool` writes it in Markdown. */
function htmlTool(call: ToolCall, style: ExportStyle): string {
  const s = call.shown;
  const r = call.result;
  const head = (name: string, rest = "") => `<p class="call"><strong>${escapeHtml(name)}</strong>${rest ? ` ${rest}` : ""}</p>`;
  const c = (t: string) => `<code>${escapeHtml(t)}</code>`;
  let out = "";
  let lang = "";
  let what = "Output";
  switch (s.kind) {
    case "bash":
      out = head("bash", s.timeout !== undefined ? `· <em>timeout ${escapeHtml(String(s.timeout))} s</em>` : "") + codeHtml(s.command, "sh");
      break;
    case "read": {
      const range = readRange(s);
      out = head("read", `${c(s.path)}${range ? ` · ${escapeHtml(range)}` : ""}`);
      lang = r ? languageFor(s.path, r.text) : "";
      what = "Content";
      break;
    }
    case "write":
      out = head("write", `${c(s.path)} · ${lineCount(s.content)} line${lineCount(s.content) === 1 ? "" : "s"}`) + codeHtml(s.content, s.lang);
      break;
    case "edit":
      out = head("edit", c(s.path)) + codeHtml(diffOf(call, s), "diff");
      break;
    case "search":
      out = head(s.tool, s.line.map((group) => group.map(([t, isCode]) => (isCode ? c(t) : escapeHtml(t))).join(" ")).join(" · "));
      break;
    case "json":
      out = head("Tool call", c(call.name)) + codeHtml(s.args, "json");
      break;
  }
  if (call.rest) out += `<p class="note">other arguments:</p>${codeHtml(call.rest, "json")}`;
  out += r ? htmlOutput(r, style, lang, outputSummary(r, what, r)) : `<p class="note">(no result on this branch)</p>`;
  return `<div class="tool">${out}</div>`;
}

function htmlHeading(b: { title: string; meta: string[]; id?: string; label?: string }): string {
  const meta = [...b.meta, ...(b.id ? [b.id] : [])].map(escapeHtml).join(" · ");
  return `<h2>${escapeHtml(b.title)}${b.label ? `<span class="label">🔖 ${escapeHtml(b.label)}</span>` : ""}${meta ? `<span class="meta">${meta}</span>` : ""}</h2>`;
}

export function htmlBlock(b: Block, style: ExportStyle): string {
  if (b.kind === "note") return `<p class="note">${escapeHtml(b.text)}</p>\n`;
  if (b.kind === "summary") {
    const text = style.literal ? `<div class="text" dir="auto" lang="">${escapeHtml(b.text)}</div>` : `<div class="md" lang="">${markdownHtml(b.text)}</div>`;
    return `<section class="summary">${htmlHeading(b)}${text}</section>\n`;
  }
  const m = b as MessageBlock;
  const edit = m.edit ? `<p class="edit">✎ ${m.edit === "dropped" ? "Dropped from the model's context by a later context edit." : "Replaced in the model's context by a later context edit."}</p>` : "";
  const error = m.error ? `<div class="error"><strong>${m.error.kind === "error" ? "Error" : "Aborted"}</strong><pre>${escapeHtml(m.error.message)}</pre></div>` : "";
  const unmatched = m.unmatched ? `<p class="note">${escapeHtml(unmatchedNote(m))}</p>` : "";
  return `<section class="${escapeHtml(m.role)}">${htmlHeading(m)}${edit}${unmatched}${m.parts.map((p) => htmlPart(p, style)).join("")}${error}</section>\n`;
}
