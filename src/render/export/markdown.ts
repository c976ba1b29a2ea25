// (the 14 line of markdown-it, which parses in little over half the time of 15: BENCHMARKS.md, "markdown-it 14")
import MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";

/**
 * Message text as Markdown that cannot change the document around it. A message is Markdown the
 * model (or the user) wrote: it is parsed with a CommonMark parser (markdown-it, with GFM tables
 * and strikethrough) and written out again from the parse, so what the export holds is only what
 * the parser saw, in a form that closes itself:
 *
 * - headings sit below the message's own heading (`HEADING_FLOOR`: never level 1-3, the levels
 *   the document's outline uses), setext ones written as ATX;
 * - every block is closed where the message ends: a fence is written with a closing fence longer
 *   than any backtick run inside it, lists and quotes are written whole (the next message's
 *   heading starts a line of its own after a blank line);
 * - nothing is raw HTML: the parser reads HTML as text (`html: false`), and the writer escapes
 *   every character that could start markup (`<` included);
 * - links and images keep only http(s), mailto and relative targets (`allowedTarget`); any other
 *   (`javascript:`, `data:`, `vbscript:` …) is not a link to the parser, so it stays visible
 *   as the text it was; reference definitions are consumed by the parse and links written
 *   inline, so no `[label]` can reach a definition in another message.
 *
 * `renderHtml` turns the result into HTML with the same parser, raw HTML escaped and targets
 * filtered the same way.
 */

/** The shallowest heading level a message's own heading may take (the export's are 1 and 3). */
export const HEADING_FLOOR = 4;

/** Link and image targets a message may keep: http(s), mailto, and relative ones (not `//host`). */
export function allowedTarget(url: string): boolean {
  const target = url.trim();
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(target);
  if (scheme) return /^(https?|mailto)$/i.test(scheme[1]!);
  return !target.startsWith("//") && !target.startsWith("\\\\");
}

function parser(): MarkdownIt {
  const md = new MarkdownIt("default", { html: false, linkify: false, typographer: false });
  md.validateLink = allowedTarget;
  return md;
}

let md: MarkdownIt | undefined;
/** The parser, made on first use (an export without Markdown text never loads its rules). */
function markdownIt(): MarkdownIt {
  md ??= parser();
  return md;
}

// ---------------------------------------------------------------- the parse as a tree

interface Node {
  token: Token;
  /** For an `_open` token: the tokens up to its `_close`. */
  children: Node[];
}

function tree(tokens: Token[]): Node[] {
  const root: Node[] = [];
  const stack: Node[][] = [root];
  for (const token of tokens) {
    if (token.nesting === -1) {
      stack.pop();
      continue;
    }
    const node: Node = { token, children: [] };
    stack[stack.length - 1]!.push(node);
    if (token.nesting === 1) stack.push(node.children);
  }
  return root;
}

// ---------------------------------------------------------------- inline text

/**
 * Characters that can start inline markup anywhere on a line (and `|`, a table cell's end; `$`,
 * math on GitHub), `_` aside: as a character class's body, so that the escaping's replace and its
 * fast path (`onlyWordUnderscores`) read one list.
 */
const SPECIAL = "\\\\`*[\\]<&|~$";
const INLINE_SPECIAL = new RegExp(`[${SPECIAL}_]`, "g");
/** What `escapeText` may escape, but for `_`. */
const SPECIAL_BUT_UNDERSCORE = new RegExp(`[${SPECIAL}]`);
/** What can start a block at the start of a line: a heading, quote, list item, setext underline or ordered item. */
const LINE_START = /^([#>+=-])|^(\d{1,9})([.)])/;

/** A word's character, for `_` inside a word: an ASCII letter or digit (NaN, past the text's ends, is none). */
const isWordCode = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** Whether the `_` at `at` stands inside a word (`snake_case`), where CommonMark never reads it as emphasis. */
const isWordUnderscore = (text: string, at: number) => isWordCode(text.charCodeAt(at - 1)) && isWordCode(text.charCodeAt(at + 1));

/**
 * Whether `text` holds nothing `escapeText`'s replace would change: no markup character but `_`
 * inside words (`HEARTBEAT_OK`, `snake_case`), or none at all. It is then kept whole.
 */
function onlyWordUnderscores(text: string): boolean {
  if (SPECIAL_BUT_UNDERSCORE.test(text)) return false;
  for (let at = text.indexOf("_"); at !== -1; at = text.indexOf("_", at + 1)) if (!isWordUnderscore(text, at)) return false;
  return true;
}

/** A line that begins with none of these is not changed by `escapeText`'s line-start rules. */
const isLineStartCode = (c: number) => c === 32 || c === 9 || c === 35 || c === 62 || c === 43 || c === 61 || c === 45 || (c >= 48 && c <= 57);

/**
 * Text as Markdown that shows exactly it, with nothing in it read as markup. Every character that
 * can begin inline markup is escaped, but for three that only read as text where they stand, left
 * as they are so that a message reads as written: `_` inside a word (`snake_case`: CommonMark
 * never opens or closes emphasis there), and `[` and `]` inside a line of text, where they can
 * only become a link by a `](` (escaped) or a reference definition (the export writes none, and
 * a `]:` is escaped). `inLink`: inside a link's text, where an open bracket would move the link.
 */
function escapeText(text: string, atLineStart: boolean, inHeading: boolean, inLink = false, next = ""): string {
  let out = onlyWordUnderscores(text) ? text : text.replace(INLINE_SPECIAL, (c: string, at: number) => {
    if (c === "_" && isWordUnderscore(text, at)) return c;
    if (c === "[" && !inLink && !(at === 0 && atLineStart)) return c;
    // (a task list's box, `[ ]` or `[x]`, begins no reference definition: its `]` is followed by a space)
    if (c === "[" && !inLink && TASK_BOX.test(text.slice(at, at + 4))) return c;
    if (c === "]" && !inLink) {
      const after = at + 1 < text.length ? text[at + 1] : next;
      if (after !== "(" && after !== ":") return c;
    }
    return `\\${c}`;
  });
  if (inHeading) out = out.replace(/#/g, "\\#");
  if (atLineStart && isLineStartCode(out.charCodeAt(0))) {
    // (spaces that begin a line would indent it into a code block: as entities they are text)
    out = out.replace(/^[ \t]+/, (ws) => ws.replace(/ /g, "&#32;").replace(/\t/g, "&#9;"));
    out = out.replace(LINE_START, (_m, c?: string, digits?: string, delimiter?: string) => (c ? `\\${c}` : `${digits}\\${delimiter}`));
  }
  return out;
}

/** The first character a token writes (for whether a `]` before it could begin a link's target). */
function firstChar(t: Token | undefined): string {
  if (!t) return "";
  switch (t.type) {
    case "text":
    case "text_special":
    case "html_inline":
      return t.content[0] ?? "";
    case "code_inline":
      return "`";
    case "link_open":
      return "[";
    case "image":
      return "!";
    case "em_open":
    case "em_close":
    case "strong_open":
    case "strong_close":
      return "*";
    case "s_open":
    case "s_close":
      return "~";
    default:
      return "\n"; // a line break
  }
}

/** An inline code span holding `text` (a fence of backticks no run inside it matches). */
function codeSpan(text: string): string {
  let n = 1;
  // a run of exactly n backticks inside would close it: take the first length no run has
  const runs = new Set((text.match(/`+/g) ?? []).map((r) => r.length));
  while (runs.has(n)) n++;
  const fence = "`".repeat(n);
  const pad = text.startsWith("`") || text.endsWith("`") || (text.startsWith(" ") && text.endsWith(" ") && text.trim() !== "") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A link or image target, in angle brackets (the parser gave it percent-encoded: no `<`, `>` or line end is left in it). */
function target(url: string): string {
  return `<${url.replace(/[<>\n\r\\]/g, (c) => encodeURIComponent(c))}>`;
}

interface InlineState {
  atLineStart: boolean;
  inHeading: boolean;
  /** Inside a link's text or an image's description. */
  inLink?: boolean;
}

/** The delimiters of emphasis, strong emphasis and strikethrough, by the tag their tokens carry. */
const EMPHASIS: Record<string, string> = { em: "*", strong: "**", s: "~~" };

function inline(tokens: Token[] | null, state: InlineState): string {
  let out = "";
  /** The targets of the links being written (a link's text is the tokens between its open and close). */
  const links: string[] = [];
  const list = tokens ?? [];
  for (let i = 0; i < list.length; i++) {
    const t = list[i]!;
    switch (t.type) {
      case "text":
      case "text_special":
      case "html_inline": {
        // (a text never holds a line end; were one there, each line would start a line)
        const lines = t.content.split("\n");
        lines.forEach((line, k) => {
          if (k > 0) {
            out += state.inHeading ? " " : "\n";
            state.atLineStart = !state.inHeading;
          }
          if (line) {
            out += escapeText(line, state.atLineStart, state.inHeading, state.inLink || links.length > 0, k + 1 < lines.length ? "\n" : firstChar(list[i + 1]));
            state.atLineStart = false;
          }
        });
        break;
      }
      case "softbreak":
        out += state.inHeading ? " " : "\n";
        state.atLineStart = !state.inHeading;
        break;
      case "hardbreak":
        out += state.inHeading ? " " : "\\\n";
        state.atLineStart = !state.inHeading;
        break;
      case "code_inline":
        out += codeSpan(t.content);
        state.atLineStart = false;
        break;
      case "em_open":
      case "em_close":
      case "strong_open":
      case "strong_close":
      case "s_open":
      case "s_close":
        out += EMPHASIS[t.tag]!;
        state.atLineStart = false;
        break;
      case "link_open":
        // (a `!` of text just before would make the link an image)
        if (out.endsWith("!")) out = `${out.slice(0, -1)}\\!`;
        out += "[";
        links.push(String(t.attrGet("href") ?? ""));
        state.atLineStart = false;
        break;
      case "link_close":
        out += `](${target(links.pop() ?? "")})`;
        break;
      case "image": {
        out += `![${inline(t.children, { atLineStart: false, inHeading: true, inLink: true })}](${target(String(t.attrGet("src") ?? ""))})`;
        state.atLineStart = false;
        break;
      }
      default:
        // (no other inline token comes from this parser's rules)
        out += escapeText(t.content, state.atLineStart, state.inHeading, true);
        state.atLineStart = false;
    }
  }
  return out;
}

// ---------------------------------------------------------------- blocks

/** A fenced code block that nothing inside it can close. */
function fenced(content: string, info: string): string[] {
  const body = content.endsWith("\n") ? content.slice(0, -1) : content;
  let longest = 0;
  for (const run of body.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(Math.max(3, longest + 1));
  // The info string names a language: one word, no backtick (which would end it).
  const language = (/^[\w+#.-]+/.exec(info.trim()) ?? [""])[0];
  return [`${fence}${language}`, ...(body === "" && !content ? [] : body.split("\n")), fence];
}

/** How a message is written: the level its headings start from. */
interface Writing {
  floor: number;
}

function blocks(nodes: Node[], w: Writing, tight = false): string[] {
  const out: string[] = [];
  let previous: Node | undefined;
  for (const node of nodes) {
    const lines = block(node, w, tight);
    if (lines === undefined) continue;
    // Blocks are apart by a blank line, but in a tight list item, where a blank line would make
    // the list loose: there a block that cannot be read into the one before follows its line.
    if (previous !== undefined && !(tight && followsDirectly(previous, node))) out.push("");
    out.push(...lines);
    previous = node;
  }
  return out;
}

/** Whether `node` can start on the line after the block `previous` and stay a block of its own. */
function followsDirectly(previous: Node, node: Node): boolean {
  switch (node.token.type) {
    case "bullet_list_open":
    case "ordered_list_open":
      return interrupts(node);
    case "fence":
    case "code_block":
    case "hr":
    case "heading_open":
      return true;
    case "blockquote_open":
      return previous.token.type !== "blockquote_open"; // (two quotes in a row would be one)
    case "paragraph_open":
      // (a line of text after a paragraph or table, even one deep in a quote or list, continues it)
      return !endsOpen(previous);
    default:
      return false;
  }
}

/** Whether a block's last line is a paragraph's or a table's (its own, or its last child's, however deep): a line of text would continue it. */
function endsOpen(node: Node): boolean {
  if (node.token.type === "paragraph_open" || node.token.type === "table_open") return true;
  const last = node.children[node.children.length - 1];
  return last !== undefined && endsOpen(last);
}

/**
 * Whether a list can start on the line after a paragraph's: a bullet list, or an ordered one from
 * 1, whose first item is not empty (an empty `-` there would underline the line as a heading).
 */
function interrupts(node: Node): boolean {
  const t = node.token;
  if (t.type !== "bullet_list_open" && t.type !== "ordered_list_open") return false;
  if (t.type === "ordered_list_open" && Number(t.attrGet("start") ?? 1) !== 1) return false;
  return (node.children[0]?.children.length ?? 0) > 0;
}

function block(node: Node, w: Writing, tight: boolean): string[] | undefined {
  const t = node.token;
  switch (t.type) {
    case "paragraph_open":
      return inline(node.children[0]?.token.children ?? null, { atLineStart: true, inHeading: false }).split("\n");
    case "heading_open": {
      const level = Math.min(6, Number(t.tag.slice(1)) + w.floor - 1);
      const text = inline(node.children[0]?.token.children ?? null, { atLineStart: false, inHeading: true }).trim();
      return [`${"#".repeat(level)}${text ? ` ${text}` : ""}`];
    }
    case "blockquote_open": {
      const lines = blocks(node.children, w);
      return lines.length === 0 ? [">"] : lines.map((line) => (line ? `> ${line}` : ">"));
    }
    case "bullet_list_open":
    case "ordered_list_open": {
      const ordered = t.type === "ordered_list_open";
      let number = ordered ? Number(t.attrGet("start") ?? 1) : 0;
      // Keep the source's marker: a list with another marker is another list.
      const marker = t.markup || (ordered ? "." : "-");
      const loose = node.children.some((item) => item.children.some((c) => c.token.type === "paragraph_open" && !c.token.hidden));
      const out: string[] = [];
      node.children.forEach((item, k) => {
        if (k > 0 && loose) out.push("");
        const head = ordered ? `${number++}${marker} ` : `${marker} `;
        const lines = blocks(item.children, w, !loose);
        const indent = " ".repeat(head.length);
        if (lines.length === 0) out.push(head.trimEnd());
        // (empty items nested on one line, `- - -`, would read as a rule: the content starts below)
        else if (THEMATIC_BREAK.test(head + lines[0])) out.push(head.trimEnd(), ...lines.map((line) => (line ? indent + line : "")));
        else lines.forEach((line, j) => out.push(j === 0 ? head + line : line ? indent + line : ""));
      });
      return out;
    }
    case "fence":
    case "code_block":
      return fenced(t.content, t.type === "fence" ? t.info : "");
    case "hr":
      return ["***"];
    case "table_open":
      return table(node);
    case "html_block":
      // (not made with html: false; were one made, it would be text)
      return t.content.trim().split("\n").map((line) => escapeText(line, true, false));
    default:
      return node.children.length > 0 ? blocks(node.children, w, tight) : undefined;
  }
}

/** A line that is a thematic break (three or more of one of `-`, `*`, `_`, spaces between). */
const THEMATIC_BREAK = /^ {0,3}([-*_])(?: *\1){2,} *$/;

/** A GFM table, each cell's text escaped (`|` included). */
function table(node: Node): string[] {
  const rows: Array<{ cells: string[]; aligns: string[] }> = [];
  const walk = (n: Node) => {
    if (n.token.type === "tr_open") {
      const cells: string[] = [];
      const aligns: string[] = [];
      for (const cell of n.children) {
        cells.push(inline(cell.children[0]?.token.children ?? null, { atLineStart: false, inHeading: false }).trim());
        aligns.push(/text-align:(left|right|center)/.exec(String(cell.token.attrGet("style") ?? ""))?.[1] ?? "");
      }
      rows.push({ cells, aligns });
      return;
    }
    for (const c of n.children) walk(c);
  };
  walk(node);
  if (rows.length === 0) return [];
  const columns = rows[0]!.cells.length;
  const row = (cells: string[]) => `| ${Array.from({ length: columns }, (_, k) => cells[k] ?? "").join(" | ")} |`;
  const rule = rows[0]!.aligns.map((a) => (a === "left" ? ":---" : a === "right" ? "---:" : a === "center" ? ":---:" : "---"));
  return [row(rows[0]!.cells), `| ${rule.join(" | ")} |`, ...rows.slice(1).map((r) => row(r.cells))];
}

/**
 * `text` (Markdown) as Markdown that shows the same and cannot change the document around it, its
 * headings from level `floor` down (a level-1 heading becomes `floor`, and so on, 6 at most).
 */
export function safeMarkdown(text: string, floor = HEADING_FLOOR): string {
  return plainParagraphs(text) ?? writeFromParse(text, floor);
}

/** `safeMarkdown` by the parse, for any text (`plainParagraphs` is the shortcut for prose). */
export function writeFromParse(text: string, floor = HEADING_FLOOR): string {
  return blocks(tree(markdownIt().parse(text, {})), { floor }).join("\n");
}

/**
 * Prose that the parser reads as paragraphs of plain text, a text a line (most messages: a
 * heartbeat, a short question), written without the parse: its paragraphs, each line escaped as
 * the parse's writer escapes a text. Undefined for any other text.
 */
function plainParagraphs(text: string): string | undefined {
  if (!isPlainProse(text)) return undefined;
  return paragraphs(text)
    .map((p) => p.map((line) => escapeText(line, true, false)).join("\n"))
    .join("\n\n");
}

/** A plain text's paragraphs, as lines (blank lines between paragraphs, however many, end one). */
function paragraphs(text: string): string[][] {
  if (!text.includes("\n")) return text === "" ? [] : [[text]];
  let from = 0;
  let to = text.length;
  while (from < to && text.charCodeAt(from) === 10) from++;
  while (to > from && text.charCodeAt(to - 1) === 10) to--;
  const trimmed = text.slice(from, to);
  return trimmed === "" ? [] : trimmed.split(/\n{2,}/).map((p) => p.split("\n"));
}

/**
 * Whether the parser reads a text as paragraphs of plain text, one text a line: nothing in it can
 * begin inline markup (code, emphasis, strikethrough, an HTML tag, an entity, an escape, a link
 * `](` or a definition `]:`; `_` only inside words), and no line starts a block (`LINE_START`) or
 * starts or ends with a space or tab (indented code, a hard break), or holds a `|` (a table).
 */
export function isPlainProse(text: string): boolean {
  // (several simple searches: one pattern of all the alternatives tries each at every character)
  if (MARKUP_CHARACTER.test(text) || startsBlock(text, 0)) return false;
  const last = text.charCodeAt(text.length - 1);
  if (last === 32 || last === 9) return false;
  // (each line's start and end, found by its line break)
  for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", nl + 1)) {
    const before = text.charCodeAt(nl - 1);
    if (before === 32 || before === 9 || startsBlock(text, nl + 1)) return false;
  }
  if (text.includes("]") && LINK_BRACKET.test(text)) return false;
  return !text.includes("_") || !EMPHASIS_UNDERSCORE.test(text);
}

/** What `isPlainProse` declines (a CR never reaches here: the export cleans line ends). */
const MARKUP_CHARACTER = /[\\`*<&|~\r]/;
/** Whether the line that starts at `at` begins a block (`LINE_START`), or an indent (a space or tab). */
function startsBlock(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  if (c === 35 || c === 62 || c === 43 || c === 61 || c === 45 || c === 32 || c === 9) return true; // # > + = - space tab
  if (c < 48 || c > 57) return false;
  let k = at;
  while (k < text.length && k - at < 10 && text.charCodeAt(k) >= 48 && text.charCodeAt(k) <= 57) k++;
  const d = text.charCodeAt(k);
  return k - at <= 9 && (d === 46 || d === 41); // 1. 1)
}
const TASK_BOX = /^\[[ xX]\]( |$)/;
const LINK_BRACKET = /\](?:[(:]|$)/m;
const EMPHASIS_UNDERSCORE = /(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/;

// ---------------------------------------------------------------- HTML

let htmlRenderer: MarkdownIt | undefined;

/**
 * The HTML of Markdown that `safeMarkdown` wrote: raw HTML escaped, targets filtered again, links
 * that open nothing of this page's, images as links (the page loads nothing from the network).
 */
export function renderHtml(safe: string): string {
  if (!htmlRenderer) {
    const r = parser();
    r.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
      tokens[idx]!.attrSet("rel", "nofollow noopener noreferrer");
      return self.renderToken(tokens, idx, options);
    };
    // A paragraph, a list and a quote take their direction from their own text: Arabic or Hebrew
    // reads right to left, code (its own blocks) stays left to right. A list's items and a quote's
    // paragraphs take the list's or the quote's, so that one list is aligned one way.
    for (const rule of ["paragraph_open", "bullet_list_open", "ordered_list_open", "blockquote_open"] as const) {
      r.renderer.rules[rule] = (tokens, idx, options, _env, self) => {
        const token = tokens[idx]!;
        if (rule !== "paragraph_open" || token.level === 0) token.attrSet("dir", "auto");
        return self.renderToken(tokens, idx, options);
      };
    }
    r.renderer.rules.image = (tokens, idx) => {
      const t = tokens[idx]!;
      const alt = r.utils.escapeHtml(t.content || "image");
      return `<a class="image" href="${r.utils.escapeHtml(String(t.attrGet("src") ?? ""))}" rel="nofollow noopener noreferrer">🖼 ${alt}</a>`;
    };
    htmlRenderer = r;
  }
  return htmlRenderer.render(safe);
}

/** The HTML of a message's Markdown: `renderHtml(safeMarkdown(text))`, for plain prose without the parse (the HTML markdown-it writes for it). */
export function markdownHtml(text: string): string {
  if (!isPlainProse(text)) return renderHtml(safeMarkdown(text));
  return paragraphs(text)
    .map((p) => `<p dir="auto">${escapeHtmlText(p.join("\n"))}</p>\n`)
    .join("");
}

function escapeHtmlText(s: string): string {
  return s.replace(/[&<>"]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;"));
}
