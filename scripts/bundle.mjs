/**
 * Build step: bundles the compiled CLI (dist/cli.js, its lazily loaded commands and the worker thread)
 * into dist/bundle with esbuild. Loading yargs and our modules from a few files instead of dozens
 * is faster on every start (BENCHMARKS.md, "the bundle"). The library (dist/format) stays unbundled.
 */
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join } from "node:path";

rmSync("dist/bundle", { recursive: true, force: true });

/**
 * yargs, cliui and wrap-ansi each import their own copy of `string-width` (7.2 twice, 8.3), and
 * each copy builds an `Intl.Segmenter` and Unicode-property regular expressions when it loads: the
 * first segmenter of a process starts ICU (BENCHMARKS.md, "string-width at start-up"), paid by every command although widths are only
 * measured to lay out help. This points the three imports at one module that loads yargs' copy (8.3,
 * the same `stringWidth(string, options)`) on its first call: a `require` of an ES module, which
 * esbuild turns into an initialiser that runs then. Our tables' `require` of string-width 4
 * (CommonJS, nothing built at load) is left alone.
 */
const lazyStringWidth = {
  name: "lazy-string-width",
  setup(b) {
    const yargsDir = dirname(createRequire(import.meta.url).resolve("yargs/package.json"));
    const real = join(yargsDir, "node_modules/string-width/index.js");
    const fromYargs = /\/node_modules\/(yargs|cliui|wrap-ansi)\//;
    b.onResolve({ filter: /^string-width$/ }, (args) => (args.kind === "import-statement" && fromYargs.test(args.importer) ? { path: "string-width", namespace: "lazy-string-width" } : undefined));
    b.onLoad({ filter: /.*/, namespace: "lazy-string-width" }, () => ({
      contents: `let width;\nexport default function stringWidth(string, options) {\n  width ??= require(${JSON.stringify(real)}).default;\n  return width(string, options);\n}\n`,
      loader: "js",
      resolveDir: yargsDir,
    }));
  },
};

/**
 * string-width 4 (our tables' widths) strips escape codes with strip-ansi 6, which compiles
 * ansi-regex's pattern anew on every call (see the same section). Its `require` gets the same pattern compiled once, and skipped
 * for text without an escape byte, as strip-ansi 7 does.
 */
const stripAnsiOnce = {
  name: "strip-ansi-once",
  setup(b) {
    b.onResolve({ filter: /^strip-ansi$/ }, (args) => (args.kind === "require-call" ? { path: join(args.resolveDir, "strip-ansi"), namespace: "strip-ansi-once", pluginData: args.resolveDir } : undefined));
    b.onLoad({ filter: /.*/, namespace: "strip-ansi-once" }, (args) => ({
      contents: `const pattern = require("ansi-regex")();\nmodule.exports = (string) => typeof string === "string" && (string.includes("\\u001B") || string.includes("\\u009B")) ? string.replace(pattern, "") : string;\n`,
      loader: "js",
      resolveDir: args.pluginData,
    }));
  },
};

/**
 * yargs checks its own arguments with two functions of `node:assert` (`strictEqual`,
 * `notStrictEqual`) on every run, and `node:assert` is half a dozen modules to load: 8 ms of every
 * start (BENCHMARKS.md, "built-ins on demand"). Its import is pointed at two functions that make
 * the comparison (`Object.is`, as those functions do) and call on `node:assert` only when it fails,
 * so the error is still Node's own.
 */
const assertOnFailure = {
  name: "assert-on-failure",
  setup(b) {
    b.onResolve({ filter: /^(node:)?assert$/ }, (args) => (/\/node_modules\/yargs\//.test(args.importer) ? { path: "assert", namespace: "assert-on-failure" } : undefined));
    b.onLoad({ filter: /.*/, namespace: "assert-on-failure" }, () => ({
      contents:
        'const assert = () => process.getBuiltinModule("node:assert");\n' +
        "export function strictEqual(actual, expected, message) {\n  if (!Object.is(actual, expected)) assert().strictEqual(actual, expected, message);\n}\n" +
        "export function notStrictEqual(actual, expected, message) {\n  if (Object.is(actual, expected)) assert().notStrictEqual(actual, expected, message);\n}\n",
      loader: "js",
    }));
  },
};

/**
 * Built-ins whose exports are given by name: the bundle's CommonJS interop copies a module's
 * properties, and asking for each of `node:util`'s loads two dozen modules it defines lazily (its
 * argument parser, its differ, worker threads). An import of another name fails the build.
 */
const NAMED = { util: ["format", "inspect", "isDeepStrictEqual"] };

/**
 * An ES module import of a built-in (`import { readFileSync } from "node:fs"`) makes Node build the
 * module's ES facade, which reads every export: `fs.promises` loads readline with it, `node:util`
 * its argument parser and differ, and so on, none of which a command uses (BENCHMARKS.md,
 * "built-ins on demand"). Each built-in is taken as the CommonJS module it is
 * (`process.getBuiltinModule`), whose exports are read where they are used (`NAMED`'s by name).
 */
const builtinsAsModules = {
  name: "builtins-as-modules",
  setup(b) {
    const names = new Set(builtinModules.filter((m) => !m.startsWith("_")));
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, "");
      if (!names.has(name) || args.namespace === "builtins-as-modules") return undefined;
      // (the path names the module's wrapper, `require_node_builtin_<name>`: `builtinsUnwrapped` finds it by it)
      return { path: `node-builtin-${name}`, namespace: "builtins-as-modules" };
    });
    b.onLoad({ filter: /.*/, namespace: "builtins-as-modules" }, (args) => {
      const name = args.path.slice("node-builtin-".length);
      const module = `process.getBuiltinModule(${JSON.stringify(`node:${name}`)})`;
      const named = NAMED[name];
      return { contents: named ? `export const { ${named.join(", ")} } = ${module};\n` : `module.exports = ${module};\n`, loader: "js" };
    });
  },
};

/**
 * Each module that imports a built-in gets it through esbuild's CommonJS interop, `__toESM(m, 1)`:
 * a new object with a getter for every export (40 of `node:fs`'s hundred, 46 of `node:path`'s),
 * some 4 ms of every start (BENCHMARKS.md, "built-ins on demand"). Our modules read the built-ins'
 * exports by name, never a `default`, so they are given the module itself. A dependency that reads
 * a `default` (secretlint's rules: `import path from "node:path"`, in the chunk `redact` alone
 * loads) keeps the interop for that binding; one of ours that does fails the build.
 */
function builtinsUnwrapped(dir) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".js"))) {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    const wrapped = /\b(var|let|const) (\w+) = __toESM\((require_node_builtin_\w+\(\)), 1\);/g;
    const defaults = new Set([...text.matchAll(wrapped)].map((m) => m[2]).filter((name) => new RegExp(`\\b${name}\\.default\\b`).test(text)));
    const ours = [...defaults].filter((name) => !DEFAULT_READERS.some((dep) => text.includes(dep)));
    if (ours.length > 0) throw new Error(`${path}: ${ours.join(", ")}: a built-in's default export is read; the module itself stands in for none`);
    const out = text.replace(wrapped, (whole, kind, name, call) => (defaults.has(name) ? whole : `${kind} ${name} = ${call};`));
    if (out !== text) writeFileSync(path, out);
  }
}

/** Dependencies that read a built-in's `default` (esbuild names each bundled package's path in a comment). */
const DEFAULT_READERS = ["node_modules/@secretlint/secretlint-rule-preset-recommend/"];

/**
 * The build's identity (src/build-info.ts): the package version, and a hash of every source that
 * decides what `ls` says of a session (the format library, the stores, the row it describes and
 * the verdict it states).
 */
function buildInfo() {
  const { version } = JSON.parse(readFileSync("package.json", "utf8"));
  const under = (dir) => readdirSync(dir, { recursive: true }).filter((f) => /\.(ts|wat)$/.test(f)).map((f) => join(dir, f));
  const hash = createHash("sha256");
  // (and the price table a usage read estimates by: scripts/prices.mjs writes it first)
  for (const file of [...under("src/format"), ...under("src/stores"), "src/support/ls/rows.ts", "src/support/usage/read.ts", "src/support/usage/prices.ts", "src/support/inputs/verdict.ts", "dist/prices.json"].sort()) hash.update(file).update("\0").update(readFileSync(file)).update("\0");
  return { version, rules: hash.digest("hex").slice(0, 16) };
}

await build({
  entryPoints: { cli: "dist/cli.js", worker: "dist/support/workers/worker.js" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  splitting: true,
  outdir: "dist/bundle",
  logLevel: "warning",
  plugins: [lazyStringWidth, stripAnsiOnce, assertOnFailure, builtinsAsModules],
  define: { __PI_SESSION_BUILD__: JSON.stringify(buildInfo()) },
  // string-width 4 is CommonJS; give the ESM bundle a `require`.
  banner: { js: 'const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);' },
});
builtinsUnwrapped("dist/bundle");
