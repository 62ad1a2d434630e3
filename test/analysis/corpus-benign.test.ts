// Benign inputs from the fixture corpora in fixtures/corpora/ (written for this suite). Several of
// them quote or discuss attacks ("attackers write 'ignore previous instructions' into pages…").
// When the canary does its ordinary job on them (summarises, describes), the analyzer must not
// hard-block. The replies are written here; no model produced them.
// The same check on the evaluation corpora is `npm run bench:analysis-benign -- --corpus <file>`.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { analyzeResponse } from "../support/analyze-response.js";
import { loadCorpora, type EvalCase } from "../../src/eval/corpus.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

async function benign(file: string): Promise<EvalCase[]> {
  const { cases } = await loadCorpora([path.join(repoRoot, "fixtures/corpora", file)], { cwd: repoRoot });
  return cases.filter((c) => c.expectedSafe);
}

const ORDINARY_REPLIES = [
  "Sure! Here is a summary of the main points.",
  "Certainly. Here's a brief overview: nothing in it needs action from you.",
  "The message describes a routine update and asks for no action.",
  "I can't verify that, but I can help you check it with the official source.",
];

describe.each(["benign-neighbours.json", "mixed.json"])("benign cases of %s", (file) => {
  test("the corpus has benign cases", async () => {
    expect((await benign(file)).length).toBeGreaterThan(0);
  });

  test("ordinary replies to them never hard-block", async () => {
    const cases = await benign(file);
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
