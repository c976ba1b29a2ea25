/** Tiny entry builders for unit tests: just enough fields, ids and parents given explicitly. */
type Json = Record<string, unknown>;

let clock = Date.parse("2026-01-01T00:00:00.000Z");
const tick = () => new Date((clock += 1000)).toISOString();

export const header = (over: Json = {}): Json => ({ type: "session", version: 3, id: "11111111-2222-4333-8444-555555555555", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work", ...over });

export const user = (id: string, parentId: string | null, text: string, over: Json = {}): Json => ({
  type: "message", id, parentId, timestamp: tick(), message: { role: "user", content: [{ type: "text", text }], timestamp: clock }, ...over,
});

export const assistant = (id: string, parentId: string | null, text: string, over: Json = {}): Json => ({
  type: "message", id, parentId, timestamp: tick(),
  message: { role: "assistant", content: [{ type: "text", text }], provider: "anthropic", model: "claude", stopReason: "stop", timestamp: clock },
  ...over,
});

export const entry = (type: string, id: string, parentId: string | null, fields: Json = {}): Json => ({ type, id, parentId, timestamp: tick(), ...fields });

export const jsonl = (...records: Array<Json | string>): Buffer =>
  Buffer.from(records.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n") + "\n");
