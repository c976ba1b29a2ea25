import { defineConfig } from "vitest/config";

/** `npm run test:large`: the tests that make and read sessions of hundreds of megabytes. */
export default defineConfig({
  test: {
    include: ["test/large/**/*.large.ts"],
    testTimeout: 600_000,
    maxWorkers: 1,
  },
});
