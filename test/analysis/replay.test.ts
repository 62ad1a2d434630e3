// Replays canary output through the analyzer. The suite's own replies (test/demo/_capture.ts) are
// written by hand; no model produced them. When a capture recorded by the Python little-canary
// package 0.3.10 with Ollama `qwen2.5:1.5b` (temperature 0, seed 42) is available beside the
// repository, its responses are replayed byte for byte too; that file is third-party data, read
// at test time and never copied into this repository.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { analyzeResponse } from "../../src/analysis/behavioral.js";
import { foreignCaptureDocument, UPSTREAM_ABSENT, UPSTREAM_CAPTURE } from "../support/demo-capture.js";

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

if (UPSTREAM_ABSENT) console.warn(`skipping the recorded canary output tests: ${UPSTREAM_ABSENT}`);

describe.skipIf(Boolean(UPSTREAM_ABSENT))("recorded canary output (Python 0.3.10, qwen2.5:1.5b)", () => {
  const load = (): CaptureDoc => JSON.parse(readFileSync(UPSTREAM_CAPTURE, "utf8")) as CaptureDoc;

  test("the capture is the documented one", () => {
    const capture = load();
    expect(capture.schema).toBe("little-canary-demo-replay/v1");
    expect(capture.capture.model).toBe("qwen2.5:1.5b");
    expect(capture.capture.runtime_version).toBe("little-canary 0.3.10");
  });

  contrastHolds(load);
});
