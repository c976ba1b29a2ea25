import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // e2e tests spawn the CLI; two workers match the machine's two cores.
    maxWorkers: 2,
  },
});
