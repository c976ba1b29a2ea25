/**
 * `tail -f` (issue 57's targets): the CPU time of a follower left idle for a window (a minute;
 * `--quick`: 5 s), and of one following a writer of 100 entries a second for the same window, each
 * beside GNU `tail -f` on the same file in the same run (it watches with inotify: what "next to
 * nothing" can be). CPU time is the process's own (user + system, from /proc/<pid>/stat), counted
 * from the end of its start-up to the end of the window; every entry written must have been shown.
 */
import { spawn, execFileSync } from "node:child_process";
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "bin/pi-session.js");
const fmt = (n, d = 0) => (n === undefined ? "-" : n.toFixed(d));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** A process's CPU time so far (ms, user + system), from /proc; undefined where there is no /proc. */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
  } catch {
    return undefined;
  }
}

/** Runs `cmd` for `seconds` after a settling second, `write` called 100 times a second meanwhile (or never): its CPU over the window, and the lines it printed. */
async function follow(cmd, args, seconds, write) {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "ignore"] });
  let lines = 0;
  child.stdout.on("data", (chunk) => {
    for (const b of chunk) if (b === 10) lines++;
  });
  await sleep(1500);
  const before = cpuMs(child.pid);
  const linesBefore = lines;
  let written = 0;
  if (write) {
    const start = Date.now();
    while (Date.now() - start < seconds * 1000) {
      // (a batch each 10 ms: 100 a second, as a busy agent's turn of tool calls writes them)
      write(written++);
      await sleep(10 - ((Date.now() - start) % 10));
    }
  } else await sleep(seconds * 1000);
  await sleep(1200);
  const after = cpuMs(child.pid);
  child.kill("SIGINT");
  await new Promise((r) => child.on("exit", r));
  return { cpu: before === undefined || after === undefined ? undefined : after - before, shown: lines - linesBefore, written };
}

export async function tailReport({ quick }) {
  const seconds = quick ? 5 : 60;
  const dir = mkdtempSync(join(tmpdir(), "pi-session-bench-tail-"));
  const file = join(dir, "session.jsonl");
  copyFileSync(join(ROOT, "fixtures/linear.jsonl"), file);
  const last = JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1)).id;
  let parent = last;
  const append = (k) => {
    const id = `w${String(k).padStart(7, "0")}`;
    appendFileSync(file, JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date().toISOString(), message: { role: "user", content: `entry ${k}`, timestamp: Date.now() } }) + "\n");
    parent = id;
  };
  let gnu;
  try {
    execFileSync("tail", ["--version"], { stdio: "ignore" });
    gnu = true;
  } catch {
    gnu = false;
  }
  const ours = ["tail", file, "-f", "-n", "0", "--jsonl"];
  const idle = await follow(process.execPath, [BIN, ...ours], seconds);
  const idleGnu = gnu ? await follow("tail", ["-n", "0", "-f", file], seconds) : undefined;
  const busy = await follow(process.execPath, [BIN, ...ours], seconds, append);
  const busyGnu = gnu ? await follow("tail", ["-n", "0", "-f", file], seconds, append) : undefined;
  rmSync(dir, { recursive: true, force: true });

  let failures = 0;
  const perMinute = (m) => (m.cpu === undefined ? undefined : (m.cpu * 60) / seconds);
  const core = (m) => (m.cpu === undefined ? "-" : `${((m.cpu / (seconds * 1000)) * 100).toFixed(2)} %`);
  let text = `## tail -f, ${seconds} s a window, Node ${process.versions.node}\n\n| contender | CPU ms a minute | share of a core | entries shown / written | target |\n| --- | ---: | ---: | ---: | --- |\n`;
  const row = (name, m, target) => `| ${name} | ${fmt(perMinute(m))} | ${core(m)} | ${m.written ? `${m.shown} / ${m.written}` : m.shown} | ${target} |\n`;
  if (idleGnu) text += row("GNU tail -f, idle", idleGnu, "");
  const idleOk = idle.cpu !== undefined && perMinute(idle) <= 600;
  text += row("pi-session tail -f, idle", idle, idle.cpu === undefined ? "not measured (no /proc)" : `≤ 1 % of a core (600 ms a minute): ${idleOk ? "met" : "MISSED"}`);
  if (busyGnu) text += row("GNU tail -f, 100 entries a second", busyGnu, "");
  const allShown = busy.shown === busy.written;
  const busyOk = busy.cpu !== undefined && perMinute(busy) <= 6000;
  text += row("pi-session tail -f --jsonl, 100 entries a second", busy, `every entry shown: ${allShown ? "met" : "MISSED"}; ≤ 10 % of a core: ${busy.cpu === undefined ? "not measured" : busyOk ? "met" : "MISSED"}`);
  if (!allShown) failures++;
  return { text: text + "\n", failures };
}
