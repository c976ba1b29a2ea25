/**
 * Seeded sessions written by pi's own SessionManager: branches, branch summaries, compactions,
 * labels set and cleared, usage, context edits, custom entries and messages, model and thinking
 * changes, images and bash executions. Made at test time in a temporary directory, never committed.
 */
import { pi } from "./pi.js";
// @ts-expect-error: a plain JS module shared with the benchmark
import { rng } from "../../bench/generate.mjs";

// One seeded generator for tests and the benchmark.
// @ts-expect-error: a plain JS module shared with the benchmark
export { rng } from "../../bench/generate.mjs";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

export interface GenerateOptions {
  seed: number;
  dir: string;
  steps?: number;
  /** Whether context edits are among the steps (default: yes). */
  contextEdits?: boolean;
}

/** Writes one session with pi's SessionManager and returns its path. */
export function generateSession({ seed, dir, steps = 60, contextEdits = true }: GenerateOptions): string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const sm = pi.SessionManager.create("/work/project", dir);
  let t = 1_770_000_000_000 + seed * 1000;
  let call = 0;
  const usage = () => ({ input: Math.floor(r() * 500), output: Math.floor(r() * 200), cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: r() / 100 } });
  const user = (text: string) => sm.appendMessage({ role: "user", content: r() < 0.15 ? [{ type: "text", text }, { type: "image", data: PNG, mimeType: "image/png" }] : text, timestamp: (t += 1000) });
  const assistant = () => {
    const content: unknown[] = [];
    if (r() < 0.4) content.push({ type: "thinking", thinking: `thinking ${seed}-${call}` });
    content.push({ type: "text", text: `answer ${seed}-${call}` });
    const withTool = r() < 0.4;
    const id = `call_${seed}_${call++}`;
    if (withTool) content.push({ type: "toolCall", id, name: pick(["bash", "read", "edit"]), arguments: { path: `f${call}.ts` } });
    const provider = pick(["anthropic", "openai"]);
    sm.appendMessage({ role: "assistant", content, api: "x", provider, model: `${provider}-model-${Math.floor(r() * 3)}`, usage: usage(), stopReason: withTool ? "toolUse" : "stop", timestamp: (t += 1000) });
    if (withTool) sm.appendMessage({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: `result ${call}` }], isError: r() < 0.2, timestamp: (t += 1000) });
  };
  user(`hello ${seed}`);
  assistant();
  for (let i = 0; i < steps; i++) {
    const ids: string[] = sm.getEntries().map((e: { id: string }) => e.id);
    const branch = sm.getBranch() as Array<{ id: string; type: string; message?: { role: string } }>;
    const x = r();
    if (x < 0.25) user(`question ${seed}-${i}`);
    else if (x < 0.45) assistant();
    else if (x < 0.5) sm.appendModelChange(pick(["anthropic", "openai", "google"]), `m-${i}`);
    else if (x < 0.54) sm.appendThinkingLevelChange(pick(["off", "low", "medium", "high"]));
    else if (x < 0.59 && branch.length > 2) {
      const keep = pick(branch.slice(0, -1));
      sm.appendCompaction(`summary ${i}`, r() < 0.1 ? undefined : keep.id, Math.floor(r() * 10000), undefined, undefined, r() < 0.5 ? usage() : undefined);
    } else if (x < 0.65) sm.branch(pick(ids));
    else if (x < 0.69) sm.branchWithSummary(r() < 0.1 ? null : pick(ids), `branch summary ${i}`, undefined, undefined, r() < 0.5 ? usage() : undefined);
    else if (x < 0.73) sm.appendLabelChange(pick(ids), r() < 0.7 ? `label ${i}` : undefined);
    else if (x < 0.76) sm.appendUsage("cache_warm", "anthropic", "claude", usage());
    else if (x < 0.81) {
      const editable = branch.filter((e) => e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message!.role)));
      if (editable.length > 0 && contextEdits) sm.appendContextEdit(pick(editable).id, r() < 0.4 ? null : { content: r() < 0.5 ? `edited ${i}` : [{ type: "text", text: `edited ${i}` }] });
    } else if (x < 0.84) sm.appendCustomEntry("ext", { n: i });
    else if (x < 0.88) sm.appendCustomMessageEntry("ext", r() < 0.5 ? `custom ${i}` : [{ type: "text", text: `custom ${i}` }], r() < 0.5, { i });
    else if (x < 0.9) sm.appendSessionInfo(`name ${i}`);
    else if (x < 0.92) sm.resetLeaf();
    else if (x < 0.96) sm.appendMessage({ role: "bashExecution", command: `ls ${i}`, output: r() < 0.3 ? "" : `out ${i}`, exitCode: r() < 0.3 ? 1 : 0, cancelled: r() < 0.1, truncated: false, excludeFromContext: r() < 0.2, timestamp: (t += 1000) });
    else if (x < 0.98) sm.appendMessage({ role: "system", content: "", sections: { preamble: `prompt ${i}` }, timestamp: (t += 1000) });
    else user(`more ${seed}-${i}`);
  }
  user(`last ${seed}`);
  return sm.getSessionFile() as string;
}

export interface BloatedOptions extends GenerateOptions {
  /** Bytes of a typical large payload (tool output, file written, thinking). */
  payload?: number;
  /** How often a step branches off from an earlier entry (a branch from far back keeps all after it live). */
  branching?: number;
}

/**
 * A session that grew large the way real ones do (pi's SessionManager writes it): tool output,
 * files written through tool calls, thinking with signatures, images and shell output, with
 * compactions every so often (each keeping a few recent entries), branches made before and after
 * them, branch summaries, custom messages and context edits.
 */
export function generateBloatedSession({ seed, dir, steps = 80, payload = 4000, branching = 0.07 }: BloatedOptions): string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const blob = (n: number) => {
    const words = ["const", "return", "value", "path", "line", "error", "=>", "{", "}", "\n", "ok", "é", "日本"];
    let s = "";
    while (s.length < n) s += pick(words) + " ";
    return s.slice(0, n);
  };
  const base64 = (n: number) => Buffer.from(Array.from({ length: Math.ceil((n * 3) / 4) }, () => Math.floor(r() * 256))).toString("base64").slice(0, n);
  const sm = pi.SessionManager.create("/work/project", dir);
  let t = 1_780_000_000_000 + seed * 1000;
  let call = 0;
  const size = () => Math.floor(payload * (0.25 + r() * 1.5));
  const usage = () => ({ input: Math.floor(r() * 5000), output: Math.floor(r() * 900), cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: r() / 100 } });
  const user = () => {
    const content = r() < 0.2 ? [{ type: "text", text: `look at this ${call}` }, { type: "image", data: base64(size()), mimeType: "image/png" }] : r() < 0.1 ? blob(size()) : `question ${seed}-${call}`;
    sm.appendMessage({ role: "user", content, timestamp: (t += 1000) });
  };
  const turn = () => {
    const id = `call_${seed}_${call++}`;
    const content: unknown[] = [];
    if (r() < 0.5) content.push({ type: "thinking", thinking: blob(size()), thinkingSignature: base64(1200) });
    content.push({ type: "text", text: r() < 0.3 ? blob(size()) : `working on ${call}` });
    const tool = pick(["bash", "read", "write", "edit"]);
    content.push({ type: "toolCall", id, name: tool, arguments: tool === "write" ? { path: `f${call}.ts`, content: blob(size()) } : { path: `f${call}.ts` } });
    sm.appendMessage({ role: "assistant", content, api: "x", provider: "anthropic", model: "claude", usage: usage(), stopReason: "toolUse", timestamp: (t += 1000) });
    const output = [{ type: "text", text: blob(size() * 2) }, ...(r() < 0.1 ? [{ type: "image", data: base64(size()), mimeType: "image/jpeg" }] : [])];
    sm.appendMessage({ role: "toolResult", toolCallId: id, toolName: tool, content: output, details: tool === "edit" ? { diff: blob(size()), firstChangedLine: 3 } : { truncated: false }, isError: r() < 0.1, timestamp: (t += 1000) });
  };
  user();
  turn();
  for (let i = 0; i < steps; i++) {
    const branch = sm.getBranch() as Array<{ id: string; type: string }>;
    if (r() < branching) {
      sm.branch(pick(sm.getEntries() as Array<{ id: string }>).id);
      continue;
    }
    const x = r();
    if (x < 0.3) turn();
    else if (x < 0.45) user();
    else if (x < 0.53 && branch.length > 6) {
      // keep the last few entries of the branch, from a whole turn as pi cuts (never at a tool result)
      let at = Math.max(0, branch.length - 1 - Math.floor(r() * 5));
      while (at > 0 && (branch[at] as { message?: { role: string } }).message?.role === "toolResult") at--;
      const keep = branch[at]!;
      sm.appendCompaction(blob(Math.floor(size() / 2)), r() < 0.1 ? null : keep.id, Math.floor(r() * 100000), { readFiles: [`f${i}.ts`] }, undefined, usage());
    } else if (x < 0.64) sm.branchWithSummary(pick(branch.slice(-4)).id, blob(size()), undefined, undefined, usage()); // (back a little, summarising what was left)
    else if (x < 0.69) sm.appendMessage({ role: "bashExecution", command: `make ${i}`, output: blob(size()), exitCode: r() < 0.2 ? 1 : 0, cancelled: false, truncated: false, timestamp: (t += 1000) });
    else if (x < 0.73) sm.appendCustomMessageEntry("ext", r() < 0.5 ? blob(size()) : [{ type: "text", text: blob(size()) }], true, { n: blob(200) });
    else if (x < 0.77) {
      const editable = (branch as Array<{ id: string; type: string; message?: { role: string } }>).filter((e) => e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message!.role)));
      if (editable.length > 0) sm.appendContextEdit(pick(editable).id, r() < 0.5 ? null : { content: `edited ${i}` });
    } else if (x < 0.8) sm.appendModelChange("anthropic", `m-${i}`);
    else if (x < 0.83) sm.appendLabelChange(pick(sm.getEntries() as Array<{ id: string }>).id, `label ${i}`);
    else turn();
  }
  user();
  return sm.getSessionFile() as string;
}

/**
 * A session of parallel tool calls whose results came after a message (OpenClaw #9958, #15037: a
 * user message steered in between an assistant turn of several calls and their results), written
 * by pi's SessionManager: turns of one to three calls, a call now and then left unanswered,
 * session names, compactions keeping from anywhere on the branch (a session name above the
 * displaced results among them), branches, and turns stopped by `length`. Already damaged as
 * written: `repair` must move every displaced result back under its call and remove no other.
 */
export function generateDisplacedSession({ seed, dir, steps = 14 }: Omit<GenerateOptions, "contextEdits">): string {
  const r = rng(seed);
  const sm = pi.SessionManager.create("/work/project", dir);
  let t = 1_790_000_000_000 + seed * 1000;
  let call = 0;
  const usage = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.01 } };
  const assistant = (content: unknown[], stopReason: string) => sm.appendMessage({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude", usage, stopReason, timestamp: (t += 1000) });
  const result = (id: string) => sm.appendMessage({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: `result ${id}` }], isError: false, timestamp: (t += 1000) });
  const user = (text: string) => sm.appendMessage({ role: "user", content: text, timestamp: (t += 1000) });
  user(`hello ${seed}`);
  for (let i = 0; i < steps; i++) {
    const x = r();
    const branch = sm.getBranch() as Array<{ id: string }>;
    if (x < 0.12) sm.appendSessionInfo(`name ${i}`);
    else if (x < 0.4) {
      const ids = Array.from({ length: 1 + Math.floor(r() * 3) }, () => `call_${seed}_${call++}`);
      assistant([{ type: "text", text: `turn ${i}` }, ...ids.map((id) => ({ type: "toolCall", id, name: "bash", arguments: { n: i } }))], "toolUse");
      if (r() < 0.6) user(`steer ${i}`);
      for (const id of ids) if (r() < 0.95) result(id);
    } else if (x < 0.5) assistant([{ type: "text", text: `answer ${i}` }], r() < 0.3 ? "length" : "stop");
    else if (x < 0.58) user(`question ${i}`);
    else if (x < 0.7 && branch.length > 2) sm.appendCompaction(`summary ${i}`, branch[Math.floor(r() * (branch.length - 1))]!.id, 1000);
    else if (x < 0.74) sm.branch(branch[Math.floor(r() * branch.length)]!.id);
    else if (x < 0.8) sm.appendModelChange("anthropic", `m-${i}`);
    else {
      const id = `call_${seed}_${call++}`;
      assistant([{ type: "text", text: `one ${i}` }, { type: "toolCall", id, name: "bash", arguments: {} }], "toolUse");
      result(id);
    }
  }
  assistant([{ type: "text", text: "cut short" }], "length");
  return sm.getSessionFile() as string;
}
