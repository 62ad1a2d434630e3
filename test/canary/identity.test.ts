// The brand check and identity() of canary backends (src/canary/identity.ts): only an instance of
// exactly the library's class, unmodified since it was built, is its own, and its identity is
// what it was constructed with.
import { describe, expect, it } from "vitest";
import { canaryKind, isOwnCanary, isOwnPool, verifiedCanaryIdentity } from "../../src/canary/identity.js";
import { OllamaCanaryProbe } from "../../src/canary/ollama-probe.js";
import { OpenAICanaryProbe } from "../../src/canary/openai-probe.js";
import { CanaryPool } from "../../src/canary/pool.js";

describe("canary backends' brand and identity", () => {
  it("a probe reports the settings it was built with", () => {
    const probe = new OllamaCanaryProbe({ model: "m:1", numCtx: 8192, seed: 7, temperature: 0, maxTokens: 64 });
    expect(probe.identity()).toEqual({
      provider: "ollama",
      model: "m:1",
      systemPrompt: probe.systemPrompt,
      numCtx: 8192,
      temperature: 0,
      seed: 7,
      maxTokens: 64,
    });
    expect(new OpenAICanaryProbe({ model: "o" }).identity()).toMatchObject({ provider: "openai", model: "o", numCtx: null });
    expect(verifiedCanaryIdentity(probe, "ollama")).toEqual(probe.identity());
  });

  it("a probe of another provider, a subclass, a shadowed method or a swapped prototype is not the library's own", () => {
    const probe = new OllamaCanaryProbe({ model: "m" });
    expect(isOwnCanary(probe, "ollama")).toBe(true);
    expect(isOwnCanary(probe, "openai")).toBe(false);
    class Sub extends OllamaCanaryProbe {}
    const sub = new Sub({ model: "m" });
    expect(canaryKind(sub)).toBe("ollama");
    expect(isOwnCanary(sub, "ollama")).toBe(false);
    const shadowed = new OllamaCanaryProbe({ model: "m" });
    Object.defineProperty(shadowed, "contextLength", { value: async () => 1_000_000 });
    expect(isOwnCanary(shadowed, "ollama")).toBe(false);
    const renamed = new OllamaCanaryProbe({ model: "m" });
    Object.defineProperty(renamed, "identity", { value: () => ({}) });
    expect(verifiedCanaryIdentity(renamed, "ollama")).toBe("the pipeline's canary probe is not the library's own");
    const swapped = new OllamaCanaryProbe({ model: "m" });
    Object.setPrototypeOf(swapped, Object.create(OllamaCanaryProbe.prototype));
    expect(isOwnCanary(swapped, "ollama")).toBe(false);
    expect(isOwnCanary({ provider: "ollama", identity: () => ({}) }, "ollama")).toBe(false);
    expect(canaryKind(null)).toBe(null);
  });

  it("a pool is its own only with every endpoint the library's own, and reports no fingerprint until pinned", () => {
    const pool = new CanaryPool({ members: [{ probe: new OllamaCanaryProbe({ model: "m" }), concurrency: null }] });
    expect(isOwnPool(pool, "ollama")).toBe(true);
    expect(isOwnPool(pool, "openai")).toBe(false);
    expect(pool.identity()).toMatchObject({ provider: "ollama", model: "m", poolFingerprintSha256: null });
    class Sub extends OllamaCanaryProbe {}
    const mixed = new CanaryPool({ members: [{ probe: new Sub({ model: "m" }), concurrency: null }] });
    expect(verifiedCanaryIdentity(mixed, "ollama")).toBe("the pipeline's canary pool is not the library's own");
  });
});
