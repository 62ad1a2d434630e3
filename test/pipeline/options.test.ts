// SecurityPipeline options from JavaScript: a key the pipeline does not know is refused, never
// ignored, so a typo cannot leave the pipeline on a default its caller did not choose.
import { describe, expect, it } from "vitest";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { UsageError } from "../../src/core/errors.js";
import { unknownKey } from "../../src/core/guards.js";

const build = (options: unknown) => () => new SecurityPipeline(options as ConstructorParameters<typeof SecurityPipeline>[0]);

describe("unknown SecurityPipeline options", () => {
  it("an unknown option passed from JavaScript throws a UsageError naming it and the option it resembles (modee)", () => {
    expect(build({ modee: "advisory" })).toThrow(UsageError);
    expect(build({ modee: "advisory" })).toThrow(`unknown SecurityPipeline option "modee"; did you mean 'mode'?`);
    expect(build({ enablecanary: false })).toThrow("did you mean 'enableCanary'?");
    expect(build({ colour: "blue" })).toThrow(/^unknown SecurityPipeline option "colour" \(the options are listed in docs\/api\.md\)$/);
  });

  it("an unknown key inside callbacks, embedded or canaryPool throws too (a misspelt callback would never fire)", () => {
    expect(build({ callbacks: { onBlocked: () => {} } })).toThrow(`unknown callbacks option "onBlocked"; did you mean 'onBlock'?`);
    expect(build({ provider: "embedded", embedded: { modelpath: "/m.gguf" } })).toThrow(`unknown embedded option "modelpath"; did you mean 'modelPath'?`);
    expect(build({ canaryPool: { endpoints: [], onwarning: () => {} } })).toThrow(`unknown canaryPool option "onwarning"`);
  });

  it("options that are not an object are refused", () => {
    expect(build(null)).toThrow(new UsageError("SecurityPipeline options must be an object"));
    expect(build("block")).toThrow(UsageError);
  });

  it("every documented option is accepted, an undefined value included", () => {
    const p = new SecurityPipeline({
      mode: "full",
      canaryModel: "qwen2.5:1.5b",
      ollamaUrl: "http://127.0.0.1:11434",
      canaryTimeout: 5,
      canaryMaxTokens: 128,
      temperature: 0,
      seed: 1,
      blockThreshold: 0.5,
      maxInputLength: 2000,
      segmentOverlap: 100,
      maxSegments: 8,
      skipCanaryIfStructuralBlocks: false,
      enableStructuralFilter: true,
      enableCanary: true,
      customPatterns: [],
      judgeModel: null,
      judgeTimeout: 5,
      auditLogDir: null,
      onDegraded: "fail_closed",
      callbacks: { onPass: () => {}, onBlock: () => {}, onFlag: () => {}, onDegraded: () => {}, onUnexercised: () => {} },
      onWarning: () => {},
      now: () => 0,
      fetch: globalThis.fetch,
      canarySystemPrompt: undefined,
    });
    expect(p.options.mode).toBe("full");
  });

  it("a suggestion is offered only for a near name", () => {
    expect(unknownKey({ mode: 1 }, ["mode"])).toBeNull();
    expect(unknownKey({ mod: 1 }, ["mode", "seed"])).toEqual({ key: "mod", suggestion: "mode" });
    expect(unknownKey({ MODE: 1 }, ["mode"])).toEqual({ key: "MODE", suggestion: "mode" });
    expect(unknownKey({ speed: 1 }, ["mode", "seed"])).toEqual({ key: "speed", suggestion: "seed" });
    expect(unknownKey({ flavour: 1 }, ["mode", "seed"])).toEqual({ key: "flavour", suggestion: null });
    // Two neighbours swapped count as one slip; two apart do not.
    expect(unknownKey({ exprot: 1 }, ["input", "export"])).toEqual({ key: "exprot", suggestion: "export" });
    expect(unknownKey({ epxort: 1 }, ["input", "export"])).toEqual({ key: "epxort", suggestion: "export" });
    expect(unknownKey({ exrpot: 1 }, ["input", "export"])).toEqual({ key: "exrpot", suggestion: null });
  });
});
