import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * `npm test`: every suite except the heavy ones. A heavy suite (named `*.heavy.test.ts`, beside the
 * code it tests) builds and packs the package, floods the service with a thousand connections,
 * spawns many processes or reads files a few bytes at a time; `npm run test:heavy` runs those alone
 * (vitest.heavy.config.ts).
 */
export const HEAVY = ["test/**/*.heavy.test.ts", "integrations/**/*.heavy.test.ts"];

/**
 * The package's own names (`little-canary`, `little-canary/langchain`, ...), which the examples import
 * as a user's app does, resolved to the sources as tsconfig.json's `paths` maps them for tsc: one
 * table for both, and the tests never load a built (possibly stale) dist/ beside the sources.
 */
export const SELF_ALIASES = Object.entries(
  (JSON.parse(readFileSync(new URL("./tsconfig.json", import.meta.url), "utf8")) as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions
    .paths,
).map(([name, [target]]) => ({ find: new RegExp(`^${name.replaceAll("/", "\\/")}$`), replacement: resolve(import.meta.dirname, target ?? "") }));

export default defineConfig({
  resolve: { alias: SELF_ALIASES },
  test: {
    include: ["test/**/*.test.ts", "integrations/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...HEAVY],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // One test file per core. Vitest's default is one core fewer, which on a 2-core machine is a single
    // worker: the suite then used one core (load average 1.3) and took 4.6 minutes.
    maxWorkers: availableParallelism(),
  },
});
