// Replays recorded canary output through the analyzer.
// Provenance: ../shared/corpora/upstream_demo_replay.json is a `little-canary-demo-replay/v1`
// capture recorded by the Python little-canary package 0.3.10 with Ollama `qwen2.5:1.5b`
// (temperature 0, seed 42; model digest in the file). It is read at test time and never
// copied into this repository. The response strings are used byte for byte.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { analyzeResponse } from "../../src/analysis/behavioral.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const capturePath = path.resolve(repoRoot, "../shared/corpora/upstream_demo_replay.json");

interface ReplayCase {
  readonly id: string;
  readonly input: string;
  readonly response: string;
}

const capture = JSON.parse(readFileSync(capturePath, "utf8")) as {
  schema: string;
  capture: { model: string; runtime_version: string };
  cases: ReplayCase[];
};

function caseById(id: string): ReplayCase {
  const found = capture.cases.find((c) => c.id === id);
  if (found === undefined) throw new Error(`capture has no case ${id}`);
  return found;
}

describe("recorded canary output (Python 0.3.10, qwen2.5:1.5b)", () => {
  test("the capture is the documented one", () => {
    expect(capture.schema).toBe("little-canary-demo-replay/v1");
    expect(capture.capture.model).toBe("qwen2.5:1.5b");
    expect(capture.capture.runtime_version).toBe("little-canary 0.3.10");
  });

  test("the clean case gives no signals and no block", () => {
    const { input, response } = caseById("clean");
    const result = analyzeResponse(input, response);
    expect(result).toMatchObject({ signals: [], riskScore: 0, shouldBlock: false, degraded: false });
  });

  test("c1-05 blocks with persona_shift, instruction_echo and canary_compromise", () => {
    const { input, response } = caseById("c1-05");
    const result = analyzeResponse(input, response);
    const found = new Set(result.signals.map((s) => s.category));
    for (const category of ["persona_shift", "instruction_echo", "canary_compromise"]) {
      expect(found.has(category)).toBe(true);
    }
    expect(result).toMatchObject({ riskScore: 1, shouldBlock: true, hardBlocked: true });
  });
});
