/**
 * export, spawned for real. Reviewed Markdown snapshots of the fixtures; a property test with a
 * Markdown lexer (marked) over generated sessions, planted hostile text and the corpus; planted
 * credentials of every kind in all three formats; the HTML page's safety.
 */
import { marked, type Token, type Tokens } from "marked";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { generateSession, rng } from "../helpers/generate.js";
import { corpusFiles, fixture } from "../helpers/paths.js";
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

/** Every code block's text in a Markdown document, through marked's lexer (nested tokens included). */
function codeBlocks(md: string): string[] {
  const out: string[] = [];
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === "code") out.push((t as Tokens.Code).text);
      const children = (t as { tokens?: Token[] }).tokens;
      if (children) walk(children);
      const items = (t as { items?: Array<{ tokens: Token[] }> }).items;
      if (items) for (const i of items) walk(i.tokens);
    }
  };
  walk(marked.lexer(md));
  return out;
}

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

describe("export as Markdown", () => {
  it.each(["linear.jsonl", "branched.jsonl", "compacted.jsonl", "escapes.jsonl", "v1.jsonl", "harness.jsonl"])("%s matches its reviewed snapshot", async (name) => {
    const r = await cli(["export", fixture(name)]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    await expect(r.stdout).toMatchFileSnapshot(`__snapshots__/export/${name.replace(".jsonl", ".md")}`);
  });

  it("every user and assistant text survives intact, whatever it holds (generated sessions with planted hostile text)", async () => {
    const r = rng(4242);
    const hostile = ["```", "````", "`", "~~~", "</details>", "<details><summary>x</summary>", "<script>alert(1)</script>", "\u001b]0;title\u0007", "\u001b[2J", "# heading", "[link](javascript:alert(1))", "<!--", "\r\n", "| a | b |", "    indented"];
    const dir = mkdtempSync(join(tmpdir(), "pi-session-export-"));
    for (let seed = 500; seed < 512; seed++) {
      const file = generateSession({ seed, dir: join(dir, String(seed)), steps: 40 });
      // plant hostile text into every user and assistant text
      const lines = records(file).map((e) => {
        if (e.type !== "message" || !["user", "assistant"].includes(e.message.role)) return e;
        const plant = (t: string) => `${t} ${hostile[Math.floor(r() * hostile.length)]}${"`".repeat(Math.floor(r() * 9))} ${hostile[Math.floor(r() * hostile.length)]}\nmore`;
        const c = e.message.content;
        e.message.content = typeof c === "string" ? plant(c) : c.map((b: Rec) => (b.type === "text" ? { ...b, text: plant(b.text) } : b));
        return e;
      });
      writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
      const out = await cli(["export", file]);
      expect(out.exitCode).toBe(0);
      expectIntact(out.stdout, branchTexts(file), basename(file));
      // the structure holds: every <details> closes, nothing escapes as raw HTML
      const html = marked.parse(out.stdout) as string;
      expect(html).not.toMatch(/<script>/);
      expect((out.stdout.match(/^<details>/gm) ?? []).length).toBe((out.stdout.match(/^<\/details>$/gm) ?? []).length);
      expect(out.stdout).not.toMatch(/\u001b/);
    }
  });

  it("the corpus exports intact", async () => {
    for (const file of corpusFiles()) {
      const out = await cli(["export", file]);
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
    expect(context).not.toContain("```text\nHere is a screenshot of the bug."); // before the kept range (the title still names it)
    const path = (await cli(["export", fixture("compacted.jsonl")])).stdout;
    expect(path).toContain("```text\nHere is a screenshot of the bug.");
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
      const out = (await cli(["export", file, "--format", format])).stdout;
      // eslint-disable-next-line no-control-regex
      expect(out, format).not.toMatch(/[\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      for (const kept of ["raw DEL: end", "raw C1: and bidi: end", "escaped CR:\nand ESC:[31m end", "all plain text", format === "md" ? "🔖 tag\\]0;x" : "🔖 tag]0;x"]) expect(out, `${format}: ${kept}`).toContain(kept);
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
    expect(md).toContain("```text\nI see it\n```");
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
  const secrets: Record<string, string> = {
    "anthropic-key": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "openai-key": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123",
    "google-key": "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
    "aws-secret-key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "github-token": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "slack-token": "xoxb-1234567890-abcdefghij",
    jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----",
    bearer: "Authorization: Bearer abc.def.ghijklmnop",
    "secret-value": "password=hunter2hunter2",
  };
  const values = (k: string) => (k === "aws-secret-key" ? "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" : k === "bearer" ? "abc.def.ghijklmnop" : k === "secret-value" ? "hunter2hunter2" : k === "private-key" ? "MIIEowIBAAKCAQEA7bq" : secrets[k]!);

  function planted(): string {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-redact-"));
    const file = join(dir, "s.jsonl");
    const lines = [JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" })];
    let parent: string | null = null;
    Object.entries(secrets).forEach(([kind, secret], i) => {
      const id = `e${String(i).padStart(7, "0")}`;
      const role = i % 2 ? "assistant" : "user";
      const message = role === "user" ? { role, content: `here is my ${kind}: ${secret}` } : { role, content: [{ type: "text", text: `I used ${secret} for ${kind}` }], provider: "p", model: "m" };
      lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-01-01T00:00:01.000Z", message }));
      parent = id;
    });
    writeFileSync(file, lines.join("\n") + "\n");
    return file;
  }

  it.each(["md", "json", "html"])("--redact masks every kind in %s and says how many on stderr", async (format) => {
    const file = planted();
    const plain = await cli(["export", file, "--format", format]);
    for (const k of Object.keys(secrets)) expect(plain.stdout, k).toContain(format === "html" ? values(k).replace(/&/g, "&amp;") : values(k).split("\n")[0]!);
    const r = await cli(["export", file, "--format", format, "--redact"]);
    expect(r.exitCode).toBe(0);
    for (const k of Object.keys(secrets)) {
      expect(r.stdout, k).not.toContain(values(k));
      expect(r.stdout, k).toContain(`[REDACTED:${k}]`);
    }
    // each occurrence counts: the title repeats the first message in md and html
    expect(r.stderr).toMatch(format === "json" ? /^pi-session: redacted 11 credential-shaped strings \(/ : /^pi-session: redacted 12 credential-shaped strings \(/);
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
  });
});
