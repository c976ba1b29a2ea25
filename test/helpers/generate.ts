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
}

/** Writes one session with pi's SessionManager and returns its path. */
export function generateSession({ seed, dir, steps = 60 }: GenerateOptions): string {
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
      if (editable.length > 0) sm.appendContextEdit(pick(editable).id, r() < 0.4 ? null : { content: r() < 0.5 ? `edited ${i}` : [{ type: "text", text: `edited ${i}` }] });
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
