import { defineConfig } from "vitest/config";

/** `npm run test:large`: the tests that make and read sessions of hundreds of megabytes. */
export default defineConfig({
  test: {
    // scratch files under one directory a run, removed after it (PI_SESSION_KEEP_TMP=1 keeps it)
    globalSetup: ["test/helpers/scratch.ts"],
    include: ["test/large/**/*.large.ts"],
    testTimeout: 600_000,
    maxWorkers: 1,
  },
});
