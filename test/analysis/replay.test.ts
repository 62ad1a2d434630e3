// Replays canary output through the analyzer. The suite's replies (test/support/demo-capture.ts)
// are written by hand; no model produced them. Replies recorded with a real model are replayed
// by `npm run bench:upstream-replay -- --capture <file>`, which reads them from a path outside
// the repository.
import { describe, expect, test } from "vitest";
import { analyzeResponse } from "../support/analyze-response.js";
import { foreignCaptureDocument } from "../support/demo-capture.js";

interface ReplayCase {
  readonly id: string;
  readonly input: string;
  readonly response: string;
}

interface CaptureDoc {
  schema: string;
  capture: { model: string; runtime_version: string };
  cases: ReplayCase[];
}

function caseById(capture: CaptureDoc, id: string): ReplayCase {
  const found = capture.cases.find((c) => c.id === id);
  if (found === undefined) throw new Error(`capture has no case ${id}`);
  return found;
}

function contrastHolds(load: () => CaptureDoc): void {
  test("the clean case gives no signals and no block", () => {
    const { input, response } = caseById(load(), "clean");
    const result = analyzeResponse(input, response);
    expect(result).toMatchObject({ signals: [], riskScore: 0, shouldBlock: false, degraded: false });
  });

  test("c1-05 blocks with persona_shift, instruction_echo and canary_compromise", () => {
    const { input, response } = caseById(load(), "c1-05");
    const result = analyzeResponse(input, response);
    const found = new Set(result.signals.map((s) => s.category));
    for (const category of ["persona_shift", "instruction_echo", "canary_compromise"]) {
      expect(found.has(category)).toBe(true);
    }
    expect(result).toMatchObject({ riskScore: 1, shouldBlock: true, hardBlocked: true });
  });
}

describe("hand-written canary replies (no model)", () => {
  contrastHolds(() => foreignCaptureDocument() as CaptureDoc);
});
