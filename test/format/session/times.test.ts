import { describe, expect, it } from "vitest";
import { openSessionBuffer } from "../../../src/format/session/session.js";
import { sessionTimes } from "../../../src/format/session/times.js";
import { assistant, entry, header, jsonl, user } from "../../helpers/builders.js";

const at = (iso: string) => Date.parse(iso);
const timesOf = (...records: Array<Record<string, unknown> | string>) => {
  const session = openSessionBuffer("t.jsonl", jsonl(...records));
  try {
    return sessionTimes(session);
  } finally {
    session.close();
  }
};

describe("a session's times (sessionTimes)", () => {
  it("last activity is its latest user or assistant message's time, whichever order the file holds them in", () => {
    const t = timesOf(header({ timestamp: "2026-03-01T10:00:00.000Z" }), user("u1", null, "hi", { timestamp: "2026-03-01T10:05:00.000Z" }), assistant("a1", "u1", "yes", { timestamp: "2026-03-01T11:00:00.000Z" }), user("u2", "u1", "a branch back", { timestamp: "2026-03-01T10:30:00.000Z" }));
    expect(t).toEqual({ created: at("2026-03-01T10:00:00.000Z"), lastActivity: at("2026-03-01T11:00:00.000Z") });
  });

  it("is never before its creation: a fork made today of entries months old was last active today", () => {
    const t = timesOf(header({ timestamp: "2026-12-06T17:21:00.000Z" }), user("u1", null, "old", { timestamp: "2026-06-12T09:00:00.000Z" }), assistant("a1", "u1", "old too", { timestamp: "2026-06-12T09:01:00.000Z" }));
    expect(t.lastActivity).toBe(at("2026-12-06T17:21:00.000Z"));
  });

  it("entries that are no conversation (a label, a model change) are not activity; no message: its creation; no header time: its latest message; neither: NaN", () => {
    expect(timesOf(header({ timestamp: "2026-03-01T10:00:00.000Z" }), entry("label", "l1", null, { targetId: "x", label: "later", timestamp: "2026-03-09T10:00:00.000Z" })).lastActivity).toBe(at("2026-03-01T10:00:00.000Z"));
    expect(timesOf(header({ timestamp: undefined }), user("u1", null, "hi", { timestamp: "2026-03-02T10:00:00.000Z" }))).toEqual({ created: Number.NaN, lastActivity: at("2026-03-02T10:00:00.000Z") });
    expect(timesOf(header({ timestamp: undefined })).lastActivity).toBeNaN();
  });
});
