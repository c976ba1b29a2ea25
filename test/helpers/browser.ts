/**
 * A headless Chromium for the browser tests, from what a machine has: `$CHROMIUM_PATH`, else a
 * system Chromium, else the build that `@sparticuz/chromium` (a devDependency) ships inside its
 * npm tarball, unpacked on first use. Nothing is fetched from anywhere but the npm registry.
 * When none starts, the caller skips with the reason, except under `CI=true`, where that is an
 * error: CI must run the browser tests.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { chromium, type Browser, type BrowserContext } from "playwright-core";

const SYSTEM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** Flags for a closed network: no background requests, no sandbox (tests run as root in CI). */
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** A browser, and the context its tests open their pages in (see `launchBrowser`). */
export type Launched = { browser: Browser; context: BrowserContext; from: string } | { browser?: undefined; context?: undefined; reason: string };

interface Candidate {
  path: string;
  from: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * The shared libraries `@sparticuz/chromium` ships for a machine without them (NSS, NSPR, expat:
 * its `al2023.tar.br`), unpacked once into a temporary folder. The package itself unpacks them
 * only on Amazon Linux; elsewhere a machine without NSS needs them too.
 */
function packagedLibraries(): string {
  const archive = join(dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "../../bin/al2023.tar.br");
  const out = join(tmpdir(), "pi-session-chromium-libs");
  const tar = brotliDecompressSync(readFileSync(archive));
  // a plain tar: 512-byte headers (name at 0, octal size at 124, type at 156), contents padded to 512
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = tar.toString("utf8", at, at + 100).replace(/\0.*$/s, "");
    if (!name) break;
    const size = parseInt(tar.toString("latin1", at + 124, at + 136).replace(/\0.*$/s, "").trim() || "0", 8);
    const type = String.fromCharCode(tar[at + 156]!);
    if ((type === "0" || type === "\0") && name.startsWith("lib/")) {
      mkdirSync(join(out, dirname(name)), { recursive: true });
      writeFileSync(join(out, name), tar.subarray(at + 512, at + 512 + size));
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return join(out, "lib");
}

async function candidates(): Promise<Candidate[]> {
  const out: Candidate[] = [];
  if (process.env.CHROMIUM_PATH) out.push({ path: process.env.CHROMIUM_PATH, from: "$CHROMIUM_PATH", args: ARGS });
  for (const path of SYSTEM) if (existsSync(path)) out.push({ path, from: "the system", args: ARGS });
  try {
    const packaged = (await import("@sparticuz/chromium")).default;
    // its own flags for a single-process headless shell, less the ones that weaken a page's security
    const args = packaged.args.filter((a: string) => !/web-security|insecure-content|site-isolation|IsolateOrigins/.test(a));
    const path = await packaged.executablePath();
    out.push({ path, from: "@sparticuz/chromium", args: [...new Set([...args, ...ARGS])] });
    // the same, with the libraries it ships, for a machine that lacks them
    const lib = packagedLibraries();
    out.push({ path, from: "@sparticuz/chromium with its own libraries", args: [...new Set([...args, ...ARGS])], env: { ...process.env, LD_LIBRARY_PATH: [lib, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":") } as Record<string, string> });
  } catch (error) {
    out.push({ path: "", from: `@sparticuz/chromium (${(error as Error).message})`, args: [] });
  }
  return out;
}

export async function launchBrowser(): Promise<Launched> {
  const failures: string[] = [];
  for (const c of await candidates()) {
    if (!c.path) {
      failures.push(c.from);
      continue;
    }
    try {
      const browser = await chromium.launch({ executablePath: c.path, args: c.args, timeout: 60_000, ...(c.env ? { env: c.env } : {}) });
      // A single-process shell (@sparticuz/chromium's) ends when a context closes, as a page of
      // its own context does: tests open their pages in one context, which a blank page keeps.
      const context = await browser.newContext();
      await context.newPage();
      return { browser, context, from: `${c.from} (${c.path})` };
    } catch (error) {
      failures.push(`${c.from}: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  const reason = `no browser could start (${failures.join("; ")})`;
  if (process.env.CI === "true") throw new Error(`${reason}; CI=true requires the browser tests to run`);
  return { reason };
}
