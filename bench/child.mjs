/**
 * One measured task in a fresh process: prints {ms, rssMB} (peak RSS from the kernel). The parent
 * runs every contender through this so that they are measured the same way.
 */
import { createWriteStream, openSync, readFileSync, writeSync } from "node:fs";
import { Writable } from "node:stream";
import { resourceUsage } from "node:process";

const [task, ...args] = process.argv.slice(2);
const started = performance.now();

async function run() {
  switch (task) {
    case "naive": {
      // The naive baseline: read the file, split every line, JSON.parse each (skipping a line that
      // does not parse, as pi does). Splits the bytes so that it works past V8's ~512 MiB string
      // limit too (not past Node's 2 GiB limit for one read).
      const buf = readFileSync(args[0]);
      let start = 0;
      let n = 0;
      for (;;) {
        const nl = buf.indexOf(10, start);
        const end = nl === -1 ? buf.length : nl;
        if (end > start) {
          try {
            JSON.parse(buf.toString("utf8", start, end));
            n++;
          } catch {
            // a torn or fused line
          }
        }
        if (nl === -1) break;
        start = nl + 1;
      }
      return n;
    }
    case "pi": {
      // pi's own path: load every entry, rebuild the context for the current leaf.
      const pi = await import(new URL("../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js", import.meta.url).href);
      const entries = pi.loadEntriesFromFile(args[0]);
      const body = entries.filter((e) => e.type !== "session");
      return pi.buildSessionContext(body).messages.length;
    }
    case "pi-list": {
      const pi = await import(new URL("../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js", import.meta.url).href);
      const sessions = await pi.SessionManager.listAll();
      if (sessions.length === 0) throw new Error("pi listed no sessions");
      return sessions.length;
    }
    case "check-rules": {
      // What the conversation rules (SPEC §12) cost `check`: its read of a session (the library's
      // open and Validator, as the command calls them) with them ("with") and without ("without":
      // no message handed on, since their calls, results and unsent turns are all the rules read
      // of messages, and no pairing walk; the references' entries still parsed). The file is
      // scanned and indexed alike both ways.
      const [file, mode] = args;
      const lib = await import(new URL("../dist/format/index.js", import.meta.url).href);
      const validator = new lib.Validator();
      let options = { onRecord: validator.onRecord, skim: true, skimUsage: false };
      if (mode === "without") {
        // (the walk's method by name: were it renamed, "without" would walk too and the rules look free)
        if (typeof lib.Validator.prototype.toolFindings !== "function") throw new Error("check-rules: the Validator has no toolFindings to leave out");
        validator.toolFindings = () => [];
        options = { onRecord: validator.onRecord, only: new Set(["compaction", "label", "branch_summary", "context_edit"]) };
      } else if (mode !== "with") throw new Error(`check-rules: with or without, not ${mode}`);
      const session = lib.openSessionSync(file, options);
      const found = validator.findings(session).length;
      session.close();
      return found;
    }
    case "cli": {
      const { main } = await import(new URL("../dist/bundle/cli.js", import.meta.url).href);
      // Output goes to /dev/null synchronously, as Node writes stdout to a file (`> out.md`): an
      // fs.WriteStream would add a thread-pool round trip per chunk that no real run pays.
      // BENCH_COLUMNS=N: as on a terminal N columns wide (what fits the width is timed too).
      const fd = openSync("/dev/null", "w");
      let bytes = 0;
      const sink = new Writable({
        write(chunk, _encoding, done) {
          bytes += chunk.length;
          writeSync(fd, chunk);
          done();
        },
      });
      const columns = Number(process.env.BENCH_COLUMNS) || undefined;
      if (columns) Object.assign(sink, { isTTY: true, columns });
      const code = await main(args, { stdout: sink, stderr: createWriteStream("/dev/null"), env: { ...process.env, NO_COLOR: "1" } });
      await new Promise((resolve) => sink.end(resolve));
      if (code === 2) throw new Error(`pi-session ${args.join(" ")} exited 2`);
      return { code, bytes };
    }
    case "index": {
      // What the index holds in memory an entry: the heap and array buffers after a full GC,
      // with the session open as `path --leaves` has it (tree built, depths and leaves known),
      // less the same after a session of one entry (the code, the scanner's memory). Needs --expose-gc.
      const { openSessionSync } = await import(new URL("../dist/format/index.js", import.meta.url).href);
      // (a few collections apart: V8 frees array buffers' memory on a thread of its own after a
      // collection, and a buffer the tables outgrew could still be counted right after one)
      const held = async () => {
        for (let k = 0; k < 3; k++) {
          globalThis.gc();
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const m = process.memoryUsage();
        return m.heapUsed + m.arrayBuffers;
      };
      const open = (file) => {
        const s = openSessionSync(file, { only: new Set(["label", "session_info"]), onRecord: () => {} });
        for (let n = 0; n < s.tree.size; n++) s.tree.depth(n);
        s.tree.leaves();
        return s;
      };
      const small = open(args[1]);
      const base = await held();
      const s = open(args[0]);
      const bytes = (await held()) - base;
      return { bytesPerEntry: bytes / s.tree.size, entries: s.tree.size, keep: small.size };
    }
    default:
      throw new Error(`unknown task ${task}`);
  }
}

/**
 * This process's peak RSS, MB. Linux's `getrusage` high-water mark (`resourceUsage().maxRSS`) is
 * carried across `exec` from the process that forked it, so a child of a benchmark that has grown
 * (its generated stores) would report the parent's size; `VmHWM` is this process's own memory's.
 */
function peakRssMB() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Number(hwm[1]) / 1024;
  } catch {
    // not Linux: the kernel's figure
  }
  return resourceUsage().maxRSS / 1024;
}

const result = await run();
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, rssMB: peakRssMB(), result }) + "\n");
// Every contender ends as bin/pi-session.js does once its output is written: at once, without
// Node first draining the tasks V8 queued (garbage collection it scheduled while working).
process.exit(0);
