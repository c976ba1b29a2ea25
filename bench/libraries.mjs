/**
 * Named libraries the tool does not use as they are, measured against what it does instead, in
 * this process (both sides the same work, best of three):
 *
 * - cli-table3 against our table (src/render/table.ts): `ls` tables of 20, 500 and 5,000 rows of
 *   ten columns, borderless as `ls` draws them;
 * - ndjson's stringify stream against our sink (src/render/sink.ts): a million `path --jsonl`
 *   steps written to /dev/null, waiting on the stream when it is full.
 *
 * Run alone: `node bench/libraries.mjs [--quick]`; `npm run bench` prints it too.
 */
import Table from "cli-table3";
import ndjson from "ndjson";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

function best(f, times = 3) {
  let ms = Infinity;
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    f();
    ms = Math.min(ms, performance.now() - t);
  }
  return ms;
}

async function bestAsync(f, times = 3) {
  let ms = Infinity;
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await f();
    ms = Math.min(ms, performance.now() - t);
  }
  return ms;
}

const HEAD = ["id", "name / first message", "cwd", "created", "last activity", "msgs", "branches", "size", "v", "status"];

function lsRows(n) {
  return Array.from({ length: n }, (_, i) => [
    `019f${String(i).padStart(4, "0")}-086…`,
    `session ${i}: fix the flaky test in the ${i % 7 === 0 ? "日本語 " : ""}parser`,
    `/home/ada/code/project-${i % 13}`,
    "2026-07-05 02:10",
    "2026-07-05 03:31",
    String(i * 7),
    String(1 + (i % 3)),
    `${(i % 900) + 1} KB`,
    "3",
    i % 11 === 0 ? "invalid: 2 problems" : "ok",
  ]);
}

export async function librariesReport({ quick = false } = {}) {
  const { renderTable } = await import(pathToFileURL(join(ROOT, "dist/render/table.js")).href);
  const { makeStyle } = await import(pathToFileURL(join(ROOT, "dist/render/style.js")).href);
  const { streamSink, writeAll } = await import(pathToFileURL(join(ROOT, "dist/render/sink.js")).href);
  const style = makeStyle(false, 100);
  const columns = HEAD.map((head, i) => ({ head, priority: i + 1 }));
  const lines = [];
  lines.push(`## named libraries not used as they are, Node ${process.versions.node}\n`);
  lines.push("| work | library | ms | ours | ms | library / ours |");
  lines.push("| --- | --- | ---: | --- | ---: | ---: |");
  for (const n of quick ? [20, 500] : [20, 500, 5000]) {
    const rows = lsRows(n);
    const theirs = best(() => {
      const t = new Table({ head: HEAD, chars: { top: "", "top-mid": "", "top-left": "", "top-right": "", bottom: "", "bottom-mid": "", "bottom-left": "", "bottom-right": "", left: "", "left-mid": "", mid: "", "mid-mid": "", right: "", "right-mid": "", middle: "  " }, style: { head: [], border: [], "padding-left": 0, "padding-right": 0 } });
      t.push(...rows);
      t.toString();
    }, n >= 5000 ? 1 : 3);
    const ours = best(() => renderTable(columns, rows, style));
    lines.push(`| an \`ls\` table of ${n} rows × 10 columns | cli-table3 0.6.5 | ${theirs.toFixed(1)} | renderTable | ${ours.toFixed(1)} | ${(theirs / ours).toFixed(1)} |`);
  }
  const count = quick ? 100_000 : 1_000_000;
  const step = (i) => ({ id: (Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, "0"), parentId: "0badf00d", line: i + 2, kind: "message/assistant", timestamp: "2026-01-01T00:00:00.000Z", preview: "a short preview of the entry's text, about sixty characters" });
  const viaNdjson = async () => {
    const out = createWriteStream("/dev/null");
    const s = ndjson.stringify();
    s.pipe(out);
    for (let i = 0; i < count; i++) if (!s.write(step(i))) await once(s, "drain");
    s.end();
    await once(out, "finish");
  };
  const viaSink = async () => {
    const out = createWriteStream("/dev/null");
    const sink = streamSink(out);
    await writeAll(sink, (function* () {
      for (let i = 0; i < count; i++) yield JSON.stringify(step(i)) + "\n";
    })());
    await sink.flush();
    out.end();
    await once(out, "finish");
  };
  const theirs = await bestAsync(viaNdjson);
  const ours = await bestAsync(viaSink);
  lines.push(`| ${count.toLocaleString("en-US")} JSON lines to /dev/null | ndjson 2.0.0 stringify | ${theirs.toFixed(0)} | streamSink + JSON.stringify | ${ours.toFixed(0)} | ${(theirs / ours).toFixed(1)} |`);
  return lines.join("\n") + "\n";
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(await librariesReport({ quick: process.argv.includes("--quick") }));
}
