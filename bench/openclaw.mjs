/**
 * An OpenClaw store as its owners have them (cron runs are many and small): a few thousand
 * transcripts under `<root>/agents/<agent>/sessions/`, replaying the small real transcripts of
 * ../shared/openclaw-stores (each copy its own session: a new id, its times moved on), with a
 * `sessions.json` naming each (cron jobs with labels), some archived by a reset, some with a
 * checkpoint copy. On it, each a whole process:
 *
 * - `usage ROOT` cold (an empty cache) and warm against the Rust ccusage's `ccusage openclaw
 *   daily` (its native binary), with what each reports and why they differ;
 * - `ls ROOT` warm (median of 15) against Node's own start;
 * - the same store in OpenClaw's SQLite era (`sqliteEraOf`: what OpenClaw 2026.9's importer makes
 *   of it), `usage` cold and warm and `ls` warm, per transcript against the JSONL era.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { constants, zstdCompressSync } from "node:zlib";
import { rng } from "./generate.mjs";
import { measureAll, RUN_LIMIT, stuckOr, warmCache } from "./measure.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const STORES = join(ROOT, "../shared/openclaw-stores");
const require = createRequire(import.meta.url);

const uuid = (r) => "xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx".replace(/x/g, () => Math.floor(r() * 16).toString(16));

/** The store: `count` transcripts, each a small real one with a new id, its times `k` hours on. */
export function generateOpenclawStore({ dir, count, seed }) {
  const r = rng(seed);
  const sources = [];
  for (const store of existsSync(STORES) ? readdirSync(STORES) : []) {
    const sessions = join(STORES, store, "agents", "main", "sessions");
    if (!existsSync(sessions)) continue;
    for (const name of readdirSync(sessions)) {
      const path = join(sessions, name);
      if (name.endsWith(".json") || name.endsWith(".lock") || statSync(path).size > 64 * 1024) continue;
      sources.push(readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)));
    }
  }
  if (sources.length === 0) return false;
  const jobs = Array.from({ length: 12 }, (_, k) => ({ id: uuid(r), name: `job ${k + 1}` }));
  for (const agent of ["main", "ops"]) mkdirSync(join(dir, "agents", agent, "sessions"), { recursive: true });
  const index = { main: {}, ops: {} };
  for (let k = 0; k < count; k++) {
    const agent = k % 5 === 4 ? "ops" : "main";
    const id = uuid(r);
    const shift = k * 3_600_000;
    const job = jobs[k % jobs.length];
    const lines = sources[k % sources.length].map((e, i) => {
      const moved = typeof e.timestamp === "string" && !Number.isNaN(Date.parse(e.timestamp)) ? { ...e, timestamp: new Date(Date.parse(e.timestamp) + shift).toISOString() } : e;
      return i === 0 && e.type === "session" ? { ...moved, id } : moved;
    });
    const text = lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
    const sessions = join(dir, "agents", agent, "sessions");
    const archived = r() < 0.1;
    writeFileSync(join(sessions, archived ? `${id}.jsonl.reset.${new Date(1_770_000_000_000 + shift).toISOString().replace(/:/g, "-")}` : `${id}.jsonl`), text);
    if (!archived && r() < 0.03) writeFileSync(join(sessions, `${id}.checkpoint.${uuid(r)}.jsonl`), text);
    if (!archived) index[agent][`agent:${agent}:cron:${job.id}:run:${id}`] = { sessionId: id, updatedAt: Date.parse(lines.at(-1).timestamp ?? "2026-01-01"), label: `Cron: ${job.name}` };
  }
  for (const agent of ["main", "ops"]) writeFileSync(join(dir, "agents", agent, "sessions", "sessions.json"), JSON.stringify(index[agent]));
  return true;
}

/**
 * The SQLite era of a JSONL-era store, laid out as OpenClaw 2026.9.6's importer leaves one (the
 * shared stores in ../shared/openclaw-stores-sqlite are the model): per agent, the live transcripts
 * as rows of `agent/openclaw-agent.sqlite`, each line compressed or not as OpenClaw's own rule
 * decides (`openclawRow`), `sessions.json` as `session_nodes` and `session_windows`, the reset
 * archives left in `sessions/` as they were (the importer leaves them; archives OpenClaw makes
 * afterwards are `.zst`, which the tests read), and in `session-sqlite-import-archive/` a copy of
 * each imported transcript and the checkpoints. The tables hold the columns read here (OpenClaw's
 * own have more, and checks this reader does not need).
 */
export function sqliteEraOf(jsonlRoot, root) {
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite");
  const at = 1_796_192_009_931;
  for (const agent of readdirSync(join(jsonlRoot, "agents"))) {
    const from = join(jsonlRoot, "agents", agent, "sessions");
    const dir = join(root, "agents", agent);
    for (const sub of ["agent", "sessions", "session-sqlite-import-archive"]) mkdirSync(join(dir, sub), { recursive: true });
    const db = new DatabaseSync(join(dir, "agent", "openclaw-agent.sqlite"));
    db.exec(`PRAGMA journal_mode = DELETE;
      CREATE TABLE schema_meta (meta_key TEXT NOT NULL PRIMARY KEY, role TEXT NOT NULL, schema_version INTEGER NOT NULL, agent_id TEXT, app_version TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL) STRICT;
      CREATE TABLE session_nodes (session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL, updated_at INTEGER NOT NULL, spawned_by TEXT, label TEXT, display_name TEXT) STRICT;
      CREATE TABLE session_windows (session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL, previous_session_id TEXT, reason TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, chat_type TEXT, channel TEXT, spawned_by TEXT, display_name TEXT) STRICT;
      CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq)) STRICT;`);
    db.prepare("INSERT INTO schema_meta VALUES ('primary', 'agent', 23, ?, '2026.9.6', ?, ?)").run(agent, at, at);
    const index = JSON.parse(readFileSync(join(from, "sessions.json"), "utf8"));
    const keyOf = new Map(Object.entries(index).map(([key, e]) => [e.sessionId, { key, ...e }]));
    const node = db.prepare("INSERT INTO session_nodes VALUES (?, ?, ?, ?, NULL, ?, NULL)");
    const window = db.prepare("INSERT INTO session_windows VALUES (?, ?, NULL, 'initial', ?, ?, NULL, NULL, NULL, NULL)");
    const row = db.prepare("INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?, ?, ?)");
    db.exec("BEGIN");
    for (const name of readdirSync(from).sort()) {
      const text = readFileSync(join(from, name));
      if (name === "sessions.json") continue;
      if (/\.jsonl\.reset\./.test(name)) {
        writeFileSync(join(dir, "sessions", name), text);
        continue;
      }
      const checkpoint = /^(.+)\.checkpoint\.(.+)\.jsonl$/.exec(name);
      if (checkpoint) {
        writeFileSync(join(dir, "session-sqlite-import-archive", `archive-tier.${checkpoint[1]}.checkpoint.${checkpoint[2]}.jsonl.imported-${at}`), text);
        continue;
      }
      const id = basename(name, ".jsonl");
      const entry = keyOf.get(id);
      if (!entry) continue;
      node.run(entry.key, id, JSON.stringify({ sessionId: id, updatedAt: entry.updatedAt }), entry.updatedAt, entry.label ?? null);
      window.run(id, entry.key, entry.updatedAt, entry.updatedAt);
      const lines = text.toString("utf8").split("\n").filter(Boolean);
      lines.forEach((line, seq) => {
        const { json, zstd, bytes, navigation } = openclawRow(line, seq);
        row.run(id, seq, json, at, zstd, bytes, navigation);
      });
      writeFileSync(join(dir, "session-sqlite-import-archive", `agent_${entry.key.replace(/:/g, "_")}.${id}.jsonl.imported-${at}`), text);
    }
    db.exec("COMMIT");
    db.close();
  }
}

/**
 * A line as OpenClaw 2026.9 stores it (its transcript payload rule, read in its own package): as
 * text, its UTF-8 length beside it, unless it is 1 KB or more, not the header, holds no `\u` and
 * no NUL, and zstd at level 1 with a checksum, with the navigation JSON OpenClaw keeps beside a
 * compressed row, saves at least a tenth (and 64 bytes). The navigation JSON here is its shape: the
 * entry's ids, time and type, and the message without its content.
 */
function openclawRow(line, seq) {
  const bytes = Buffer.byteLength(line);
  const plain = { json: line, zstd: null, bytes, navigation: null };
  if (seq === 0 || bytes < 1024 || bytes > 4_194_304 || line.includes("\\u") || line.includes("\0")) return plain;
  const zstd = zstdCompressSync(Buffer.from(line), { params: { [constants.ZSTD_c_compressionLevel]: 1, [constants.ZSTD_c_checksumFlag]: 1 } });
  let navigation;
  try {
    const e = JSON.parse(line);
    const entry = { type: e.type, id: e.id, parentId: e.parentId ?? null, timestamp: e.timestamp };
    const { content: _content, ...message } = e.message ?? {};
    const skeleton = { ...entry, ...(e.message ? { message: { role: e.message.role } } : {}) };
    navigation = JSON.stringify({ version: 1, report: { kind: "canonical", hasParentId: e.parentId != null, entry }, navigation: skeleton, reset: skeleton, model: { ...entry, ...(e.message ? { message: { ...message, content: [] } } : {}) }, modelBytes: bytes, modelWithoutCheckpointBytes: bytes, withoutCustomDataBytes: bytes });
  } catch {
    return plain;
  }
  const most = bytes - Math.max(64, Math.ceil(bytes / 10));
  return zstd.length + Buffer.byteLength(navigation) > most ? plain : { json: null, zstd, bytes, navigation };
}

function rustCcusage() {
  try {
    const launcher = require.resolve("ccusage/package.json");
    const native = join(dirname(createRequire(launcher).resolve(`@ccusage/ccusage-${process.platform}-${process.arch}/package.json`)), "bin", "ccusage");
    if (!existsSync(native)) return undefined;
    chmodSync(native, 0o755);
    return { native, version: JSON.parse(readFileSync(launcher, "utf8")).version };
  } catch {
    return undefined;
  }
}

function timed(command, args, env = {}) {
  const t0 = performance.now();
  const r = spawnSync(command, args, { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 256 * 1024 * 1024, ...RUN_LIMIT });
  const ms = performance.now() - t0;
  // (grep -c exits 1 when nothing matched: a result, not a failure)
  return r.status === 0 || (r.status === 1 && args.includes("-c")) ? { ms, stdout: r.stdout } : { ms, error: stuckOr(r, (r.stderr || r.stdout || "").trim().split("\n").slice(-1)[0] || `exit ${r.status}`) };
}

function medianMs(command, args, env = {}) {
  const times = [];
  for (let i = 0; i < 15; i++) times.push(timed(command, args, env).ms);
  return times.sort((a, b) => a - b)[7];
}

const fmt = (n, d = 0) => (n === undefined ? "-" : n.toFixed(d));

export function openclawReport({ dataDir, sessions, runs }) {
  const root = join(dataDir, `openclaw-${sessions}`);
  if (!existsSync(root) && !generateOpenclawStore({ dir: root, count: sessions, seed: 11 })) {
    return { text: "## OpenClaw store\n\n(skipped: ../shared/openclaw-stores, whose transcripts the store replays, is not here)\n\n", failures: 0 };
  }
  const files = readdirSync(root, { recursive: true }).map(String).filter((f) => /\.jsonl($|\.)/.test(f)).map((f) => join(root, f));
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const rust = rustCcusage();
  const bin = join(ROOT, "bin/pi-session.js");
  const cache = mkdtempSync(join(tmpdir(), "pi-session-bench-openclaw-"));
  let peer;
  let cold;
  let warm;
  const best = (a, b) => (!a || a.error ? b : b.error ? a : b.ms < a.ms ? b : a);
  for (let round = 0; round < runs; round++) {
    warmCache(files);
    if (rust) peer = best(peer, timed(rust.native, ["openclaw", "daily", "--open-claw-path", root, "--offline", "--json"]));
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(cache);
    cold = best(cold, timed(process.execPath, [bin, "usage", root, "--json"], { XDG_CACHE_HOME: cache }));
    warm = best(warm, timed(process.execPath, [bin, "usage", root, "--json"], { XDG_CACHE_HOME: cache }));
  }
  // grep's floor: a literal that is nowhere, and a rare one, against rg (Debian's package, where installed)
  const hasRg = spawnSync("rg", ["--version"]).status === 0;
  // (the store replays seven small transcripts: a literal of one of them is in one transcript in seven)
  // (and one in every transcript: each replayed one has a message sent on a channel, stamped `[… GMT+8]`)
  const searches = [["a literal that is nowhere", "zqxjkvbwpy-nowhere"], ["a literal in one transcript in seven", "GitHub Release"], ["a literal in every transcript", "GMT"]].map(([what, needle]) => {
    let ours;
    let theirs;
    for (let round = 0; round < runs; round++) {
      ours = best(ours, timed(process.execPath, [bin, "grep", "-F", "-c", needle, root]));
      if (hasRg) theirs = best(theirs, timed("rg", ["-F", "-c", needle, root]));
    }
    return { what, ours, theirs };
  });
  timed(process.execPath, [bin, "ls", root, "--limit", "20"], { XDG_CACHE_HOME: cache });
  const lsWarm = medianMs(process.execPath, [bin, "ls", root, "--limit", "20"], { XDG_CACHE_HOME: cache });
  const eras = erasReport({ root, bin, runs, judged: sessions >= 2000 });
  const node0 = medianMs(process.execPath, ["-e", "0"]);
  rmSync(cache, { recursive: true, force: true });
  const judge = (ok) => (sessions >= 2000 ? (ok ? "met" : "MISSED") : "(set for a few thousand sessions)");
  let failures = 0;
  let text = `## an OpenClaw store of ${files.length} transcripts (${fmt(bytes / 2 ** 20)} MB: small cron runs, 10 % archived, some checkpoints), best of ${runs}, Node ${process.versions.node}\n\n`;
  text += "| contender | time ms | target |\n| --- | ---: | --- |\n";
  if (peer) text += `| ccusage ${rust.version} openclaw daily (Rust, native) | ${peer.error ? `failed: ${peer.error}` : fmt(peer.ms)} | |\n`;
  for (const [name, m, target] of [
    ["pi-session usage (cold cache)", cold, peer && !peer.error ? `≤ 1.0 × Rust: ${fmt(cold.ms / peer.ms, 2)} × ${judge(cold.ms <= peer.ms)}` : ""],
    ["pi-session usage (warm cache)", warm, peer && !peer.error ? `≤ 0.2 × Rust: ${fmt(warm.ms / peer.ms, 2)} × ${judge(warm.ms <= 0.2 * peer.ms)}` : ""],
  ]) {
    if (m.error) failures++;
    text += `| ${name} | ${m.error ? `failed: ${m.error}` : fmt(m.ms)} | ${target} |\n`;
  }
  text += `| pi-session ls (warm cache), median of 15 | ${fmt(lsWarm)} | ≤ 2.5 × node -e 0 (${fmt(node0)} ms): ${fmt(lsWarm / node0, 2)} × ${judge(lsWarm <= 2.5 * node0)} |\n`;
  for (const { what, ours, theirs } of searches) {
    const found = (stdout) => (stdout ?? "").split("\n").filter(Boolean).length;
    text += `| pi-session grep -F -c, ${what} (${found(ours.stdout)} files) | ${fmt(ours.ms)} | ${theirs ? `rg -F -c ${fmt(theirs.ms)} ms (${found(theirs.stdout)} files): ${fmt(ours.ms / theirs.ms, 1)} × (≤ 10 ×) ${judge(ours.ms <= 10 * theirs.ms)}` : "(rg not installed: apt-get install ripgrep)"} |\n`;
  }
  text += eras.text;
  failures += eras.failures;
  if (!rust) text += "\n(the Rust ccusage is not installed: `npm ci` installs it, with its native package for this platform where it has one)\n";
  // what each reports: ccusage sums every file, so a checkpoint's entries count twice
  if (peer && !peer.error && !cold.error) {
    const theirs = JSON.parse(peer.stdout).totals?.totalCost;
    const ours = JSON.parse(cold.stdout).total.cost;
    const copies = files.filter((f) => f.includes(".checkpoint."));
    const copyCost = copies.reduce((n, f) => n + costOf(f), 0);
    text += `\nTotals: ours $${fmt(ours, 4)}; ccusage's $${fmt(theirs, 4)}; the ${copies.length} checkpoint copies hold $${fmt(copyCost, 4)} (counted again by ccusage: ours + copies = $${fmt(ours + copyCost, 4)}).\n`;
  }
  return { text: text + "\n", failures };
}

/** How many of a SQLite-era store's rows are compressed, and how much of the lines' bytes they hold. */
function compressedShare(root) {
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite");
  let rows = 0;
  let packed = 0;
  let bytes = 0;
  let packedBytes = 0;
  for (const agent of readdirSync(join(root, "agents"))) {
    const db = new DatabaseSync(`file:${join(root, "agents", agent, "agent", "openclaw-agent.sqlite")}?immutable=1`, { readOnly: true });
    const r = db.prepare("SELECT count(*) AS n, sum(event_json IS NULL) AS z, sum(event_utf8_bytes) AS b, sum(CASE WHEN event_json IS NULL THEN event_utf8_bytes ELSE 0 END) AS zb FROM transcript_events").get();
    db.close();
    rows += Number(r.n);
    packed += Number(r.z);
    bytes += Number(r.b);
    packedBytes += Number(r.zb);
  }
  return `${packed.toLocaleString("en-US")} of ${rows.toLocaleString("en-US")} rows compressed, ${Math.round((100 * packedBytes) / bytes)} % of the lines' bytes`;
}

/**
 * The same store in OpenClaw's SQLite era: `usage` and `ls` per transcript, against the JSONL era's.
 * The two eras are timed in turn, in the same rounds (which goes first alternates), and judged by
 * the median of the rounds' ratios: this machine's speed drifts by a third within minutes, and a
 * ratio of two runs taken together drifts far less than either.
 */
function erasReport({ root, bin, runs, judged }) {
  // (v2: rows compressed by OpenClaw's rule, archives as the importer leaves them: a store an older benchmark made is not reused)
  const sqliteRoot = `${root}-sqlite.v2`;
  if (!existsSync(sqliteRoot)) sqliteEraOf(root, sqliteRoot);
  const compressed = compressedShare(sqliteRoot);
  const caches = [root, sqliteRoot].map(() => mkdtempSync(join(tmpdir(), "pi-session-bench-openclaw-eras-")));
  const filesOf = (dir) => readdirSync(dir, { recursive: true }).map(String).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
  const files = [...filesOf(root), ...filesOf(sqliteRoot)];
  // (the target is set for a few thousand transcripts: a smaller store, timed for the record, takes the rounds asked for)
  const rounds = judged ? Math.max(runs, 7) : runs;
  const commands = ["usage (cold cache)", "usage (warm cache)", "ls (cold cache)"];
  /** Per command: each era's runs ([JSONL, SQLite]), a round's two side by side. */
  const timesOf = Object.fromEntries(commands.map((c) => [c, [[], []]]));
  let usageOut;
  for (let round = 0; round < rounds; round++) {
    warmCache(files);
    const eras = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const era of eras) {
      const dir = era === 0 ? root : sqliteRoot;
      const cache = caches[era];
      rmSync(cache, { recursive: true, force: true });
      mkdirSync(cache);
      const cold = timed(process.execPath, [bin, "usage", dir, "--json"], { XDG_CACHE_HOME: cache });
      (usageOut ??= [])[era] = cold;
      timesOf["usage (cold cache)"][era].push(cold);
      timesOf["usage (warm cache)"][era].push(timed(process.execPath, [bin, "usage", dir, "--json"], { XDG_CACHE_HOME: cache }));
      rmSync(cache, { recursive: true, force: true });
      mkdirSync(cache);
      timesOf["ls (cold cache)"][era].push(timed(process.execPath, [bin, "ls", dir, "--limit", "20"], { XDG_CACHE_HOME: cache }));
    }
  }
  // ls with its cache filled: 15 runs of each era in turn
  const lsWarm = [[], []];
  for (const [era, dir] of [root, sqliteRoot].entries()) timed(process.execPath, [bin, "ls", dir, "--limit", "20"], { XDG_CACHE_HOME: caches[era] });
  for (let i = 0; i < 15; i++) for (const [era, dir] of [root, sqliteRoot].entries()) lsWarm[era].push(timed(process.execPath, [bin, "ls", dir, "--limit", "20"], { XDG_CACHE_HOME: caches[era] }));
  timesOf["ls (warm cache), 15 runs"] = lsWarm;
  const count = (dir) => {
    const r = spawnSync(process.execPath, [bin, "ls", dir, "--json", "--no-cache"], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...RUN_LIMIT });
    return r.status === 0 ? JSON.parse(r.stdout).sessions.length : NaN;
  };
  const [nJsonl, nSqlite] = [count(root), count(sqliteRoot)];
  // (costs summed in another order differ in the last digits of a double)
  const totalOf = (m) => ({ ...JSON.parse(m.stdout).total, cost: Number(JSON.parse(m.stdout).total.cost.toFixed(9)) });
  const sameTotals = usageOut.every((m) => !m.error) && JSON.stringify(totalOf(usageOut[1])) === JSON.stringify(totalOf(usageOut[0]));
  for (const cache of caches) rmSync(cache, { recursive: true, force: true });
  let failures = Object.values(timesOf).some(([a, b]) => [...a, ...b].some((m) => m.error)) ? 1 : 0;
  if (!sameTotals) failures++;
  const median = (xs) => xs.slice().sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
  let text = `\nThe same store in OpenClaw's SQLite era (its live transcripts as rows of one database per agent, each line compressed or not as OpenClaw's rule says (${compressed}); archives as the importer leaves them; the importer's copy of each transcript it imported, and the checkpoints, in its folder): ${nSqlite} transcripts listed, where the JSONL era lists ${nJsonl}. usage totals ${sameTotals ? "equal to the JSONL era's" : "DIFFER from the JSONL era's"}. A copy may hold entries the database lacks (which were paid for), so it is compared with its database transcript byte for byte; where the two are the same the session is read once. The eras are timed in turn, ${rounds} rounds; each ratio is the median of the rounds' (a run of each era taken together), the times the fastest.\n\n`;
  text += "| command | JSONL era ms | SQLite era ms | whole run, SQLite / JSONL | a transcript listed, SQLite / JSONL | target |\n| --- | ---: | ---: | ---: | ---: | --- |\n";
  for (const [name, [a, b]] of Object.entries(timesOf)) {
    const ok = (m) => m.every((r) => !r.error);
    if (!ok(a) || !ok(b)) {
      text += `| ${name} | failed | failed | | | |\n`;
      continue;
    }
    const ratio = median(a.map((r, k) => b[k].ms / r.ms));
    const perTranscript = (ratio * nJsonl) / nSqlite;
    text += `| ${name} | ${fmt(Math.min(...a.map((r) => r.ms)))} | ${fmt(Math.min(...b.map((r) => r.ms)))} | ${fmt(ratio, 2)} × | ${fmt(perTranscript, 2)} × | no slower a transcript: ${judged ? (perTranscript <= 1 ? "met" : "MISSED") : "(set for a few thousand transcripts)"} |\n`;
  }
  return { text, failures };
}

/** The cost an assistant message of `file` records, summed (read plainly). */
function costOf(file) {
  let n = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.includes('"assistant"')) continue;
    try {
      const e = JSON.parse(line);
      if (e.type === "message" && e.message?.role === "assistant") n += e.message.usage?.cost?.total ?? 0;
    } catch {
      // not a record
    }
  }
  return n;
}

/**
 * One large session as a transcript in OpenClaw's database (issue 38: "a large transcript read in
 * bounded memory, as files are"): the benchmark's session of a shape, made into the rows of a
 * database by OpenClaw's rule (`openclawRow`, made once, kept beside the session), and each
 * command that reads a whole transcript run on the file and on `<database>#<id>`, a fresh process
 * each, peak RSS from the kernel. At 1 GB, the same bound as a file's: 256 MB.
 */
export function databaseTranscriptReport({ file, runs, label }) {
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite");
  // (beside the session's folder, not in it: `ls (one file)` lists that folder)
  const root = join(`${dirname(file)}-extra`, "openclaw-sqlite");
  const db = join(root, "agents", "main", "agent", "openclaw-agent.sqlite");
  const id = "0b1e9d2c-5a1f-4c3e-9d7a-1f2e3d4c5b6a";
  if (!existsSync(db)) {
    mkdirSync(dirname(db), { recursive: true });
    const d = new DatabaseSync(`${db}.part`);
    d.exec(`CREATE TABLE session_nodes (session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL, updated_at INTEGER NOT NULL, spawned_by TEXT, label TEXT, display_name TEXT) STRICT;
      CREATE TABLE session_windows (session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL, previous_session_id TEXT, reason TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, chat_type TEXT, channel TEXT, spawned_by TEXT, display_name TEXT) STRICT;
      CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq)) STRICT;`);
    d.prepare("INSERT INTO session_windows VALUES (?, 'agent:main:main', NULL, 'initial', 1, 1, NULL, NULL, NULL, NULL)").run(id);
    const row = d.prepare("INSERT INTO transcript_events VALUES (?, ?, ?, 1, ?, ?, ?)");
    d.exec("BEGIN");
    // (line by line, as the file is split on \n only; the generated session's lines are each valid UTF-8)
    const fd = openSync(file, "r");
    const buf = Buffer.allocUnsafe(16 * 1024 * 1024);
    let carry = Buffer.alloc(0);
    let seq = 0;
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) {
      const chunk = Buffer.concat([carry, buf.subarray(0, n)]);
      let start = 0;
      for (let nl; (nl = chunk.indexOf(10, start)) !== -1; start = nl + 1) {
        const r = openclawRow(chunk.toString("utf8", start, nl), seq);
        row.run(id, seq++, r.json, r.zstd, r.bytes, r.navigation);
      }
      carry = Buffer.from(chunk.subarray(start));
    }
    closeSync(fd);
    if (carry.length > 0) {
      const r = openclawRow(carry.toString("utf8"), seq);
      row.run(id, seq++, r.json, r.zstd, r.bytes, r.navigation);
    }
    d.exec("COMMIT");
    d.close();
    renameSync(`${db}.part`, db);
  }
  const ref = `${db}#${id}`;
  const commands = [
    ["context --json", (f) => ["context", f, "--json"]],
    ["check", (f) => ["check", f]],
    ["show", (f) => ["show", f]],
    ["usage --no-cache", (f) => ["usage", f, "--no-cache", "--json"]],
    ["grep -F -c (a literal that is nowhere)", (f) => ["grep", "-F", "-c", "zq-nowhere-qz", f]],
    ["cat", (f) => ["cat", f]],
  ];
  const measured = measureAll(commands.flatMap(([, args]) => [{ task: "cli", args: args(file), files: [file] }, { task: "cli", args: args(ref), files: [db] }]), runs);
  const bytes = statSync(file).size;
  const oneGB = bytes >= 900 * 2 ** 20 && bytes < 1536 * 2 ** 20;
  let failures = 0;
  let text = `## ${label} as one transcript in OpenClaw's database (${compressedShare(root)}; the database ${fmt(statSync(db).size / 2 ** 20)} MB), Node ${process.versions.node}\n\n`;
  text += "| command | the file: ms | RSS MB | the database transcript: ms | RSS MB | database / file | target |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
  commands.forEach(([name], k) => {
    const [a, b] = [measured[2 * k], measured[2 * k + 1]];
    if (a.error || b.error) {
      failures++;
      text += `| ${name} | ${a.error ?? fmt(a.ms)} | | ${b.error ?? fmt(b.ms)} | | | |\n`;
      return;
    }
    text += `| ${name} | ${fmt(a.ms)} | ${fmt(a.rssMB)} | ${fmt(b.ms)} | ${fmt(b.rssMB)} | ${fmt(b.ms / a.ms, 2)} × | ${oneGB ? `RSS ≤ 256: ${b.rssMB <= 256 ? "met" : "MISSED"}` : "for the record"} |\n`;
  });
  return { text: text + "\n", failures };
}
