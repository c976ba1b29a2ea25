/**
 * Node's built-in modules that most runs never use, loaded when first used rather than with the code
 * that may use them: `node:crypto` (two dozen modules of its own), `node:zlib` and
 * `node:worker_threads`, each imported at the top of a module every command loads, were ~20 ms
 * of every start (BENCHMARKS.md, "built-ins on demand"). `process.getBuiltinModule` loads one at
 * once, as `require` would, and gives the same module on every call.
 */

export const crypto = (): typeof import("node:crypto") => process.getBuiltinModule("node:crypto");

export const zlib = (): typeof import("node:zlib") => process.getBuiltinModule("node:zlib");

export const workerThreads = (): typeof import("node:worker_threads") => process.getBuiltinModule("node:worker_threads");
