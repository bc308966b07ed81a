import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/fixtures/air-home-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // vitest's default on 2 cores is one worker; most tests wait on child processes, so two halve the wall time.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
