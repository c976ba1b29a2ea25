/**
 * The Node the tool runs on: pi's floor (22.19) and up, an older one told so in one line; the
 * compile cache that keeps V8's code between runs, written only where it may be; and the README's
 * quick start on a fresh copy of the repository under Node 24, installed by scripts/with-node.sh
 * from the npm registry when the machine has another.
 */
import { execa } from "execa";
import { chmodSync, closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { BIN, fixture, ROOT } from "../helpers/paths.js";

const WITH_NODE = join(ROOT, "scripts/with-node.sh");

describe("an older Node", () => {
  it("is told in one line which Node pi-session needs, which it found and where to get one: exit 2, nothing on stdout", async () => {
    const r = await execa(WITH_NODE, ["20", "node", BIN, "ls", fixture(".")], { reject: false, env: { NO_COLOR: "1" } });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("with-node: installing"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^pi-session: needs Node >= 22\.19\.0 \(.*\); this is Node 20\.\d+\.\d+ \(.+\)\. Install Node 22\.19 or newer .*https:\/\/nodejs\.org\//);
  }, 120_000);

  it("the floor the bin checks is the one package.json declares", () => {
    const engines = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(">=22.19.0");
    expect(readFileSync(BIN, "utf8")).toContain("const NEEDS = [22, 19, 0];");
    expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(22); // the suite itself runs on a Node pi-session supports
  });
});

describe("V8's helper threads on Node 24", () => {
  // Exiting while a helper thread waits for a garbage collection to finish its code hangs the
  // process for good (bin/pi-session.js says why), so Node 24's V8 is told to make its code on the
  // main thread. V8's own trace shows where Sparkplug's code is made: "[compiling method …]" on the
  // main thread, "[Concurrent Sparkplug Off Thread] Function … installed" for a function a helper
  // made. Node's own loader runs before the bin can set a flag, so a few batches of its functions
  // (27 on Node 24.22.3) still go to a helper; with V8's default, every batch does (about 600
  // functions for this run, none on the main thread). Counted, not placed: where the helpers' lines
  // fall among the main thread's depends on the machine's load.
  it("makes its baseline code on the main thread once the bin starts: a helper makes only what Node's loader asked for before it, no word of it on stderr", async () => {
    const run = (...node: string[]) => execa(WITH_NODE, ["24", "node", ...node, BIN, "usage", fixture("."), "--no-cache"], { reject: false, env: { NO_COLOR: "1" } });
    const plain = await run();
    const r = await run("--trace-baseline");
    expect(r.exitCode).toBe(0);
    // (the flags are V8's own: one it did not know would be an error line here)
    const warnings = (t: string) => t.split("\n").filter((l) => l !== "" && !l.startsWith("with-node: installing"));
    expect(warnings(r.stderr)).toEqual(warnings(plain.stderr));
    expect(warnings(r.stderr).every((l) => l.startsWith("pi-session: "))).toBe(true);
    const lines = r.stdout.split("\n");
    const here = lines.filter((l) => l.startsWith("[compiling method ")).length;
    const helpers = lines.filter((l) => /^\[Concurrent Sparkplug Off Thread\] Function .* installed$/.test(l)).length;
    // (the tool's work compiles hundreds of functions)
    expect(here).toBeGreaterThan(100);
    expect(helpers).toBeLessThan(50);
    // the report itself is there, as without the trace
    expect(lines.filter((l) => !l.startsWith("[")).join("\n")).toContain(plain.stdout.trim().split("\n").at(-1)!);
  }, 120_000);
});

describe("the compile cache", () => {
  const compiled = (cache: string) => {
    const dir = join(cache, "pi-session/compile");
    return existsSync(dir) ? readdirSync(dir, { recursive: true }).length : 0;
  };

  it("is written under $XDG_CACHE_HOME/pi-session/compile, and a second run reads what the first wrote", async () => {
    const cache = mkdtempSync(join(tmpdir(), "pi-session-compile-"));
    const first = await cli(["tree", fixture("branched.jsonl")], { env: { XDG_CACHE_HOME: cache } });
    expect(first.exitCode).toBe(0);
    expect(compiled(cache)).toBeGreaterThan(0);
    const second = await cli(["tree", fixture("branched.jsonl")], { env: { XDG_CACHE_HOME: cache, NODE_DEBUG_NATIVE: "COMPILE_CACHE" } });
    expect(second.stdout).toBe(first.stdout);
    // Node's own trace of the cache: the bundle's code was found, not compiled again
    expect(second.stderr).toMatch(/cache for .*cli\.js was accepted/i);
  });

  it("--no-cache writes nothing to the cache folder", async () => {
    const cache = join(mkdtempSync(join(tmpdir(), "pi-session-compile-")), "cache");
    const r = await cli(["ls", fixture("."), "--no-cache"], { env: { XDG_CACHE_HOME: cache } });
    expect(r.exitCode).toBe(0);
    expect(existsSync(cache)).toBe(false);
  });

  it("a cache folder that cannot be written, or a damaged cache, is only a slower start: the same output, nothing on stderr", async () => {
    const plain = await cli(["tree", fixture("branched.jsonl")]);
    // a file where the folder would be
    const blocked = mkdtempSync(join(tmpdir(), "pi-session-compile-"));
    writeFileSync(join(blocked, "pi-session"), "not a folder");
    const r1 = await cli(["tree", fixture("branched.jsonl")], { env: { XDG_CACHE_HOME: blocked } });
    expect([r1.exitCode, r1.stdout, r1.stderr]).toEqual([0, plain.stdout, ""]);
    // a read-only folder (root writes anyway: then it is the damaged cache below that counts)
    const readOnly = mkdtempSync(join(tmpdir(), "pi-session-compile-"));
    chmodSync(readOnly, 0o500);
    const r2 = await cli(["tree", fixture("branched.jsonl")], { env: { XDG_CACHE_HOME: readOnly } });
    expect([r2.exitCode, r2.stdout, r2.stderr]).toEqual([0, plain.stdout, ""]);
    chmodSync(readOnly, 0o700);
    // every file of a written cache overwritten with garbage
    const damaged = mkdtempSync(join(tmpdir(), "pi-session-compile-"));
    await cli(["tree", fixture("branched.jsonl")], { env: { XDG_CACHE_HOME: damaged } });
    const files = readdirSync(join(damaged, "pi-session/compile"), { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) writeFileSync(join(f.parentPath, f.name), "\u0000garbage\u00ff".repeat(50));
    const r3 = await cli(["tree", fixture("branched.jsonl")], { env: { XDG_CACHE_HOME: damaged } });
    expect([r3.exitCode, r3.stdout, r3.stderr]).toEqual([0, plain.stdout, ""]);
  });
});

describe("the README's quick start on Node 24", () => {
  it("a fresh copy of the repository installs with `npm ci` and runs the first command on Node 24 (the second is what .ci/run runs)", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const block = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1]?.trim().split("\n") ?? [];
    expect(block).toEqual(["npm ci && ./bin/pi-session.js check fixtures/fused.jsonl fixtures/branched.jsonl", "npm test"]);
    // the files git tracks (and those it would, not ignored), as a clone of this tree has them
    const work = mkdtempSync(join(tmpdir(), "pi-session-fresh-"));
    const tracked = (await execa("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT })).stdout.split("\0").filter(Boolean);
    for (const f of tracked) {
      if (!existsSync(join(ROOT, f))) continue; // deleted in the working tree
      mkdirSync(dirname(join(work, f)), { recursive: true });
      cpSync(join(ROOT, f), join(work, f));
    }
    const r = await execa(WITH_NODE, ["24", "bash", "-c", `node --version && ${block[0]} --json`], {
      cwd: work,
      reject: false,
      env: { NO_COLOR: "1", npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false", XDG_CACHE_HOME: join(work, ".cache") },
    });
    expect(r.stdout.split("\n")[0]).toMatch(/^v24\./);
    expect(r.exitCode).toBe(1); // fused.jsonl has an error
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf("\n{") + 1)) as { files: Array<{ file: string; errors: number }> };
    expect(report.files.map((f) => [f.file, f.errors])).toEqual([
      ["fixtures/fused.jsonl", 1],
      ["fixtures/branched.jsonl", 0],
    ]);
  }, 300_000);
});

describe("what a run loads of Node's own modules (BENCHMARKS.md, \"built-ins on demand\")", () => {
  /** The built-ins a run of `args` loaded past Node's bootstrap, as `process.moduleLoadList` names them (test/helpers/record-modules.mjs). */
  const loadedBy = async (args: string[], options: { env?: Record<string, string>; stdinFile?: string } = {}): Promise<string[]> => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-modules-"));
    const list = join(dir, "loaded.json");
    // (standard input is the file itself where one is given, else nothing: no pipe to make a socket of)
    const stdin = options.stdinFile ? openSync(options.stdinFile, "r") : "ignore";
    const env = { NO_COLOR: "1", XDG_CACHE_HOME: join(dir, "cache"), PI_SESSION_TEST_MODULES: list, ...options.env };
    const r = await execa("node", ["--import", RECORDER, BIN, ...args], { reject: false, env, stdin });
    if (typeof stdin === "number") closeSync(stdin);
    expect(r.exitCode, r.stderr).toBe(0);
    const { before, after } = JSON.parse(readFileSync(list, "utf8")) as { before: string[]; after: string[] };
    // (the recorder runs before the tool: what is measured is loaded after it)
    expect(before.filter((m) => UNUSED.some((u) => m === `NativeModule ${u}`))).toEqual([]);
    return after.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice("NativeModule ".length));
  };
  const RECORDER = join(ROOT, "test/helpers/record-modules.mjs");
  const UNUSED = ["crypto", "zlib", "worker_threads", "assert", "internal/fs/promises", "internal/readline/interface", "internal/util/parse_args/parse_args"];

  /** A folder of two plain pi sessions (the fixtures' folder holds archives and an OpenClaw store too, which use zlib and crypto). */
  const plainFolder = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-modules-"));
    cpSync(fixture("branched.jsonl"), join(dir, "branched.jsonl"));
    cpSync(fixture("fused.jsonl"), join(dir, "fused.jsonl"));
    return dir;
  };

  it("check, ls, tree and grep load none of crypto, zlib, worker threads, assert, fs.promises, readline or util's parser", async () => {
    const folder = plainFolder();
    for (const args of [["check", fixture("branched.jsonl")], ["ls", folder], ["tree", fixture("branched.jsonl")], ["grep", "-c", "the", folder]]) {
      const loaded = await loadedBy(args);
      expect(loaded.length, args.join(" ")).toBeGreaterThan(0);
      expect(UNUSED.filter((m) => loaded.includes(m)), args.join(" ")).toEqual([]);
    }
  }, 60_000);

  it("each is loaded where a command uses it: fork's new id, a worker thread, standard input read from a file", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "pi-session-modules-")), "forked.jsonl");
    expect(await loadedBy(["fork", fixture("branched.jsonl"), "--out", out])).toContain("crypto");
    expect(await loadedBy(["grep", "-c", "the", plainFolder()], { env: { PI_SESSION_THREADS: "2" } })).toContain("worker_threads");
    expect(await loadedBy(["check", "-"], { stdinFile: fixture("branched.jsonl") })).toContain("internal/fs/promises");
  }, 60_000);
});
