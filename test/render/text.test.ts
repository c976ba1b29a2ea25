import { describe, expect, it } from "vitest";
import { openSessionSync } from "../../src/format/session/session.js";
import { entrySummary } from "../../src/format/session/summary.js";
import { partialEntry as partialFromBytes } from "../../src/format/session/line-summary.js";
import { previewFromBytes } from "../../src/render/preview.js";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { corpusFiles, fixtureFiles, ROOT } from "../helpers/paths.js";
import { fitPreview, lineTail, preview } from "../../src/render/width.js";
import { formatCount, formatDateTime, formatTime, isoTime } from "../../src/render/units.js";
import { sanitize } from "../../src/render/safe.js";
import { rng } from "../helpers/generate.js";

describe("sanitize", () => {
  it("shows control characters, escapes and bidi overrides as visible escapes, keeping newlines and tabs", () => {
    expect(sanitize("a\u001b]0;t\u0007b\rc\u202ed\u0085e\nf\tg")).toBe("a\\x1b]0;t\\x07b\\rc\\u202ed\\x85e\nf\tg");
  });
});

describe("preview", () => {
  it("flattens whitespace, cuts with an ellipsis, and stays cheap on huge text", () => {
    expect(preview("hello \n  world", 20)).toBe("hello world");
    expect(preview("a".repeat(50), 10)).toBe(`${"a".repeat(9)}…`);
    expect(preview("😀".repeat(20), 5)).toBe("😀😀…"); // cut in UTF-16 units, never inside a pair
    const started = performance.now();
    expect(preview("word ".repeat(2_000_000), 8)).toBe("word wo…");
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("escapes control characters in one line", () => {
    expect(preview("x\u001b[2Jy", 20)).toBe("x\\x1b[2Jy");
  });
});

describe("partialEntry", () => {
  const line = (o: unknown) => JSON.stringify(o);
  const partialEntry = (text: string, type: string | undefined, role: string | undefined) => partialFromBytes(Buffer.from(text), type, role, 800);
  it("rebuilds what a summary needs from the start of a line", () => {
    const user = line({ type: "message", id: "a", parentId: null, timestamp: "t", message: { role: "user", content: [{ type: "text", text: 'say "hi"\nnow' }] } });
    expect(entrySummary(partialEntry(user, "message", "user"))).toBe('say "hi"\nnow');
    const plain = line({ type: "message", message: { role: "user", content: "plain string" } });
    expect(entrySummary(partialEntry(plain, "message", "user"))).toBe("plain string");
    const call = line({ type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "c", name: "bash", arguments: {} }] } });
    expect(entrySummary(partialEntry(call, "message", "assistant"))).toBe("→ bash(…)");
    const model = line({ type: "model_change", provider: "openai", modelId: "gpt-5" });
    expect(entrySummary(partialEntry(model, "model_change", undefined))).toBe("openai/gpt-5");
    const label = line({ type: "label", targetId: "x1", label: "keep" });
    expect(entrySummary(partialEntry(label, "label", undefined))).toBe("keep → x1");
  });

  it("shows a string cut by the window as far as it goes", () => {
    const cut = line({ type: "message", message: { role: "user", content: [{ type: "text", text: "abc\\u00e9def" }] } }).slice(0, 80);
    expect(entrySummary(partialEntry(cut, "message", "user")).startsWith("abc")).toBe(true);
  });
});

describe("one summary rule", () => {
  it("a preview from a line's bytes reads as the summary of the parsed entry, for every entry of every fixture, corpus file and OpenClaw transcript", () => {
    let compared = 0;
    const stores = join(ROOT, "../shared/openclaw-stores");
    // (live transcripts, and those OpenClaw archived on a reset or a delete)
    const transcripts = readdirSync(stores, { recursive: true, encoding: "utf8" }).filter((f) => /\/sessions\/[^/]+\.jsonl(?:\.(?:reset|deleted)\.[^/]+)?$/.test(f)).map((f) => join(stores, f));
    expect(transcripts.length).toBeGreaterThan(20);
    for (const file of [...[...fixtureFiles(), ...corpusFiles()].filter((f) => f.endsWith(".jsonl")), ...transcripts]) {
      let session;
      try {
        session = openSessionSync(file);
      } catch {
        continue;
      }
      for (let node = 0; node < session.tree.size; node++) {
        const entry = session.entry(node);
        const content = (entry.message as { content?: unknown } | undefined)?.content;
        // a message's preview shows its first text block (the summary joins them all)
        if (Array.isArray(content) && content.filter((b) => b?.type === "text").length > 1) continue;
        const { type, role } = session.nodeKind(node);
        for (const max of [20, 200]) {
          expect(previewFromBytes(session.nodeBytes(node), type, role, max), `${file}:${session.nodeLine(node)}`).toBe(preview(entrySummary(entry), max));
        }
        compared++;
      }
      session.close();
    }
    expect(compared).toBeGreaterThan(3000);
  });

  it("an OpenClaw user message previews as what the person wrote, its envelope off before the cut, at every width (the real stores' transcripts)", () => {
    const stores = join(ROOT, "../shared/openclaw-stores");
    const transcripts = readdirSync(stores, { recursive: true, encoding: "utf8" }).filter((f) => /\/sessions\/[^/]+\.jsonl$/.test(f)).map((f) => join(stores, f));
    let enveloped = 0;
    for (const file of transcripts) {
      const session = openSessionSync(file);
      for (let node = 0; node < session.tree.size; node++) {
        const { type, role } = session.nodeKind(node);
        if (role !== "user") continue;
        const entry = session.entry(node);
        const content = (entry.message as { content?: unknown } | undefined)?.content;
        if (Array.isArray(content) && content.filter((b) => b?.type === "text").length > 1) continue;
        const whole = entrySummary(entry);
        if (/untrusted metadata|System: \[/.test(JSON.stringify(entry.message))) enveloped++;
        for (const max of [15, 40, 80, 200]) expect(previewFromBytes(session.nodeBytes(node), type, role, max), `${file}:${session.nodeLine(node)} at ${max}`).toBe(preview(whole, max));
      }
      session.close();
    }
    expect(enveloped).toBeGreaterThan(2);
  });

  it("reads a message's text from its blocks, not from a tool call's arguments that hold a text (OpenClaw's message and tts tools)", () => {
    const calls = [
      { type: "thinking", thinking: "say it aloud" },
      { type: "toolCall", id: "c1", name: "tts", arguments: { text: "wake up" } },
      { type: "toolCall", id: "c2", name: "message", arguments: { action: "send", text: "Hello!", content: "hi" } },
    ];
    const entry = { type: "message", id: "a", parentId: null, timestamp: "t", message: { role: "assistant", content: calls } };
    const bytes = Buffer.from(JSON.stringify(entry));
    expect(previewFromBytes(bytes, "message", "assistant", 80)).toBe("→ tts(…), message(…)");
    expect(previewFromBytes(bytes, "message", "assistant", 80)).toBe(preview(entrySummary(entry as never), 80));
    // a text block after the calls is the text, wherever it lies; a command shown where the arguments start with one
    const withText = { ...entry, message: { role: "assistant", content: [...calls, { type: "text", text: "sent" }] } };
    expect(previewFromBytes(Buffer.from(JSON.stringify(withText)), "message", "assistant", 80)).toBe("sent");
    const bash = { ...entry, message: { role: "assistant", content: [{ type: "toolCall", id: "c", name: "exec", arguments: { command: "git status", text: "x" } }] } };
    expect(previewFromBytes(Buffer.from(JSON.stringify(bash)), "message", "assistant", 80)).toBe("→ exec git status");
  });

  it("holds for generated texts of every kind of whitespace, escapes and wide letters, cut at every width", () => {
    const r = rng(41);
    const alphabet = ["a", "b", " ", "    ", "\u00a0", "\u3000", "\u2003", "\ufeff", "\u1680", "\n", "\t", "日本", "é", '"', "\\", "😀", "ぁ", "x".repeat(30)];
    for (let i = 0; i < 3000; i++) {
      let text = "";
      const n = Math.floor(r() ** 2 * 120);
      for (let k = 0; k < n; k++) text += alphabet[Math.floor(r() * alphabet.length)];
      const role = r() < 0.5 ? "user" : "assistant";
      const content = r() < 0.3 ? text : [{ type: "text", text }];
      const entry = { type: "message", id: "a", parentId: null, timestamp: "t", message: { role, content } } as const;
      const bytes = Buffer.from(JSON.stringify(entry));
      for (const max of [10, 20, 60, 200]) {
        expect(previewFromBytes(bytes, "message", role, max), `${JSON.stringify(text)} at ${max}`).toBe(preview(entrySummary(entry as never), max));
      }
    }
  });
});

describe("lineTail", () => {
  it("leaves label and preview whole when piped, and within a terminal's width cuts the label, then drops it, the preview taking what is left", () => {
    expect(lineTail(undefined, 500, " [a label]", 2, 60)).toEqual({ label: " [a label]", room: 60 });
    expect(lineTail(80, 30, " [a label]", 2, 60)).toEqual({ label: " [a label]", room: 38 });
    expect(lineTail(80, 10, "", 1, 60)).toEqual({ label: "", room: 60 });
    expect(lineTail(40, 33, " [a label]", 2, 60)).toEqual({ label: " [a la…", room: -2 });
    expect(lineTail(40, 36, " [a label]", 2, 60)).toEqual({ label: "", room: 2 });
  });
});

describe("formatCount", () => {
  it("groups thousands as en-US does", () => {
    const r = rng(7);
    const values = [0, 1, 999, 1000, 1001, -1000, 999_999, 1_000_000, Number.MAX_SAFE_INTEGER, 1.5, 1234.5678];
    for (let i = 0; i < 500; i++) values.push(Math.floor(r() * 10 ** Math.floor(r() * 15)) * (r() < 0.2 ? -1 : 1));
    for (const n of values) expect(formatCount(n), String(n)).toBe(n.toLocaleString("en-US"));
  });
});

describe("fitPreview", () => {
  it("cuts a preview as previewing it again would", () => {
    const r = rng(11);
    const alphabet = ["a", "b", " ", "  ", "\n", "\t", "\u001b", "😀", "é", "…", "\u202e", "x".repeat(20)];
    for (let i = 0; i < 3000; i++) {
      let text = "";
      for (let k = Math.floor(r() * 60); k > 0; k--) text += alphabet[Math.floor(r() * alphabet.length)];
      const p = preview(text, 10 + Math.floor(r() * 200));
      const max = 1 + Math.floor(r() * 120);
      expect(fitPreview(p, max), JSON.stringify([text, max])).toBe(preview(p, max));
    }
  });
});

describe("isoTime and formatTime", () => {
  it("equal toISOString for any time a Date holds, and refuse the rest", () => {
    const r = rng(5);
    const times = [0, -1, -1.5, 1.5, 999, 86_399_999, 86_400_000, -86_400_001, 8.64e15, -8.64e15, -62198755200000, 253402300799999];
    for (let i = 0; i < 5000; i++) times.push(Math.floor((r() - 0.4) * 10 ** (3 + r() * 12)) + (r() < 0.1 ? r() : 0));
    for (const t of times) {
      const iso = new Date(t).toISOString();
      expect(isoTime(t), String(t)).toBe(iso);
      expect(formatTime(t), String(t)).toBe(`${iso.slice(0, -14)} ${iso.slice(-13, -8)}`);
      expect(formatDateTime(t), String(t)).toBe(`${iso.slice(0, -14)} ${iso.slice(-13, -5)}`);
    }
    for (const t of [8.64e15 + 1, -Infinity, NaN]) {
      expect(isoTime(t)).toBeNull();
      expect(formatTime(t)).toBe("-");
    }
    expect(formatTime("2026-03-25T14:55:07.123Z")).toBe("2026-03-25 14:55");
    expect(formatTime("not a time")).toBe("-");
  });
});
