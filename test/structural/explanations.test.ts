import { describe, expect, it } from "vitest";
import * as L from "../../src/structural/labels.js";
import { explainReason } from "../../src/structural/labels.js";

describe("every structural reason has a one-line explanation", () => {
  it("every string label exported by labels.ts has its own explanation", () => {
    const labels = Object.values(L as Record<string, unknown>).filter((v): v is string => typeof v === "string");
    expect(labels.length).toBeGreaterThan(20);
    // A label without its own explanation falls back to a family's or a custom pattern's.
    const fallbacks = [L.lengthReason(5000, 4000), L.encodedReason("hex"), "My team's rule"].map(explainReason);
    const missing = labels.filter((label) => fallbacks.includes(explainReason(label)));
    expect(missing).toEqual([]);
    for (const label of labels) expect(explainReason(label)).not.toContain("\n");
  });

  it("function-built labels share their family's explanation, anything else is a custom pattern's", () => {
    expect(explainReason(L.lengthReason(5000, 4000))).toMatch(/longer than the filter inspects/);
    expect(explainReason(L.encodedReason("hex"))).toMatch(/decoded payload/);
    expect(explainReason("My team's rule")).toMatch(/supplied in this run's configuration/);
  });
});
