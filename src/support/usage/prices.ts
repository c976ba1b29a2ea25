import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "../../errors.js";
import type { Price, PriceOf } from "../../format/usage/prices.js";

/*
 * The prices cost is estimated by where none is recorded (docs/commands.md, "Estimated cost"):
 * the table the build wrote from the pinned pi-ai's model registry (dist/prices.json: nothing is
 * fetched when the tool runs), and a `--prices FILE` of the user's beside it, which adds models or
 * overrides them: `{ "<provider>": { "<model id>": { "input": 3, "output": 15, "cacheRead": 0.3,
 * "cacheWrite": 3.75 } } }`, dollars per million tokens, keyed as the sessions' entries record
 * their provider and model.
 */

export interface PriceBook {
  priceOf: PriceOf;
  /** Where the table came from, and when it was made (`@earendil-works/pi-ai 1.6.0`, its registry's date). */
  source: string;
  generatedAt: string;
  /** The user's file, where one was given. */
  file?: string;
}

type Table = Record<string, Record<string, Price>>;

/** dist/prices.json, found from this module wherever it runs (the bundle, the compiled library, the sources under test). */
function builtTable(): { source: string; generatedAt: string; models: Table } {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, "dist/prices.json");
    if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
    const beside = join(dir, "prices.json");
    if (existsSync(beside) && dir.endsWith("dist")) return JSON.parse(readFileSync(beside, "utf8"));
  }
  return { source: "none (this build has no price table: `npm run build` writes it)", generatedAt: "", models: {} };
}

const isRate = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0;

/** A user's price file, each price checked; a file that does not read is a one-line error naming it. */
function userTable(file: string): Table {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new CliError(`${file}: not a readable price file (${(error as Error).message}); give JSON as { "<provider>": { "<model id>": { "input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75 } } }, dollars per million tokens`);
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new CliError(`${file}: a price file is an object of providers, each an object of model ids; see \`pi-session usage --help\``);
  const out: Table = {};
  for (const [provider, models] of Object.entries(raw as Record<string, unknown>)) {
    if (!models || typeof models !== "object") throw new CliError(`${file}: ${provider}: an object of model ids and their prices`);
    for (const [model, price] of Object.entries(models as Record<string, unknown>)) {
      const p = price as Partial<Price> | null;
      if (!p || !isRate(p.input) || !isRate(p.output)) throw new CliError(`${file}: ${provider} ${model}: a price needs "input" and "output" (dollars per million tokens, numbers >= 0)`);
      (out[provider] ??= {})[model] = { input: p.input!, output: p.output!, cacheRead: isRate(p.cacheRead) ? p.cacheRead! : 0, cacheWrite: isRate(p.cacheWrite) ? p.cacheWrite! : 0, ...(Array.isArray(p.tiers) ? { tiers: p.tiers } : {}) };
    }
  }
  return out;
}

const books = new Map<string, PriceBook>();

/** The price book: the build's table, with `file`'s prices over it. Read once a process (a worker reads its own). */
export function priceBook(file?: string): PriceBook {
  let book = books.get(file ?? "");
  if (book) return book;
  const built = builtTable();
  const user = file !== undefined ? userTable(file) : {};
  book = {
    priceOf: (provider, model) => user[provider]?.[model] ?? built.models[provider]?.[model],
    source: built.source,
    generatedAt: built.generatedAt,
    ...(file !== undefined ? { file } : {}),
  };
  books.set(file ?? "", book);
  return book;
}
