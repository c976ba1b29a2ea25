import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PriceOf } from "../../format/usage/prices.js";
import { readPriceFile, type PriceTable } from "./price-file.js";

/*
 * The prices cost is estimated by where none is recorded (docs/commands.md, "Estimated cost"):
 * the table the build wrote from the pinned pi-ai's model registry (dist/prices.json: nothing is
 * fetched when the tool runs), and a `--prices FILE` of the user's beside it, which adds models or
 * overrides them (read and checked by `price-file.ts`).
 */

export interface PriceBook {
  priceOf: PriceOf;
  /** Where the table came from, and when it was made (`@earendil-works/pi-ai 1.6.0`, its registry's date). */
  source: string;
  generatedAt: string;
  /** The user's file, where one was given. */
  file?: string;
}

/** dist/prices.json, found from this module wherever it runs (the bundle, the compiled library, the sources under test). */
function builtTable(): { source: string; generatedAt: string; models: PriceTable } {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, "dist/prices.json");
    if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
    const beside = join(dir, "prices.json");
    if (existsSync(beside) && dir.endsWith("dist")) return JSON.parse(readFileSync(beside, "utf8"));
  }
  return { source: "none (this build has no price table: `npm run build` writes it)", generatedAt: "", models: {} };
}

const books = new Map<string, PriceBook>();

/** The price book: the build's table, with `file`'s prices over it. Read once a process (a worker reads its own). */
export function priceBook(file?: string): PriceBook {
  let book = books.get(file ?? "");
  if (book) return book;
  const built = builtTable();
  const user = file !== undefined ? readPriceFile(file) : {};
  book = {
    priceOf: (provider, model) => user[provider]?.[model] ?? built.models[provider]?.[model],
    source: built.source,
    generatedAt: built.generatedAt,
    ...(file !== undefined ? { file } : {}),
  };
  books.set(file ?? "", book);
  return book;
}
