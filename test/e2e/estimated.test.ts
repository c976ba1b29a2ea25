/**
 * Estimated cost, end to end: on a session whose requests carry tokens and no cost (a local
 * model, a priced model recorded at zero with hour-long cache writes, a tiered model past its
 * tier with no cost at all, a proxy, an OpenRouter id), `usage` and `show` give what pi-ai 1.6's
 * own `calculateCost` says each request would have cost, summed, beside the recorded cost (which
 * is unchanged), and count the tokens no price is known for; `--prices` adds a price; CSV and
 * `--jsonl` carry it; and README's fleet recipe, run as written with DuckDB over two stores'
 * `--jsonl`, gives `usage`'s totals.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { calculateCost } from "@earendil-works/pi-ai/models";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { cli, cliJson } from "../helpers/cli.js";
import { fixture, ROOT } from "../helpers/paths.js";

const FILE = fixture("estimated-cost.jsonl");

/** The price file `usage` prints on stderr for the models it found no price for: its line's end, after what it says to do. */
function stanzaOf(stderr: string): string {
  const line = stderr.split("\n").find((l) => l.startsWith("pi-session: no price for "));
  expect(line, stderr).toBeDefined();
  const at = line!.indexOf("give it with --prices FILE): ");
  expect(at, line).toBeGreaterThan(0);
  return line!.slice(at + "give it with --prices FILE): ".length);
}

/** pi-ai's own answer: each request with tokens and no cost, priced by its model where pi-ai has it; the rest's tokens. */
function oracle(): { recorded: number; estimated: number; unpriced: number } {
  let recorded = 0;
  let estimated = 0;
  let unpriced = 0;
  for (const line of readFileSync(FILE, "utf8").trim().split("\n")) {
    const m = JSON.parse(line).message;
    if (m?.role !== "assistant" || !m.usage) continue;
    const u = m.usage;
    const cost = u.cost?.total ?? 0;
    recorded += cost;
    if (cost !== 0) continue;
    let model;
    try {
      model = getBuiltinModel(m.provider, m.model);
    } catch {
      model = undefined;
    }
    if (model) estimated += calculateCost(model as never, { ...u, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } as never).total;
    else unpriced += u.input + u.output + u.cacheRead + u.cacheWrite;
  }
  return { recorded, estimated, unpriced };
}

describe("estimated cost", () => {
  it("usage and show estimate what pi-ai's calculateCost says, beside the recorded cost, and count the unpriced tokens", async () => {
    const want = oracle();
    expect(want.estimated).toBeGreaterThan(0);
    expect(want.unpriced).toBeGreaterThan(0);
    const usage = await cliJson(["usage", FILE]);
    expect(usage.exitCode).toBe(0);
    expect(usage.json.total.cost).toBeCloseTo(want.recorded, 10);
    expect(usage.json.total.estimatedCost).toBeCloseTo(want.estimated, 10);
    expect(usage.json.total.unpricedTokens).toBe(want.unpriced);
    expect(usage.json.prices.source).toBe("@earendil-works/pi-ai 1.6.0");
    const show = await cliJson(["show", FILE]);
    expect(show.json.cost).toBeCloseTo(want.recorded, 10);
    expect(show.json.estimatedCost).toBeCloseTo(want.estimated, 10);
    expect(show.json.unpricedTokens).toBe(want.unpriced);
    const human = await cli(["usage", FILE]);
    expect(human.stdout).toMatch(/estimated/);
    expect(human.stdout).toMatch(/tokens with no price \(\+\): /);
  });

  it("--by model says whose cost is recorded, estimated or unpriced", async () => {
    const r = await cliJson(["usage", FILE, "--by", "model"]);
    const pricing = Object.fromEntries(r.json.rows.map((row: { key: string; pricing: string }) => [row.key, row.pricing]));
    expect(pricing).toEqual({
      "anthropic/claude-sonnet-4-5": "recorded and estimated",
      "google/gemini-2.5-pro": "estimated",
      "my-proxy/claude-sonnet-4-5": "unpriced",
      "ollama/qwen3:32b": "unpriced",
      "openrouter/anthropic/claude-sonnet-4.5:batch": "estimated",
    });
  });

  it("--prices adds a price (a local model's) and overrides one; a price file that does not read is a one-line error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-prices-"));
    const prices = join(dir, "prices.json");
    writeFileSync(prices, JSON.stringify({ ollama: { "qwen3:32b": { input: 1, output: 2 } } }));
    const before = (await cliJson(["usage", FILE])).json.total;
    const after = (await cliJson(["usage", FILE, "--prices", prices])).json.total;
    expect(after.estimatedCost).toBeCloseTo(before.estimatedCost + (12000 * 1 + 800 * 2) / 1e6, 10);
    expect(after.unpricedTokens).toBe(before.unpricedTokens - 12800);
    expect(after.cost).toBe(before.cost);
    const shown = (await cliJson(["show", FILE, "--prices", prices])).json;
    expect(shown.estimatedCost).toBeCloseTo(after.estimatedCost, 10);
    writeFileSync(prices, "{ not json");
    const bad = await cli(["usage", FILE, "--prices", prices]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(new RegExp(`${prices}: not a readable price file`));
  });

  it("a price file is checked: a misspelt field (cache_read) or a price that is no number is a usage error naming the file, the model, the field and the fields there are; a provider pi-ai does not know is fine", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-prices-checked-"));
    const prices = join(dir, "prices.json");
    const refused = async (content: unknown, ...want: string[]) => {
      writeFileSync(prices, typeof content === "string" ? content : JSON.stringify(content));
      for (const args of [["usage", FILE], ["usage", FILE, "--json"], ["show", FILE], ["show", FILE, "--json"]]) {
        const r = await cli([...args, "--prices", prices]);
        expect([r.exitCode, r.stdout], args.join(" ")).toEqual([2, ""]);
        expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
        expect(r.stderr).toContain(`${prices}: `);
        for (const w of want) expect(r.stderr).toContain(w);
        expect(r.stderr).toContain("a price's fields are input, output, cacheRead, cacheWrite, tiers");
      }
    };
    // (pi-ai's own field names, as the entries' usage has them: a snake_case one would price cache reads at nothing)
    await refused({ ollama: { "qwen3:32b": { input: 1, output: 2, cache_read: 0.1 } } }, 'ollama/qwen3:32b: unknown field "cache_read" (did you mean "cacheRead"?)');
    await refused({ ollama: { "qwen3:32b": { input: "1", output: 2 } } }, 'ollama/qwen3:32b: "input" is "1", not a number >= 0');
    await refused({ ollama: { "qwen3:32b": { input: 1, output: -2 } } }, '"output" is -2, not a number >= 0');
    await refused({ ollama: { "qwen3:32b": { output: 2 } } }, 'ollama/qwen3:32b: no "input"');
    // (a number JSON reads as infinity is no price, and is said as written, not as JSON's null)
    await refused('{ "ollama": { "qwen3:32b": { "input": 1e999, "output": 2 } } }', 'ollama/qwen3:32b: "input" is a number too large to be a price (read as infinity), not a number >= 0');
    await refused({ ollama: { "qwen3:32b": { input: 1, output: 2, tiers: [{ inputTokensAbove: 1000, input: 2, output: 4, cacheWrite: "x" }] } } }, 'ollama/qwen3:32b tier 1: "cacheWrite" is "x"');
    await refused({ ollama: ["qwen3:32b"] }, '"ollama": ["qwen3:32b"] where an object of model ids and their prices belongs');
    // every problem named, the first few on the one line
    await refused({ a: { m: { input: 1, output: 2, inptu: 1 } }, b: { n: { input: null, output: 2 } }, c: { o: 3 }, d: { p: { input: 1 } } }, 'a/m: unknown field "inptu"', 'b/n: "input" is null, not a number >= 0 (fill in its price)', "c/o: 3 where a price belongs", "and 1 more");
    // a provider and model no table knows, and tiers, are a price file
    writeFileSync(prices, JSON.stringify({ "my-own-gateway": { "some-model": { input: 1, output: 2 } }, ollama: { "qwen3:32b": { input: 1, output: 2, cacheRead: 0, tiers: [{ inputTokensAbove: 1_000_000, input: 2, output: 4, cacheRead: 0, cacheWrite: 0 }] } } }));
    const ok = await cliJson(["usage", FILE, "--prices", prices]);
    expect([ok.exitCode, ok.stderr]).toEqual([0, expect.any(String)]);
    expect(ok.stderr).not.toContain(prices);
    const before = (await cliJson(["usage", FILE])).json.total;
    expect(ok.json.total.estimatedCost).toBeCloseTo(before.estimatedCost + (12000 * 1 + 800 * 2) / 1e6, 10);
  });

  it("the models with no price are named (footer, show, --json's unpriced) and a price file for them is on stderr: filled in, --prices takes it and prices them as pi-ai's calculateCost would", async () => {
    const human = await cli(["usage", FILE, "--no-cache"]);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/tokens with no price \(\+\): ollama\/qwen3:32b, my-proxy\/claude-sonnet-4-5 \(a price file to fill in for --prices FILE follows on stderr\)/);
    expect(human.stdout).not.toContain("{");
    expect(human.stderr).toContain("pi-session: no price for 2 models (13.3k tokens counted as unpriced, not as $0): ollama/qwen3:32b, my-proxy/claude-sonnet-4-5");
    const j = await cliJson(["usage", FILE, "--no-cache"]);
    expect(j.json.unpriced).toEqual([
      { model: "ollama/qwen3:32b", provider: "ollama", id: "qwen3:32b", tokens: 12800 },
      { model: "my-proxy/claude-sonnet-4-5", provider: "my-proxy", id: "claude-sonnet-4-5", tokens: 550 },
    ]);
    expect(j.stderr).not.toContain("no price for");
    expect(j.json.unpriced.reduce((n: number, u: { tokens: number }) => n + u.tokens, 0)).toBe(j.json.total.unpricedTokens);
    const show = await cliJson(["show", FILE]);
    expect(show.json.unpriced).toEqual(j.json.unpriced);
    const shown = await cli(["show", FILE]);
    expect(shown.stdout).toContain("13,350 tokens with no price: ollama/qwen3:32b, my-proxy/claude-sonnet-4-5");
    // (the same notice, from the same function, as usage's)
    expect(shown.stderr).toBe(human.stderr);
    // the round trip: the stanza as printed, its nulls filled in, is a price file
    const stanza = stanzaOf(human.stderr);
    const rates = { input: 0.6, output: 2.4, cacheRead: 0.06, cacheWrite: 0.75 };
    const dir = mkdtempSync(join(tmpdir(), "pi-session-stanza-"));
    const unfilled = join(dir, "unfilled.json");
    writeFileSync(unfilled, stanza);
    const refused = await cli(["usage", FILE, "--prices", unfilled]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('ollama/qwen3:32b: "input" is null, not a number >= 0 (fill in its price)');
    const filled = join(dir, "prices.json");
    writeFileSync(filled, stanza.replace(/"(input|output|cacheRead|cacheWrite)":null/g, (_, k: keyof typeof rates) => `"${k}": ${rates[k]}`));
    const priced = await cliJson(["usage", FILE, "--prices", filled]);
    expect(priced.exitCode, priced.stderr).toBe(0);
    expect(priced.json.total.unpricedTokens).toBe(0);
    expect(priced.json.unpriced).toEqual([]);
    expect((await cli(["usage", FILE, "--prices", filled])).stderr).not.toContain("no price for");
    // (pi-ai's own arithmetic over the requests that had no price, at the rates filled in)
    let added = 0;
    for (const line of readFileSync(FILE, "utf8").trim().split("\n")) {
      const m = JSON.parse(line).message;
      if (m?.role !== "assistant" || !m.usage || (m.usage.cost?.total ?? 0) !== 0 || !["ollama", "my-proxy"].includes(m.provider)) continue;
      added += calculateCost({ cost: rates } as never, { ...m.usage, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } as never).total;
    }
    expect(added).toBeGreaterThan(0);
    expect(priced.json.total.estimatedCost).toBeCloseTo(j.json.total.estimatedCost + added, 10);
  });

  it("a request answered by another model than it asked (responseModel): named as the rows name it, priced by the model it asked, which the stanza names", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-asked-"));
    const file = join(dir, "s.jsonl");
    const usage = { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 1100, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    const lines = [
      { type: "session", version: 3, id: "0000aaaa-0000-4000-8000-00000000a5ed", timestamp: "2026-11-02T10:00:00.000Z", cwd: "/w" },
      { type: "message", id: "u1", parentId: null, timestamp: "2026-11-02T10:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } },
      { type: "message", id: "a1", parentId: "u1", timestamp: "2026-11-02T10:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: "hello" }], provider: "my-router", model: "auto", responseModel: "vendor-model-7", api: "openai-completions", usage, stopReason: "stop", timestamp: 2 } },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const r = await cli(["usage", file, "--by", "model", "--no-cache"]);
    expect(r.stdout).toContain("my-router/vendor-model-7");
    expect(r.stdout).toContain("my-router/vendor-model-7 (asked of my-router/auto)");
    const stanza = JSON.parse(stanzaOf(r.stderr));
    expect(stanza).toEqual({ "my-router": { auto: { input: null, output: null, cacheRead: null, cacheWrite: null } } });
    writeFileSync(join(dir, "p.json"), JSON.stringify({ "my-router": { auto: { input: 2, output: 8 } } }));
    const priced = await cliJson(["usage", file, "--prices", join(dir, "p.json")]);
    expect(priced.json.total).toMatchObject({ unpricedTokens: 0 });
    expect(priced.json.total.estimatedCost).toBeCloseTo((1000 * 2 + 100 * 8) / 1e6, 12);
  });

  it("what a warm cache and worker threads give of the unpriced models is what a cold read on one thread gives", async () => {
    const cache = mkdtempSync(join(tmpdir(), "pi-session-unpriced-cache-"));
    const store = join(ROOT, "../shared/corpus");
    const cold = await cliJson(["usage", store, "--no-cache"], { env: { PI_SESSION_THREADS: "1" } });
    expect(cold.json.unpriced.length).toBeGreaterThan(1);
    const written = await cliJson(["usage", store], { env: { XDG_CACHE_HOME: cache, PI_SESSION_THREADS: "3" } });
    const warm = await cliJson(["usage", store], { env: { XDG_CACHE_HOME: cache } });
    expect(written.json.unpriced).toEqual(cold.json.unpriced);
    expect(warm.json.unpriced).toEqual(cold.json.unpriced);
    expect(warm.json.total).toEqual(cold.json.total);
    // (every one of them, filled in from the stanza, is priced)
    const said = (await cli(["usage", store, "--no-cache"])).stderr;
    // (after the report and the other diagnostics: the last thing said)
    expect(said).toMatch(/^pi-session: .*line 440.*\n(?:.*\n)*pi-session: no price for 6 models [^\n]*\n$/);
    // (every line on stderr one of pi-session's own)
    expect(said.trimEnd().split("\n").every((l) => l.startsWith("pi-session: "))).toBe(true);
    const stanza = stanzaOf(said);
    const prices = join(cache, "prices.json");
    writeFileSync(prices, stanza.replace(/null/g, "1"));
    const priced = await cliJson(["usage", store, "--prices", prices]);
    expect(priced.exitCode).toBe(0);
    expect(priced.json.unpriced.filter((u: { provider: string | null }) => u.provider !== null)).toEqual([]);
  });

  it("CSV has the estimate as a column; --jsonl rows carry their shape's version and grouping", async () => {
    const csv = (await cli(["usage", FILE, "--format", "csv"])).stdout.split("\r\n");
    const head = csv[0]!.split(",");
    expect(head).toContain("estimatedCost");
    expect(head).toContain("unpricedTokens");
    const rows = (await cli(["usage", FILE, "--jsonl"])).stdout.trim().split("\n").map((l) => JSON.parse(l));
    for (const row of rows) {
      expect(row.version).toBe(1);
      expect(row.by).toBe("day");
      expect(typeof row.estimatedCost).toBe("number");
    }
  });
});

describe("README's fleet recipe", () => {
  it("run as written with DuckDB over two stores' --jsonl, gives usage's totals", async () => {
    // (the recipe's one package, from the registry as a user installs it: a devDependency here)
    const { DuckDBInstance } = await import("@duckdb/node-api");
    expect(typeof DuckDBInstance.create).toBe("function");
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## A fleet's report"));
    const script = /```js\n([\s\S]*?)```/.exec(section)![1]!;
    const dir = mkdtempSync(join(ROOT, "node_modules", ".fleet-"));
    const fleet = join(dir, "fleet.mjs");
    writeFileSync(fleet, script);
    const stores = [fixture("usage-store"), join(ROOT, "../shared/openclaw-stores/ccccx")];
    const files = [];
    for (const [i, store] of stores.entries()) {
      const r = await cli(["usage", store, "--by", "day", "--jsonl"]);
      expect(r.exitCode).toBe(0);
      files.push(join(dir, `${i}.jsonl`));
      writeFileSync(files.at(-1)!, r.stdout);
    }
    const out = await execa("node", [fleet, ...files], { cwd: dir });
    const days = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const both = (await cliJson(["usage", ...stores, "--by", "day"])).json;
    const sum = (k: string) => days.reduce((n: number, d: Record<string, number>) => n + Number(d[k]), 0);
    expect(sum("cost")).toBeCloseTo(both.total.cost, 8);
    expect(sum("tokens")).toBe(both.total.total);
    expect(sum("requests")).toBe(both.total.requests);
    expect(sum("estimated")).toBeCloseTo(both.total.estimatedCost, 8);
    expect(days.map((d: { day: string }) => d.day)).toEqual(both.rows.map((r: { key: string }) => r.key));
  });
});
