import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { messageGist } from "../../../src/format/session/labels.js";
import { CORPUS } from "../../helpers/paths.js";

const STORES = join(CORPUS, "..", "openclaw-stores");

/** The first user message of a transcript, as its text. */
function firstUserText(path: string): string {
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.includes('"user"')) continue;
    const e = JSON.parse(line);
    if (e.type !== "message" || e.message.role !== "user") continue;
    const c = e.message.content;
    return typeof c === "string" ? c : c.map((b: { text?: string }) => b.text ?? "").join("");
  }
  throw new Error(`no user message in ${path}`);
}

describe("a user message as a title (messageGist)", () => {
  it("passes over OpenClaw's envelope in a real store: the system event, the metadata blocks", () => {
    const text = firstUserText(join(STORES, "ccccx", "agents", "main", "sessions", "4cd0abc6-56b7-41af-ad24-4dfe17acb43c.jsonl"));
    expect(text.startsWith("System: [2026-04-28 13:47:06 GMT+8] Feishu[default] DM")).toBe(true);
    // what the person wrote is the text after the last metadata block
    const wrote = text.slice(text.lastIndexOf("```") + 3).trim();
    expect(wrote.length).toBeGreaterThan(0);
    expect(messageGist(text)).toBe(wrote);
  });

  it("the shapes OpenClaw writes: a sender block, then the time the message was sent; blocks of context lines", () => {
    const sender = 'Sender (untrusted metadata):\n```json\n{\n  "label": "openclaw-control-ui",\n  "id": "openclaw-control-ui"\n}\n```\n\n[Thu 2026-04-09 14:48 GMT+8] check the skills folder';
    expect(messageGist(sender)).toBe("check the skills folder");
    const both = 'Conversation info (untrusted metadata):\n```json\n{"message_id": "6955"}\n```\n\nSender (untrusted metadata):\n```json\n{"name": "Ada"}\n```\n\nIs the system online?';
    expect(messageGist(both)).toBe("Is the system online?");
    const context = "[Wed 2026-03-11 23:51 PDT] Conversation info (untrusted metadata):\n```json\n{}\n```\n\nConversation context (untrusted, chronological, selected for current message):\n#1 hello\n\nactual question";
    expect(messageGist(context)).toBe("actual question");
    expect(messageGist("[Mon 2026-02-23 23:41 GMT+8] 你终于回来了")).toBe("你终于回来了");
  });

  it("a channel's message as the archeoneocode store holds it: the sender and elapsed time before, its message_id line after", () => {
    const first = firstUserText(join(STORES, "archeoneocode", "agents", "main", "sessions", "3fb83e84-059b-4d6c-a582-91d9522c4fa3.jsonl"));
    expect(first).toBe("[Sat 2026-02-07 05:07 GMT+1] Wake up, my friend!\n[message_id: 23556853-1bfb-470f-9579-cb531a9c9b45]");
    expect(messageGist(first)).toBe("Wake up, my friend!");
    expect(messageGist("[Telegram Arnomad id:1604754210 +3m 2026-02-07 05:19 GMT+1] Hello I am arnomad, your human\n[message_id: 3]")).toBe("Hello I am arnomad, your human");
    // (a message_id inside the text, not on the last line, is the person's)
    expect(messageGist("[Sat 2026-02-07 05:07 GMT+1] what is [message_id: 4]?")).toBe("what is [message_id: 4]?");
  });

  it("reads a long message in time linear in its length, whatever it holds", () => {
    for (const text of ["(untrusted metadata".repeat(100_000), `${"(untrusted x".repeat(50_000)}):\n${"y".repeat(100_000)}`, `System: [${"z".repeat(1_000_000)}`]) {
      const t0 = performance.now();
      expect(messageGist(text)).toBe(text);
      expect(performance.now() - t0).toBeLessThan(2000);
    }
  });

  it("leaves a message without an envelope, or one that is envelope only, as it is", () => {
    for (const text of ["fix the failing test", "[cron:9c1d nightly report] run it", "System: [x] only", "Sender (untrusted metadata):\n```json\n{}\n```", "a (metadata) note:\nnot a block", "  spaced  "]) {
      expect(messageGist(text), JSON.stringify(text)).toBe(text);
    }
  });
});
