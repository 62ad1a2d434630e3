// The CLI makes V8 compile regular expressions straight to machine code at start-up
// (cli/regexp-tuning.ts) unless node was started with a tier-up flag; the start-up time it saves
// is a benchmark figure (bench:startup), not a test.
import { describe, expect, it } from "vitest";
import { compileRegexpsToMachineCode } from "../../cli/regexp-tuning.js";

describe("regular expression compilation", () => {
  it("goes straight to machine code when node was started without a tier-up flag", () => {
    expect(compileRegexpsToMachineCode([])).toBe(true);
    expect(compileRegexpsToMachineCode(["--enable-source-maps", "--max-old-space-size=512"])).toBe(true);
    expect(/a+b/i.test("xAAB")).toBe(true);
  });

  it("is left to the user who gave a tier-up flag, in either spelling, or its tick count", () => {
    expect(compileRegexpsToMachineCode(["--regexp-tier-up"])).toBe(false);
    expect(compileRegexpsToMachineCode(["--no-regexp_tier_up"])).toBe(false);
    expect(compileRegexpsToMachineCode(["--regexp-tier-up-ticks=5"])).toBe(false);
  });
});
