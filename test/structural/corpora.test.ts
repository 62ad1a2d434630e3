// Decision vector on the shared corpora (read from ../shared at test time, never copied).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { StructuralFilter } from "../../src/structural/index.js";
import { loadCorpus } from "../../bench/_corpora.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const corpora = path.resolve(repoRoot, "../shared/corpora");
const filter = new StructuralFilter();

describe("shared corpora", () => {
  const prompts = loadCorpus("prompts.json", corpora);
  const attacks = prompts.filter((c) => !c.expected_safe);
  const safe = prompts.filter((c) => c.expected_safe);

  test("the corpus has the documented shape (160 attacks, 20 safe)", () => {
    expect(attacks).toHaveLength(160);
    expect(safe).toHaveLength(20);
  });

  test("no safe case is blocked", () => {
    const blocked = safe.filter((c) => filter.check(c.prompt).blocked).map((c) => c.id);
    expect(blocked).toEqual([]);
  });

  test("at least 25 of 160 attacks are blocked (the upstream structural figure)", () => {
    const blocked = attacks.filter((c) => filter.check(c.prompt).blocked).length;
    expect(blocked).toBeGreaterThanOrEqual(25);
  });

  test("no realistic benign hard negative is blocked", () => {
    const fp = loadCorpus("prompts_fp_realistic.json", corpora);
    expect(fp).toHaveLength(40);
    expect(fp.filter((c) => filter.check(c.prompt).blocked).map((c) => c.id)).toEqual([]);
  });
});
