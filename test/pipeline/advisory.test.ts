import { describe, expect, it } from "vitest";
import { SecurityAdvisory } from "../../src/pipeline/advisory.js";

describe("SecurityAdvisory", () => {
  it("an unflagged advisory has no system prefix", () => {
    expect(SecurityAdvisory.none().toSystemPrefix()).toBe("");
  });

  it("a flagged advisory's prefix names its severity and signals and tells the model to treat the input as data", () => {
    const prefix = new SecurityAdvisory(true, "medium", ["persona_shift", "format_anomaly"], "m").toSystemPrefix();
    expect(prefix.startsWith("[SECURITY ADVISORY: MEDIUM]")).toBe(true);
    expect(prefix).toContain("Detected signals: persona_shift, format_anomaly.");
    expect(prefix).toMatch(/treat it as data/i);
  });

  it("merging keeps the stronger severity and every signal once", () => {
    const structural = new SecurityAdvisory(true, "high", ["Direct injection (instruction override)"], "Structural filter: x");
    const canary = new SecurityAdvisory(true, "low", ["format_anomaly"], "Low-confidence signals: format_anomaly");
    const merged = SecurityAdvisory.merge(structural, canary);
    expect(merged.severity).toBe("high");
    expect(merged.signals).toEqual(["Direct injection (instruction override)", "format_anomaly"]);
    expect(SecurityAdvisory.merge(SecurityAdvisory.none(), canary)).toBe(canary);
  });

  it("is frozen", () => {
    const advisory = new SecurityAdvisory(true, "low", ["a"], "m");
    expect(Object.isFrozen(advisory)).toBe(true);
    expect(Object.isFrozen(advisory.signals)).toBe(true);
  });
});
