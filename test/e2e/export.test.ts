/**
 * export, spawned for real. Reviewed snapshots of the fixtures in both modes (rendered Markdown by
 * default; `--literal`, today's contract, equal to the snapshots taken before Markdown was
 * rendered); property tests with commonmark.js (the CommonMark reference) over generated sessions
 * with planted hostile text, and over the corpus; planted credentials of every kind in all three
 * formats; the HTML page's safety.
 */
import type { Node } from "commonmark";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { leaked, secrets } from "../helpers/secrets.js";
import { cli, cliJson } from "../helpers/cli.js";
import { generateSession, rng } from "../helpers/generate.js";
import { corpusFiles, fixture } from "../helpers/paths.js";
import { adversarialText, commonmark, headings, htmlNodes, targets, visibleText } from "../helpers/markdown.js";
import { pi } from "../helpers/pi.js";

type Rec = Record<string, any>;
const records = (path: string): Rec[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return []; // a corrupt line (the fused corpus file)
      }
    });

/** Every code block's text in a Markdown document (nested ones included). */
function codeBlocks(md: string): string[] {
  const out: string[] = [];
  const walker = commonmark(md).walker();
  for (let e = walker.next(); e; e = walker.next()) if (e.entering && e.node.type === "code_block") out.push(e.node.literal ?? "");
  return out;
}

/** Markdown with its backslash escapes undone (CommonMark escapes any ASCII punctuation). */
const unescaped = (md: string) => md.replace(/\\([!-/:-@[-`{-~])/g, "$1");

/** What export shows of a text: control characters gone, line ends LF. */
// eslint-disable-next-line no-control-regex
const shown = (s: string) => s.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");

/** The user and assistant texts on the branch that ends at the file's last entry. */
function branchTexts(path: string): string[] {
  const entries = records(path).slice(1);
  const byId = new Map(entries.map((e) => [e.id, e]));
  const texts: string[] = [];
  for (let e = entries[entries.length - 1]; e; e = e.parentId ? byId.get(e.parentId) : undefined) {
    if (e.type !== "message" || !["user", "assistant"].includes(e.message?.role)) continue;
    const c = e.message.content;
    if (typeof c === "string") texts.push(c);
    else if (Array.isArray(c)) for (const b of c) if (b?.type === "text") texts.push(b.text);
  }
  return texts;
}

function expectIntact(md: string, texts: string[], where: string) {
  const blocks = new Set(codeBlocks(md).map((b) => b.replace(/\n$/, "")));
  for (const t of texts) expect(blocks.has(shown(t).replace(/\n$/, "")), `${where}: text not intact: ${JSON.stringify(t.slice(0, 80))}`).toBe(true);
}

const SNAPSHOTTED = ["linear.jsonl", "branched.jsonl", "compacted.jsonl", "escapes.jsonl", "v1.jsonl", "harness.jsonl", "tools.jsonl"];

describe("export snapshots", () => {
  it.each(SNAPSHOTTED)("%s matches its reviewed snapshots, Markdown and HTML", async (name) => {
    for (const format of ["md", "html"]) {
      const r = await cli(["export", fixture(name), "--format", format]);
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toBe("");
      await expect(r.stdout).toMatchFileSnapshot(`__snapshots__/export/${name.replace(".jsonl", `.${format}`)}`);
    }
  });

  it.each(SNAPSHOTTED)("%s with --literal is the export as it was before Markdown was rendered", async (name) => {
    for (const format of ["md", "html"]) {
      const r = await cli(["export", fixture(name), "--format", format, "--literal"]);
      expect(r.exitCode).toBe(0);
      // (taken from the build before this change, and not rewritten since: `-u` would show here as a diff)
      expect(r.stdout).toBe(readFileSync(join(import.meta.dirname, `__snapshots__/export/literal/${name.replace(".jsonl", `.${format}`)}`), "utf8"));
    }
  });
});

const HOSTILE = ["```", "````", "`", "~~~", "</details>", "<details><summary>x</summary>", "<script>alert(1)</script>", "\u001b]0;title\u0007", "\u001b[2J", "# heading", "[link](javascript:alert(1))", "<!--", "\r\n", "| a | b |", "    indented"];

/** Generated sessions (pi's SessionManager) with hostile text planted into every user and assistant text. */
function hostileSessions(seeds: number[], text: (r: () => number, t: string) => string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-export-"));
  return seeds.map((seed) => {
    const r = rng(seed * 31);
    const file = generateSession({ seed, dir: join(dir, String(seed)), steps: 40 });
    const lines = records(file).map((e) => {
      if (e.type !== "message" || !["user", "assistant"].includes(e.message.role)) return e;
      const c = e.message.content;
      e.message.content = typeof c === "string" ? text(r, c) : c.map((b: Rec) => (b.type === "text" ? { ...b, text: text(r, b.text) } : b));
      return e;
    });
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    return file;
  });
}

/** Entries of the current branch (the last entry's), as pi reads the file. */
function branchOf(file: string): Rec[] {
  const sm = pi.SessionManager.open(file);
  return sm.getBranch() as Rec[];
}

/**
 * The headings the export itself writes for a branch: the title, and one for each entry shown as
 * a message or summary, but for a tool result that comes right after its call (only results, or
 * entries the export does not show, between): that one shows under its call.
 */
function expectedHeadings(file: string): number {
  let headings = 1;
  let waiting = new Set<string>();
  for (const e of branchOf(file)) {
    const role = e.type === "message" ? e.message?.role : undefined;
    if (role === "toolResult" && waiting.has(e.message.toolCallId)) {
      waiting.delete(e.message.toolCallId);
      continue;
    }
    const heading = e.type === "message" || e.type === "custom_message" || e.type === "compaction" || (e.type === "branch_summary" && e.summary);
    const note = e.type === "model_change" || e.type === "thinking_level_change" || (e.type === "session_info" && e.name);
    if (!heading && !note) continue;
    waiting = new Set(role === "assistant" && Array.isArray(e.message.content) ? e.message.content.filter((b: Rec) => b?.type === "toolCall").map((b: Rec) => b.id) : []);
    if (heading) headings++;
  }
  return headings;
}

/** HTML the export writes itself (collapsible sections), the only HTML a Markdown export may hold. */
const OWN_HTML = [/^<details><summary>[^<>]*<\/summary>\n*$/, /^<\/details>\n*$/];

/**
 * The structure of an exported Markdown document, read by a CommonMark reader: its outline is the
 * export's own headings (one for the title, one per message, in order); no HTML but its own; no
 * link but to http(s), mailto or a relative path; and each section (from a heading to the next)
 * reads in the document as it reads alone, so no message reaches into another.
 */
function expectSound(md: string, expected: number, where: string): void {
  const doc = commonmark(md);
  const outline = headings(doc).filter((h) => h.level <= 3);
  expect(outline.length, `${where}: outline ${JSON.stringify(outline.slice(0, 5))}`).toBe(expected);
  expect(outline[0]!.level, where).toBe(1);
  for (const h of outline.slice(1)) expect(h.level, `${where}: ${h.text}`).toBe(3);
  for (const html of htmlNodes(doc)) expect(OWN_HTML.some((re) => re.test(html)), `${where}: raw HTML ${JSON.stringify(html)}`).toBe(true);
  for (const url of targets(doc)) expect(/^(https?:|mailto:|[^:]*$)/i.test(url) && !url.startsWith("//"), `${where}: target ${url}`).toBe(true);
  // sections by the top-level headings' source lines
  const lines = md.split("\n");
  const starts: Node[] = [];
  for (let n = doc.firstChild; n; n = n.next) if (n.type === "heading" && n.level <= 3) starts.push(n);
  starts.forEach((h, k) => {
    const from = h.sourcepos[0][0] - 1;
    const to = k + 1 < starts.length ? starts[k + 1]!.sourcepos[0][0] - 1 : lines.length;
    let inDoc = "";
    for (let n: Node | null = h; n && n !== starts[k + 1]; n = n.next) inDoc += ` ${visibleText(n)}`;
    expect(inDoc.replace(/\s+/g, " ").trim(), `${where}: section ${k}`).toBe(visibleText(commonmark(lines.slice(from, to).join("\n"))));
  });
}

describe("export as Markdown", () => {
  it("reads as the export's own outline, whatever the messages hold (generated sessions with planted hostile Markdown)", async () => {
    const files = hostileSessions([600, 601, 602, 603, 604, 605, 606, 607], (r, t) => `${t}\n\n${adversarialText(r)}`);
    for (const file of files) {
      const out = await cli(["export", file]);
      expect(out.exitCode, file).toBe(0);
      expectSound(out.stdout, expectedHeadings(file), basename(file));
      // eslint-disable-next-line no-control-regex
      expect(out.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff]/);
    }
  });

  it("tool calls read as what they did, and hostile text in their arguments and output changes nothing around them", async () => {
    // every tool call of generated sessions given arguments of pi's own tools (and one unknown
    // tool), each string holding hostile Markdown and HTML: fences, headings, </details>, <script>
    const dir = mkdtempSync(join(tmpdir(), "pi-session-export-tools-"));
    for (const seed of [610, 611, 612, 613, 614, 615]) {
      const r = rng(seed * 17);
      const file = generateSession({ seed, dir: join(dir, String(seed)), steps: 40 });
      const planted: string[] = [];
      const text = () => {
        const t = `${adversarialText(r)}\n${HOSTILE[Math.floor(r() * HOSTILE.length)]}`;
        planted.push(t);
        return t;
      };
      const tools = ["bash", "read", "write", "edit", "ls", "find", "grep", "mcp_tool"];
      const lines = records(file).map((e) => {
        const m = e.message;
        if (e.type !== "message") return e;
        if (m.role === "assistant" && Array.isArray(m.content)) {
          m.content = m.content.map((b: Rec, k: number) => {
            if (b.type !== "toolCall") return b;
            const name = tools[(seed + k + b.id.length) % tools.length]!;
            const args: Rec = { bash: { command: text() }, read: { path: text(), offset: 3, limit: 9 }, write: { path: "x.md", content: text() }, edit: { path: "x.ts", edits: [{ oldText: text(), newText: text() }] }, ls: { path: text() }, find: { pattern: text() }, grep: { pattern: text(), glob: "*.ts" }, mcp_tool: { query: text() } }[name];
            return { ...b, name, arguments: args };
          });
        }
        if (m.role === "toolResult") m.content = [{ type: "text", text: text() }];
        return e;
      });
      writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
      const md = await cli(["export", file, "--tool-results", "full"]);
      expect(md.exitCode, file).toBe(0);
      expectSound(md.stdout, expectedHeadings(file), basename(file));
      // each planted string that shows whole (commands, files, output) sits in a code block as it was
      const blocks = new Set(codeBlocks(md.stdout).map((b) => b.replace(/\n$/, "")));
      const calls = branchOf(file).flatMap((e) => (e.type === "message" && e.message.role === "assistant" && Array.isArray(e.message.content) ? e.message.content.filter((b: Rec) => b.type === "toolCall") : []));
      for (const c of calls) {
        const whole = c.name === "bash" ? c.arguments.command : c.name === "write" ? c.arguments.content : undefined;
        // (as every string of an export that is not literal: control and invisible characters gone)
        if (whole !== undefined) expect(blocks.has(shown(whole).replace(/[\u200b\u2060\ufeff\u180e\u200e\u200f\u061c]/g, "").replace(/\n$/, "")), `${basename(file)}: ${c.name} not intact: ${JSON.stringify(whole)}`).toBe(true);
      }
      // HTML: nothing from the session is markup
      const html = await cli(["export", file, "--format", "html", "--tool-results", "full"]);
      expect(html.stdout).not.toMatch(/<script|<img|<\/details><\/details>|<!--/i);
      expect(html.stdout.match(/<details/g)?.length ?? 0, basename(file)).toBe(html.stdout.match(/<\/details>/g)?.length ?? 0);
    }
  });

  it("the corpus exports as sound Markdown (each branch's outline as pi reads it)", async () => {
    for (const file of corpusFiles()) {
      const out = await cli(["export", file]);
      if (records(file).length < 2) continue; // header only: nothing to export (below)
      expect(out.exitCode, file).toBe(0);
      // (v1 files: pi's branch is the upgraded file's; the concatenated one has entries pi skips)
      if (!/\.v1\./.test(file)) expectSound(out.stdout, expectedHeadings(file), basename(file));
      else expectSound(out.stdout, headings(commonmark(out.stdout)).filter((h) => h.level <= 3).length, basename(file));
    }
  });

  it("renders an assistant's error as a block of its own, not in the heading's facts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-export-"));
    const file = join(dir, "error.jsonl");
    const error = `400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 212345 tokens > 200000 maximum"}}`;
    const lines = [
      { type: "session", version: 3, id: "0f1e2d3c-0000-4000-8000-00000000abcf", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
      { type: "message", id: "m1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "go", timestamp: 1 } },
      { type: "message", id: "m2", parentId: "m1", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "assistant", content: [], provider: "p", model: "m", stopReason: "error", errorMessage: error, timestamp: 2 } },
      { type: "message", id: "m3", parentId: "m2", timestamp: "2026-01-01T00:00:03.000Z", message: { role: "assistant", content: [{ type: "text", text: "partial" }], provider: "p", model: "m", stopReason: "aborted", errorMessage: "Request was aborted", timestamp: 3 } },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const md = (await cli(["export", file])).stdout;
    expect(md).toContain(`*p/m · error · 1970-01-01 00:00:00 · \`m2\`*\n\n> **Error**\n>\n> \`\`\`text\n> ${error}\n> \`\`\``);
    expect(md).toContain("partial\n\n> **Aborted**\n>\n> ```text\n> Request was aborted\n> ```");
    const html = (await cli(["export", file, "--format", "html"])).stdout;
    expect(html).toContain(`<div class="error"><strong>Error</strong><pre>${error.replace(/"/g, "&quot;").replace(/>/g, "&gt;")}</pre></div>`);
    const literal = (await cli(["export", file, "--literal"])).stdout;
    expect(literal).toContain('*p/m · error: 400 {"type":"error"');
    expect(literal).not.toContain("> **Error**");
  });

  it("--literal is for Markdown and HTML: with JSON it is a usage error", async () => {
    const r = await cli(["export", fixture("linear.jsonl"), "--format", "json", "--literal"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/--literal .*Markdown and HTML/);
  });
});

describe("export --literal", () => {
  it("every user and assistant text survives intact, whatever it holds (generated sessions with planted hostile text)", async () => {
    const pick = (r: () => number) => HOSTILE[Math.floor(r() * HOSTILE.length)];
    const files = hostileSessions([500, 501, 502, 503, 504, 505, 506, 507, 508, 509, 510, 511], (r, t) => `${t} ${pick(r)}${"`".repeat(Math.floor(r() * 9))} ${pick(r)}\nmore`);
    for (const file of files) {
      const out = await cli(["export", file, "--literal"]);
      expect(out.exitCode).toBe(0);
      expectIntact(out.stdout, branchTexts(file), basename(file));
      // the structure holds: every <details> closes, nothing escapes as raw HTML
      expect(htmlNodes(commonmark(out.stdout)).every((h) => OWN_HTML.some((re) => re.test(h))), basename(file)).toBe(true);
      expect((out.stdout.match(/^<details>/gm) ?? []).length).toBe((out.stdout.match(/^<\/details>$/gm) ?? []).length);
      expect(out.stdout).not.toMatch(/\u001b/);
    }
  });

  it("the corpus exports intact", async () => {
    for (const file of corpusFiles()) {
      const out = await cli(["export", file, "--literal"]);
      if (records(file).length < 2) {
        expect(out.exitCode).toBe(2); // header only: nothing to export
        continue;
      }
      expect(out.exitCode, file).toBe(0);
      if (!/\.v1\./.test(file)) expectIntact(out.stdout, branchTexts(file), basename(file));
    }
  });

  it("options: thinking, tool results, images, the context view", async () => {
    const full = (await cli(["export", fixture("linear.jsonl"), "--thinking", "full", "--tool-results", "full"])).stdout;
    expect(full).toContain("**Thinking**\n\n```text\nThe user wants a listing.");
    expect(full).not.toContain("<details>");
    const omit = (await cli(["export", fixture("linear.jsonl"), "--thinking", "omit", "--tool-results", "omit"])).stdout;
    expect(omit).not.toContain("The user wants a listing");
    expect(omit).toContain("*(tool output omitted)*");
    const placeholder = (await cli(["export", fixture("compacted.jsonl")])).stdout;
    expect(placeholder).toContain("*\\[image: image/png, 72 B\\]*");
    const embed = (await cli(["export", fixture("compacted.jsonl"), "--images", "embed"])).stdout;
    expect(embed).toContain("![image/png](data:image/png;base64,iVBORw0KGgo");
    const context = (await cli(["export", fixture("compacted.jsonl"), "--view", "context"])).stdout;
    expect(context).toContain("### Compaction summary");
    expect(context).not.toContain("\n\nHere is a screenshot of the bug."); // before the kept range (the title still names it)
    const path = (await cli(["export", fixture("compacted.jsonl")])).stdout;
    expect(path).toContain("\n\nHere is a screenshot of the bug.");
    expect(path).toContain("> ✎ Dropped from the model's context by a later context edit.");
    const branch = (await cli(["export", fixture("branched.jsonl"), "--leaf", "b0000004"])).stdout;
    expect(branch).toContain("`sessionCache` then.");
    expect(branch).toContain("### Assistant — 🔖 first idea");
  });
});

describe("export cleaning", () => {
  it("removes control characters, CR, DEL and bidi overrides from every line, plain or not, and from labels", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-export-"));
    const file = join(dir, "unclean.jsonl");
    const msg = (id: string, parentId: string | null, role: string, text: string) => ({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:01.000Z", message: { role, content: [{ type: "text", text }], ...(role === "assistant" ? { provider: "p", model: "m", stopReason: "stop" } : {}), timestamp: 1 } });
    const lines = [
      { type: "session", version: 3, id: "0f1e2d3c-0000-4000-8000-00000000abce", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
      msg("m1", null, "user", "raw DEL:\u007f end"),
      msg("m2", "m1", "assistant", "raw C1:\u0085 and bidi:\u202e end"),
      msg("m3", "m2", "user", "escaped CR:\r\nand ESC:\u001b[31m end"),
      msg("m4", "m3", "assistant", "all plain text"),
      { type: "label", id: "l1", parentId: "m4", timestamp: "2026-01-01T00:00:02.000Z", targetId: "m4", label: "tag\u001b]0;x\u0007\u202e" },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    for (const format of ["md", "html"]) {
      for (const literal of [[], ["--literal"]]) {
        const raw = (await cli(["export", file, "--format", format, ...literal])).stdout;
        // eslint-disable-next-line no-control-regex
        expect(raw, format).not.toMatch(/[\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        const out = format === "md" ? unescaped(raw) : raw;
        for (const kept of ["raw DEL: end", "raw C1: and bidi: end", "escaped CR:\nand ESC:[31m end", "all plain text", "🔖 tag]0;x"]) expect(out, `${format} ${literal}: ${kept}`).toContain(kept);
      }
    }
  });
});

describe("export of large images", () => {
  it("describes a large image by its size without reading its data, and embeds it on request", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-export-"));
    const file = join(dir, "images.jsonl");
    const data = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256)).toString("base64");
    const lines = [
      { type: "session", version: 3, id: "0f1e2d3c-0000-4000-8000-00000000abcd", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
      { type: "message", id: "m1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "text", text: "the screenshot" }, { type: "image", mimeType: "image/png", data }], timestamp: 1 } },
      { type: "message", id: "m2", parentId: "m1", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: "I see it" }], provider: "p", model: "m", stopReason: "stop", timestamp: 2 } },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const decoded = Buffer.from(data, "base64").length;
    const md = (await cli(["export", file])).stdout;
    expect(md).toContain(`*\\[image: image/png, ${(decoded / 1024).toFixed(1)} KB\\]*`);
    expect(md).toContain("\n\nI see it\n\n");
    const json = await cliJson(["export", file, "--format", "json"], {});
    expect(json.json.entries[0].message.content[1].data).toBe(`[omitted: ${decoded} bytes]`);
    const embedded = (await cli(["export", file, "--images", "embed"])).stdout;
    expect(embedded).toContain(`(data:image/png;base64,${data})`);
  });
});

describe("export as JSON", () => {
  it("path view: the branch's entries; context view: pi's context", async () => {
    const path = await cliJson(["export", fixture("branched.jsonl"), "--format", "json", "--leaf", "b0000004"], {});
    expect(path.json.header.id).toBe("0f1e2d3c-0000-4000-8000-000000000002");
    expect(path.json.entries.map((e: Rec) => e.id)).toEqual(["b0000001", "b0000002", "b0000003", "b0000004"]);
    const ctx = await cli(["export", fixture("compacted.jsonl"), "--format", "json", "--view", "context", "--images", "embed"]);
    const entries = pi.parseSessionEntries(readFileSync(fixture("compacted.jsonl"), "utf8")).filter((e) => e.type !== "session");
    expect(JSON.parse(ctx.stdout)).toEqual({ ...JSON.parse(JSON.stringify(pi.buildSessionContext(entries))), activeToolNames: null });
  });
});

describe("export as HTML", () => {
  it("one self-contained page: no scripts, no network, everything escaped", async () => {
    const r = await cli(["export", fixture("escapes.jsonl"), "--format", "html"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^<!doctype html>/);
    expect(r.stdout).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">`);
    expect(r.stdout).not.toMatch(/<script/i);
    expect(r.stdout).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(r.stdout).not.toMatch(/\u001b/);
    expect(r.stdout).not.toMatch(/(src|href)="(?!data:)/);
  });
});

describe("redaction", () => {
  // (secrets of real shapes, made from pieces at test time: test/helpers/secrets.ts)
  const planted = secrets();

  function plantedFile(): string {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-redact-"));
    const file = join(dir, "s.jsonl");
    const lines = [JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" })];
    let parent: string | null = null;
    planted.forEach(({ name, text }, i) => {
      const id = `e${String(i).padStart(7, "0")}`;
      const role = i % 2 ? "assistant" : "user";
      const message = role === "user" ? { role, content: `here is my ${name}: ${text}` } : { role, content: [{ type: "text", text: `I used ${text} for ${name}` }], provider: "p", model: "m" };
      lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-01-01T00:00:01.000Z", message }));
      parent = id;
    });
    writeFileSync(file, lines.join("\n") + "\n");
    return file;
  }

  it.each(["md", "json", "html"])("--redact replaces every kind in %s as `redact` does, and says how many on stderr", async (format) => {
    const file = plantedFile();
    // (Markdown as a reader sees it: its backslash escapes undone)
    const text = (md: string) => (format === "md" ? unescaped(md) : md);
    const plain = await cli(["export", file, "--format", format]);
    for (const p of planted) expect(text(plain.stdout), p.name).toContain(format === "html" ? p.secret.split("\n")[0]!.replace(/&/g, "&amp;") : p.secret.split("\n")[0]!);
    const r = await cli(["export", file, "--format", format, "--redact"]);
    expect(r.exitCode).toBe(0);
    expect(leaked(text(r.stdout), planted.map((p) => p.secret))).toBeUndefined();
    for (const p of planted) expect(text(r.stdout), p.name).toMatch(new RegExp(`«redacted:${p.kind}:[0-9a-f]{4,}»`));
    // (the session's secrets, each as often as it stands in it)
    expect(r.stderr).toBe(`pi-session: redacted ${planted.length} secrets in the session (${planted.map((p) => `${p.kind} 1`).join(", ")}), as \`pi-session redact\` writes it\n`);
  });

  it.each(["md", "html"])("--redact replaces a secret in a tool's command, path, file, edit and diff alike (%s)", async (format) => {
    const key = planted[0]!.secret;
    const dir = mkdtempSync(join(tmpdir(), "pi-session-redact-"));
    const file = join(dir, "tools.jsonl");
    const call = (id: string, name: string, args: Rec) => ({ type: "toolCall", id, name, arguments: args });
    const msg = (id: string, parentId: string | null, message: Rec) => JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:01.000Z", message });
    const lines = [
      JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }),
      msg("u1", null, { role: "user", content: "deploy" }),
      msg("a1", "u1", { role: "assistant", content: [call("c1", "bash", { command: `curl -H 'Authorization: token ${key}' https://api.example.com` }), call("c2", "write", { path: `.env`, content: `GITHUB_TOKEN=${key}\n` }), call("c3", "read", { path: `/keys/${key}.txt` }), call("c4", "edit", { path: "cfg.ts", edits: [{ oldText: "const key = '';", newText: `const key = '${key}';` }] }), call("c5", "edit", { path: "b.ts", oldText: "x", newText: "y" })], provider: "p", model: "m" }),
      msg("r1", "a1", { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: `ok ${key}` }] }),
      msg("r2", "r1", { role: "toolResult", toolCallId: "c2", toolName: "write", content: [{ type: "text", text: "wrote" }] }),
      msg("r3", "r2", { role: "toolResult", toolCallId: "c3", toolName: "read", content: [{ type: "text", text: "..." }] }),
      msg("r4", "r3", { role: "toolResult", toolCallId: "c4", toolName: "edit", content: [{ type: "text", text: "done" }] }),
      msg("r5", "r4", { role: "toolResult", toolCallId: "c5", toolName: "edit", content: [{ type: "text", text: "done" }], details: { diff: `- 1 x\n+ 1 ${key}` } }),
    ];
    writeFileSync(file, lines.join("\n") + "\n");
    const plain = await cli(["export", file, "--format", format, "--tool-results", "full"]);
    expect(plain.stdout.split(key).length - 1).toBe(6);
    const r = await cli(["export", file, "--format", format, "--tool-results", "full", "--redact"]);
    expect(r.stdout).not.toContain(key.slice(0, 12));
    const placeholder = /«redacted:github-token:[0-9a-f]{4,}»/.exec(r.stdout)![0];
    expect(r.stdout.split(placeholder).length - 1).toBe(6);
  });

  it("--secret and --deny say what --redact replaces: without it, a usage error", async () => {
    const r = await cli(["export", fixture("linear.jsonl"), "--secret", "hunter2hunter2"]);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([2, "", "pi-session: --secret says what --redact replaces: add --redact\n"]);
  });
});

describe("export -o", () => {
  it("writes atomically, never over an existing file without --force", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-export-o-"));
    const out = join(dir, "b.md");
    const r = await cli(["export", fixture("linear.jsonl"), "-o", out]);
    expect(r).toMatchObject({ exitCode: 0, stdout: `${out}\n` });
    expect(readFileSync(out, "utf8")).toMatch(/^# List src\n/);
    const again = await cli(["export", fixture("linear.jsonl"), "-o", out]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toBe(`pi-session: ${out} already exists; pass --force to replace it\n`);
    expect((await cli(["export", fixture("branched.jsonl"), "-o", out, "--force"])).exitCode).toBe(0);
    expect(readFileSync(out, "utf8")).toMatch(/^# Pick a name/);
    // refused before the session is read: its own warning (a line it skips) never comes
    const before = await cli(["export", fixture("fused.jsonl"), "-o", out]);
    expect(before).toMatchObject({ exitCode: 2, stdout: "", stderr: `pi-session: ${out} already exists; pass --force to replace it\n` });
    expect(readFileSync(out, "utf8")).toMatch(/^# Pick a name/);
  });
});

describe("what an export says of a session in another script, an empty result, a long title, a task list", () => {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-export-details-"));
  const h = { type: "session", version: 3, id: "e", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" };
  const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const session = (first: string, answer: string, result: string) => {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.jsonl`);
    const lines = [
      h,
      { type: "message", id: "u1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "text", text: first }], timestamp: 1 } },
      { type: "message", id: "a1", parentId: "u1", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: answer }, { type: "toolCall", id: "c1", name: "bash", arguments: { command: "true" } }], stopReason: "toolUse", api: "x", provider: "p", model: "m", usage, timestamp: 2 } },
      { type: "message", id: "r1", parentId: "a1", timestamp: "2026-01-01T00:00:03.000Z", message: { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: result }], isError: false, timestamp: 3 } },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    return file;
  };
  const arabic = "مرحبا، هل يمكنك مساعدتي في كتابة برنامج صغير يقرأ ملفات الجلسات ويعرض ملخصا لكل واحدة منها بالتفصيل الممل رجاء";

  it("HTML: the title and the session's text take their direction from themselves, and say their language is not known", async () => {
    const html = (await cli(["export", session(arabic, "تمام", "done"), "--format", "html"])).stdout;
    expect(html).toMatch(/<h1 dir="auto" lang="">مرحبا/);
    expect(html).toMatch(/<div class="md" lang=""><p dir="auto">تمام<\/p>/);
  });

  it("a title is cut at a word, with an ellipsis; text without spaces at the limit", async () => {
    // (each run's exit and stderr first: once, in a clone under mktemp, a run gave no output, and said nothing of why)
    const titleOf = async (first: string) => {
      const r = await cli(["export", session(first, "ok", "done")]);
      expect(r.exitCode, r.stderr).toBe(0);
      return r.stdout.split("\n")[0]!;
    };
    const title = await titleOf(arabic);
    expect(title).toBe(`# ${arabic.slice(0, 100).slice(0, arabic.slice(0, 100).lastIndexOf(" "))}…`);
    const chinese = "请".repeat(150);
    expect(await titleOf(chinese)).toBe(`# ${"请".repeat(100)}…`);
    // a short first message is the title as it is
    expect(await titleOf("fix the build")).toBe("# fix the build");
  });

  it("an empty result is said to be empty, not one line", async () => {
    for (const format of ["md", "html"]) {
      const out = (await cli(["export", session("go", "ok", ""), "--format", format])).stdout;
      expect(out, format).toContain("Output (empty)");
      expect(out, format).not.toMatch(/Output \(\d+ lines?\)/);
    }
  });

  it("a task list keeps its boxes as written", async () => {
    const md = (await cli(["export", session("plan", "- [ ] write the test\n- [x] read the code", "done")])).stdout;
    expect(md).toContain("- [ ] write the test\n- [x] read the code");
    expect(visibleText(commonmark(md))).toContain("[ ] write the test");
  });
});
