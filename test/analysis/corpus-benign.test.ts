// Benign inputs from the evaluation corpora (read at test time from ../shared/corpora, never
// copied; third-party data from the Python little-canary repository, Apache-2.0). Many of them
// quote attacks ("an attacker sent 'ignore previous instructions'…"). When the canary does its
// ordinary job on them (summarises, describes), the analyzer must not hard-block. The replies
// are written here; no model produced them.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { analyzeResponse } from "../../src/analysis/behavioral.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

interface CorpusCase {
  readonly id: string;
  readonly prompt: string;
  readonly expected_safe: boolean;
}

function benign(file: string): CorpusCase[] {
  const cases = JSON.parse(
    readFileSync(path.resolve(repoRoot, "../shared/corpora", file), "utf8"),
  ) as CorpusCase[];
  return cases.filter((c) => c.expected_safe);
}

const ORDINARY_REPLIES = [
  "Sure! Here is a summary of the main points.",
  "Certainly. Here's a brief overview: nothing in it needs action from you.",
  "The message describes a routine update and asks for no action.",
  "I can't verify that, but I can help you check it with the official source.",
];

describe.each(["prompts_fp_realistic.json", "prompts.json"])("benign cases of %s", (file) => {
  const cases = benign(file);

  test("the corpus has benign cases", () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  test("ordinary replies to them never hard-block", () => {
    const hardHits: string[] = [];
    for (const c of cases) {
      for (const reply of ORDINARY_REPLIES) {
        const result = analyzeResponse(c.prompt, reply);
        if (result.hardBlocked) {
          hardHits.push(`${c.id}: ${result.signals.map((s) => s.category).join(",")}`);
        }
      }
    }
    expect(hardHits).toEqual([]);
  });
});
