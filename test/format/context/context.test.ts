/** The context builder on tiny hand-built paths, each compared with pi's own builder. */
import { describe, expect, it } from "vitest";
import { buildContext, toLlmMessages } from "../../../src/format/context/context.js";
import type { AnyEntry } from "../../../src/format/schema/types.js";
import { assistant, entry, user } from "../../helpers/builders.js";
import { pi } from "../../helpers/pi.js";

const asEntries = (...xs: Array<Record<string, unknown>>) => xs as unknown as AnyEntry[];

function same(path: AnyEntry[]) {
  const { activeToolNames: _t, ...ours } = buildContext(path);
  const theirs = pi.buildSessionContext(path as never, path[path.length - 1]?.id ?? null);
  expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
  return ours;
}

describe("buildContext", () => {
  it("defaults: thinking off, no model, no messages", () => {
    expect(buildContext([])).toEqual({ messages: [], thinkingLevel: "off", model: null, activeToolNames: null });
  });

  it("takes the last thinking level and the last model (model_change or assistant)", () => {
    const ctx = same(asEntries(
      entry("thinking_level_change", "t1", null, { thinkingLevel: "high" }),
      entry("model_change", "m1", "t1", { provider: "openai", modelId: "gpt" }),
      user("u1", "m1", "hi"),
      assistant("a1", "u1", "hello"),
    ));
    expect(ctx.thinkingLevel).toBe("high");
    expect(ctx.model).toEqual({ provider: "anthropic", modelId: "claude" });
    expect(ctx.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("replaces history before firstKeptEntryId with the compaction summary", () => {
    const ctx = same(asEntries(
      user("u1", null, "old"),
      assistant("a1", "u1", "old answer"),
      user("u2", "a1", "kept"),
      entry("compaction", "c1", "u2", { summary: "S", firstKeptEntryId: "u2", tokensBefore: 10 }),
      user("u3", "c1", "new"),
    ));
    expect(ctx.messages.map((m) => m.role)).toEqual(["compactionSummary", "user", "user"]);
    expect(ctx.messages[0]!.summary).toBe("S");
  });

  it("puts a compaction's systemMessage first and drops kept system messages", () => {
    const ctx = same(asEntries(
      { type: "message", id: "s1", parentId: null, timestamp: "2026-01-01T00:00:00Z", message: { role: "system", content: "", timestamp: 1 } },
      user("u1", "s1", "kept"),
      entry("compaction", "c1", "u1", { summary: "S", firstKeptEntryId: "s1", tokensBefore: 1, systemMessage: { role: "system", content: "prompt", timestamp: 2 } }),
    ));
    expect(ctx.messages.map((m) => m.role)).toEqual(["system", "compactionSummary", "user"]);
  });

  it("applies the latest context edit: replace content, or drop the message", () => {
    const ctx = same(asEntries(
      user("u1", null, "secret"),
      assistant("a1", "u1", "answer"),
      entry("context_edit", "e1", "a1", { targetId: "u1", replacement: { content: "first edit" } }),
      entry("context_edit", "e2", "e1", { targetId: "u1", replacement: { content: "second edit" } }),
      entry("context_edit", "e3", "e2", { targetId: "a1", replacement: null }),
    ));
    expect(ctx.messages).toHaveLength(1);
    expect(ctx.messages[0]!.content).toBe("second edit");
  });

  it("turns custom_message and branch_summary entries into messages; null content becomes empty", () => {
    const ctx = same(asEntries(
      entry("custom_message", "x1", null, { customType: "ext", content: null, display: true }),
      entry("branch_summary", "b1", "x1", { fromId: "root", summary: "went elsewhere" }),
      { type: "message", id: "u1", parentId: "b1", timestamp: "2026-01-01T00:00:00Z", message: { role: "user", content: null } },
    ));
    expect(ctx.messages.map((m) => m.role)).toEqual(["custom", "branchSummary", "user"]);
    expect(ctx.messages[0]!.content).toEqual([]);
    expect(ctx.messages[2]!.content).toEqual([]);
  });

  it("reports the harness's active tools at the leaf", () => {
    const ctx = buildContext(asEntries(entry("active_tools_change", "t1", null, { activeToolNames: ["read"] }), user("u1", "t1", "hi")));
    expect(ctx.activeToolNames).toEqual(["read"]);
  });
});

describe("toLlmMessages", () => {
  it("converts custom, summaries and bash runs to user messages, and drops excluded runs", () => {
    const out = toLlmMessages([
      { role: "custom", content: "note", timestamp: 1 },
      { role: "bashExecution", command: "ls", output: "", exitCode: 2, timestamp: 2 },
      { role: "bashExecution", command: "secret", output: "x", excludeFromContext: true, timestamp: 3 },
      { role: "compactionSummary", summary: "S", timestamp: 4 },
      { role: "unknown-role", timestamp: 5 },
    ]);
    expect(out.map((m) => m.role)).toEqual(["user", "user", "user"]);
    expect(JSON.stringify(out[1])).toContain("Command exited with code 2");
    expect(JSON.stringify(out[2])).toContain("<summary>\\nS\\n</summary>");
  });
});
