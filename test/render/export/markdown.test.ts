/**
 * safeMarkdown: a message's Markdown written again so that it cannot change the document around
 * it. Checked with commonmark.js (the CommonMark reference, not the parser the export uses) over
 * seeded hostile texts, the fixtures' and the corpus' user and assistant texts.
 */
import markdownItFactory from "markdown-it";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allowedTarget, HEADING_FLOOR, isPlainProse, markdownHtml, renderHtml, safeMarkdown, writeFromParse } from "../../../src/render/export/markdown.js";
import { rng } from "../../helpers/generate.js";
import { adversarialText, commonmark, headings, htmlNodes, markdownItText, targets, visibleText } from "../../helpers/markdown.js";
import { corpusFiles, fixtureFiles } from "../../helpers/paths.js";

const SEEDS = Number(process.env.FUZZ_SEEDS ?? 1);

/** markdown-it's own HTML of Markdown, set up as the export's renderer is but with no rule of ours. */
const reference = markdownItFactory("default", { html: false });
reference.validateLink = allowedTarget;
const markdownItHtml = (md: string) => reference.render(md);

/** Hostile texts (seeded), and every user and assistant text of the fixtures and the corpus. */
function texts(): string[] {
  const out: string[] = [];
  const r = rng(1300 + SEEDS);
  for (let i = 0; i < 400 * SEEDS; i++) out.push(adversarialText(r));
  for (const file of [...fixtureFiles(), ...corpusFiles()]) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      let e: { type?: string; message?: { role?: string; content?: unknown } };
      try {
        e = JSON.parse(line);
      } catch {
        continue;
      }
      if (e.type !== "message" || !["user", "assistant"].includes(e.message?.role ?? "")) continue;
      const c = e.message!.content;
      if (typeof c === "string") out.push(c);
      else if (Array.isArray(c)) for (const b of c) if (b?.type === "text" && typeof b.text === "string") out.push(b.text);
    }
  }
  return out;
}

// eslint-disable-next-line no-control-regex
const normalise = (s: string) => s.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");

describe("safeMarkdown", () => {
  const all = texts();

  it("holds no raw HTML, no heading above the message's own, and no target but http(s), mailto or relative", () => {
    for (const t of all) {
      const doc = commonmark(safeMarkdown(normalise(t)));
      expect(htmlNodes(doc), JSON.stringify(t)).toEqual([]);
      for (const h of headings(doc)) expect(h.level, JSON.stringify(t)).toBeGreaterThanOrEqual(HEADING_FLOOR);
      for (const url of targets(doc)) expect(allowedTarget(url) && !/^\s*(javascript|vbscript|data|file):/i.test(decodeURIComponent(url)), `${url} in ${JSON.stringify(t)}`).toBe(true);
    }
  });

  it("shows what the text shows (the same visible text through the export's parser), and is its own result", () => {
    // Emphasis is the one thing a rewrite may read differently: which `*` and `_` runs pair up
    // depends on the lengths of the runs around them (CommonMark's "rule of 3"), and a run can
    // change where a leftover delimiter becomes an escaped character. Whether a run shows as a
    // star or as italics is compared without them; every other character must match.
    const unemphasised = (s: string) => s.replace(/[*_]/g, "").replace(/\s+/g, " ").trim();
    for (const t of all) {
      const text = normalise(t);
      expect(unemphasised(markdownItText(safeMarkdown(text))), JSON.stringify(t)).toBe(unemphasised(markdownItText(text)));
      // Written again (headings left where they are), it is written the same: nothing was left to
      // read differently. Emphasis aside, as above (a text with a star or underscore is not asked),
      // and blank lines: whether a list is tight (a blank line between its blocks makes it loose)
      // is where CommonMark parsers disagree most, and it changes spacing only.
      if (/[*_]/.test(text)) continue;
      const same = safeMarkdown(text, 1);
      const lines = (s: string) => s.replace(/\n{2,}/g, "\n");
      expect(lines(safeMarkdown(same, 1)), JSON.stringify(t)).toBe(lines(same));
    }
  });

  it("cannot reach past its end: between two headings, each message reads as it reads alone", () => {
    const r = rng(77);
    for (let i = 0; i < 300 * SEEDS; i++) {
      const a = safeMarkdown(normalise(all[Math.floor(r() * all.length)]!));
      const b = safeMarkdown(normalise(all[Math.floor(r() * all.length)]!));
      const doc = commonmark(`### First\n\n${a}\n\n### Second\n\n${b}\n\n### Third\n`);
      const outline = headings(doc).filter((h) => h.level <= 3);
      expect(outline, JSON.stringify([a, b])).toEqual([
        { level: 3, text: "First" },
        { level: 3, text: "Second" },
        { level: 3, text: "Third" },
      ]);
      // the top-level blocks between the headings are each message's, and show what it shows alone
      const sections: string[] = [];
      for (let n = doc.firstChild; n; n = n.next) {
        if (n.type === "heading" && n.level === 3) sections.push("");
        else sections[sections.length - 1] += ` ${visibleText(n)}`;
      }
      expect(sections.map((s) => s.replace(/\s+/g, " ").trim())).toEqual([visibleText(commonmark(a)), visibleText(commonmark(b)), ""]);
    }
  });

  it("keeps the Markdown a reader wants: tables, code, lists, emphasis and safe links", () => {
    const safe = safeMarkdown("## Plan\n\n| step | cost |\n|:--|--:|\n| a | 1 |\n\n```ts\nconst x = 1;\n```\n\n- one\n- *two*\n\nSee [docs](https://example.com) and [x](javascript:alert(1)).");
    expect(safe).toBe("##### Plan\n\n| step | cost |\n| :--- | ---: |\n| a | 1 |\n\n```ts\nconst x = 1;\n```\n\n- one\n- *two*\n\nSee [docs](<https://example.com>) and [x\\](javascript:alert(1)).");
    const html = renderHtml(safe);
    expect(html).toContain("<table>");
    expect(html).toContain('<pre><code class="language-ts">const x = 1;\n</code></pre>');
    expect(html).toContain('<a href="https://example.com" rel="nofollow noopener noreferrer">docs</a>');
    expect(html).toContain("[x](javascript:alert(1))");
    expect(html).not.toMatch(/href="javascript/i);
  });

  it("closes what a message leaves open, and writes raw HTML as text", () => {
    expect(safeMarkdown("```js\nunclosed")).toBe("```js\nunclosed\n```");
    expect(safeMarkdown("> quote\nlazy")).toBe("> quote\n> lazy");
    expect(safeMarkdown("<script>alert(1)</script>")).toBe("\\<script>alert(1)\\</script>");
    expect(safeMarkdown("[a]: https://x.example\n\n[a]")).toBe("[a](<https://x.example>)");
    expect(safeMarkdown("Title\n===")).toBe("#### Title");
    // characters that cannot begin markup where they stand are left as written
    expect(safeMarkdown("HEARTBEAT_OK, a_b and a > b; [x] but [y](z), [w]: v, _em_ and $5")).toBe("HEARTBEAT_OK, a_b and a > b; [x] but [y](<z>), [w\\]: v, *em* and \\$5");
    expect(safeMarkdown("[OpenClaw heartbeat poll] hi")).toBe("\\[OpenClaw heartbeat poll] hi");
    // `_` is left only inside a word of ASCII letters and digits: at a word's edge, doubled, or beside
    // another letter it is escaped (a text of word underscores alone is kept whole, without a replace)
    expect(safeMarkdown("snake_case, x_1 y_2_z and HEARTBEAT_OK")).toBe("snake_case, x_1 y_2_z and HEARTBEAT_OK");
    expect(safeMarkdown("trailing_ and _leading")).toBe("trailing\\_ and \\_leading");
    expect(safeMarkdown("a__b é_x 3_ a_")).toBe("a\\_\\_b é\\_x 3\\_ a\\_");
    expect(safeMarkdown("_")).toBe("\\_");
    expect(safeMarkdown("3_ items")).toBe("3\\_ items");
  });
});

describe("allowedTarget", () => {
  it("allows http(s), mailto and relative targets only", () => {
    for (const ok of ["https://a.b/c", "HTTP://x", "mailto:a@b.c", "./x.md", "x/y", "#anchor", "?q=1"]) expect(allowedTarget(ok), ok).toBe(true);
    for (const bad of ["javascript:alert(1)", " JavaScript:x", "vbscript:x", "data:text/html,x", "data:image/png;base64,AA", "file:///etc/passwd", "//evil.example", "\\\\host\\share"]) expect(allowedTarget(bad), bad).toBe(false);
  });
});

describe("the shortcut for prose", () => {
  it("writes what the parse writes, Markdown and HTML, for every text it takes (and declines the rest)", () => {
    const r = rng(4711);
    const words = ["the", "quick", "fix", "42", "HEARTBEAT_OK", "é", "日本語", "2024.", "a-b", "x:y", "(ok)", "\"q\"", "'s", "🙂", "#tag", "1)", "+1", "=", "-", "[OpenClaw", "poll]", "[x]", "a>b", "$5", "_x", "y_", "a]b", "!"];
    const prose: string[] = [];
    for (let i = 0; i < 2000; i++) {
      let t = "";
      const n = Math.floor(r() * 30);
      for (let k = 0; k < n; k++) t += words[Math.floor(r() * words.length)] + (r() < 0.1 ? "\n" : r() < 0.05 ? "\n\n\n" : r() < 0.03 ? "  " : " ");
      prose.push(t);
    }
    let taken = 0;
    for (const t of [...prose, ...texts().map(normalise)]) {
      const slow = writeFromParse(t);
      expect(safeMarkdown(t), JSON.stringify(t)).toBe(slow);
      if (!isPlainProse(t)) continue;
      taken++;
      expect(markdownHtml(t), JSON.stringify(t)).toBe(renderHtml(slow));
      // (which is markdown-it's own HTML but for the direction each paragraph takes from its text)
      expect(markdownHtml(t).replaceAll(' dir="auto"', ""), JSON.stringify(t)).toBe(markdownItHtml(slow));
    }
    // (most generated prose is plain; the hostile texts are not)
    expect(taken).toBeGreaterThan(500);
  });
});

describe("the direction of a block", () => {
  it("a list and a quote are aligned as one, by their own text; a paragraph alone by its own", () => {
    // (an Arabic list whose second item starts with an English word: each item its own direction would align them apart)
    const list = renderHtml(safeMarkdown("- الملفات اللي أنشأتها\n- README فيه الشرح\n"));
    expect(list).toMatch(/^<ul dir="auto">\n<li>الملفات/);
    expect(list).not.toMatch(/<li dir=/);
    const loose = renderHtml(safeMarkdown("1. أولاً\n\n2. Second\n"));
    expect(loose).toMatch(/^<ol dir="auto">/);
    expect(loose).not.toMatch(/<p dir=/);
    const quote = renderHtml(safeMarkdown("> سطر\n>\n> line\n"));
    expect(quote).toMatch(/^<blockquote dir="auto">\n<p>سطر/);
    expect(renderHtml(safeMarkdown("مرحبا\n\nhello\n"))).toBe('<p dir="auto">مرحبا</p>\n<p dir="auto">hello</p>\n');
  });
});
