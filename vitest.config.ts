import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * `npm test`: every suite except the heavy ones. A heavy suite (named `*.heavy.test.ts`, beside the
 * code it tests) builds and packs the package, floods the service with a thousand connections,
 * spawns many processes or reads files a few bytes at a time; `npm run test:heavy` runs those alone
 * (vitest.heavy.config.ts).
 */
export const HEAVY = ["test/**/*.heavy.test.ts", "integrations/**/*.heavy.test.ts"];

const INCLUDE = ["test/**/*.test.ts", "integrations/**/*.test.ts"];

/** Global setup of both configurations: the run's temporary files under one directory, removed at its end (test/support/run-temp-dir.ts). */
export const RUN_SETUP = ["test/support/run-temp-dir.ts"];

/**
 * The package's own names (`little-canary`, `little-canary/langchain`, ...), which the examples import
 * as a user's app does, resolved to the sources as tsconfig.json's `paths` maps them for tsc: one
 * table for both, and the tests never load a built (possibly stale) dist/ beside the sources.
 */
export const SELF_ALIASES = Object.entries(
  (JSON.parse(readFileSync(new URL("./tsconfig.json", import.meta.url), "utf8")) as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions
    .paths,
).map(([name, [target]]) => ({ find: new RegExp(`^${name.replaceAll("/", "\\/")}$`), replacement: resolve(import.meta.dirname, target ?? "") }));

/**
 * What a test file does that changes a module or the process for whoever runs after it in the
 * same worker: replaces a module (`vi.mock`), a method (`vi.spyOn`), a global, the environment,
 * the clock or the working directory.
 */
const CHANGES_SHARED_STATE =
  /\bvi\.(?:mock|doMock|spyOn|stubGlobal|stubEnv|useFakeTimers)\(|\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)|\bdelete process\.env\b|\bprocess\.chdir\(/;

/** The test files (paths relative to this directory) that change shared state, found by reading them. */
function filesChangingSharedState(): string[] {
  const found: string[] = [];
  for (const top of ["test", "integrations"]) {
    for (const entry of readdirSync(resolve(import.meta.dirname, top), { recursive: true, encoding: "utf8" })) {
      if (!entry.endsWith(".test.ts") || entry.split(/[\\/]/).includes("node_modules")) continue;
      const path = join(top, entry);
      if (CHANGES_SHARED_STATE.test(readFileSync(resolve(import.meta.dirname, path), "utf8"))) found.push(path.replaceAll("\\", "/"));
    }
  }
  return found;
}

const ISOLATED = filesChangingSharedState();

export default defineConfig({
  resolve: { alias: SELF_ALIASES },
  test: {
    // A timeout catches a hang, never a slow test: the slowest tests here take up to 18 s on a
    // 2-core machine running other work beside the suite, so every test has 60 s unless it says more.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Test workers compile regular expressions straight to machine code, as the CLI does
    // (cli/regexp-tuning.ts). With V8's default tier-up, the Node 22 pass of clean-clone CI ran
    // the ReDoS suite's long white-space shapes 20 to 40 times slower than Node 20 and 24 in 10 of
    // 14 runs (200-400 ms a shape against 5-40 ms), the way an expression left in V8's interpreter
    // runs, and once did not finish a shape of 60,000 spaces in 8 minutes. Not reproduced outside
    // a full CI run; docs/performance.md, "Regular expressions and Node 22", says what it means for
    // an application that embeds the library.
    execArgv: ["--no-regexp-tier-up"],
    globalSetup: RUN_SETUP,
    // One test file per core. Vitest's default is one core fewer, which on a 2-core machine is a single
    // worker: the suite then used one core (load average 1.3) and took 4.6 minutes.
    maxWorkers: availableParallelism(),
    projects: [
      {
        // Most files share their worker's loaded modules: importing the sources anew for each of
        // some 250 files took over a third of the suite's time (about 110 s of 300 s on 2 cores).
        extends: true,
        test: { name: "shared", include: INCLUDE, exclude: [...configDefaults.exclude, ...HEAVY, ...ISOLATED], isolate: false },
      },
      {
        // A file that replaces a module, a method, a global, the environment, the clock or the
        // working directory gets modules of its own, so what it changes never reaches another file.
        extends: true,
        test: { name: "isolated", include: ISOLATED.length > 0 ? ISOLATED : ["no-such-file"], exclude: [...configDefaults.exclude, ...HEAVY], isolate: true },
      },
    ],
  },
});
