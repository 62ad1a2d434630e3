import { configDefaults, defineConfig } from "vitest/config";
import { HEAVY, SELF_ALIASES } from "./vitest.config.js";

/**
 * `npm run test:heavy`: only the heavy suites (`*.heavy.test.ts`). One file at a time: each of them
 * loads the machine by itself (a build and `npm install`, a thousand sockets), and two at once
 * would measure each other.
 */
export default defineConfig({
  resolve: { alias: SELF_ALIASES },
  test: {
    include: HEAVY,
    exclude: [...configDefaults.exclude],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    fileParallelism: false,
  },
});
