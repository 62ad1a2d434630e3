// Every verify problem code a consumer can meet is explained in docs/ingest.md's table ("Every
// problem code"), and the table names no code verify does not have: a new code without its line
// fails here.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { VERIFY_PROBLEM_CODES } from "../../src/verify/problems.js";

const DOC = readFileSync(resolve(import.meta.dirname, "../../docs/ingest.md"), "utf8");

/** The codes in the first column of the table under "### Every problem code". */
function documentedCodes(): string[] {
  const start = DOC.indexOf("### Every problem code");
  const section = DOC.slice(start, DOC.indexOf("\n### ", start + 1));
  const rows = section.split("\n").filter((line) => line.startsWith("| `"));
  return rows.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1] as string));
}

describe("the verify problem codes in docs/ingest.md", () => {
  it("lists every code once, and only codes verify has", () => {
    const documented = documentedCodes();
    expect([...documented].sort()).toEqual([...VERIFY_PROBLEM_CODES].sort());
  });
});
