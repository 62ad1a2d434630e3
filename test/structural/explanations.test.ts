import { describe, expect, it } from "vitest";
import * as L from "../../src/structural/labels.js";
import { explainReason, hasOwnExplanation } from "../../src/structural/explanations.js";

describe("every structural reason has a one-line explanation", () => {
  it("every string label exported by labels.ts has its own explanation", () => {
    const labels = Object.values(L as Record<string, unknown>).filter((v): v is string => typeof v === "string");
    expect(labels.length).toBeGreaterThan(20);
    const missing = labels.filter((label) => !hasOwnExplanation(label));
    expect(missing).toEqual([]);
    for (const label of labels) expect(explainReason(label)).not.toContain("\n");
  });

  it("function-built labels share their family's explanation, anything else is a custom pattern's", () => {
    expect(explainReason(L.lengthReason(5000, 4000))).toMatch(/longer than the filter inspects/);
    expect(explainReason(L.encodedReason("hex"))).toMatch(/decoded payload/);
    expect(explainReason("My team's rule")).toMatch(/supplied in this run's configuration/);
  });
});
