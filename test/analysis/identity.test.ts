// The brand check and identity() of analyzers (src/analysis/identity.ts) and of the structural
// filter (src/structural/filter.ts): only an instance of exactly the library's class, unmodified
// since it was built, reports an identity the verdict cache trusts, and it is what the instance
// was built with.
import { describe, expect, it } from "vitest";
import { BehavioralAnalyzer, REGEX_ANALYZER_VERSION } from "../../src/analysis/behavioral.js";
import { analyzerKind, verifiedAnalyzerIdentity } from "../../src/analysis/identity.js";
import { sha256Hex } from "../../src/core/hash.js";
import { JUDGE_RULES_VERSION, JUDGE_SYSTEM_PROMPT } from "../../src/judge/judge-verdict.js";
import { OllamaJudge } from "../../src/judge/ollama-judge.js";
import { OpenAIJudge } from "../../src/judge/openai-judge.js";
import { StructuralFilter, verifiedStructuralIdentity } from "../../src/structural/filter.js";
import { STRUCTURAL_RULES_VERSION } from "../../src/structural/rules.js";

describe("analyzers' brand and identity", () => {
  it("the regex analyzer and each judge report the settings they were built with", () => {
    const regex = new BehavioralAnalyzer({ blockThreshold: 0.4, systemPrompt: "be plain" });
    expect(verifiedAnalyzerIdentity(regex, "regex")).toEqual({
      method: "regex",
      version: REGEX_ANALYZER_VERSION,
      blockThreshold: 0.4,
      systemPrompt: "be plain",
    });
    const common = { method: "llm_judge", version: JUDGE_RULES_VERSION, model: "j", promptSha256: sha256Hex(JUDGE_SYSTEM_PROMPT), seed: 3 };
    expect(verifiedAnalyzerIdentity(new OllamaJudge({ model: "j", seed: 3, numCtx: 4096 }), "ollama_judge")).toMatchObject({
      ...common,
      provider: "ollama",
      numCtx: 4096,
    });
    expect(verifiedAnalyzerIdentity(new OpenAIJudge({ model: "j", seed: 3 }), "openai_judge")).toMatchObject({ ...common, provider: "openai", numCtx: null });
  });

  it("another kind, a subclass, a shadowed method or a look-alike reports none", () => {
    const regex = new BehavioralAnalyzer();
    expect(verifiedAnalyzerIdentity(regex, "ollama_judge")).toBe(null);
    class Sub extends BehavioralAnalyzer {}
    expect(analyzerKind(new Sub())).toBe("regex");
    expect(verifiedAnalyzerIdentity(new Sub(), "regex")).toBe(null);
    const shadowed = new BehavioralAnalyzer();
    Object.defineProperty(shadowed, "analyzeResponse", { value: () => ({}) });
    expect(verifiedAnalyzerIdentity(shadowed, "regex")).toBe(null);
    const judge = new OpenAIJudge({ model: "j" });
    Object.defineProperty(judge, "analyze", { value: async () => ({}) });
    expect(verifiedAnalyzerIdentity(judge, "openai_judge")).toBe(null);
    expect(verifiedAnalyzerIdentity(Object.create(BehavioralAnalyzer.prototype), "regex")).toBe(null);
    expect(analyzerKind({ method: "regex", analyze: async () => ({}) })).toBe(null);
  });
});

describe("the structural filter's brand and identity", () => {
  it("reports its rules' version, its custom patterns' digest and its length limit", () => {
    expect(verifiedStructuralIdentity(new StructuralFilter({ maxInputLength: 100 }))).toEqual({
      rulesVersion: STRUCTURAL_RULES_VERSION,
      customPatterns: [],
      maxInputLength: 100,
    });
    const custom = verifiedStructuralIdentity(new StructuralFilter({ customPatterns: [{ pattern: /x/i, reason: "x" }] }));
    expect(custom?.customPatterns).toEqual([{ source: "x", flags: "i", reason: "x" }]);
  });

  it("a subclass or a shadowed check reports none", () => {
    class Sub extends StructuralFilter {}
    expect(verifiedStructuralIdentity(new Sub())).toBe(null);
    const shadowed = new StructuralFilter();
    Object.defineProperty(shadowed, "check", { value: () => ({ blocked: false, reasons: [], matches: [], inputSanitized: "" }) });
    expect(verifiedStructuralIdentity(shadowed)).toBe(null);
    expect(verifiedStructuralIdentity({ maxInputLength: 4000, identity: () => ({}) })).toBe(null);
  });
});
