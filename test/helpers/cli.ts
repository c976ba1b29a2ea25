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

/** Spawns the real bin/pi-session.js (no colour unless asked), never throwing on a non-zero exit. */
export async function cli(args: string[], options: Options & { env?: Record<string, string | undefined> } = {}): Promise<CliResult> {
  const r = await execa("node", [BIN, ...args], {
    reject: false,
    stripFinalNewline: false,
    ...options,
    env: { NO_COLOR: "1", FORCE_COLOR: undefined, PI_CODING_AGENT_SESSION_DIR: undefined, PI_CODING_AGENT_DIR: undefined, OPENCLAW_STATE_DIR: undefined, HOME, XDG_CACHE_HOME: CACHE, ...options.env },
    extendEnv: true,
  });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
}

export async function cliJson<T = any>(args: string[], options: Parameters<typeof cli>[1] = {}): Promise<CliResult & { json: T }> {
  const r = await cli([...args, "--json"], options);
  return { ...r, json: JSON.parse(r.stdout) as T };
}
