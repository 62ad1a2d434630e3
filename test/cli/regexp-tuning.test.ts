// The CLI makes V8 compile regular expressions straight to machine code at start-up
// (cli/regexp-tuning.ts) unless node was started with a tier-up flag; the start-up time it saves
// is a benchmark figure (bench:startup), not a test.
import { describe, expect, it } from "vitest";
import { compileRegexpsToMachineCode } from "../../cli/regexp-tuning.js";

// V8's flags are never set in this worker: set after expressions ran, the flag leaves them in the
// interpreter, and every test after this one in the worker would run its rules far slower.
describe("regular expression compilation", () => {
  it("goes straight to machine code when node was started without a tier-up flag", () => {
    const set: string[] = [];
    expect(compileRegexpsToMachineCode([], (flags) => set.push(flags))).toBe(true);
    expect(compileRegexpsToMachineCode(["--enable-source-maps", "--max-old-space-size=512"], (flags) => set.push(flags))).toBe(true);
    expect(set).toEqual(["--no-regexp-tier-up", "--no-regexp-tier-up"]);
  });

  it("is left to the user who gave a tier-up flag, in either spelling, or its tick count", () => {
    const set: string[] = [];
    expect(compileRegexpsToMachineCode(["--regexp-tier-up"], (flags) => set.push(flags))).toBe(false);
    expect(compileRegexpsToMachineCode(["--no-regexp_tier_up"], (flags) => set.push(flags))).toBe(false);
    expect(compileRegexpsToMachineCode(["--regexp-tier-up-ticks=5"], (flags) => set.push(flags))).toBe(false);
    expect(set).toEqual([]);
  });

  it("is how this test worker was started too, so the rules run in tests as they run in the CLI", () => {
    // vitest.config.ts passes the flag to every worker (docs/performance.md, "Regular expressions and Node 22").
    expect(process.execArgv).toContain("--no-regexp-tier-up");
    expect(compileRegexpsToMachineCode(process.execArgv, () => {})).toBe(false);
  });
});
