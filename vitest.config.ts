import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // scratch files under one directory a run, removed after it (PI_SESSION_KEEP_TMP=1 keeps it)
    globalSetup: ["test/helpers/scratch.ts"],
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // e2e tests spawn the CLI; two workers match the machine's two cores.
    maxWorkers: 2,
  },
});
