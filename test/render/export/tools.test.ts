/** Tool calls as what they did: the view of each of pi's tools, what falls back to JSON, and results paired with their calls. */
import { describe, expect, it } from "vitest";
import type { Block, MessageBlock } from "../../../src/render/export/blocks.js";
import { editDiff, languageFor, languageOf, toolCall, ToolPairing } from "../../../src/render/export/tools.js";

const clean = (s: unknown) => String(s ?? "");

describe("toolCall", () => {
  it("shows pi's tools by what they did, and keeps every argument it does not show as JSON", () => {
    expect(toolCall("c", "bash", { command: "ls -la", timeout: 30 }, clean)).toEqual({ id: "c", name: "bash", shown: { kind: "bash", command: "ls -la", timeout: 30 }, rest: "" });
    expect(toolCall("c", "write", { path: "src/a.ts", content: "const a = 1;\n" }, clean).shown).toEqual({ kind: "write", path: "src/a.ts", content: "const a = 1;\n", lang: "ts" });
    expect(toolCall("c", "read", { path: "README.md", offset: 10, limit: 5, encoding: "latin1" }, clean)).toMatchObject({ shown: { kind: "read", path: "README.md", offset: 10, limit: 5 }, rest: '{\n  "encoding": "latin1"\n}' });
    expect(toolCall("c", "edit", { path: "a.ts", edits: [{ oldText: "a", newText: "b" }] }, clean).shown).toEqual({ kind: "edit", path: "a.ts", pairs: [{ oldText: "a", newText: "b" }] });
    // the form before pi 1.6: one pair at the top level
    expect(toolCall("c", "edit", { path: "a.ts", oldText: "a", newText: "b" }, clean).shown).toEqual({ kind: "edit", path: "a.ts", pairs: [{ oldText: "a", newText: "b" }] });
    expect(toolCall("c", "grep", { pattern: "x", glob: "*.ts", ignoreCase: true, limit: 5 }, clean).shown).toEqual({ kind: "search", tool: "grep", line: [[["x", true], ["in"], [".", true]], [["files"], ["*.ts", true]], [["ignoring case"]], [["at most 5"]]] });
  });

  it("shows a tool it does not know, or arguments of a shape pi's tools do not take, as their JSON", () => {
    expect(toolCall("c", "exec", { command: "ls" }, clean).shown).toEqual({ kind: "json", args: '{\n  "command": "ls"\n}' });
    for (const [name, args] of [["bash", { command: 42 }], ["edit", { path: "a", oldText: "x" }], ["edit", { path: "a", edits: [{ oldText: "x" }] }], ["read", { path: "a", offset: "3" }], ["write", { path: "a" }], ["grep", { pattern: "x", ignoreCase: "yes" }], ["ls", "not an object"], ["find", null]] as const) {
      expect(toolCall("c", name, args, clean).shown.kind, `${name} ${JSON.stringify(args)}`).toBe("json");
    }
  });

  it("names the language of common files, and none for text that looks binary", () => {
    expect(["a.ts", "b.py", "Makefile", "x/y.JSON", "c.tar.gz", ".env", "noext"].map(languageOf)).toEqual(["ts", "python", "makefile", "json", "", "", ""]);
    expect(languageFor("a.ts", "const a = 1;")).toBe("ts");
    expect(languageFor("a.png", "\u0089PNG\r\n\u001a\n\u0000")).toBe("");
    expect(languageFor("a.ts", "bytes that were not UTF-8: \ufffd")).toBe("");
  });

  it("writes an edit's old and new text as a unified diff", () => {
    expect(editDiff("a.ts", "one\ntwo\nthree", "one\n2\nthree")).toBe("@@ -1,3 +1,3 @@\n one\n-two\n+2\n three");
  });
});

describe("ToolPairing", () => {
  const assistant = (...ids: string[]): MessageBlock => ({ kind: "message", role: "assistant", title: "Assistant", meta: [], parts: ids.map((id) => ({ kind: "tool", call: toolCall(id, "bash", { command: `echo ${id}` }, clean) })) });
  const result = (callId: string, id = `r-${callId}`): MessageBlock => ({ kind: "message", role: "toolResult", title: "Tool result", meta: [], id, toolCallId: callId, parts: [{ kind: "toolResult", text: `out ${callId}`, isError: false, images: [] }] });
  const user: Block = { kind: "message", role: "user", title: "User", meta: [], parts: [{ kind: "text", text: "hi" }] };

  it("puts each result under its call, holding the call's message until its results have come", () => {
    const p = new ToolPairing();
    const a = assistant("c1", "c2");
    expect(p.push(a)).toEqual([]);
    expect(p.push(result("c2"))).toEqual([]);
    expect(p.push(result("c1"))).toEqual([a]);
    const calls = a.parts.map((x) => (x.kind === "tool" ? x.call : undefined));
    expect(calls.map((c) => [c?.id, c?.result?.text, c?.result?.id])).toEqual([["c1", "out c1", "r-c1"], ["c2", "out c2", "r-c2"]]);
  });

  it("lets a call go without its result when something else comes, and marks a result that comes later, or for no call at all", () => {
    const p = new ToolPairing();
    const a = assistant("c1");
    p.push(a);
    expect(p.push(user)).toEqual([a, user]);
    const late = result("c1");
    expect(p.push(late)).toEqual([late]);
    expect(late.unmatched).toBe("earlier");
    const stray = result("nobody");
    expect(p.push(stray)).toEqual([stray]);
    expect(stray.unmatched).toBe("none");
    const b = assistant("c3");
    p.push(b);
    expect(p.flush()).toEqual([b]);
    expect(p.flush()).toEqual([]);
  });
});
