/**
 * The store-wide commands (`ls`, `usage`, `grep`) against what users would pick instead and against
 * earlier builds of pi-session (bench/builds.mjs), each a whole process, in rounds, on two stores:
 * one of real-shaped sessions (bench/generate.mjs, `generateSessionStore`: a few hundred sessions
 * replaying ../shared/corpus, with forks and backup copies) and one of real files
 * (`generateRealStore`: every session of ../shared/corpus and the shared OpenClaw stores, v1 and
 * damaged ones included, copied with fresh ids until the store is a few hundred MB).
 *
 * - `usage`: the Rust ccusage's `ccusage pi daily` (its native package, run directly) and the
 *   JavaScript `@ccusage/pi daily`, both devDependencies; ours cold (an empty cache) and warm.
 *   Beside the times, what each reports on the generated store, and that store's usage decomposed
 *   rule by rule (read here with JSON.parse), so that every difference is accounted for.
 * - `grep`: ripgrep (Debian's `ripgrep`), where installed.
 * - `ls`: cold and warm; on the real store, cold `ls` is held within 1.15 × the 2026-12-04 build.
 * - `search`: its first build, and warm searches against ripgrep over the same files in the same run.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateRealStore, generateSessionStore } from "./generate.mjs";
import { RUN_LIMIT, stuckOr, warmCache } from "./measure.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const CORPUS = join(ROOT, "../shared/corpus");
const OPENCLAW = join(ROOT, "../shared/openclaw-stores");
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/** The peers, where installed: [name, command, args before the store]. */
function usagePeers() {
  const peers = [];
  const version = (pkg) => JSON.parse(readFileSync(pkg, "utf8")).version;
  // the Rust ccusage: its native binary for this platform (the npm launcher would add a Node start)
  try {
    const launcher = require.resolve("ccusage/package.json");
    const native = join(dirname(createRequire(launcher).resolve(`@ccusage/ccusage-${process.platform}-${process.arch}/package.json`)), "bin", "ccusage");
    // (npm ci leaves the binary without its execute bit; ccusage's launcher sets it on first run, as here)
    if (existsSync(native)) chmodSync(native, 0o755);
    if (existsSync(native)) peers.push({ name: `ccusage ${version(launcher)} pi daily (Rust, native)`, command: native, args: (store) => ["pi", "daily", "--pi-path", store, "--offline", "--json"] });
  } catch {
    // not installed, or no native package for this platform
  }
  try {
    const pkg = require.resolve("@ccusage/pi/package.json");
    const bin = JSON.parse(readFileSync(pkg, "utf8")).bin["ccusage-pi"];
    peers.push({ name: `@ccusage/pi ${version(pkg)} daily (JavaScript)`, command: process.execPath, args: (store) => [join(dirname(pkg), bin), "daily", "--piPath", store, "--json"] });
  } catch {
    // not installed
  }
  return peers;
}

/** Runs a whole process once (files read through first): wall ms, peak RSS (MB, where /usr/bin/time is), stdout. */
function timeProcess(command, args, env, files, ok = [0]) {
  warmCache(files);
  const argv = TIME ? [TIME, ["-f", "%M", command, ...args]] : [command, args];
  const t0 = performance.now();
  const r = spawnSync(argv[0], argv[1], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 256 * 1024 * 1024, ...RUN_LIMIT });
  const ms = performance.now() - t0;
  if (!ok.includes(r.status)) return { error: stuckOr(r, (r.stderr || r.stdout || "").trim().split("\n").slice(-2).join(" ") || `exit ${r.status}`) };
  const rss = TIME ? Number(r.stderr.trim().split("\n").pop()) / 1024 : undefined;
  return { ms, rssMB: rss, stdout: r.stdout };
}

const best = (a, b) => (!a || a.error ? (a?.error ? a : b) : b.error ? b : { ms: Math.min(a.ms, b.ms), rssMB: Math.max(a.rssMB ?? 0, b.rssMB ?? 0) || undefined, stdout: b.stdout });

/**
 * The store's usage, rule by rule, read plainly (every line JSON.parse'd): assistant messages in
 * every file (what summing files gives), then each entry once (id and timestamp), then with what
 * else pi's /session counts (usage entries, tool results, compactions and branch summaries).
 */
function decompose(files) {
  const rows = { everyFile: 0, onceAssistant: 0, once: 0 };
  const seen = new Set();
  for (const file of files) {
    const lines = readFileSync(file, "utf8").split("\n");
    for (const line of lines) {
      let e;
      try {
        e = JSON.parse(line);
      } catch {
        continue;
      }
      if (!e || typeof e !== "object") continue;
      const m = e.message;
      const assistant = e.type === "message" && m?.role === "assistant" && m.usage;
      const other = (e.type === "usage" && e.usage) || (e.type === "message" && m?.role === "toolResult" && m.usage) || ((e.type === "compaction" || e.type === "branch_summary") && e.usage);
      const usage = assistant ? m.usage : other ? (e.usage ?? m.usage) : undefined;
      if (!usage) continue;
      const cost = usage.cost?.total ?? 0;
      if (assistant) rows.everyFile += cost;
      const key = `${e.id}\0${e.timestamp}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.once += cost;
      if (assistant) rows.onceAssistant += cost;
    }
  }
  return rows;
}

/** The store-wide contenders' runs: ours, each earlier build (`builds`), each peer; rows a case, in rounds. */
function timeCases({ cases, store, files, runs, builds }) {
  const result = new Map();
  const caches = new Map();
  const cacheOf = (who) => {
    if (!caches.has(who)) caches.set(who, mkdtempSync(join(tmpdir(), "pi-session-bench-store-")));
    return caches.get(who);
  };
  const contenders = [{ who: "ours", bin: join(ROOT, "bin/pi-session.js") }, ...builds.filter((b) => b.bin).map((b) => ({ who: b.name, bin: b.bin }))];
  for (let round = 0; round < runs; round++) {
    for (const c of cases) {
      for (const { who, bin } of contenders) {
        const cache = cacheOf(who);
        // (a cold case runs on an empty cache, and leaves it filled for the warm one after it)
        if (c.cold) {
          rmSync(cache, { recursive: true, force: true });
          mkdirSync(cache);
        }
        const key = `${c.name}\0${who}`;
        result.set(key, best(result.get(key), timeProcess(process.execPath, [bin, ...c.ours(store)], { XDG_CACHE_HOME: cache }, files, c.ok)));
      }
      for (const p of c.peers ?? []) {
        const key = `${c.name}\0${p.name}`;
        result.set(key, best(result.get(key), timeProcess(p.command, p.args(store), {}, files, c.ok)));
      }
    }
  }
  for (const cache of caches.values()) rmSync(cache, { recursive: true, force: true });
  return result;
}

/** Every earlier build's time against ours: "no slower than the previous release's build" (3 % allowed for the machine's noise between runs). */
const NOISE = 1.03;

/**
 * One table of the store-wide commands on `store`: each case's time, ours beside each earlier
 * build and each peer, with the case's target against its peer and "no slower than the previous
 * release's build" against that one. `judgedFrom`: the sessions a store must hold for the targets
 * to be judged (they are set for a few hundred).
 */
function storeWideTable({ title, store, files, runs, builds, cases, judgedFrom = 200 }) {
  const result = timeCases({ cases, store, files, runs, builds });
  const fmt = (n) => (n === undefined ? "-" : n.toFixed(0));
  const judge = (ok) => (files.length >= judgedFrom ? (ok ? "met" : "MISSED") : "(set for a few hundred sessions)");
  const shown = builds.map((b) => b.name);
  let failures = 0;
  let text = `## ${title}, best of ${runs}, Node ${process.versions.node}\n\n`;
  for (const b of builds) if (b.error) text += `(${b.name} build left out: ${b.error})\n\n`;
  text += `| command | pi-session ms | RSS MB | ${shown.map((n) => `${n} ms | ours / it`).join(" | ")} | peer | peer ms | ours / peer | targets |\n`;
  text += `| --- | ---: | ---: | ${shown.map(() => "---: | ---:").join(" | ")} | --- | ---: | ---: | --- |\n`;
  for (const c of cases) {
    const ours = result.get(`${c.name}\0ours`);
    if (ours.error) failures++;
    const targets = [];
    const columns = builds.map((b) => {
      const m = b.bin ? result.get(`${c.name}\0${b.name}`) : undefined;
      if (!m || m.error || ours.error) return `${m?.error ? "failed" : "-"} | -`;
      const r = ours.ms / m.ms;
      if (b.name === "previous release") targets.push(`no slower than the previous release: ${judge(r <= NOISE)}`);
      if (c.vsBuild?.name === b.name) targets.push(`≤ ${c.vsBuild.times} × ${b.name}: ${judge(r <= c.vsBuild.times)}`);
      return `${fmt(m.ms)} | ${r.toFixed(2)}`;
    });
    const peer = c.peers?.[0];
    const p = peer ? result.get(`${c.name}\0${peer.name}`) : undefined;
    const vsPeer = p && !p.error && !ours.error ? ours.ms / p.ms : undefined;
    if (vsPeer !== undefined && c.target !== undefined) targets.push(`${c.target === 1 ? "no slower than" : `≤ ${c.target} ×`} ${peer.short}: ${judge(vsPeer <= c.target)}`);
    for (const other of (c.peers ?? []).slice(1)) {
      const o = result.get(`${c.name}\0${other.name}`);
      if (o && !o.error && !ours.error && other.fasterBy) targets.push(`≥ ${other.fasterBy} × faster than ${other.short} (${(o.ms / ours.ms).toFixed(1)} ×): ${judge(o.ms / ours.ms >= other.fasterBy)}`);
    }
    const cell = (s) => s.replace(/\|/g, "\\|");
    text += `| ${cell(c.name)} | ${ours.error ? `failed: ${ours.error}` : fmt(ours.ms)} | ${fmt(ours.rssMB)} | ${columns.join(" | ")} | ${peer ? cell(peer.short) : "-"} | ${p ? (p.error ? "failed" : fmt(p.ms)) : "-"} | ${vsPeer === undefined ? "-" : vsPeer.toFixed(2)} | ${targets.join("; ") || "for the record"} |\n`;
  }
  return { text: `${text}\n`, failures, result };
}

/** The store-wide cases: `ls`, `usage` and `grep` cold and warm where they keep a cache, each against what a user would run instead. */
function storeCases({ real }) {
  const peers = usagePeers();
  const rust = peers.find((p) => p.name.includes("Rust"));
  const js = peers.find((p) => p.name.includes("JavaScript"));
  const rg = ripgrep();
  const rgPeer = (args) => (rg ? [{ name: `rg ${args.join(" ")}`, short: `\`rg ${args.join(" ")}\``, command: "rg", args: (store) => [...args, store] }] : []);
  const usagePeersOf = [...(rust ? [{ ...rust, short: "the Rust ccusage" }] : []), ...(js ? [{ ...js, short: "@ccusage/pi", fasterBy: 5 }] : [])];
  return [
    { name: "ls (cold cache)", cold: true, ours: (store) => ["ls", store, "--limit", "20"], ...(real ? { vsBuild: { name: "2026-12-04", times: 1.15 } } : {}) },
    { name: "ls (warm cache)", ours: (store) => ["ls", store, "--limit", "20"] },
    { name: "usage --by day --json (cold cache)", cold: true, ours: (store) => ["usage", store, "--by", "day", "--json"], peers: usagePeersOf, target: 1 },
    { name: "usage --by day --json (warm cache)", ours: (store) => ["usage", store, "--by", "day", "--json"], peers: usagePeersOf.slice(0, 1), target: 0.2 },
    { name: "grep -F -c 'npm test'", ours: (store) => ["grep", "-F", "-c", "npm test", store], peers: rgPeer(["-F", "-c", "npm test"]), target: 10 },
    // (a word in most entries: every line that holds it is judged, not only found)
    { name: "grep -F -c the", ours: (store) => ["grep", "-F", "-c", "the", store], peers: rgPeer(["-F", "-c", "the"]), target: 10 },
    // (in no file: bound by reading the bytes)
    { name: "grep -F -c (a needle in no file)", ours: (store) => ["grep", "-F", "-c", "qzxv-nowhere-7731", store], peers: rgPeer(["-F", "-c", "qzxv-nowhere-7731"]), target: 3, ok: [1] },
    { name: "grep -i -c '\\bcache\\b'", ours: (store) => ["grep", "-i", "-c", "\\bcache\\b", store], peers: rgPeer(["-i", "-c", "\\bcache\\b"]), target: 1 },
    { name: "grep -i -c '\\b[0-9a-f]{40}\\b'", ours: (store) => ["grep", "-i", "-c", "\\b[0-9a-f]{40}\\b", store], peers: rgPeer(["-i", "-c", "\\b[0-9a-f]{40}\\b"]), target: 1 },
    { name: "grep -i -c '[0-9a-f]{40}'", ours: (store) => ["grep", "-i", "-c", "[0-9a-f]{40}", store], peers: rgPeer(["-i", "-c", "[0-9a-f]{40}"]), target: 1 },
  ];
}

/**
 * The store-wide commands on two stores: the generated one (`generateSessionStore`: real-shaped
 * sessions replaying ../shared/corpus, forks and backups among them) and one of real files
 * (`generateRealStore`: ../shared/corpus and the shared OpenClaw stores' transcripts, v1 and
 * damaged ones as they are, copied with fresh ids), each against the earlier builds (bench/builds.mjs)
 * and the peers. On the generated store, what each usage contender reports is explained rule by rule.
 */
export function storeReport({ dataDir, sessions, sizeMB, realMB, runs, builds }) {
  const sources = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith(".jsonl") && !/header-only|parent-demo|branch\.v3/.test(f)).map((f) => join(CORPUS, f)) : [];
  if (sources.length === 0) return { text: "## store-wide commands\n\n(skipped: ../shared/corpus, the sessions the stores are made of, is not here)\n\n", failures: 0 };
  let text = "";
  let failures = 0;
  if (sessions > 0) {
    const store = join(dataDir, `store-usage-${sessions}-${sizeMB}`, "sessions");
    if (!existsSync(store)) generateSessionStore({ dir: store, count: sessions, sizeMB, sources, seed: 7 });
    const files = sessionFiles(store);
    const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
    const table = storeWideTable({ title: `store-wide commands over a generated store of ${files.length} real-shaped sessions (${(bytes / 2 ** 20).toFixed(0)} MB)`, store, files, runs, builds, cases: storeCases({ real: false }) });
    const accounting = usageAccounting(files, table.result);
    const search = searchReport({ title: `the generated store's ${files.length} sessions`, store, files, bytes, runs });
    text += table.text + accounting.text + search.text;
    failures += table.failures + accounting.failures + search.failures;
  }
  if (realMB > 0) {
    const store = join(dataDir, `store-real-${realMB}`, "sessions");
    if (!existsSync(store)) generateRealStore({ dir: store, sizeMB: realMB, sources: realSources(), seed: 11 });
    const files = sessionFiles(store);
    const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
    const table = storeWideTable({ title: `store-wide commands over a store of ${files.length} real sessions (${(bytes / 2 ** 20).toFixed(0)} MB: ../shared/corpus and the shared OpenClaw stores' transcripts, v1 and damaged ones included, copied with fresh ids)`, store, files, runs, builds, cases: storeCases({ real: true }) });
    const search = searchReport({ title: `the real store's ${files.length} sessions`, store, files, bytes, runs });
    text += table.text + search.text;
    failures += table.failures + search.failures;
  }
  return { text, failures };
}

/** Every session file of the store. */
const sessionFiles = (store) => readdirSync(store, { recursive: true }).filter((f) => String(f).endsWith(".jsonl")).map((f) => join(store, String(f)));

/** The real sessions a real store copies: every session file of ../shared/corpus and every transcript (live, reset, deleted) of the shared OpenClaw stores. */
function realSources() {
  const corpus = readdirSync(CORPUS).filter((f) => f.endsWith(".jsonl")).map((f) => join(CORPUS, f));
  const stores = existsSync(OPENCLAW) ? readdirSync(OPENCLAW, { recursive: true }).map(String).filter((f) => /\.jsonl($|\.(reset|deleted)\.)/.test(f)).map((f) => join(OPENCLAW, f)) : [];
  return [...corpus, ...stores].sort();
}

/** What each usage contender reports on the generated store, and the rules that make the difference. */
function usageAccounting(files, result) {
  const report = (name) => {
    const m = [...result].find(([k]) => k.startsWith("usage --by day --json (cold cache)\0") && k.endsWith(`\0${name}`))?.[1];
    return m && !m.error ? m.stdout : undefined;
  };
  const peers = usagePeers();
  const rustOut = report(peers.find((p) => p.name.includes("Rust"))?.name);
  const jsOut = report(peers.find((p) => p.name.includes("JavaScript"))?.name);
  const oursOut = report("ours");
  const costOf = {
    ours: oursOut ? JSON.parse(oursOut).total.cost : undefined,
    rust: rustOut ? JSON.parse(rustOut).totals?.totalCost : undefined,
    js: jsOut ? JSON.parse(jsOut).totals?.totalCost : undefined,
  };
  const d = decompose(files);
  const fmt = (n, dp = 0) => (n === undefined ? "-" : n.toFixed(dp));
  const same = (a, b) => a !== undefined && Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
  const explain = (cost) => (cost === undefined ? "" : same(cost, d.everyFile) ? "= assistant messages, every file summed" : same(cost, d.onceAssistant) ? "= assistant messages, each entry once" : same(cost, d.once) ? "= pi's /session rules, each entry once" : "matches none of the rules above");
  let text = `| what the generated store's usage is | cost $ | |\n| --- | ---: | --- |\n`;
  text += `| assistant messages, every file summed (a fork's copied history again, a backup copy again) | ${fmt(d.everyFile, 2)} | |\n`;
  text += `| assistant messages, each entry (id and timestamp) once | ${fmt(d.onceAssistant, 2)} | |\n`;
  text += `| + usage entries, tool results, compactions and branch summaries (pi's /session), each entry once | ${fmt(d.once, 2)} | |\n`;
  if (costOf.rust !== undefined) text += `| ccusage pi daily (Rust) reports | ${fmt(costOf.rust, 2)} | ${explain(costOf.rust)} |\n`;
  if (costOf.js !== undefined) text += `| @ccusage/pi daily reports | ${fmt(costOf.js, 2)} | ${explain(costOf.js)} |\n`;
  if (costOf.ours !== undefined) text += `| pi-session usage reports | ${fmt(costOf.ours, 2)} | ${explain(costOf.ours)} |\n`;
  // (ours must be pi's own accounting)
  return { text: `${text}\n`, failures: costOf.ours !== undefined && !same(costOf.ours, d.once) ? 1 : 0 };
}

/** ripgrep, where installed (Debian's `ripgrep` package): the benchmark says so and leaves it out when it is not. */
function ripgrep() {
  const r = spawnSync("rg", ["--version"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.split("\n")[0] : undefined;
}

/** The size of `search`'s index in a cache folder: each build's database (`search-index-STAMP.sqlite`) and its log. */
function indexBytes(cache) {
  const dir = join(cache, "pi-session");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => /^search-index.*\.sqlite(-wal)?$/.test(f)) : [];
  return files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

/**
 * `search` on the same store (docs/commands.md, "search"), each a whole process: its first
 * search (the index built: within 15 s on 2 cores, peak RSS within 256 MB, the index at most half
 * the store's bytes); warm, a word and a common literal, best 20, against `rg -F -i -c` of the same
 * over the same files (no slower; within 1.5 ×); a turn appended to a session, found by the next
 * search, which costs no more than a warm one (the session put back as it was after).
 */
export function searchReport({ title, store, files, bytes, runs }) {
  const rg = ripgrep();
  const bin = join(ROOT, "bin/pi-session.js");
  const cache = mkdtempSync(join(tmpdir(), "pi-session-bench-search-"));
  const env = { XDG_CACHE_HOME: cache };
  // (exit 1, nothing found, is a result too: a store may not say the word)
  const ours = (args) => timeProcess(process.execPath, [bin, "search", ...args, store], env, files, [0, 1]);
  let failures = 0;
  const fmt = (n, d = 0) => (n === undefined ? "-" : n.toFixed(d));
  const judge = (ok) => (files.length >= 200 ? (ok ? "met" : "MISSED") : "(set for a few hundred sessions)");
  let build;
  for (let round = 0; round < runs; round++) {
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(cache);
    build = best(build, ours(["deploy", "--limit", "20"]));
  }
  const size = indexBytes(cache);
  let text = `## search over ${title}, best of ${runs}, Node ${process.versions.node}\n\n`;
  if (!rg) text += "(ripgrep is not installed: `apt-get install ripgrep`; its column is left out)\n\n";
  text += `| search | pi-session search ms | peak RSS MB | rg -F -i -c ms | search / rg | target |\n| --- | ---: | ---: | ---: | ---: | --- |\n`;
  if (build.error) failures++;
  text += `| the first search: the index built (${fmt(size / 2 ** 20)} MB, ${fmt((100 * size) / bytes, 1)} % of the store's ${fmt(bytes / 2 ** 20)} MB) | ${build.error ? `failed: ${build.error}` : fmt(build.ms)} | ${fmt(build.rssMB)} | | | within 15 s: ${judge(build.ms <= 15_000)}; within 256 MB: ${judge((build.rssMB ?? 0) <= 256)}; index at most half the store: ${judge(size > 0 && size <= bytes / 2)} |\n`;
  const cases = [
    { name: "a word, best 20: `search deploy`", args: ["deploy", "--limit", "20"], rg: ["-F", "-i", "-c", "deploy"], target: 1 },
    { name: "a common literal, best 20: `search -F the`", args: ["-F", "the", "--limit", "20"], rg: ["-F", "-i", "-c", "the"], target: 1.5 },
  ];
  let warmWord;
  for (const c of cases) {
    let m;
    let theirs;
    for (let round = 0; round < runs; round++) {
      m = best(m, ours(c.args));
      if (rg) theirs = best(theirs, timeProcess("rg", [...c.rg, store], {}, files, [0, 1]));
    }
    if (m.error) failures++;
    if (c.target === 1) warmWord = m;
    const ratio = rg && !theirs.error && !m.error ? m.ms / theirs.ms : undefined;
    const target = c.target === 1 ? "no slower than rg" : `within ${c.target} × rg`;
    text += `| ${c.name} | ${m.error ? `failed: ${m.error}` : fmt(m.ms)} | ${fmt(m.rssMB)} | ${rg ? fmt(theirs?.ms) : "-"} | ${ratio === undefined ? "-" : ratio.toFixed(2)} | ${ratio === undefined ? target : `${target}: ${judge(ratio <= c.target)}`} |\n`;
  }
  // a turn appended to the smallest v3 session (what pi appends to), found by the next search; the session put back after
  const v3 = files.filter((f) => readFileSync(f).subarray(0, 300).includes('"version":3'));
  const session = v3.reduce((a, b) => (statSync(a).size <= statSync(b).size ? a : b));
  const was = statSync(session).size;
  let appended;
  let found = true;
  for (let round = 0; round < runs; round++) {
    const word = `quokka${round}x${Date.now().toString(36)}`;
    appendFileSync(session, `${JSON.stringify({ type: "message", id: `bench${String(round).padStart(3, "0")}`, parentId: null, timestamp: new Date().toISOString(), message: { role: "user", content: [{ type: "text", text: `an appended turn names the ${word}` }] } })}\n`);
    const m = ours([word, "--limit", "20"]);
    found &&= !m.error && m.stdout.includes(word);
    appended = best(appended, m);
    truncateSync(session, was);
    ours(["deploy", "--limit", "1"]);
  }
  if (appended.error || !found) failures++;
  const cost = warmWord && !warmWord.error && !appended.error ? appended.ms / warmWord.ms : undefined;
  text += `| a turn appended to a session, then \`search\` for a word it alone says | ${appended.error ? `failed: ${appended.error}` : fmt(appended.ms)} | ${fmt(appended.rssMB)} | | | found: ${found ? "yes" : "NO"}; no more than a warm search (${cost === undefined ? "-" : `${cost.toFixed(2)} ×`}): ${cost === undefined ? "-" : judge(cost <= 1.1)} |\n`;
  rmSync(cache, { recursive: true, force: true });
  return { text: `${text}\n`, failures };
}
