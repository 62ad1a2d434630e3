// The canary identity of a pipeline: every field that can change a check's verdict is in it, a
// change of any one field alone changes the key (a cache miss), and a pipeline that cannot be
// identified fully gets no identity at all.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REGEX_ANALYZER_VERSION } from "../../src/analysis/behavioral.js";
import {
  CACHE_IDENTITY_FORMAT,
  cacheIdentity,
  identityKey,
  pipelineIdentity,
  type CacheIdentity,
  type CanaryIdentity,
  type IdentityOptions,
} from "../../src/cache/identity.js";
import { VerdictCache } from "../../src/cache/verdict-cache.js";
import type { OpenAIContextProof } from "../../src/canary/openai-probe.js";
import { sha256Hex } from "../../src/core/hash.js";
import { JUDGE_RULES_VERSION } from "../../src/judge/judge-verdict.js";
import type { SecurityPipelineOptions } from "../../src/pipeline/options.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { STRUCTURAL_RULES_VERSION } from "../../src/structural/rules.js";

const DIGEST = "a".repeat(64);
const BASE: SecurityPipelineOptions = { canaryModel: "qwen2.5:1.5b", canaryNumCtx: 8192, maxInputLength: 3500 };
const SEGMENT: IdentityOptions = { scope: "ingest_segment", modelDigest: DIGEST };
const SERVED: OpenAIContextProof = {
  served_model: "Qwen/Qwen2.5-1.5B-Instruct@989aa7980e4cf806f80c7fef2b1adb7bc71aa306",
  root: "Qwen/Qwen2.5-1.5B-Instruct",
  max_model_len: 32768,
  system_fingerprint: "fp_1",
  prompt_count: "tokenize",
};

function identify(options: SecurityPipelineOptions, identityOptions: IdentityOptions = SEGMENT): CacheIdentity {
  const outcome = pipelineIdentity(new SecurityPipeline(options), identityOptions);
  if (!outcome.ok) throw new Error(`no identity: ${outcome.reason}`);
  return { key: outcome.key, identity: outcome.identity };
}

/** Every leaf of an identity as [dotted path, value]. */
function leaves(value: unknown, prefix = ""): Array<[string, unknown]> {
  if (typeof value !== "object" || value === null) return [[prefix, value]];
  return Object.entries(value).flatMap(([key, child]) => leaves(child, prefix === "" ? key : `${prefix}.${key}`));
}

/** Paths whose leaf differs between two identities. */
function changedFields(a: CanaryIdentity, b: CanaryIdentity): string[] {
  const left = new Map(leaves(a));
  const right = new Map(leaves(b));
  const paths = new Set([...left.keys(), ...right.keys()]);
  return [...paths].filter((path) => !Object.is(left.get(path), right.get(path))).sort();
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lc-identity-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TEXT = sha256Hex("a segment of text");
const VALUE = { verdict: { safe: true }, prompt_eval_count: 42 };

/** A verdict stored under `stored` is found under `stored` and missed under `other`. */
function expectMissAcross(stored: CacheIdentity, other: CacheIdentity): void {
  const cache = VerdictCache.open(join(dir, `c-${Math.random()}.sqlite`));
  try {
    cache.put({ textSha256: TEXT, identity: stored, state: "pass", exercised: true, value: VALUE });
    expect(cache.get(TEXT, stored.key)?.value).toEqual(VALUE);
    expect(cache.get(TEXT, other.key)).toBeNull();
  } finally {
    cache.close();
  }
}

// One pipeline option (or identity input) changed alone, and the identity fields it must change.
const VARIANTS: ReadonlyArray<{ name: string; options?: SecurityPipelineOptions; identity?: Partial<IdentityOptions>; fields: string[] }> = [
  {
    name: "provider (an OpenAI-compatible server: its pinned served name and its own report)",
    options: { ...BASE, provider: "openai", canaryNumCtx: undefined, canaryModel: SERVED.served_model },
    identity: { server: SERVED },
    fields: ["model", "model_digest", "num_ctx", "provider", "server.max_model_len", "server.prompt_count", "server.root", "server.system_fingerprint"],
  },
  { name: "model", options: { ...BASE, canaryModel: "llama3.2:3b" }, fields: ["model"] },
  { name: "model digest", identity: { modelDigest: "b".repeat(64) }, fields: ["model_digest"] },
  { name: "system prompt", options: { ...BASE, canarySystemPrompt: "You are a terse assistant." }, fields: ["system_prompt_sha256"] },
  { name: "num_ctx", options: { ...BASE, canaryNumCtx: 16384 }, fields: ["num_ctx"] },
  { name: "temperature", options: { ...BASE, temperature: 0.7 }, fields: ["temperature"] },
  { name: "seed", options: { ...BASE, seed: 7 }, fields: ["seed"] },
  { name: "num_predict", options: { ...BASE, canaryMaxTokens: 128 }, fields: ["num_predict"] },
  { name: "block threshold of the regex analyzer", options: { ...BASE, blockThreshold: 0.5 }, fields: ["analysis.block_threshold"] },
  { name: "mode", options: { ...BASE, mode: "full" }, fields: ["mode"] },
  { name: "structural filter off", options: { ...BASE, enableStructuralFilter: false }, fields: ["structural.enabled"] },
  {
    name: "custom structural patterns",
    options: { ...BASE, customPatterns: [{ pattern: "secret", reason: "custom" }] },
    fields: ["structural.custom_patterns_sha256"],
  },
  { name: "skip canary after a structural block", options: { ...BASE, skipCanaryIfStructuralBlocks: false }, fields: ["structural.skip_canary_after_block"] },
  { name: "max input length (window size)", options: { ...BASE, maxInputLength: 4000 }, fields: ["windows.max_input_length"] },
  { name: "segment overlap", options: { ...BASE, segmentOverlap: 100 }, fields: ["windows.segment_overlap"] },
  { name: "max segments", options: { ...BASE, maxSegments: 8 }, fields: ["windows.max_segments"] },
  { name: "degraded policy", options: { ...BASE, onDegraded: "fail_closed" }, fields: ["on_degraded"] },
  { name: "scope (ingest segment vs screen item)", identity: { scope: "screen_item" }, fields: ["scope"] },
];

describe("canary identity", () => {
  const base = identify(BASE);

  it("the identity of a library pipeline holds every field, with the rule-set versions", () => {
    expect(base.identity).toEqual({
      identity_format: CACHE_IDENTITY_FORMAT,
      scope: "ingest_segment",
      mode: "block",
      provider: "ollama",
      model: "qwen2.5:1.5b",
      model_digest: DIGEST,
      system_prompt_sha256: sha256Hex(new SecurityPipeline(BASE).systemPrompt),
      num_ctx: 8192,
      temperature: 0,
      seed: 42,
      num_predict: 256,
      analysis: { method: "regex", version: REGEX_ANALYZER_VERSION, block_threshold: 0.6 },
      structural: { enabled: true, rules_version: STRUCTURAL_RULES_VERSION, custom_patterns_sha256: null, skip_canary_after_block: true },
      windows: { max_input_length: 3500, segment_overlap: 500, max_segments: 64 },
      on_degraded: "fail_open",
    });
    expect(base.key).toBe(identityKey(base.identity));
    expect(base.key).toMatch(/^[0-9a-f]{64}$/);
  });

  it("the same configuration gives the same key (a hit across runs)", () => {
    expect(identify({ ...BASE }).key).toBe(base.key);
  });

  for (const variant of VARIANTS) {
    it(`a change of ${variant.name} alone is a miss`, () => {
      const changed = identify(variant.options ?? BASE, { ...SEGMENT, ...variant.identity });
      expect(changedFields(base.identity, changed.identity)).toEqual(variant.fields.sort());
      expect(changed.key).not.toBe(base.key);
      expectMissAcross(base, changed);
    });
  }

  it("judge instead of the regex analyzer, and each judge field alone, is a miss", () => {
    const judgeOptions = { ...BASE, judgeModel: "qwen3:4b" };
    const judgeIdentity = { ...SEGMENT, judgeModelDigest: "c".repeat(64) };
    const judge = identify(judgeOptions, judgeIdentity);
    expect(judge.identity.analysis).toMatchObject({ method: "llm_judge", version: JUDGE_RULES_VERSION, provider: "ollama", model: "qwen3:4b" });
    expect(judge.key).not.toBe(base.key);
    expectMissAcross(base, judge);
    const otherJudgeModel = identify({ ...judgeOptions, judgeModel: "llama3.1:8b" }, judgeIdentity);
    expect(changedFields(judge.identity, otherJudgeModel.identity)).toEqual(["analysis.model"]);
    const otherJudgeDigest = identify(judgeOptions, { ...judgeIdentity, judgeModelDigest: "d".repeat(64) });
    expect(changedFields(judge.identity, otherJudgeDigest.identity)).toEqual(["analysis.model_digest"]);
    // The judge's num_ctx follows the window size (and the canary's num_ctx only when sent).
    const judgeWindow = identify({ ...judgeOptions, maxInputLength: 2000 }, judgeIdentity);
    expect(changedFields(judge.identity, judgeWindow.identity)).toEqual(["analysis.num_ctx", "windows.max_input_length"]);
    expectMissAcross(judge, otherJudgeDigest);
  });

  it("a judge pipeline without the judge model's digest has no identity", () => {
    const outcome = pipelineIdentity(new SecurityPipeline({ ...BASE, judgeModel: "qwen3:4b" }), SEGMENT);
    expect(outcome).toEqual({ ok: false, reason: "the judge model's digest is unknown" });
  });

  it("every leaf of the identity, changed alone, changes the key (rule-set versions and format included)", () => {
    const judge = identify({ ...BASE, judgeModel: "qwen3:4b" }, { ...SEGMENT, judgeModelDigest: "c".repeat(64) });
    for (const start of [base.identity, judge.identity]) {
      const key = identityKey(start);
      for (const [path, value] of leaves(start)) {
        const copy = structuredClone(start) as unknown as Record<string, unknown>;
        const parts = path.split(".");
        let node = copy;
        for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>;
        const last = parts[parts.length - 1] as string;
        node[last] = typeof value === "number" ? value + 1 : typeof value === "string" ? `${value}x` : value === null ? 1 : !value;
        const changed = cacheIdentity(copy as unknown as CanaryIdentity);
        expect(changed.key, path).not.toBe(key);
      }
    }
    // Pipeline variants cover every leaf a configuration can change; the rest are code constants.
    const covered = new Set(VARIANTS.flatMap((v) => v.fields));
    const constants = new Set(["identity_format", "analysis.method", "analysis.version", "structural.rules_version"]);
    for (const [path] of leaves(base.identity)) expect(covered.has(path) || constants.has(path), path).toBe(true);
  });

  it("an unknown model digest gives no identity (the caller must not use the cache)", () => {
    expect(pipelineIdentity(new SecurityPipeline(BASE), { scope: "ingest_segment", modelDigest: null })).toEqual({
      ok: false,
      reason: "the canary model's digest is unknown",
    });
    expect(pipelineIdentity(new SecurityPipeline(BASE), { scope: "ingest_segment", modelDigest: "" }).ok).toBe(false);
  });

  it("a disabled canary gives no identity", () => {
    const outcome = pipelineIdentity(new SecurityPipeline({ ...BASE, enableCanary: false }), SEGMENT);
    expect(outcome).toEqual({ ok: false, reason: "the canary is disabled, so no check is exercised" });
  });

  it("a pipeline this library did not build, or one re-wired after construction, gives no identity", () => {
    class Sub extends SecurityPipeline {}
    expect(pipelineIdentity(new Sub(BASE), SEGMENT).ok).toBe(false);
    expect(pipelineIdentity({ check: async () => ({}), options: new SecurityPipeline(BASE).options }, SEGMENT).ok).toBe(false);
    expect(pipelineIdentity(new SecurityPipeline({ ...BASE, callbacks: { onPass: () => {} } }), SEGMENT).ok).toBe(false);

    const patchedProbe = new SecurityPipeline(BASE);
    Object.defineProperty(patchedProbe.probe, "test", { value: async () => ({}) });
    expect(pipelineIdentity(patchedProbe, SEGMENT)).toEqual({ ok: false, reason: "the pipeline's canary probe is not the library's own" });

    const retuned = new SecurityPipeline(BASE);
    (retuned.analyzer as unknown as { blockThreshold: number }).blockThreshold = 0.1;
    expect(pipelineIdentity(retuned, SEGMENT)).toEqual({ ok: false, reason: "the analyzer's settings differ from the pipeline's options" });

    const renamed = new SecurityPipeline(BASE);
    (renamed.probe as { model: string }).model = "other";
    expect(pipelineIdentity(renamed, SEGMENT)).toEqual({ ok: false, reason: "the canary probe's settings differ from the pipeline's options" });

    const patchedFilter = new SecurityPipeline(BASE);
    Object.defineProperty(patchedFilter.structuralFilter, "check", { value: () => ({ blocked: false, reasons: [], inputSanitized: "" }) });
    expect(pipelineIdentity(patchedFilter, SEGMENT).ok).toBe(false);
  });

  it("custom patterns are told apart by source, flags and reason", () => {
    const a = identify({ ...BASE, customPatterns: [{ pattern: /secret/i, reason: "custom" }] });
    const b = identify({ ...BASE, customPatterns: [{ pattern: /secret/, reason: "custom" }] });
    const c = identify({ ...BASE, customPatterns: [{ pattern: /secret/i, reason: "other" }] });
    expect(new Set([a.key, b.key, c.key, base.key]).size).toBe(4);
  });
});

describe("the identity of an OpenAI-compatible canary", () => {
  const served = (server: Partial<OpenAIContextProof> = {}, model: string = SERVED.served_model): CacheIdentity =>
    identify({ ...BASE, provider: "openai", canaryNumCtx: undefined, canaryModel: model }, { ...SEGMENT, modelDigest: null, server: { ...SERVED, ...server } });

  it("the served name's revision stands for the digest and the server's report is in the identity", () => {
    const id = served();
    expect(id.identity).toMatchObject({
      provider: "openai",
      model: SERVED.served_model,
      model_digest: "revision:989aa7980e4cf806f80c7fef2b1adb7bc71aa306",
      num_ctx: null,
      server: { root: SERVED.root, max_model_len: 32768, system_fingerprint: "fp_1" },
    });
    expect(served().key).toBe(id.key);
  });

  it("another system_fingerprint, max_model_len or served revision alone is a miss", () => {
    const base15 = served();
    const fingerprint = served({ system_fingerprint: "fp_2" });
    expect(changedFields(base15.identity, fingerprint.identity)).toEqual(["server.system_fingerprint"]);
    expectMissAcross(base15, fingerprint);
    const window = served({ max_model_len: 16384 });
    expect(changedFields(base15.identity, window.identity)).toEqual(["server.max_model_len"]);
    expectMissAcross(base15, window);
    const otherRevision = "Qwen/Qwen2.5-1.5B-Instruct@0123456789abcdef0123456789abcdef01234567";
    const revision = served({ served_model: otherRevision }, otherRevision);
    expect(changedFields(base15.identity, revision.identity)).toEqual(["model", "model_digest"]);
    expectMissAcross(base15, revision);
    const noFingerprint = served({ system_fingerprint: null });
    expect(noFingerprint.key).not.toBe(base15.key);
  });

  it("a verdict proven by POST /tokenize is never reused where prompts are held to the conservative bound, nor the other way", () => {
    const exact = served({ prompt_count: "tokenize" });
    const bound = served({ prompt_count: "conservative_bound" });
    expect(changedFields(exact.identity, bound.identity)).toEqual(["server.prompt_count"]);
    expectMissAcross(exact, bound);
  });

  it("a served name without a pinned revision, or a server not identified, gives no identity", () => {
    const pipeline = new SecurityPipeline({ ...BASE, provider: "openai", canaryNumCtx: undefined, canaryModel: "qwen" });
    expect(pipelineIdentity(pipeline, { ...SEGMENT, server: { ...SERVED, served_model: "qwen" } })).toEqual({
      ok: false,
      reason: "the served model name pins no revision (serve it as <repo>@<sha>, see docs/vllm.md)",
    });
    const pinned = new SecurityPipeline({ ...BASE, provider: "openai", canaryNumCtx: undefined, canaryModel: SERVED.served_model });
    expect(pipelineIdentity(pinned, SEGMENT)).toEqual({ ok: false, reason: "the canary server was not identified before the run" });
    // A report about another served model does not identify this one.
    expect(pipelineIdentity(pinned, { ...SEGMENT, server: { ...SERVED, served_model: "other@0123456" } }).ok).toBe(false);
  });
});
