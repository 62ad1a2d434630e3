import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EMBEDDED_ENGINE_VERSION } from "../../src/canary/embedded-engine.js";

const read = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(`../../${name}`, import.meta.url), "utf8")) as Record<string, unknown>;

describe("packaging of the engine", () => {
  it("node-llama-cpp is an exactly pinned optional peer, the version the loader names, and never a locked package", () => {
    const pkg = read("package.json") as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      optionalDependencies?: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(pkg.peerDependencies["node-llama-cpp"]).toBe(EMBEDDED_ENGINE_VERSION);
    expect(pkg.peerDependenciesMeta["node-llama-cpp"]).toEqual({ optional: true });
    for (const field of [pkg.dependencies, pkg.devDependencies, pkg.optionalDependencies ?? {}]) expect(Object.keys(field)).not.toContain("node-llama-cpp");
    expect(pkg.scripts["embedded:install"]).toBe("node scripts/embedded-install.mjs");
    const lock = read("package-lock.json") as { packages: Record<string, { peerDependencies?: Record<string, string> }> };
    // The root entry mirrors package.json (so `npm ci` accepts it); no package entry makes `npm ci` fetch the engine.
    expect(lock.packages[""]?.peerDependencies?.["node-llama-cpp"]).toBe(EMBEDDED_ENGINE_VERSION);
    expect(Object.keys(lock.packages).filter((path) => /node_modules\/(node-llama-cpp|@node-llama-cpp\/)/.test(path))).toEqual([]);
  });
});
