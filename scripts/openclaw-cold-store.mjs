#!/usr/bin/env node
// Makes fixtures/openclaw-cold (fixtures/README.md): an OpenClaw store in the SQLite era whose
// transcripts OpenClaw's own cold storage (`session.maintenance.coldStorage`) has moved out of
// `transcript_events` into `sessions/cold/<sha256>.jsonl.zst`.
//
//   scripts/with-node.sh 24 node scripts/openclaw-cold-store.mjs OPENCLAW_PACKAGE STORE
//
// OPENCLAW_PACKAGE: the npm package `openclaw` 2026.9.6, installed by hand in a scratch folder
// (`npm i openclaw@2026.9.6 --ignore-scripts`; it is not a dependency of this project). STORE: a
// copy of a SQLite-era store (`../shared/openclaw-stores-sqlite/archeoneocode`), changed in place.
// Its sessions were imported on the day the shared README names, so OpenClaw's clock is moved 40
// days on for them to be old enough to archive (`afterDays: 1`).
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, store] = process.argv.slice(2);
if (!pkg || !store) {
  console.error("usage: openclaw-cold-store.mjs OPENCLAW_PACKAGE STORE");
  process.exit(2);
}
const dist = join(resolve(pkg), "dist");
const chunk = readdirSync(dist).find((n) => /^session-cold-storage-[A-Za-z0-9_-]+\.mjs$/.test(n) && !n.includes("worker"));
const mod = await import(pathToFileURL(join(dist, chunk)).href);
// (the chunk's exports are minified: `r` runs the maintenance, `t` reports the status)
const run = mod.r;
const status = mod.t;
process.env.OPENCLAW_STATE_DIR = resolve(store);
process.env.HOME = resolve(store, "..");
const now = Date.now;
Date.now = () => now() + 40 * 864e5;
const config = { session: { maintenance: { coldStorage: { enabled: true, afterDays: 1 } } } };
console.log(await run({ config }));
console.log(JSON.stringify(await status(config)));
