/**
 * A listed session's title is its first user message (what the person wrote, its text blocks
 * joined), read whole, whatever part of the line a preview reads (a long image left out, a line
 * past a megabyte cut), in every version pi has written.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scanSession } from "../../src/support/ls/rows.js";
import { assistant, entry, header, jsonl, user } from "../helpers/builders.js";

const dir = mkdtempSync(join(tmpdir(), "pi-session-rows-"));
let n = 0;

async function titleOf(bytes: Buffer): Promise<string | null> {
  const file = join(dir, `s${n++}.jsonl`);
  writeFileSync(file, bytes);
  const scanned = await scanSession(file);
  if ("error" in scanned) throw new Error(scanned.error);
  return scanned.facts.title;
}

const image = (length: number) => ({ type: "image", mimeType: "image/png", data: "A".repeat(length) });

describe("a listed session's title", () => {
  it("is the first user message, not a later one nor an assistant's", async () => {
    expect(await titleOf(jsonl(header(), assistant("a0", null, "Ready."), user("u1", "a0", "Fix the parser"), user("u2", "u1", "And the tests")))).toBe("Fix the parser");
  });

  it("joins the message's text blocks, as the message reads", async () => {
    const message = user("u1", null, "first", { message: { role: "user", content: [{ type: "text", text: "Look at" }, { type: "text", text: "this file" }], timestamp: 1 } });
    expect(await titleOf(jsonl(header(), message))).toBe("Look at this file");
  });

  it("is read whole where the line holds a long image (which a preview reads only part of)", async () => {
    const message = user("u1", null, "", { message: { role: "user", content: [image(200_000), { type: "text", text: "What is in this picture?" }], timestamp: 1 } });
    expect(await titleOf(jsonl(header(), message))).toBe("What is in this picture?");
  });

  it("is read whole where the line is longer than a preview reads (a megabyte)", async () => {
    const long = "word ".repeat(300_000);
    const message = user("u1", null, "", { message: { role: "user", content: [{ type: "text", text: `${long}` }, { type: "text", text: "END" }], timestamp: 1 } });
    const title = await titleOf(jsonl(header(), message));
    expect(title).toBe("word ".repeat(40));
  });

  it("is read whole where a preview reads the first megabyte of a line of many images", async () => {
    // (no one string is long enough to be left out: the preview's bytes stop mid-line, no JSON)
    const images = Array.from({ length: 20 }, () => image(60_000));
    const message = user("u1", null, "", { message: { role: "user", content: [...images, { type: "text", text: "Describe these" }], timestamp: 1 } });
    expect(await titleOf(jsonl(header(), message))).toBe("Describe these");
  });

  it("is what the person wrote in an OpenClaw channel message, without its envelope", async () => {
    const text = 'Conversation info (untrusted metadata):\n```json\n{"sender": "Ana"}\n```\n\nBook the table for eight';
    expect(await titleOf(jsonl(header(), user("u1", null, text)))).toBe("Book the table for eight");
  });

  it("reads a v1 session's first user message, upgraded, and a first line without a header", async () => {
    const v1 = jsonl({ type: "session", id: "11111111-2222-4333-8444-555555555555", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }, { type: "message", timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "Start the refactor.", timestamp: 1 } });
    expect(await titleOf(v1)).toBe("Start the refactor.");
    const headless = Buffer.concat([Buffer.from("\ufeff"), jsonl(user("u1", null, "No header here"), entry("custom", "c1", "u1", { customType: "x" }))]);
    expect(await titleOf(headless)).toBe("No header here");
  });
});
