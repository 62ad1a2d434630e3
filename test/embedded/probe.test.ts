import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedCanaryProbe } from "../../src/canary/embedded-probe.js";
import { ENGINE_SKIP_MESSAGE, engineInstalled, type TinyModel, writeTinyModel } from "../support/tiny-gguf.js";

const installed = await engineInstalled();
if (!installed) console.warn(ENGINE_SKIP_MESSAGE);

describe.skipIf(!installed)("embedded probe with the tiny GGUF", () => {
  let tiny: TinyModel;
  const probes: EmbeddedCanaryProbe[] = [];
  const make = (options: Partial<ConstructorParameters<typeof EmbeddedCanaryProbe>[0]> = {}): EmbeddedCanaryProbe => {
    const probe = new EmbeddedCanaryProbe({ modelPath: tiny.path, sha256: tiny.sha256, gpu: false, threads: 1, ...options });
    probes.push(probe);
    return probe;
  };
  beforeAll(() => {
    tiny = writeTinyModel();
  });
  afterAll(async () => {
    await Promise.all(probes.map((p) => p.dispose()));
  });

  it("issue 18: loads, answers, and reports its file-sha256 identity", async () => {
    const probe = make();
    const result = await probe.test("What is the capital of France?");
    expect(result.success).toBe(true);
    expect(result.response).toBe("Noted");
    expect(result.metadata["context_check"]).toBe("tokenizer");
    const identity = probe.knownIdentity;
    expect(identity).toMatchObject({ identity: "file-sha256", sha256: tiny.sha256, engine: "node-llama-cpp", engine_version: "3.21.1", sequences: 1 });
    expect(identity?.context_size).toBeGreaterThanOrEqual(16000);
  });
});
