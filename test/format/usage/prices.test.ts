/**
 * The estimate against its oracle, pi-ai 1.6's own `calculateCost` over its own registry
 * (`getBuiltinModel`): for every model the build's price table holds (dist/prices.json, written
 * from that registry), on usages below and above each tier, with hour-long cache writes, the same
 * dollars; and the table holds every model pi-ai prices, keyed by provider and id as pi-ai keys
 * them (ids with `/`, `.` and `:` included).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { calculateCost } from "@earendil-works/pi-ai/models";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { MODELS } from "../../../node_modules/@earendil-works/pi-ai/dist/models.generated.js";
import { estimateCost } from "../../../src/format/usage/prices.js";
import { priceBook } from "../../../src/support/usage/prices.js";
import { ROOT } from "../../helpers/paths.js";

const USAGES = [
  { input: 1000, output: 200, cacheRead: 0, cacheWrite: 0 },
  { input: 3000, output: 500, cacheRead: 40_000, cacheWrite: 2000, cacheWrite1h: 1000 },
  { input: 150_000, output: 2000, cacheRead: 60_000, cacheWrite: 0 },
  { input: 250_000, output: 9000, cacheRead: 300_000, cacheWrite: 50_000, cacheWrite1h: 50_000 },
  { input: 0, output: 0, cacheRead: 1_000_000, cacheWrite: 0 },
];

describe("estimated cost", () => {
  const book = priceBook();
  const models = Object.entries(MODELS as Record<string, Record<string, { cost?: unknown }>>).flatMap(([provider, byId]) => Object.keys(byId).filter((id) => byId[id]!.cost).map((id) => [provider, id] as const));

  it("the build's table holds every model pi-ai prices, dated by its registry", () => {
    expect(models.length).toBeGreaterThan(1500);
    for (const [provider, id] of models) expect(book.priceOf(provider, id), `${provider} ${id}`).toBeDefined();
    expect(book.source).toBe("@earendil-works/pi-ai 1.6.0");
    expect(book.generatedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    // (a model is priced only under its own provider)
    expect(book.priceOf("my-proxy", "claude-sonnet-4-5")).toBeUndefined();
  });

  it("equals calculateCost for every model, below and above its tiers, with hour-long cache writes", () => {
    let tiered = 0;
    for (const [provider, id] of models) {
      const model = getBuiltinModel(provider as never, id as never) as { cost: { tiers?: unknown[] } };
      if (model.cost.tiers) tiered++;
      for (const u of USAGES) {
        const theirs = calculateCost(model as never, { ...u, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } as never).total;
        const ours = estimateCost(book.priceOf(provider, id)!, u);
        expect(ours, `${provider} ${id} ${JSON.stringify(u)}`).toBeCloseTo(theirs, 12);
      }
    }
    expect(tiered).toBeGreaterThan(100);
  });

  it("reproduces the costs pi recorded in real sessions, where the model's price has not changed since", () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const f of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, f.name);
        if (f.isDirectory()) walk(p);
        else if (/\.jsonl($|\.)/.test(f.name) && !f.name.endsWith(".zst")) files.push(p);
      }
    };
    for (const d of ["../shared/corpus", "../shared/openclaw-stores"]) walk(join(ROOT, d));
    let priced = 0;
    let exact = 0;
    for (const f of files) {
      for (const line of readFileSync(f, "utf8").split("\n")) {
        let m;
        try {
          m = JSON.parse(line)?.message;
        } catch {
          continue;
        }
        const u = m?.usage;
        if (m?.role !== "assistant" || !u || !(u.cost?.total > 0)) continue;
        const price = book.priceOf(m.provider, m.model);
        if (!price) continue;
        priced++;
        if (Math.abs(estimateCost(price, { input: u.input ?? 0, output: u.output ?? 0, cacheRead: u.cacheRead ?? 0, cacheWrite: u.cacheWrite ?? 0, cacheWrite1h: u.cacheWrite1h }) - u.cost.total) < 1e-9) exact++;
      }
    }
    // (1,123 of 1,140 when written: the rest were priced before a price changed)
    expect(priced).toBeGreaterThan(1000);
    expect(exact / priced).toBeGreaterThan(0.98);
  });
});
