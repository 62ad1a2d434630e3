// The OpenAI Agents SDK input guardrail, in-process with a real SecurityPipeline whose canary is
// the loopback Ollama stand-in.
import { afterEach, describe, expect, it } from "vitest";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import type { PipelineMode } from "../../src/canary/pipeline-options.js";
import { UsageError } from "../../src/core/errors.js";
import { littleCanaryInputGuardrail, extractUserText } from "../../src/integrations/openai-agents.js";
import { startOllamaStandIn, type OllamaReply, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { BENIGN_PROMPT, FLAGGING_REPLY, UNSAFE_PROMPT } from "../support/integrations/service.js";

const stands: OllamaStandIn[] = [];
afterEach(async () => {
  for (const s of stands.splice(0)) await s.close();
});

async function pipeline(reply: OllamaReply = "The capital of France is Paris.", mode: PipelineMode = "block"): Promise<SecurityPipeline> {
  const ollama = await startOllamaStandIn({ reply });
  stands.push(ollama);
  return new SecurityPipeline({ mode, ollamaUrl: ollama.url, canaryTimeout: 2 });
}

const INFO_KEYS = [
  "coverage",
  "tripwire_triggered",
  "policy",
  "safe",
  "degraded",
  "canary_status",
  "analysis_method",
  "analysis_status",
  "risk_score",
  "signals",
  "summary",
  "error",
  "screened_chars",
];

describe("tripwire per coverage and policy", () => {
  it.each([
    ["benign", "fail_open", BENIGN_PROMPT, undefined, "safe", false],
    ["benign", "fail_closed", BENIGN_PROMPT, undefined, "safe", false],
    ["unsafe", "fail_open", UNSAFE_PROMPT, undefined, "unsafe", true],
    ["unsafe", "fail_closed", UNSAFE_PROMPT, undefined, "unsafe", true],
    ["flagged", "fail_open", BENIGN_PROMPT, FLAGGING_REPLY, "flagged", false],
    ["flagged", "fail_closed", BENIGN_PROMPT, FLAGGING_REPLY, "flagged", true],
    ["degraded", "fail_open", BENIGN_PROMPT, { fault: "status", status: 500 } as OllamaReply, "degraded", false],
    ["degraded", "fail_closed", BENIGN_PROMPT, { fault: "status", status: 500 } as OllamaReply, "degraded", true],
  ] as const)("%s input under %s gives the expected coverage and tripwire", async (_name, policy, prompt, reply, coverage, tripped) => {
    const guardrail = littleCanaryInputGuardrail(await pipeline(reply ?? undefined), { onDegraded: policy });
    const result = await guardrail.execute({ input: prompt });
    expect(result.outputInfo.coverage).toBe(coverage);
    expect(result.tripwireTriggered).toBe(tripped);
    expect(result.outputInfo.tripwire_triggered).toBe(tripped);
    expect(result.outputInfo.policy).toBe(policy);
    expect(Object.keys(result.outputInfo)).toEqual(INFO_KEYS);
    expect(JSON.stringify(result.outputInfo)).not.toContain(prompt);
  });

  it("is a blocking guardrail named little_canary by default", async () => {
    const guardrail = littleCanaryInputGuardrail(await pipeline());
    expect(guardrail.name).toBe("little_canary");
    expect(guardrail.runInParallel).toBe(false);
  });

  it("reads LITTLE_CANARY_FAILURE_MODE=deny as fail_closed and refuses an invalid value", async () => {
    const p = await pipeline();
    expect(littleCanaryInputGuardrail(p, { env: { LITTLE_CANARY_FAILURE_MODE: " DENY" } })).toBeDefined();
    const guardrail = littleCanaryInputGuardrail(p, { env: { LITTLE_CANARY_FAILURE_MODE: "deny" } });
    expect((await guardrail.execute({ input: "" })).outputInfo.policy).toBe("fail_closed");
    expect(() => littleCanaryInputGuardrail(p, { env: { LITTLE_CANARY_FAILURE_MODE: "maybe" } })).toThrow(UsageError);
    expect(() => littleCanaryInputGuardrail(p, { onDegraded: "sometimes" as never })).toThrow(UsageError);
  });

  it("reports once that an advisory-mode pipeline never answers unsafe", async () => {
    const lines: string[] = [];
    littleCanaryInputGuardrail(await pipeline(undefined, "advisory"), { onInfo: (m) => lines.push(m) });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("advisory mode");
  });
});

describe("checker problems are degraded, never a pass", () => {
  it("empty user text does not call the checker and trips under fail_closed", async () => {
    let calls = 0;
    const checker = (): never => {
      calls++;
      throw new Error("not expected");
    };
    const open = await littleCanaryInputGuardrail(checker, { onDegraded: "fail_open" }).execute({ input: [{ role: "assistant", content: "hi" }] });
    const closed = await littleCanaryInputGuardrail(checker, { onDegraded: "fail_closed" }).execute({ input: "" });
    expect(calls).toBe(0);
    expect(open.outputInfo.coverage).toBe("unexercised");
    expect(open.tripwireTriggered).toBe(false);
    expect(closed.tripwireTriggered).toBe(true);
  });

  it("a checker returning a plain object is degraded with error TypeError", async () => {
    const lookalike = { check: async () => ({ safe: true, degraded: false, canary_status: "exercised", analysis_status: "exercised" }) };
    const result = await littleCanaryInputGuardrail(lookalike, { onDegraded: "fail_open" }).execute({ input: "hello" });
    expect(result.outputInfo).toMatchObject({
      coverage: "degraded",
      safe: null,
      degraded: true,
      canary_status: "failed",
      analysis_method: "none",
      analysis_status: "failed",
      error: "TypeError",
      summary: "Checker raised; behavioral coverage unavailable.",
      screened_chars: 5,
    });
    expect(result.tripwireTriggered).toBe(false);
  });

  it("a throwing checker reports only the error class, never its message", async () => {
    const result = await littleCanaryInputGuardrail(
      () => {
        throw new RangeError("token=secret-value");
      },
      { onDegraded: "fail_closed" },
    ).execute({ input: "hello" });
    expect(result.outputInfo.error).toBe("RangeError");
    expect(JSON.stringify(result)).not.toContain("secret-value");
    expect(result.tripwireTriggered).toBe(true);
  });

  it("a checker that cannot be called is refused when the guardrail is built", () => {
    expect(() => littleCanaryInputGuardrail({} as never)).toThrow(TypeError);
  });
});

describe("text extraction", () => {
  it("keeps only user string content and input_text parts, joined by newlines", () => {
    const input = [
      { role: "system", content: "system text" },
      { role: "user", content: "first" },
      {
        role: "user",
        content: [
          { type: "input_text", text: "second" },
          { type: "input_image", image: "x" },
          { type: "input_text", text: "" },
        ],
      },
      { type: "function_call_result", output: "tool text" },
      { role: "assistant", content: [{ type: "output_text", text: "assistant text" }] },
    ];
    expect(extractUserText(input)).toBe("first\nsecond");
    expect(extractUserText("plain")).toBe("plain");
    expect(extractUserText(42)).toBe("");
  });

  it("screens the extracted user text only", async () => {
    const p = await pipeline();
    const result = await littleCanaryInputGuardrail(p).execute({
      input: [
        { role: "system", content: UNSAFE_PROMPT },
        { role: "user", content: BENIGN_PROMPT },
      ],
    });
    expect(result.outputInfo.coverage).toBe("safe");
    expect(result.outputInfo.screened_chars).toBe([...BENIGN_PROMPT].length);
  });
});
