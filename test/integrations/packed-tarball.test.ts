// SLOW (about 20–40 s: a tsc build, `npm pack` and `npm install`). The package as a user gets it:
// the repository's sources are copied to a staging folder and built there (so a stale dist/ in
// the checkout cannot pass), packed with `npm pack`, and the tarball is installed into an empty
// folder with `npm install` (dependencies from the npm cache when it has them, else the
// registry). Then every host plugin shipped in the tarball runs with plain node, and every
// subpath export in package.json imports and carries its types.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPECTED_SMOKE, runEveryHost } from "../support/integrations/host-smoke.js";

const ROOT = resolve(import.meta.dirname, "../..");
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
  files: string[];
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; import: string }>;
};
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const SLOW_MS = 120_000;

let work: string;
let installed: string;

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "lc-packed-"));
  const stage = join(work, "stage");
  mkdirSync(stage);
  // What the package is built from; dist/ is built fresh here, never copied.
  for (const entry of ["package.json", "README.md", "LICENSE", "tsconfig.json", "src", "cli", "policies", "schemas", "integrations"]) {
    cpSync(join(ROOT, entry), join(stage, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, "node_modules"), join(stage, "node_modules"), "junction");
  writeFileSync(join(stage, "tsconfig.pack.json"), JSON.stringify({ extends: "./tsconfig.json", include: ["src/**/*.ts", "cli/**/*.ts"] }));
  run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.pack.json"], stage);
  for (const target of Object.values(PKG.bin)) chmodSync(join(stage, target), 0o755);
  // The build already ran; prepack would rebuild with the full tsconfig (bench, scripts, ...).
  run(NPM, ["pack", "--ignore-scripts", "--silent", "--pack-destination", work], stage);
  const tarball = join(work, `${PKG.name}-${PKG.version}.tgz`);
  const consumer = join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", version: "0.0.0", private: true, type: "module" }));
  run(NPM, ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", "--loglevel=error", tarball], consumer);
  installed = join(consumer, "node_modules", PKG.name);
}, SLOW_MS);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe(
  "issue 13 item 4 (slow): the packed tarball, installed in an empty folder",
  () => {
    it("ships every host plugin folder, without symlinks or test files", () => {
      for (const host of ["claude-code", "gemini-cli", "opencode", "pi", "openclaw"]) {
        expect(existsSync(join(installed, "integrations", host, "README.md")), host).toBe(true);
      }
      expect(existsSync(join(installed, "integrations/claude-code/.claude-plugin/plugin.json"))).toBe(true);
      expect(existsSync(join(installed, "integrations/openclaw/openclaw.plugin.json"))).toBe(true);
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
      expect(walk(join(installed, "integrations")).filter((f) => /\.test\.|_shared/.test(f))).toEqual([]);
    });

    it("runs every host hook from the installed package with plain node", async () => {
      expect(await runEveryHost(join(installed, "integrations"), join(work, "consumer"))).toEqual(EXPECTED_SMOKE);
    });

    it("imports every subpath export, each with its types file", () => {
      const subpaths = Object.keys(PKG.exports);
      expect(subpaths).toEqual([".", "./verify", "./integrations", "./package.json"]);
      for (const [subpath, target] of Object.entries(PKG.exports)) {
        if (typeof target === "object") expect(existsSync(join(installed, target.types)), `${subpath} types`).toBe(true);
      }
      // Names that must come through each entry, checked in a plain node process in the consumer.
      const probe = `
      const root = await import("little-canary");
      const verify = await import("little-canary/verify");
      const integrations = await import("little-canary/integrations");
      const pkg = await import("little-canary/package.json", { with: { type: "json" } });
      process.stdout.write(JSON.stringify({
        root: ["SecurityPipeline", "verifyFiles", "classifyForHost"].filter((k) => typeof root[k] === "function"),
        verify: Object.keys(verify).sort(),
        integrations: ["classifyForHost", "littleCanaryInputGuardrail", "createOpenCodeHooks", "createInputHandler", "createBeforeAgentRunHandler", "runCommandHook"].filter((k) => typeof integrations[k] === "function"),
        version: pkg.default.version,
      }));`;
      const out = JSON.parse(run(process.execPath, ["--input-type=module", "-e", probe], join(work, "consumer"))) as Record<string, unknown>;
      expect(out).toEqual({
        root: ["SecurityPipeline", "verifyFiles", "classifyForHost"],
        verify: [
          "MAX_DOCUMENT_BYTES",
          "MAX_DOCUMENT_VALUES",
          "SHARD_INDEX_PROBLEM_CODES",
          "STRUCTURAL_PROBLEM_CODES",
          "VERIFY_PROBLEM_CODES",
          "problemsToShow",
          "verifyExport",
          "verifyFiles",
          "verifyManifestOnly",
          "verifyShardIndex",
        ],
        integrations: [
          "classifyForHost",
          "littleCanaryInputGuardrail",
          "createOpenCodeHooks",
          "createInputHandler",
          "createBeforeAgentRunHandler",
          "runCommandHook",
        ],
        version: PKG.version,
      });
    });

    it("installs a working bin", () => {
      expect(run(join(work, "consumer/node_modules/.bin/little-canary"), ["--version"], join(work, "consumer")).trim()).toContain(PKG.version);
    });
  },
  SLOW_MS,
);
