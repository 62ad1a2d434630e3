// A fixed, valid canary identity for cache tests that need one without building a pipeline
// (the child writer processes of test/cache use it too, so all agree on the key).
import { cacheIdentity, type CacheIdentity, type CanaryIdentity } from "../../src/cache/identity.js";

/** An identity for an Ollama canary `model` with fixed digests and default settings. */
export function testIdentity(model = "qwen2.5:1.5b"): CacheIdentity {
  const identity: CanaryIdentity = {
    identity_format: 1,
    scope: "ingest_segment",
    mode: "block",
    provider: "ollama",
    model,
    model_digest: "a".repeat(64),
    system_prompt_sha256: "b".repeat(64),
    num_ctx: 8192,
    temperature: 0,
    seed: 42,
    num_predict: 256,
    analysis: { method: "regex", version: 1, block_threshold: 0.6 },
    structural: { enabled: true, rules_version: 1, custom_patterns_sha256: null, skip_canary_after_block: true },
    windows: { max_input_length: 3500, segment_overlap: 500, max_segments: 64 },
    on_degraded: "fail_open",
  };
  return cacheIdentity(identity);
}
