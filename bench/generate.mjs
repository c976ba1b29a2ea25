/**
 * Seeded generators for benchmark inputs (never committed): large sessions, linear or heavily
 * branched, with lines from ~1 KB of text to 5 MB base64 images, and stores of many small sessions.
 * Written with the same shapes pi writes (key order included).
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
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
 * Writes a session of about `sizeMB` megabytes and returns its path, entry count and size.
 *
 * `shape`:
 * - "fat": lines of 1-5 KB of text and, now and then, a base64 image of 0.2-5 MB (~5 KB a line);
 * - "corpus": entry sizes as in ../shared/corpus (~1.4 KB mean): short user messages, assistant
 *   turns with thinking, text and tool calls, tool results of 0.3-5 KB, model and thinking changes;
 * - "heartbeat": an OpenClaw-like heartbeat session (~0.5 KB mean): many short user/assistant
 *   pairs, custom messages, and a compaction every few dozen entries.
 * - "bloated": what `slim` is for: tool output about 90 % of the bytes (2-40 KB a result), with a
 *   compaction every few dozen entries keeping the last few; never corrupted (slim refuses that).
 * - "gateway": an OpenClaw gateway's long-lived heartbeat transcript as a replayer writes it back
 *   (~0.45 KB an entry): every entry id a UUID, heartbeat polls answered HEARTBEAT_OK, now and then
 *   a tool call reading HEARTBEAT.md (OpenClaw's `call_function_…` ids) and its result, model
 *   snapshots, and a compaction every few thousand entries (about a hundred in 200 MB).
 * `branched`: every few entries the leaf jumps back to a random earlier entry (with a branch
 * summary and labels now and then), as `/tree` does.
 * `corrupt` (the dense shapes): the corruptions `check` and `repair` must survive at scale: a torn
 * write fused with the next record a third of the way in, an entry reusing an earlier id halfway,
 * a two-entry parent cycle at two thirds, and a torn last line.
 */
export function generateLargeSession({ path, sizeMB, seed = 1, branched = false, shape = "fat", corrupt = shape !== "fat" && shape !== "bloated" }) {
  const r = rng(seed);
  const fd = openSync(path, "w");
  const target = sizeMB * 1024 * 1024;
  let written = 0;
  let batch = [];
  let batchBytes = 0;
  const flush = () => {
    writeSync(fd, batch.join(""));
    batch = [];
    batchBytes = 0;
  };
  const emitLine = (line) => {
    batch.push(line);
    batchBytes += line.length;
    written += Buffer.byteLength(line);
    if (batchBytes > 8 * 1024 * 1024) flush();
  };
  const emit = (obj) => emitLine(JSON.stringify(obj) + "\n");
  let t = Date.parse("2026-01-01T00:00:00.000Z");
  const sessionId = `bench-${shape}-${seed}-${sizeMB}-${branched ? "b" : "l"}`;
  emit({ type: "session", version: 3, id: sessionId, timestamp: iso(t), cwd: "/work/bench" });
  const ids = [];
  let leaf = null;
  const used = new Set();
  const uuid = () => `${hex8(r)}-${hex8(r).slice(0, 4)}-4${hex8(r).slice(0, 3)}-${"89ab"[Math.floor(r() * 4)]}${hex8(r).slice(0, 3)}-${hex8(r)}${hex8(r).slice(0, 4)}`;
  const newId = () => {
    if (shape === "gateway") return uuid();
    let id = hex8(r);
    while (used.has(id)) id = hex8(r);
    used.add(id);
    return id;
  };
  const entry = (type, rest) => {
    t += 1000;
    return { type, id: newId(), parentId: leaf, timestamp: iso(t), ...rest };
  };
  const append = (type, rest) => {
    const e = entry(type, rest);
    emit(e);
    ids.push(e.id);
    leaf = e.id;
    return e;
  };
  // corruptions, each once, at its share of the target size
  const marks = corrupt ? { fused: target / 3, duplicate: target / 2, cycle: (2 * target) / 3 } : {};
  const corruptions = () => {
    if (marks.fused !== undefined && written >= marks.fused) {
      delete marks.fused;
      const torn = JSON.stringify(entry("message", { message: { role: "user", content: text(r, 300), timestamp: t } }));
      const next = entry("message", { message: { role: "user", content: text(r, 200), timestamp: t } });
      emitLine(torn.slice(0, Math.floor(torn.length / 2)) + JSON.stringify(next) + "\n");
      ids.push(next.id);
      leaf = next.id;
    }
    if (marks.duplicate !== undefined && written >= marks.duplicate) {
      delete marks.duplicate;
      t += 1000;
      const again = { type: "message", id: ids[Math.floor(ids.length / 3)], parentId: leaf, timestamp: iso(t), message: { role: "user", content: "the same id again", timestamp: t } };
      emit(again);
    }
    if (marks.cycle !== undefined && written >= marks.cycle) {
      delete marks.cycle;
      const [a, b] = [newId(), newId()];
      t += 1000;
      emit({ type: "message", id: a, parentId: b, timestamp: iso(t), message: { role: "user", content: "a cycle", timestamp: t } });
      emit({ type: "message", id: b, parentId: a, timestamp: iso(t), message: { role: "user", content: "back to the cycle", timestamp: t } });
    }
  };
  const branch = () => {
    const x = r();
    if (x < 0.03 && ids.length > 10) {
      leaf = ids[Math.floor(r() * ids.length)];
      if (r() < 0.5) append("branch_summary", { fromId: ids[ids.length - 1], summary: text(r, 300) });
      return true;
    }
    if (x < 0.04) {
      append("label", { targetId: ids[Math.floor(r() * ids.length)], label: `mark ${ids.length}` });
      return true;
    }
    return false;
  };
  const usage = (input, output) => ({ input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: { input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0, total: input * 3e-6 + output * 15e-6 } });
  const assistant = (content, stopReason = "stop") => ({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(1000 + Math.floor(r() * 5000), 50 + Math.floor(r() * 800)), stopReason, timestamp: t });
  const logNormal = (median, sigma) => Math.max(20, Math.round(Math.exp(Math.log(median) + sigma * Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r()))));
  append("model_change", { provider: "anthropic", modelId: "claude-sonnet-4-5" });
  let call = 0;
  let sinceCompaction = 0;
  while (written < target) {
    corruptions();
    if (branched && branch()) continue;
    if (shape === "fat") {
      const user = { role: "user", content: [{ type: "text", text: text(r, 200 + Math.floor(r() * 1500)) }], timestamp: t };
      if (r() < 0.004) user.content.push({ type: "image", data: base64(r, 200_000 + Math.floor(r() * 4_800_000)), mimeType: "image/png" });
      append("message", { message: user });
      const callId = `toolu_${call++}`;
      append("message", { message: assistant([{ type: "thinking", thinking: text(r, 300 + Math.floor(r() * 1000)) }, { type: "text", text: text(r, 200 + Math.floor(r() * 2000)) }, { type: "toolCall", id: callId, name: "bash", arguments: { command: `ls ${call}` } }], "toolUse") });
      append("message", { message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: text(r, 500 + Math.floor(r() * 3000)) }], isError: false, timestamp: t } });
    } else if (shape === "corpus") {
      if (r() < 0.03) append(r() < 0.5 ? "model_change" : "thinking_level_change", r() < 0.5 ? { provider: "anthropic", modelId: "claude-opus-4-5" } : { thinkingLevel: "medium" });
      append("message", { message: { role: "user", content: [{ type: "text", text: text(r, 60 + Math.floor(r() * 250)) }], timestamp: t } });
      const steps = 1 + Math.floor(r() * 3);
      for (let k = 0; k < steps; k++) {
        const callId = `toolu_01${hex8(r)}${call++}`;
        const content = [];
        if (r() < 0.4) content.push({ type: "thinking", thinking: text(r, logNormal(300, 0.8)), thinkingSignature: base64(r, 300) });
        if (r() < 0.6) content.push({ type: "text", text: text(r, logNormal(350, 0.8)) });
        content.push({ type: "toolCall", id: callId, name: ["read", "bash", "edit", "write"][Math.floor(r() * 4)], arguments: { path: `src/file-${call % 97}.ts`, command: `npm test -- ${call}` } });
        append("message", { message: assistant(content, "toolUse") });
        append("message", { message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: text(r, logNormal(1200, 1.0)) }], isError: r() < 0.05, timestamp: t } });
      }
      append("message", { message: assistant([{ type: "text", text: text(r, logNormal(400, 0.8)) }]) });
    } else if (shape === "bloated") {
      append("message", { message: { role: "user", content: [{ type: "text", text: text(r, 60 + Math.floor(r() * 200)) }], timestamp: t } });
      const callId = `toolu_${call++}`;
      append("message", { message: assistant([{ type: "text", text: text(r, 100 + Math.floor(r() * 300)) }, { type: "toolCall", id: callId, name: "read", arguments: { path: `src/file-${call % 97}.ts` } }], "toolUse") });
      append("message", { message: { role: "toolResult", toolCallId: callId, toolName: "read", content: [{ type: "text", text: text(r, logNormal(9000, 0.9)) }], isError: false, timestamp: t } });
      sinceCompaction += 3;
      if (sinceCompaction > 30 + Math.floor(r() * 30)) {
        sinceCompaction = 0;
        append("compaction", { summary: text(r, logNormal(800, 0.4)), firstKeptEntryId: ids[Math.max(0, ids.length - 6)], tokensBefore: 80000 + Math.floor(r() * 40000) });
      }
    } else if (shape === "gateway") {
      append("message", { message: { role: "user", content: [{ type: "text", text: "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK." }], timestamp: t } });
      if (r() < 0.3) {
        const callId = `call_function_${hex8(r)}${hex8(r).slice(0, 4)}_1`;
        append("message", { message: assistant([{ type: "toolCall", id: callId, name: "read", arguments: { path: "HEARTBEAT.md" } }], "toolUse") });
        append("message", { message: { role: "toolResult", toolCallId: callId, toolName: "read", content: [{ type: "text", text: text(r, logNormal(120, 0.6)) }], isError: false, timestamp: t } });
      }
      append("message", { message: assistant([{ type: "text", text: r() < 0.92 ? "HEARTBEAT_OK" : text(r, 160) }]) });
      if (r() < 0.05) append("custom", { customType: "model-snapshot", data: { timestamp: t, provider: "minimax-cn", modelApi: "anthropic-messages", modelId: "MiniMax-M2.5-highspeed" } });
      sinceCompaction += 3;
      if (sinceCompaction > 3500 + Math.floor(r() * 2000)) {
        sinceCompaction = 0;
        append("compaction", { summary: text(r, logNormal(1500, 0.4)), firstKeptEntryId: ids[Math.max(0, ids.length - 20)], tokensBefore: 150000 + Math.floor(r() * 40000) });
      }
    } else {
      append("message", { message: { role: "user", content: [{ type: "text", text: `[OpenClaw heartbeat poll] ${text(r, 90)}` }], timestamp: t } });
      append("message", { message: assistant([{ type: "text", text: r() < 0.9 ? "HEARTBEAT_OK" : text(r, 200) }]) });
      if (r() < 0.4) append("custom_message", { customType: "openclaw.status", content: text(r, logNormal(500, 0.5)), display: false });
      sinceCompaction += 2;
      if (sinceCompaction > 40 + Math.floor(r() * 40)) {
        sinceCompaction = 0;
        append("compaction", { summary: text(r, logNormal(400, 0.4)), firstKeptEntryId: ids[Math.max(0, ids.length - 12)], tokensBefore: 40000 + Math.floor(r() * 40000) });
      }
    }
  }
  if (corrupt) {
    // a torn last line: the write that was cut off
    const last = JSON.stringify(entry("message", { message: { role: "user", content: text(r, 300), timestamp: t } }));
    emitLine(last.slice(0, Math.floor(last.length / 2)));
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

/**
 * The shapes that stress a command's complexity rather than its speed per byte, each `entries`
 * entries long (~300-500 bytes an entry, as dense as real sessions), for the complexity table
 * (bench/complexity.mjs): timed at N and 4N entries, a command linear in the entries takes about
 * four times as long.
 *
 * - "repeated-ids": one long linear chain whose tool call ids repeat (a session replayed, or a
 *   model that numbers its calls `functions.eval:3` afresh each turn): every result's call is a
 *   few entries up, and thousands of calls with its id lie above that.
 * - "branches": the leaf jumps back to a random earlier entry every few entries (a leaf every
 *   four entries), with branch summaries and labels.
 * - "compactions": a linear chain with a label every few entries (on a random earlier entry) and
 *   a compaction every dozen keeping from far back (the kept ranges overlap), and now and then a
 *   branch from an earlier entry, so that many compactions are some branch's newest.
 * - "nested": a spine with a dead-end side entry every third entry, so that branch points nest
 *   as deep as the session is long (a third of its entries).
 */
export function generateStressSession({ path, entries, shape, seed = 1 }) {
  const r = rng(seed);
  const lines = [];
  let t = Date.parse("2026-01-01T00:00:00.000Z");
  lines.push(JSON.stringify({ type: "session", version: 3, id: `stress-${shape}-${entries}`, timestamp: iso(t), cwd: "/work/stress" }));
  const ids = [];
  let leaf = null;
  let serial = 0;
  const append = (type, rest, parent = leaf) => {
    t += 1000;
    const id = (serial++).toString(16).padStart(8, "0");
    lines.push(JSON.stringify({ type, id, parentId: parent, timestamp: iso(t), ...rest }));
    ids.push(id);
    leaf = id;
    return id;
  };
  const usage = { input: 1200, output: 80, cacheRead: 0, cacheWrite: 0, totalTokens: 1280, cost: { input: 0.0036, output: 0.0012, cacheRead: 0, cacheWrite: 0, total: 0.0048 } };
  const user = () => append("message", { message: { role: "user", content: [{ type: "text", text: text(r, 60 + Math.floor(r() * 120)) }], timestamp: t } });
  const turn = (callId) => {
    append("message", { message: { role: "assistant", content: [{ type: "text", text: text(r, 40 + Math.floor(r() * 80)) }, { type: "toolCall", id: callId, name: "bash", arguments: { command: `npm test -- ${serial}` } }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage, stopReason: "toolUse", timestamp: t } });
    append("message", { message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: text(r, 80 + Math.floor(r() * 160)) }], isError: false, timestamp: t } });
  };
  const random = () => ids[Math.floor(r() * ids.length)];
  user();
  while (ids.length < entries) {
    switch (shape) {
      case "repeated-ids":
        turn(`functions.eval:${serial % 7}`);
        if (r() < 0.3) user();
        break;
      case "branches":
        turn(`toolu_${serial}`);
        if (r() < 0.5) {
          const from = leaf;
          leaf = random();
          if (r() < 0.2) append("branch_summary", { fromId: from, summary: text(r, 100) });
          else if (r() < 0.2) append("label", { targetId: random(), label: `mark ${serial}` });
        }
        user();
        break;
      case "compactions":
        turn(`toolu_${serial}`);
        append("label", { targetId: random(), label: `mark ${serial}` });
        if (serial % 12 < 4) append("compaction", { summary: text(r, 120), firstKeptEntryId: ids[Math.floor(r() * Math.min(ids.length, 50))], tokensBefore: 50000 });
        // (no branch among the first entries, which every kept range reaches back to)
        if (r() < 0.1 && ids.length > 60) leaf = random();
        user();
        break;
      case "nested": {
        const before = ids[ids.length - 2] ?? leaf;
        user();
        turn(`toolu_${serial}`);
        const spine = leaf;
        append("message", { message: { role: "user", content: [{ type: "text", text: "a dead end" }], timestamp: t } }, before);
        leaf = spine;
        break;
      }
      default:
        throw new Error(`unknown stress shape ${shape}`);
    }
  }
  const fd = openSync(path, "w");
  writeSync(fd, lines.join("\n") + "\n");
  closeSync(fd);
  return { path, entries: ids.length };
}

/**
 * A session made by replaying a real one (`source`, a pi session file: v1, v2 or v3) until it
 * holds about `sizeMB` megabytes, as issue 24 found it: every entry with a fresh id and its
 * parent the entry before, the content, tool call ids included, as the source has it. `branched`:
 * each replay starts from a random entry of an earlier one instead of the last, so the tool call
 * ids repeat across branches too.
 */
export function generateReplayedSession({ source, path, sizeMB, branched = false, seed = 1 }) {
  const r = rng(seed);
  const lines = readFileSync(source, "utf8").split("\n").filter((l) => l.trim() !== "");
  const head = JSON.parse(lines[0]);
  const body = [];
  for (const line of lines.slice(1)) {
    try {
      const e = JSON.parse(line);
      if (e && typeof e === "object" && typeof e.type === "string" && e.type !== "session") body.push(e);
    } catch {
      // a torn line of the source
    }
  }
  const fd = openSync(path, "w");
  const target = sizeMB * 1024 * 1024;
  let written = 0;
  const write = (text) => {
    writeSync(fd, text);
    written += Buffer.byteLength(text);
  };
  write(JSON.stringify({ type: "session", version: 3, id: `replayed-${seed}-${sizeMB}-${branched ? "b" : "l"}`, timestamp: head.timestamp, cwd: head.cwd ?? "/work" }) + "\n");
  let serial = 0;
  let leaf = null;
  const ids = [];
  while (written < target) {
    if (branched && ids.length > 0) leaf = ids[Math.floor(r() * ids.length)];
    const chunk = [];
    for (const e of body) {
      const id = (serial++).toString(16).padStart(8, "0");
      const copy = { type: e.type, id, parentId: leaf };
      for (const [k, v] of Object.entries(e)) if (!(k in copy)) copy[k] = v;
      delete copy.firstKeptEntryIndex;
      if (e.type === "compaction") copy.firstKeptEntryId = leaf ?? id;
      chunk.push(JSON.stringify(copy));
      if (ids.length < 1_000_000 && serial % 7 === 0) ids.push(id);
      leaf = id;
    }
    write(chunk.join("\n") + "\n");
  }
  closeSync(fd);
  return { path, entries: serial, bytes: written };
}

/** Models a generated store's sessions are billed to (provider, model, $ per million input / output / cache read / cache write tokens). */
const STORE_MODELS = [
  ["anthropic", "claude-sonnet-4-5", 3, 15, 0.3, 3.75],
  ["anthropic", "claude-opus-4-5", 5, 25, 0.5, 6.25],
  ["openai", "gpt-5.1-codex", 1.25, 10, 0.125, 0],
  ["google", "gemini-2.5-pro", 1.25, 10, 0.31, 0],
];

/**
 * A pi session store as the usage and grep benchmarks read it: `count` sessions in pi's layout
 * (`DIR/--cwd--/<time>_<id>.jsonl`, a dozen projects), about `sizeMB` megabytes in all, sized
 * log-normally (median a third of the mean, a few of many megabytes). Each session replays the
 * entries of a real session from ../shared/corpus (`sources`: text, tool calls and results,
 * thinking, usage as pi wrote them) with fresh ids, spread over four months, billed to one of four
 * models (a tenth switch model halfway) at that model's prices. Now and then, as pi 1.6 writes
 * them: a `usage` entry (a cache warm-up), a compaction with the summariser's usage, a tool result
 * with usage. A tenth of the sessions are forks of an earlier one (pi's `/fork`: the parent's path
 * up to an entry copied with its ids and timestamps, `parentSession` in the header, then new
 * turns), and two are backup copies of a session left in the store.
 */
export function generateSessionStore({ dir, count, sizeMB, sources, seed = 1 }) {
  const r = rng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  const bodies = sources.map((source) => {
    const body = [];
    for (const line of readFileSync(source, "utf8").split("\n")) {
      try {
        const e = JSON.parse(line);
        if (e && typeof e === "object" && typeof e.type === "string" && e.type !== "session" && e.type !== "label") body.push(e);
      } catch {
        // a torn line of the source
      }
    }
    return body;
  });
  // sizes: log-normal, scaled to the total
  const raw = Array.from({ length: count }, () => Math.exp(1.1 * normal()));
  const scale = (sizeMB * 1024 * 1024) / raw.reduce((a, b) => a + b, 0);
  const sizes = raw.map((x) => Math.max(4000, Math.min(40 * 1024 * 1024, x * scale)));
  const start = Date.parse("2026-06-01T00:00:00.000Z");
  const made = [];
  let serial = 0;
  const price = (model, u) => {
    const [, , pin, pout, pread, pwrite] = model;
    const cost = { input: (u.input * pin) / 1e6, output: (u.output * pout) / 1e6, cacheRead: (u.cacheRead * pread) / 1e6, cacheWrite: (u.cacheWrite * pwrite) / 1e6 };
    return { ...u, totalTokens: u.input + u.output + u.cacheRead + u.cacheWrite, cost: { ...cost, total: cost.input + cost.output + cost.cacheRead + cost.cacheWrite } };
  };
  const tokens = () => ({ input: 200 + Math.floor(r() * 4000), output: 50 + Math.floor(r() * 1500), cacheRead: Math.floor(r() * 60000), cacheWrite: r() < 0.3 ? Math.floor(r() * 8000) : 0 });
  for (let i = 0; i < count; i++) {
    const project = i % 12;
    const cwd = `/home/dev/code/project-${project}`;
    const folder = join(dir, `--${cwd.slice(1).replace(/\//g, "-")}--`);
    mkdirSync(folder, { recursive: true });
    const id = `019f${i.toString(16).padStart(4, "0")}-${hex8(r).slice(0, 4)}-7000-8000-${hex8(r)}${hex8(r).slice(0, 4)}`;
    let t = start + Math.floor(r() * 120 * 86400_000);
    const header = { type: "session", version: 3, id, timestamp: iso(t), cwd };
    const lines = [];
    let leaf = null;
    let written = 0;
    const parent = i > 10 && r() < 0.1 ? made[Math.floor(r() * made.length)] : undefined;
    if (parent) {
      // pi's /fork: the parent's path up to an entry, copied as it is (ids, timestamps, usage)
      header.parentSession = parent.path;
      const upTo = 1 + Math.floor(r() * (parent.lines.length - 1));
      for (const line of parent.lines.slice(0, upTo)) {
        lines.push(line);
        written += line.length + 1;
      }
      leaf = JSON.parse(parent.lines[upTo - 1]).id;
      t = Math.max(t, parent.end + 60_000);
      header.timestamp = iso(t);
    }
    let model = STORE_MODELS[Math.floor(r() * STORE_MODELS.length)];
    const switchAt = r() < 0.1 ? sizes[i] / 2 : Infinity;
    const body = bodies[i % bodies.length];
    let k = Math.floor(r() * body.length);
    while (written < sizes[i]) {
      if (written > switchAt) model = STORE_MODELS[(STORE_MODELS.indexOf(model) + 1) % STORE_MODELS.length];
      const e = body[k++ % body.length];
      t += 1000 + Math.floor(r() * 30_000);
      const copy = { type: e.type, id: (serial++).toString(16).padStart(8, "0"), parentId: leaf, timestamp: iso(t) };
      for (const [key, v] of Object.entries(e)) if (!(key in copy)) copy[key] = v;
      delete copy.firstKeptEntryIndex;
      if (copy.type === "compaction") {
        copy.firstKeptEntryId = leaf ?? copy.id;
        if (r() < 0.5) copy.usage = price(model, tokens());
      }
      if (copy.type === "branch_summary") copy.fromId = leaf ?? copy.id;
      if (copy.type === "message" && copy.message && typeof copy.message === "object") {
        const m = { ...copy.message };
        if (m.role === "assistant") {
          m.provider = model[0];
          m.model = model[1];
          m.usage = price(model, tokens());
        } else if (m.role === "toolResult" && r() < 0.01) m.usage = price(STORE_MODELS[0], tokens());
        copy.message = m;
      }
      const line = JSON.stringify(copy);
      lines.push(line);
      written += line.length + 1;
      leaf = copy.id;
      if (r() < 0.005) {
        t += 1000;
        const warm = { type: "usage", id: (serial++).toString(16).padStart(8, "0"), parentId: leaf, timestamp: iso(t), kind: "cache_warm", provider: model[0], model: model[1], usage: price(model, { input: 0, output: 1, cacheRead: 20000, cacheWrite: 0 }) };
        lines.push(JSON.stringify(warm));
        leaf = warm.id;
      }
    }
    const path = join(folder, `${header.timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`);
    const fd = openSync(path, "w");
    writeSync(fd, `${JSON.stringify(header)}\n${lines.join("\n")}\n`);
    closeSync(fd);
    made.push({ path, lines, end: t });
  }
  // two backup copies left in the store
  for (const k of [Math.floor(count / 3), Math.floor((2 * count) / 3)]) {
    const { path } = made[k];
    writeFileSync(path.replace(/\.jsonl$/, ".backup.jsonl"), readFileSync(path));
  }
  return { sessions: made.length + 2 };
}

/**
 * A store of real sessions as a user has them: every session file of ../shared/corpus (v1 files,
 * the one with a fused line, a header alone among them) and every transcript of the shared OpenClaw
 * stores (live, reset and deleted), copied byte for byte but for their ids, again and again until
 * the store holds `sizeMB` megabytes, each copy in pi's layout (`DIR/--<cwd>--/<time>_<id>.jsonl`).
 * A copy's ids are fresh, each the same shape as the one it replaces (an 8-hex id stays 8 hex, a
 * UUID a UUID, another string gets a suffix) and the same everywhere in the copy, so that its tree,
 * its pairing and its damage are the source's, and no copy shares an entry with another (usage
 * counts every copy, as it would count distinct sessions). The header's id is replaced the same
 * way, so a v1 file's entries (ids derived from it) are fresh too.
 */
export function generateRealStore({ dir, sizeMB, sources, seed = 1 }) {
  const r = rng(seed);
  const bodies = sources.map((path) => readFileSync(path, "latin1"));
  const total = bodies.reduce((n, b) => n + b.length, 0);
  const copies = Math.max(1, Math.ceil((sizeMB * 1024 * 1024) / total));
  const ID = /"(id|parentId|targetId|firstKeptEntryId|fromId|toolCallId)":"([^"\\]{1,200})"/g;
  let files = 0;
  let bytes = 0;
  for (let copy = 0; copy < copies; copy++) {
    const salt = hex8(r);
    const fresh = new Map();
    const freshId = (value) => {
      let v = fresh.get(value);
      if (v) return v;
      if (/^[0-9a-f]{8}$/.test(value)) v = hex8(r);
      else if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) v = `${value.slice(0, 4)}${hex8(r).slice(0, 4)}-${hex8(r).slice(0, 4)}-${value.slice(14, 18)}-${value.slice(19, 20)}${hex8(r).slice(0, 3)}-${hex8(r)}${hex8(r).slice(0, 4)}`;
      else v = `${value}-${salt}`;
      fresh.set(value, v);
      return v;
    };
    for (const [k, body] of bodies.entries()) {
      const text = body.replace(ID, (_, key, value) => `"${key}":"${freshId(value)}"`);
      const firstLine = text.slice(0, text.indexOf("\n") < 0 ? text.length : text.indexOf("\n"));
      let header;
      try {
        header = JSON.parse(Buffer.from(firstLine, "latin1").toString("utf8"));
      } catch {
        header = undefined;
      }
      const cwd = typeof header?.cwd === "string" ? header.cwd : "/unknown";
      const id = typeof header?.id === "string" && /^[0-9a-f-]{36}$/i.test(header.id) ? header.id : `${hex8(r)}-${hex8(r).slice(0, 4)}-4${hex8(r).slice(0, 3)}-8${hex8(r).slice(0, 3)}-${hex8(r)}${hex8(r).slice(0, 4)}`;
      const time = typeof header?.timestamp === "string" && !Number.isNaN(Date.parse(header.timestamp)) ? header.timestamp : iso(Date.parse("2026-03-01T00:00:00Z") + k * 3_600_000);
      const folder = join(dir, `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `${time.replace(/[:.]/g, "-")}_${id}.jsonl`), Buffer.from(text, "latin1"));
      files++;
      bytes += text.length;
    }
  }
  return { files, bytes };
}
