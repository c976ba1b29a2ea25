import { execa, type Options } from "execa";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "./paths.js";

/** Tests never touch the user's ls cache. */
const CACHE = mkdtempSync(join(tmpdir(), "pi-session-test-cache-"));
/** Nor the user's stores: a home of its own, where no ~/.pi and no ~/.openclaw are (a test that wants one makes it, or passes HOME). */
const HOME = mkdtempSync(join(tmpdir(), "pi-session-test-home-"));

export interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** The environment every spawned run gets: no colour, no stores of the user's, a cache of the tests' own (`env` added). */
const envOf = (env: Record<string, string | undefined> = {}) => ({ NO_COLOR: "1", FORCE_COLOR: undefined, PI_CODING_AGENT_SESSION_DIR: undefined, PI_CODING_AGENT_DIR: undefined, OPENCLAW_STATE_DIR: undefined, HOME, XDG_CACHE_HOME: CACHE, ...env });

/** Spawns the real bin/pi-session.js (no colour unless asked), never throwing on a non-zero exit. */
export async function cli(args: string[], options: Options & { env?: Record<string, string | undefined> } = {}): Promise<CliResult> {
  const r = await execa("node", [BIN, ...args], {
    reject: false,
    stripFinalNewline: false,
    ...options,
    env: envOf(options.env),
    extendEnv: true,
  });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
}

/** A run that goes on until stopped (`tail -f`): its output as it comes, each line with when it came. */
export interface Running {
  /** Stdout's lines so far, each with the time (ms) it was read. */
  lines: Array<{ text: string; at: number }>;
  stderr(): string;
  /** Resolves once a line satisfies `test` (the line), or rejects after `ms`. */
  waitFor(test: (line: string) => boolean, ms?: number): Promise<{ text: string; at: number }>;
  /** Sends `signal` (default: SIGINT, as Ctrl-C does) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
}

/** Spawns the real bin/pi-session.js to run until stopped. */
export function running(args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}): Running {
  const child = execa("node", [BIN, ...args], { reject: false, stripFinalNewline: false, buffer: true, ...options, env: envOf(options.env), extendEnv: true });
  const lines: Array<{ text: string; at: number }> = [];
  let partial = "";
  let err = "";
  const waiting = new Set<() => void>();
  child.stdout!.on("data", (chunk: Buffer) => {
    const at = Date.now();
    const parts = (partial + chunk.toString("utf8")).split("\n");
    partial = parts.pop()!;
    for (const text of parts) lines.push({ text, at });
    for (const w of waiting) w();
  });
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  return {
    lines,
    stderr: () => err,
    waitFor(test, ms = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find((l) => test(l.text));
          if (!found) return false;
          waiting.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`no line came in ${ms} ms; stdout:\n${lines.map((l) => l.text).join("\n")}\nstderr:\n${err}`));
        }, ms);
        if (!check()) waiting.add(check);
      });
    },
    async stop(signal = "SIGINT") {
      child.kill(signal);
      const r = await child;
      return { stdout: lines.map((l) => l.text + "\n").join("") + partial, stderr: err, exitCode: r.exitCode ?? -1 };
    },
  };
}

export async function cliJson<T = any>(args: string[], options: Parameters<typeof cli>[1] = {}): Promise<CliResult & { json: T }> {
  const r = await cli([...args, "--json"], options);
  try {
    return { ...r, json: JSON.parse(r.stdout) as T };
  } catch {
    // (what the run said instead, so that a failure names its cause)
    throw new Error(`pi-session ${args.join(" ")} --json: exit ${r.exitCode}, stdout not JSON (${JSON.stringify(r.stdout.slice(0, 200))}); stderr: ${r.stderr.slice(0, 2000)}`);
  }
}
