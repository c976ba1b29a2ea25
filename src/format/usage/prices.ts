/**
 * What a request would have cost at a model's list price (docs/commands.md, "Estimated cost"), as
 * pi-ai 1.6's `calculateCost` computes it: dollars per million tokens of input, output, cache read
 * and cache write; where the price has tiers, the tier is the one with the highest
 * `inputTokensAbove` below the request's input + cache read + cache write; a cache write kept an
 * hour (`cacheWrite1h`) costs twice the tier's input. Prices are looked up by the request's
 * provider and model as its entry records them, never by taking a `provider/model` label apart.
 */

interface Rates {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface Price extends Rates {
  tiers?: Array<Rates & { inputTokensAbove: number }>;
}

/** A price for a provider's model, where one is known. */
export type PriceOf = (provider: string, model: string) => Price | undefined;

export function estimateCost(price: Price, usage: { input: number; output: number; cacheRead: number; cacheWrite: number; cacheWrite1h?: number }): number {
  const inputTokens = usage.input + usage.cacheRead + usage.cacheWrite;
  let rates: Rates = price;
  let matched = -1;
  for (const tier of price.tiers ?? []) {
    if (inputTokens > tier.inputTokensAbove && tier.inputTokensAbove > matched) {
      rates = tier;
      matched = tier.inputTokensAbove;
    }
  }
  const long = usage.cacheWrite1h ?? 0;
  const short = usage.cacheWrite - long;
  return (rates.input / 1e6) * usage.input + (rates.output / 1e6) * usage.output + (rates.cacheRead / 1e6) * usage.cacheRead + (rates.cacheWrite * short + rates.input * 2 * long) / 1e6;
}
