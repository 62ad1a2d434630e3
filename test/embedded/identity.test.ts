import { afterAll, describe, expect, it } from "vitest";
import { pipelineIdentity } from "../../src/cache/identity.js";
import { disposeEmbeddedCanaries } from "../../src/canary/embedded-probe.js";
import { preflightCanary } from "../../src/pipeline/canary-preflight.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { ENGINE_SKIP_MESSAGE, engineInstalled, writeTinyModel } from "../support/tiny-gguf.js";

const installed = await engineInstalled();
if (!installed) console.warn(ENGINE_SKIP_MESSAGE);

describe.skipIf(!installed)("the verdict-cache identity", () => {
  afterAll(async () => {
    await disposeEmbeddedCanaries();
  });

  it("an embedded pipeline is identified by its file's SHA-256 and the engine, only once the engine is open", async () => {
    const tiny = writeTinyModel();
    const pipeline = new SecurityPipeline({ provider: "embedded", embedded: { modelPath: tiny.path, sha256: tiny.sha256, gpu: false, threads: 1 } });
    const before = pipelineIdentity(pipeline, { scope: "ingest_segment", modelDigest: "sha256:forged" });
    expect(before).toEqual({ ok: false, reason: "the embedded canary has not been opened" });
    await preflightCanary(pipeline);
    // The caller's digest is ignored: the hash the engine checked is the identity.
    const after = pipelineIdentity(pipeline, { scope: "ingest_segment", modelDigest: "sha256:forged" });
    expect(after.ok).toBe(true);
    if (!after.ok) return;
    expect(after.identity).toMatchObject({ provider: "embedded", model: "tiny.gguf", model_digest: `sha256:${tiny.sha256}`, num_ctx: null });
    expect(after.identity.engine).toMatchObject({ name: "node-llama-cpp", version: "3.21.1" });
    const other = writeTinyModel({ seed: 7 });
    const second = new SecurityPipeline({ provider: "embedded", embedded: { modelPath: other.path, sha256: other.sha256, gpu: false, threads: 1 } });
    await preflightCanary(second);
    const changed = pipelineIdentity(second, { scope: "ingest_segment", modelDigest: null });
    expect(changed.ok && changed.key).not.toBe(after.key);
  });
});
