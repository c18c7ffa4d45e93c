import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The executables' smoke test needs `make build` first; `make smoke` runs it.
    exclude: process.env.SMOKE ? [] : ["test/smoke/**"],
    testTimeout: 20_000,
  },
});
