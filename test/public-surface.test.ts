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

  it("docs/api.md lists every value the root entry exports, by concept, and no value it does not export", () => {
    const doc = readFileSync(new URL("docs/api.md", repo), "utf8");
    const section = doc.slice(doc.indexOf("## The names of `little-canary`"), doc.indexOf("\n## Checking a text: read"));
    const listed = new Set([...section.matchAll(/^- (.+?): /gm)].flatMap((m) => [...(m[1] ?? "").matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((n) => n[1] ?? "")));
    const values = Object.keys(root).sort();
    expect(values.filter((name) => !listed.has(name))).toEqual([]);
    // A listed name that is not a value must be a type: it starts with a capital and is no value of the entry.
    expect([...listed].filter((name) => !values.includes(name) && !/^[A-Z]/.test(name))).toEqual([]);
    // The counts the section and the README state are those of the list.
    const types = [...listed].filter((name) => !values.includes(name)).length;
    expect(section).toContain(`${values.length} values and ${types} types (${values.length + types} names)`);
    expect(readFileSync(new URL("README.md", repo), "utf8")).toContain(`exports ${values.length + types} names`);
  });
});
