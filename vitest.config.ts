import { configDefaults, defineConfig } from "vitest/config";

/**
 * `npm test`: every suite except the heavy ones. A heavy suite (named `*.heavy.test.ts`, beside the
 * code it tests) builds and packs the package, floods the service with a thousand connections or
 * spawns many processes; `npm run test:heavy` runs those alone (vitest.heavy.config.ts).
 */
export const HEAVY = ["test/**/*.heavy.test.ts", "integrations/**/*.heavy.test.ts"];

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "integrations/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...HEAVY],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
