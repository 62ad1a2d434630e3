import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disposeEmbeddedCanaries, EmbeddedCanaryProbe } from "../../src/canary/embedded-probe.js";
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

  it("loads, answers, and reports its file-sha256 identity", async () => {
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

describe.skipIf(!installed)("embedded probe: the context gate, limits, deadlines, concurrency and disposal", () => {
  const probes: EmbeddedCanaryProbe[] = [];
  const make = (tiny: TinyModel, options: Partial<ConstructorParameters<typeof EmbeddedCanaryProbe>[0]> = {}): EmbeddedCanaryProbe => {
    const probe = new EmbeddedCanaryProbe({ modelPath: tiny.path, sha256: tiny.sha256, gpu: false, threads: 1, ...options });
    probes.push(probe);
    return probe;
  };
  afterAll(async () => {
    await disposeEmbeddedCanaries();
  });

  it("a prompt that does not fit with its reply budget is context_too_long and never evaluated", async () => {
    const probe = make(writeTinyModel({ contextLength: 4096 }), { contextSize: 512, maxInputLength: 4000 });
    const short = await probe.test("Hello there.");
    expect(short.success).toBe(true);
    const text = "日本語".repeat(200);
    const long = await probe.test(text);
    expect(long.success).toBe(false);
    expect(long.failureCode).toBe("context_too_long");
    expect(long.response).toBe("");
    expect(long.error).toMatch(
      /the prompt needs \d+ tokens \(counted with the model's own tokenizer\) and 256 for the reply, more than the embedded canary's context of 512 tokens/,
    );
    const counted = await probe.countPromptTokens(text);
    expect(long.metadata["prompt_count"]).toBe(counted);
    expect(counted as number).toBeGreaterThan(512 - 256);
    // Exactly at the edge: the prompt tokens the model's tokenizer counts, plus the budget.
    expect(probe.knownIdentity?.context_size).toBe(512);
  });

  it("without an explicit size the context holds the longest window (4 tokens per code point), capped by the trained context", async () => {
    const wide = make(writeTinyModel(), { maxInputLength: 1000 });
    await wide.open();
    const template = (await wide.countPromptTokens("")) as number;
    // llama.cpp rounds a context up to a multiple of 256; the probe uses what it really got.
    const needed = template + 4 * 1000 + 256 + 64;
    expect(wide.knownIdentity?.context_size).toBeGreaterThanOrEqual(needed);
    expect(wide.knownIdentity?.context_size).toBeLessThan(needed + 256);
    const narrow = make(writeTinyModel({ contextLength: 1024 }), { maxInputLength: 4000 });
    await narrow.open();
    expect(narrow.knownIdentity).toMatchObject({ context_size: 1024, train_context_size: 1024 });
    const refused = make(writeTinyModel({ contextLength: 1024 }), { contextSize: 2048 });
    const opened = await refused.open();
    expect(opened.ok ? null : opened.error.message).toBe("the embedded context size 2048 exceeds the model's trained context of 1024 tokens");
  });

  it("a reply that reaches the budget without ending is output_limit, never a success", async () => {
    const probe = make(writeTinyModel({ reply: "endless" }), { maxTokens: 8 });
    const result = await probe.test("Hello");
    expect(result).toMatchObject({ success: false, failureCode: "output_limit", response: "" });
    expect(result.metadata["eval_count"]).toBe(8);
  });

  it("the deadline covers the whole call; the slot is freed for the next check", async () => {
    const probe = make(writeTinyModel({ reply: "endless" }), { maxTokens: 30_000, timeoutSeconds: 0.3, maxInputLength: 100 });
    const first = await probe.test("Hello");
    expect(first.failureCode).toBe("timeout");
    expect(first.error).toBe("Canary timed out after 0.3s");
    // The deadline stopped the evaluation well short of its reply budget (a count, not a clock).
    expect(Number(first.metadata["eval_count"] ?? 0)).toBeLessThan(30_000);
    const second = await probe.test("Hello again");
    expect(second.failureCode).toBe("timeout");
    // The slot was freed: the second check gets its own deadline instead of hanging behind the first.
    expect(Number(second.metadata["eval_count"] ?? 0)).toBeLessThan(30_000);
  });

  it("a check whose deadline passes while it waits for a sequence gives up its place, and no sequence is lost", async () => {
    const probe = make(writeTinyModel({ reply: "endless" }), { maxTokens: 30_000, timeoutSeconds: 0.5, maxInputLength: 100, sequences: 1 });
    await probe.open();
    const [first, second] = await Promise.all([probe.test("one"), probe.test("two")]);
    expect([first.failureCode, second.failureCode]).toEqual(["timeout", "timeout"]);
    expect(Number(first.metadata["eval_count"])).toBeGreaterThan(0);
    expect(second.metadata["eval_count"]).toBe(0);
    const third = await probe.test("three");
    expect(third.failureCode).toBe("timeout");
    // It ran: the one sequence came back after the first check, not to the abandoned waiter.
    expect(Number(third.metadata["eval_count"])).toBeGreaterThan(0);
  });

  it("one sequence per concurrent slot; concurrent checks all answer, and alike (temperature 0)", async () => {
    const probe = make(writeTinyModel(), { sequences: 2, maxInputLength: 500 });
    const results = await Promise.all(["one", "two", "three", "four", "five"].map((text) => probe.test(text)));
    expect(results.map((r) => [r.success, r.response])).toEqual(Array(5).fill([true, "Noted"]));
    expect(probe.knownIdentity?.sequences).toBe(2);
  });

  it("disposal stops an evaluation in flight at its next token; the check is unavailable", async () => {
    // A reply budget that fits the context but would take far longer than the test to finish.
    const long = make(writeTinyModel({ reply: "endless" }), { maxTokens: 32_000, timeoutSeconds: 600, maxInputLength: 100, contextSize: 32768 });
    const running = long.test("hello");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await long.dispose();
    // With a 600 s deadline and a reply far longer than the test, only the disposal can end the
    // call: an "unavailable" result at all shows it did, with no duration to measure.
    const result = await running;
    expect(result).toMatchObject({ success: false, failureCode: "unavailable", response: "" });
    // Stopped at a token, not run to its budget (a count, not a clock: a busy machine is slow).
    expect(Number(result.metadata["eval_count"] ?? 0)).toBeLessThan(32_000);
  });

  it("after disposal a check is unavailable, never a pass", async () => {
    const probe = make(writeTinyModel(), { maxInputLength: 500 });
    expect((await probe.test("hello")).success).toBe(true);
    await disposeEmbeddedCanaries();
    const after = await probe.test("hello");
    expect(after).toMatchObject({ success: false, failureCode: "unavailable", response: "" });
    expect(await probe.isAvailable()).toBe(false);
  });
});
