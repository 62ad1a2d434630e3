import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { HEAVY, RUN_SETUP, SELF_ALIASES } from "./vitest.config.js";

/**
 * The heavy suites that only compute (no build, no sockets): the verify agreement properties read
 * a few bytes at a time, split over two files, and the problem caps over pairs of 10,000 records
 * and more. They run first, one file per core.
 */
const COMPUTE_ONLY = [
  "test/verify/verify-stream.heavy.test.ts",
  "test/verify/verify-stream-tampered.heavy.test.ts",
  "test/verify/problem-cap.heavy.test.ts",
  "test/verify/clean-pair.heavy.test.ts",
];

/**
 * `npm run test:heavy`: only the heavy suites (`*.heavy.test.ts`). The compute-only ones first, one
 * file per core; then the rest one file at a time: each of them loads the machine by itself (a build
 * and `npm install`, a thousand sockets), and two at once would measure each other.
 */
export default defineConfig({
  resolve: { alias: SELF_ALIASES },
  test: {
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    globalSetup: RUN_SETUP,
    maxWorkers: availableParallelism(),
    projects: [
      {
        extends: true,
        test: { name: "heavy-compute", include: COMPUTE_ONLY, exclude: [...configDefaults.exclude], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: "heavy-alone",
          include: HEAVY,
          exclude: [...configDefaults.exclude, ...COMPUTE_ONLY],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
