/**
 * The HTML export in a real headless browser (a system Chromium, or the one the npm package
 * `@sparticuz/chromium` ships; see test/helpers/browser.ts), driven by playwright-core: every
 * message of the branch is visible, collapsible sections open and close, and a <script> planted in
 * a message does not run. Skipped, with the reason printed, only when no browser can start at all,
 * and never under CI=true.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../helpers/browser.js";
import { cli } from "../helpers/cli.js";
import { CORPUS } from "../helpers/paths.js";

const launched = await launchBrowser();
if (!launched.browser) console.warn(`browser tests skipped: ${launched.reason}`);
else console.info(`browser: ${launched.from}`);
const browser = launched.context as BrowserContext;
afterAll(async () => launched.browser?.close());

function hostileSession(): string {
  const dir = mkdtempSync(join(tmpdir(), "pi-session-html-"));
  const file = join(dir, "s.jsonl");
  const e = (id: string, parentId: string | null, message: object) => JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", message });
  writeFileSync(
    file,
    [
      JSON.stringify({ type: "session", version: 3, id: "html-test", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }),
      e("u0000001", null, { role: "user", content: "First <b>question</b> <script>window.__pwned = 1</script>" }),
      e("a0000001", "u0000001", { role: "assistant", content: [{ type: "thinking", thinking: "secret reasoning" }, { type: "text", text: 'Answer with <img src=x onerror="window.__pwned=2"> and </details>' }, { type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } }], provider: "p", model: "m" }),
      e("t0000001", "a0000001", { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: "file-one\nfile-two" }], isError: false }),
      e("u0000002", "t0000001", { role: "user", content: "Second question" }),
    ].join("\n") + "\n",
  );
  return file;
}

describe.skipIf(!launched.browser)("the HTML export in a browser", () => {
  it("shows every message, folds and unfolds sections, and runs no planted script", async () => {
    const file = hostileSession();
    const out = join(mkdtempSync(join(tmpdir(), "pi-session-html-out-")), "page.html");
    expect((await cli(["export", file, "--format", "html", "-o", out])).exitCode).toBe(0);
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url());
    });
    await page.goto(`file://${out}`);
    const text = await page.locator("main").innerText();
    for (const s of ["First <b>question</b> <script>window.__pwned = 1</script>", "Answer with <img src=x onerror=\"window.__pwned=2\"> and </details>", "Second question"]) expect(text).toContain(s);
    // (the tool result shows under its call, in the assistant's section)
    expect(await page.locator("section").count()).toBe(3);
    expect(await page.locator("section.assistant .tool details.output").count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("script").count()).toBe(0);
    // collapsed by default; a click opens and closes them
    const thinking = page.locator("details.thinking");
    expect(await thinking.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.getByText("secret reasoning").isVisible()).toBe(false);
    await thinking.locator("summary").click();
    expect(await page.getByText("secret reasoning").isVisible()).toBe(true);
    const output = page.locator("details.output");
    await output.locator("summary").click();
    expect(await page.getByText("file-one").isVisible()).toBe(true);
    await output.locator("summary").click();
    expect(await page.getByText("file-one").isVisible()).toBe(false);
    expect(requests).toEqual([]);
    await page.close();
  }, 60_000);

  it("shows a real session's tool calls as what they did: a write as its file's code, an edit as a coloured diff; Arabic reads right to left", async () => {
    // coffee-shop (../shared/corpus): a Termux session in Arabic that writes and edits a web site
    const out = join(mkdtempSync(join(tmpdir(), "pi-session-html-out-")), "coffee-shop.html");
    expect((await cli(["export", join(CORPUS, "coffee-shop__019f300b.v3.multimodel.jsonl"), "--format", "html", "-o", out])).exitCode).toBe(0);
    const page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
    await page.goto(`file://${out}`);
    // a write: the path, then the file in its language, shown (not collapsed)
    const write = page.locator(".tool", { has: page.locator("p.call strong", { hasText: /^write$/ }) }).first();
    await write.scrollIntoViewIfNeeded();
    expect(await write.locator("p.call code").innerText()).toMatch(/\.(html|css|js|md|json|py|sh|txt)$/);
    const code = write.locator("pre > code").first();
    expect(await code.isVisible()).toBe(true);
    expect(await code.getAttribute("class")).toMatch(/^language-/);
    expect((await code.innerText()).length).toBeGreaterThan(50);
    // an edit: a diff, its removed and added lines each in its own colour
    const edit = page.locator(".tool", { has: page.locator("p.call strong", { hasText: /^edit$/ }) }).first();
    await edit.scrollIntoViewIfNeeded();
    const del = edit.locator("pre.diff .del").first();
    const add = edit.locator("pre.diff .add").first();
    expect(await del.isVisible()).toBe(true);
    expect(await add.isVisible()).toBe(true);
    const colour = (l: typeof del) => l.evaluate((e) => getComputedStyle(e).color);
    expect(await colour(del)).not.toBe(await colour(add));
    expect(await colour(del)).not.toBe(await edit.locator("pre.diff code").first().evaluate((e) => getComputedStyle(e).color));
    // an Arabic paragraph runs right to left; the code beside it stays left to right
    const arabic = page.locator("section.user .md p", { hasText: /[\u0600-\u06ff]/ }).first();
    expect(await arabic.evaluate((e) => getComputedStyle(e).direction)).toBe("rtl");
    expect(await code.evaluate((e) => getComputedStyle(e).direction)).toBe("ltr");
    await edit.screenshot({ path: join(tmpdir(), "coffee-shop-edit.png") });
    await page.close();
  }, 60_000);

  it("renders an assistant's Markdown: a table as a table, code as code, and a javascript: link that does nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-html-"));
    const file = join(dir, "md.jsonl");
    const text = ["## Results", "", "| file | size |", "| --- | ---: |", "| a.ts | 12 KB |", "| b.ts | 3 KB |", "", "```ts", "const answer = 42;", "```", "", "Click [here](javascript:window.__pwned=3).", "", "Or read [the docs](https://example.com/docs)."].join("\n");
    writeFileSync(
      file,
      [
        JSON.stringify({ type: "session", version: 3, id: "html-md", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }),
        JSON.stringify({ type: "message", id: "u0000001", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "Sizes?" } }),
        JSON.stringify({ type: "message", id: "a0000001", parentId: "u0000001", timestamp: "2026-01-01T00:00:01.000Z", message: { role: "assistant", content: [{ type: "text", text }], provider: "p", model: "m" } }),
      ].join("\n") + "\n",
    );
    const out = join(mkdtempSync(join(tmpdir(), "pi-session-html-out-")), "page.html");
    expect((await cli(["export", file, "--format", "html", "-o", out])).exitCode).toBe(0);
    const page = await browser.newPage();
    await page.goto(`file://${out}`);
    const answer = page.locator("section.assistant");
    // the table is a table, its cells in their columns
    expect(await answer.locator("table tr").count()).toBe(3);
    expect(await answer.locator("table td").allInnerTexts()).toEqual(["a.ts", "12 KB", "b.ts", "3 KB"]);
    // the code is code, in a pre, and the heading sits below the message's own
    expect(await answer.locator("pre code").innerText()).toBe("const answer = 42;\n");
    expect(await answer.locator("h5").innerText()).toBe("Results"); // (the message's "##", three levels down)
    // the javascript: target is no link at all: its text shows, and clicking it runs nothing
    expect(await page.locator('a[href^="javascript" i]').count()).toBe(0);
    await answer.getByText("javascript:window.__pwned=3", { exact: false }).click();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(page.url()).toBe(`file://${out}`);
    expect(await answer.locator("a").getAttribute("href")).toBe("https://example.com/docs");
    await page.close();
  }, 60_000);
});
