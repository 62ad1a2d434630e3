// The public entry points: test hooks stay out of them, and the API reference (typedoc.json)
// covers every subpath export of package.json, so `npm run docs:api:check` sees every export.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as root from "../src/index.js";

const repo = new URL("../", import.meta.url);
const readJson = (name: string): unknown => JSON.parse(readFileSync(new URL(name, repo), "utf8"));

describe("public API surface", () => {
  it("the fault-injection hooks of publication are not exported from the root entry", () => {
    const names = Object.keys(root);
    for (const hook of ["hookedFs", "injectedFsError"]) expect(names).not.toContain(hook);
    // The production file system stays public: it is what a caller wraps or replaces.
    expect(names).toContain("nodePublishFs");
  });

  it("typedoc.json documents exactly the entry points package.json exports", () => {
    const pkg = readJson("package.json") as { exports: Record<string, unknown> };
    const typedoc = readJson("typedoc.json") as {
      entryPoints: string[];
      validation: { notDocumented: boolean };
      treatValidationWarningsAsErrors: boolean;
    };
    const exported = Object.entries(pkg.exports)
      .filter(([subpath]) => subpath !== "./package.json")
      .map(([, target]) => (target as { import: string }).import.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"))
      .sort();
    expect([...typedoc.entryPoints].sort()).toEqual(exported);
    expect(typedoc.validation.notDocumented).toBe(true);
    expect(typedoc.treatValidationWarningsAsErrors).toBe(true);
  });

  it("docs/api.md lists every entry point package.json exports, each with its source file", () => {
    const pkg = readJson("package.json") as { exports: Record<string, unknown> };
    const doc = readFileSync(new URL("docs/api.md", repo), "utf8");
    const rows = [...doc.matchAll(/^\| `(little-canary[^`]*)` \| `([^`]+)` \|/gm)].map((m) => [m[1], m[2]]);
    const exported = Object.entries(pkg.exports)
      .filter(([subpath]) => subpath !== "./package.json")
      .map(([subpath, target]) => [
        subpath === "." ? "little-canary" : `little-canary/${subpath.slice(2)}`,
        (target as { import: string }).import.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"),
      ]);
    expect(exported).toHaveLength(5);
    expect(rows).toEqual(exported);
  });
});
