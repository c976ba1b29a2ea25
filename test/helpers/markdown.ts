/**
 * Adversarial Markdown for the export's property tests, and what a CommonMark reader makes of a
 * document: commonmark.js, the reference implementation (not the parser the export uses).
 */
import { Parser, type Node } from "commonmark";
import markdownItFactory from "markdown-it";
import { allowedTarget } from "../../src/render/export/markdown.js";

/** Pieces of hostile Markdown: every construct that could reach past a message's end. */
const PIECES = [
  "```", "````", "`````", "~~~", "~~~~", "```js", "~~~ python", "``", "`", // fences and code spans, both characters, closed or not
  "# heading", "## h2", "###### h6", "####### seven", "#no-space", " # indented heading", "Title\n=====", "Title\n-----", "text\n---", // ATX and setext
  "<div>", "</div>", "<details><summary>x</summary>", "</details>", "<script>alert(1)</script>", "<!-- comment", "-->", "<?php ?>", "<![CDATA[ x ]]>", "<img src=x onerror=alert(1)>", "<a href=\"javascript:alert(1)\">x</a>", // raw HTML
  "[ref]: http://evil.example/", "[ref]", "[Ref][ref]", "[x]: <javascript:alert(1)>", "[label]: /relative 'title'", "[label]", // reference definitions and uses
  "- item", "* item", "+ item", "1. one", "2) two", "10. ten", "-", "  - nested", "    - deep", // lists left open
  "> quote", "> > nested quote", ">", "> - quoted item", // blockquotes left open
  "| a | b |", "| --- | :-: |", "| 1 | 2 |", "a | b", "--- | ---", // tables
  "&amp;", "&lt;script&gt;", "&#106;avascript:", "&nbsp;", "&#x1F600;", "&copy", // entities
  "[link](javascript:alert(1))", "[link](JAVASCRIPT:alert(1))", "[link](vbscript:x)", "[link](data:text/html,<b>x</b>)", "![img](data:image/png;base64,AAAA)", "[ok](https://example.com)", "[ok](mailto:a@b.c)", "[ok](./rel.md)", "[proto](//evil.example)", "<https://example.com>", "<javascript:alert(1)>", "![remote](https://example.com/x.png)", // links and images
  "\u200b", "\u200bhidden\u200b", "\u2060", "\ufeff", "\u202e", "\u2066", "\u200e", "\u200f", "\u061c", // zero-width and bidi
  "\r\n", "\r", "\t", "    code", "\ttabbed", // line ends and indentation
  "*em*", "**strong**", "_em_", "__strong__", "***both***", "~~strike~~", "snake_case_name", "a*b*c", "\\", "\\*", "$x$", "$$", // inline
  "***", "___", "- - -", "===", // thematic breaks and underlines
  "plain words", "more text here", "", // prose
];
const SEPARATORS = ["\n", "\n\n", " ", "", "\n    ", "\n  ", "\n> ", "\n- "];

/** A seeded hostile message text. */
export function adversarialText(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  let out = "";
  const n = 1 + Math.floor(r() * 12);
  for (let i = 0; i < n; i++) out += pick(PIECES) + pick(SEPARATORS);
  return r() < 0.3 ? out.trimEnd() : out;
}

/** Parsed by commonmark.js, the CommonMark reference. */
export function commonmark(md: string): Node {
  return new Parser().parse(md);
}

/** The text a reader sees of a node (text and code, without markup), whitespace runs as one space. */
export function visibleText(node: Node): string {
  let out = "";
  const walker = node.walker();
  for (let e = walker.next(); e; e = walker.next()) {
    if (!e.entering) {
      if (e.node.isContainer && e.node.type !== "emph" && e.node.type !== "strong" && e.node.type !== "link" && e.node.type !== "image") out += " ";
      continue;
    }
    const n = e.node;
    if (n.type === "text" || n.type === "code" || n.type === "code_block" || n.type === "html_inline" || n.type === "html_block") out += n.literal ?? "";
    else if (n.type === "softbreak" || n.type === "linebreak" || n.type === "thematic_break") out += " ";
    if (n.type === "code_block" || n.type === "html_block" || n.type === "heading" || n.type === "paragraph") out += " ";
  }
  return out.replace(/\s+/g, " ").trim();
}

/** The headings of a document (top level or nested), with their levels and text. */
export function headings(doc: Node): Array<{ level: number; text: string }> {
  const out: Array<{ level: number; text: string }> = [];
  const walker = doc.walker();
  for (let e = walker.next(); e; e = walker.next()) if (e.entering && e.node.type === "heading") out.push({ level: e.node.level, text: visibleText(e.node) });
  return out;
}

/** The raw HTML of a document (blocks and inline). */
export function htmlNodes(doc: Node): string[] {
  const out: string[] = [];
  const walker = doc.walker();
  for (let e = walker.next(); e; e = walker.next()) if (e.entering && (e.node.type === "html_block" || e.node.type === "html_inline")) out.push(e.node.literal ?? "");
  return out;
}

/** Link and image targets of a document. */
export function targets(doc: Node): string[] {
  const out: string[] = [];
  const walker = doc.walker();
  for (let e = walker.next(); e; e = walker.next()) if (e.entering && (e.node.type === "link" || e.node.type === "image")) out.push(e.node.destination ?? "");
  return out;
}

/** What markdown-it (GFM tables), set up as the export's parser, shows of Markdown: its rendered HTML's text. */
const mdIt = markdownItFactory("default", { html: false });
mdIt.validateLink = allowedTarget;
export function markdownItText(md: string): string {
  return mdIt
    .render(md)
    .replace(/<\/?(em|strong|s|a|code)\b[^>]*>/g, "")
    .replace(/<[^>]*>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}
