/**
 * Build step: the price table `usage` and `show` estimate cost with where none is recorded
 * (docs/commands.md, "Estimated cost"), written to dist/prices.json from the pinned pi-ai's own
 * model registry (`MODELS[provider][id].cost`, dollars per million tokens, with its tiers), dated by
 * the registry's manifest. Nothing is fetched when the tool runs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
// (the package's folder, where Node's resolution looks for it: it exports neither its package.json nor a main entry)
const dir = require.resolve.paths("@earendil-works/pi-ai").map((p) => join(p, "@earendil-works/pi-ai")).find((p) => existsSync(join(p, "package.json")));
if (!dir) throw new Error("@earendil-works/pi-ai is not installed (npm ci installs it: it comes with the devDependency @earendil-works/pi-coding-agent)");
const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
const { generatedAt } = JSON.parse(readFileSync(join(dir, "dist/providers/data/.manifest.json"), "utf8"));
const { MODELS } = await import(pathToFileURL(join(dir, "dist/models.generated.js")).href);

const rates = (c) => ({ input: c.input ?? 0, output: c.output ?? 0, cacheRead: c.cacheRead ?? 0, cacheWrite: c.cacheWrite ?? 0 });
const models = {};
let count = 0;
for (const [provider, byId] of Object.entries(MODELS)) {
  for (const [id, model] of Object.entries(byId)) {
    const cost = model?.cost;
    if (!cost || typeof cost.input !== "number") continue;
    (models[provider] ??= {})[id] = { ...rates(cost), ...(Array.isArray(cost.tiers) && cost.tiers.length > 0 ? { tiers: cost.tiers.map((t) => ({ inputTokensAbove: t.inputTokensAbove, ...rates(t) })) } : {}) };
    count++;
  }
}
mkdirSync("dist", { recursive: true });
writeFileSync("dist/prices.json", JSON.stringify({ version: 1, source: `@earendil-works/pi-ai ${version}`, generatedAt, count, models }));
