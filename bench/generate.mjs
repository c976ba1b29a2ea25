/**
 * Seeded generators for benchmark inputs (never committed): large sessions, linear or heavily
 * branched, with lines from ~1 KB of text to 5 MB base64 images, and stores of many small sessions.
 * Written with the same shapes pi writes (key order included).
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";

export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = "the session file tree branch leaf context model tool call result read write edit bash test build fix bug error line json parse stream memory index scan".split(" ");

function text(r, bytes) {
  const out = [];
  let n = 0;
  while (n < bytes) {
    const w = WORDS[Math.floor(r() * WORDS.length)];
    out.push(w);
    n += w.length + 1;
  }
  return out.join(" ");
}

let BASE64;
function base64(r, bytes) {
  if (!BASE64) {
    const raw = Buffer.alloc(4 * 1024 * 1024);
    for (let i = 0; i < raw.length; i++) raw[i] = Math.floor(r() * 256);
    BASE64 = raw.toString("base64"); // ~5.6 MB
  }
  const start = Math.floor(r() * (BASE64.length - bytes));
  return BASE64.slice(start, start + bytes - (bytes % 4));
}

const iso = (ms) => new Date(ms).toISOString();
const hex8 = (r) => Math.floor(r() * 0xffffffff).toString(16).padStart(8, "0");

/**
 * Writes a session of about `sizeMB` megabytes and returns its path and entry count.
 * `branched`: every few entries the leaf jumps back to a random earlier entry (with a branch summary
 * and labels now and then), as `/tree` does.
 */
export function generateLargeSession({ path, sizeMB, seed = 1, branched = false }) {
  const r = rng(seed);
  const fd = openSync(path, "w");
  const target = sizeMB * 1024 * 1024;
  let written = 0;
  let batch = [];
  let batchBytes = 0;
  const emit = (obj) => {
    const line = JSON.stringify(obj) + "\n";
    batch.push(line);
    batchBytes += line.length;
    written += Buffer.byteLength(line);
    if (batchBytes > 8 * 1024 * 1024) flush();
  };
  const flush = () => {
    writeSync(fd, batch.join(""));
    batch = [];
    batchBytes = 0;
  };
  let t = Date.parse("2026-01-01T00:00:00.000Z");
  const sessionId = `bench-${seed}-${sizeMB}-${branched ? "b" : "l"}`;
  emit({ type: "session", version: 3, id: sessionId, timestamp: iso(t), cwd: "/work/bench" });
  const ids = [];
  let leaf = null;
  const used = new Set();
  const newId = () => {
    let id = hex8(r);
    while (used.has(id)) id = hex8(r);
    used.add(id);
    return id;
  };
  const append = (fields) => {
    const id = newId();
    t += 1000;
    emit({ type: fields.type, id, parentId: leaf, timestamp: iso(t), ...fields.rest });
    ids.push(id);
    leaf = id;
  };
  append({ type: "model_change", rest: { provider: "anthropic", modelId: "claude-sonnet-4-5" } });
  let call = 0;
  while (written < target) {
    const x = r();
    if (branched && x < 0.08 && ids.length > 10) {
      leaf = ids[Math.floor(r() * ids.length)];
      if (r() < 0.5) append({ type: "branch_summary", rest: { fromId: ids[ids.length - 1], summary: text(r, 300) } });
      continue;
    }
    if (branched && x < 0.1) {
      append({ type: "label", rest: { targetId: ids[Math.floor(r() * ids.length)], label: `mark ${ids.length}` } });
      continue;
    }
    const user = { role: "user", content: [{ type: "text", text: text(r, 200 + Math.floor(r() * 1500)) }], timestamp: t };
    if (r() < 0.004) user.content.push({ type: "image", data: base64(r, 200_000 + Math.floor(r() * 4_800_000)), mimeType: "image/png" });
    append({ type: "message", rest: { message: user } });
    const callId = `toolu_${call++}`;
    append({
      type: "message",
      rest: {
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: text(r, 300 + Math.floor(r() * 1000)) },
            { type: "text", text: text(r, 200 + Math.floor(r() * 2000)) },
            { type: "toolCall", id: callId, name: "bash", arguments: { command: `ls ${call}` } },
          ],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: { input: 1000, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 1200, cost: { input: 0.003, output: 0.003, cacheRead: 0, cacheWrite: 0, total: 0.006 } },
          stopReason: "toolUse",
          timestamp: t,
        },
      },
    });
    append({ type: "message", rest: { message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: text(r, 500 + Math.floor(r() * 3000)) }], isError: false, timestamp: t } } });
  }
  flush();
  closeSync(fd);
  return { path, entries: ids.length, bytes: written };
}

/**
 * A pi session store: `count` sessions spread over project folders, sized like the real sessions in
 * ../shared/corpus (log-normal, median about 60 KB, a few of several megabytes).
 */
export function generateStore({ dir, count, seed = 1 }) {
  const r = rng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  for (let i = 0; i < count; i++) {
    const project = join(dir, `--work-project-${i % 50}--`);
    mkdirSync(project, { recursive: true });
    const id = `0000${i.toString(16).padStart(4, "0")}-0000-4000-8000-${hex8(r)}0000`;
    const t = Date.parse("2026-01-01T00:00:00.000Z") + i * 60_000;
    const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: iso(t), cwd: `/work/project-${i % 50}` })];
    const target = Math.min(4_000_000, Math.exp(Math.log(60_000) + 1.4 * normal()));
    let bytes = 0;
    let parent = null;
    for (let k = 0; bytes < target || k < 2; k++) {
      const eid = hex8(r);
      const role = k % 2 ? "assistant" : "user";
      const message = role === "user" ? { role, content: text(r, 100 + Math.floor(r() * 600)), timestamp: t + k * 1000 } : { role, content: [{ type: "text", text: text(r, 200 + Math.floor(r() * 3000)) }], provider: "anthropic", model: "claude", usage: { input: 1, output: 1, totalTokens: 2, cost: { total: 0 } }, stopReason: "stop", timestamp: t + k * 1000 };
      const line = JSON.stringify({ type: "message", id: eid, parentId: parent, timestamp: iso(t + k * 1000), message });
      lines.push(line);
      bytes += line.length + 1;
      parent = eid;
    }
    const fd = openSync(join(project, `${iso(t).replace(/[:.]/g, "-")}_${id}.jsonl`), "w");
    writeSync(fd, lines.join("\n") + "\n");
    closeSync(fd);
  }
}
