import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const FIXTURES = join(ROOT, "fixtures");
export const CORPUS = resolve(ROOT, "../shared/corpus");
export const BIN = join(ROOT, "bin/pi-session.js");

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

export function fixtureFiles(): string[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".jsonl") || f.endsWith(".bin"))
    .sort()
    .map((f) => join(FIXTURES, f));
}

/** The real session files in ../shared/corpus (CI lays shared/ beside the checkout). */
export function corpusFiles(): string[] {
  if (!existsSync(CORPUS)) throw new Error(`the corpus is missing at ${CORPUS}; tests read ../shared/corpus beside the checkout`);
  return readdirSync(CORPUS)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(CORPUS, f));
}
