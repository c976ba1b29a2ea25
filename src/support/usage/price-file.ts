import { readFileSync } from "node:fs";
import { CliError } from "../../errors.js";
import type { Price } from "../../format/usage/prices.js";
import type { UnpricedModel } from "../../format/usage/records.js";
import { sanitizeOneLine } from "../../render/safe.js";
import { formatTokens, plural } from "../../render/units.js";

/*
 * The user's price file (`--prices FILE`, docs/commands.md, "Estimated cost"): read and checked,
 * and the stanza `usage` offers for the models it found no price for, which is such a file once its
 * numbers are filled in. `{ "<provider>": { "<model id>": { "input": 3, "output": 15, "cacheRead":
 * 0.3, "cacheWrite": 3.75, "tiers": [{ "inputTokensAbove": 200000, "input": 6, … }] } } }`,
 * dollars per million tokens, keyed as the sessions' entries record their provider and model.
 *
 * A field the estimate does not know (`cache_read` for `cacheRead`) or a price that is not a
 * number would price those tokens at nothing and say nothing: both are refused, naming the file,
 * the model, the field and the fields there are. A provider pi-ai does not know is no mistake
 * (a proxy, a local server): prices are looked up by what the entries record.
 */

export type PriceTable = Record<string, Record<string, Price>>;

/** A price's rates: `input` and `output` required, the cache's optional (none: 0). */
const RATES = ["input", "output", "cacheRead", "cacheWrite"] as const;
const REQUIRED = new Set<string>(["input", "output"]);
/** A tier's fields: where it starts, and its rates. */
const TIER_FIELDS = ["inputTokensAbove", ...RATES] as const;
const PRICE_FIELDS = [...RATES, "tiers"] as const;

/** The form a price file takes, said with every refusal. */
const FORM = `{ "<provider>": { "<model id>": { "input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75 } } }, dollars per million tokens`;

/** How many of a file's problems one error line names (then how many more). */
const NAMED = 3;

/** A user's price file, every price checked: one usage error (exit 2) naming what is wrong, else the table. */
export function readPriceFile(file: string): PriceTable {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new CliError(`${file}: not a readable price file (${(error as Error).message}); give JSON as ${FORM}`);
  }
  if (!isObject(raw)) throw new CliError(`${file}: a price file is an object of providers, each an object of model ids and their prices: ${FORM}`);
  const problems: string[] = [];
  const out: PriceTable = {};
  for (const [provider, models] of Object.entries(raw)) {
    if (!isObject(models)) {
      problems.push(`${JSON.stringify(provider)}: ${shown(models)} where an object of model ids and their prices belongs`);
      continue;
    }
    for (const [model, price] of Object.entries(models)) {
      const checked = checkPrice(price, `${provider}/${model}`, problems);
      if (checked) (out[provider] ??= {})[model] = checked;
    }
  }
  if (problems.length > 0) {
    const named = problems.slice(0, NAMED).join("; ") + (problems.length > NAMED ? `; and ${problems.length - NAMED} more` : "");
    throw new CliError(`${file}: ${named}; a price's fields are ${PRICE_FIELDS.join(", ")} (input and output required; numbers >= 0, dollars per million tokens; a tier's: ${TIER_FIELDS.join(", ")})`);
  }
  return out;
}

/** A price checked, its problems added to `problems` (named by `where`: provider/model); undefined when it has any. */
function checkPrice(price: unknown, where: string, problems: string[]): Price | undefined {
  if (!isObject(price)) {
    problems.push(`${where}: ${shown(price)} where a price belongs`);
    return undefined;
  }
  const before = problems.length;
  const rates = checkRates(price, where, [...PRICE_FIELDS], problems);
  let tiers: Price["tiers"];
  if (price.tiers !== undefined) {
    if (!Array.isArray(price.tiers)) problems.push(`${where}: "tiers" is ${shown(price.tiers)}, not a list of tiers`);
    else {
      tiers = [];
      price.tiers.forEach((tier, k) => {
        const at = `${where} tier ${k + 1}`;
        if (!isObject(tier)) return problems.push(`${at}: ${shown(tier)} where a tier belongs`);
        const r = checkRates(tier, at, [...TIER_FIELDS], problems);
        const above = tier.inputTokensAbove;
        if (above === undefined) problems.push(`${at}: no "inputTokensAbove" (the input tokens past which the tier's rates apply)`);
        else if (!isRate(above)) problems.push(`${at}: "inputTokensAbove" is ${shown(above)}, not a number >= 0`);
        if (r && isRate(above)) tiers!.push({ inputTokensAbove: above, ...r });
      });
    }
  }
  if (problems.length > before || !rates) return undefined;
  return { ...rates, ...(tiers && tiers.length > 0 ? { tiers } : {}) };
}

/** The rates of a price or tier (`known`: the fields it may have), each a number >= 0; a cache rate not given is 0. */
function checkRates(o: Record<string, unknown>, where: string, known: string[], problems: string[]): Price | undefined {
  const before = problems.length;
  for (const field of Object.keys(o)) {
    if (known.includes(field)) continue;
    const like = known.find((k) => squash(k) === squash(field));
    problems.push(`${where}: unknown field ${JSON.stringify(field)}${like ? ` (did you mean ${JSON.stringify(like)}?)` : ""}`);
  }
  const rates: Record<string, number> = {};
  for (const field of RATES) {
    const v = o[field];
    if (v === undefined) {
      if (REQUIRED.has(field)) problems.push(`${where}: no ${JSON.stringify(field)}`);
      rates[field] = 0;
    } else if (!isRate(v)) problems.push(`${where}: ${JSON.stringify(field)} is ${shown(v)}, not a number >= 0${v === null ? " (fill in its price)" : ""}`);
    else rates[field] = v;
  }
  return problems.length > before ? undefined : (rates as unknown as Price);
}

/** A field's name as one might misspell its case or separators (`cache_read`, `CacheRead`). */
const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");

const isRate = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** A value as an error names it: its JSON, cut short. */
function shown(v: unknown): string {
  // (JSON reads 1e999 as infinity, which JSON.stringify writes as null)
  if (typeof v === "number" && !Number.isFinite(v)) return "a number too large to be a price (read as infinity)";
  const text = v === undefined ? "nothing" : JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/**
 * A price file for `pairs` (provider and model id, as their entries record them) with every rate
 * `null`: to fill in. As it is, `readPriceFile` refuses it (a null is no price), so that a model is
 * never priced at nothing by a stanza left unfilled; filled in, it is a price file.
 */
function priceFileStanza(pairs: ReadonlyArray<readonly [provider: string, model: string]>): string {
  const table: Record<string, Record<string, Record<string, null>>> = {};
  for (const [provider, model] of pairs) (table[provider] ??= {})[model] = Object.fromEntries(RATES.map((r) => [r, null]));
  // (on one line, as every line pi-session writes on stderr is one: `jq .` lays it out)
  return jsonText(JSON.stringify(table));
}

/** JSON text with what JSON leaves as it is but a terminal acts on (C1 controls, bidi overrides, line separators) escaped too, in its strings: the same value, read back. */
function jsonText(json: string): string {
  // eslint-disable-next-line no-control-regex
  return json.replace(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** How many models a line names (then how many more). */
const NAMED_MODELS = 3;

/** Models with no price as a line names them: each as the report's rows do, and the model it was asked of where that is another (`responseModel`). */
export function unpricedNames(unpriced: readonly UnpricedModel[]): string {
  const names = [...new Set(unpriced.map((u) => (u.provider !== null && `${u.provider}/${u.id}` !== u.model ? `${u.model} (asked of ${u.provider}/${u.id})` : u.model)))];
  return names.slice(0, NAMED_MODELS).join(", ") + (names.length > NAMED_MODELS ? `, and ${names.length - NAMED_MODELS} more` : "");
}

/**
 * What `usage` and `show` say on stderr of the models they found no price for: one line naming them,
 * ending in a price file for those that name a provider and model, every rate `null` to fill in
 * (as it is, `--prices` refuses it: nothing is priced at nothing by a stanza left unfilled);
 * undefined where every model has a price. On stderr, not stdout: the report on stdout stays the
 * report (piped to a file, read by a script), and the stanza is for the person who runs it, who
 * can save it apart (docs/commands.md, "Estimated cost").
 */
export function unpricedNotice(unpriced: readonly UnpricedModel[], file?: string): string | undefined {
  if (unpriced.length === 0) return undefined;
  const tokens = unpriced.reduce((n, u) => n + u.tokens, 0);
  const priceable = unpriced.filter((u) => u.provider !== null && u.id !== null);
  const nameless = unpriced.filter((u) => u.provider === null || u.id === null);
  const models = new Set(unpriced.map((u) => u.model)).size;
  let text = `no price for ${plural(models, "model")} (${formatTokens(tokens)} tokens counted as unpriced, not as $0): ${sanitizeOneLine(unpricedNames(unpriced))}`;
  if (nameless.length > 0) text += `; ${sanitizeOneLine([...new Set(nameless.map((u) => u.model))].join(", "))} ${nameless.length === 1 ? "names" : "name"} no model its requests were asked of, to price them by`;
  if (priceable.length === 0) return text;
  // (each provider and model once, in the order of their tokens)
  const pairs = [...new Map(priceable.map((u) => [`${u.provider}\u0000${u.id}`, [u.provider!, u.id!] as const])).values()];
  const where = file !== undefined ? `add to ${file}` : "save as a file";
  return `${text}. A price file for ${pairs.length === 1 ? "it" : "them"} (fill in dollars per million tokens: input and output; cacheRead and cacheWrite, or leave them out for 0; ${where}, and give it with --prices FILE): ${priceFileStanza(pairs)}`;
}
