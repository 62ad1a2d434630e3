// The one object guard (src/core/guards.ts) and a check that it stays the only one.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { isPlainObject } from "../../src/core/guards.js";

const ROOT = new URL("../..", import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("isPlainObject", () => {
  it("true for JSON objects only", () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject("x")).toBe(false);
    expect(isPlainObject(undefined)).toBe(false);
  });

  it("src/, cli/ and examples/ define no other object guard or BOM test", () => {
    const offenders: string[] = [];
    for (const dir of ["src", "cli", "examples"]) {
      for (const file of sources(join(ROOT, dir))) {
        const name = relative(ROOT, file);
        const text = readFileSync(file, "utf8");
        if (name !== "src/core/guards.ts" && /function (isPlainObject|isRecord|isObject)\b/.test(text)) offenders.push(`${name}: object guard`);
        if (name !== "src/core/strict-document.ts" && /0xef\s*&&[^\n]*0xbb/i.test(text)) offenders.push(`${name}: BOM test`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
