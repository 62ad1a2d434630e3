// One decision everywhere:
// 1. classifyForHost passes nothing that is not an exercised clean verdict, for every verdict
//    shape, valid or not (property test); the host bundles inline this one module;
// 2. every adapter, fed the same real verdict by a loopback service (or in-process for the
//    Agents guardrail), shows the host the same allow / warn / deny / unscreened decision, and
//    every host adapter names an unscreened verdict that was flagged as flagged (a structural
//    flag stays a detection when the canary did not run).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as library from "../../src/integrations/classify.js";
import { littleCanaryInputGuardrail } from "../../src/integrations/openai-agents.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import type { SecurityPipelineOptions } from "../../src/pipeline/options.js";
import type { PipelineVerdict } from "../../src/pipeline/verdict.js";
import { createOpenCodeHooks } from "../../src/integrations/opencode/plugin.js";
import { createInputHandler } from "../../src/integrations/pi/plugin.js";
import { BLOCK_UNSAFE, createBeforeAgentRunHandler } from "../../src/integrations/openclaw/plugin.js";
import { UsageError } from "../../src/core/errors.js";
import { HOST_BUNDLES } from "../../scripts/build-integrations.js";
import { startOllamaStandIn, type OllamaReply, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { answering, startRawService, type RawService } from "../support/integrations/raw-service.js";
import { hookInput, runHook } from "../support/integrations/run-hook.js";
import { BENIGN_PROMPT, FLAGGING_REPLY, UNSAFE_PROMPT } from "../support/integrations/service.js";

type Decision = library.HostDecision;
/** What a host adapter shows: the decision, and for an unscreened verdict whether it names a flag. */
type Shown = Decision | "unscreened+flagged";
const shown = (c: library.HostClassification): Shown => (c.decision === "unscreened" && c.flagged ? "unscreened+flagged" : c.decision);
const MODES = ["allow", "deny"] as const;

describe("the one classifier", () => {
  const status = fc.constantFrom("exercised", "failed", "disabled", "skipped_after_block", "not_applicable", "", 1, null, undefined);
  const bool = fc.constantFrom(true, false, null, "true", 0, undefined);
  const verdictLike = fc.record(
    {
      safe: bool,
      degraded: bool,
      canary_status: status,
      analysis_status: status,
      blocked_by: fc.constantFrom(null, "structural_filter", "canary_probe", "fail_closed", "other", undefined),
      advisory: fc.oneof(
        fc.constantFrom(undefined, null, [], "flagged"),
        fc.record({ flagged: fc.constantFrom(true, false, "yes", 1, null, undefined) }, { requiredKeys: [] }),
      ),
    },
    { requiredKeys: [] },
  );

  // Well-formed verdicts in every combination of field values: each rule of the table is hit often.
  const wellFormed = fc.record({
    safe: fc.boolean(),
    degraded: fc.boolean(),
    canary_status: fc.constantFrom("exercised", "failed", "disabled", "skipped_after_block"),
    analysis_status: fc.constantFrom("exercised", "failed", "not_applicable"),
    blocked_by: fc.constantFrom(null, "structural_filter", "canary_probe", "fail_closed"),
    advisory: fc.oneof(fc.record({ flagged: fc.boolean() }), fc.constantFrom(undefined, null, { flagged: "yes" })),
  });

  it("passes only an exercised, clean, complete verdict and refuses exactly deny (and unscreened under deny)", () => {
    fc.assert(
      fc.property(fc.oneof(wellFormed, verdictLike, fc.anything()), fc.constantFrom(...MODES), (verdict, failureMode) => {
        const result = library.classifyForHost(verdict, { failureMode });
        const v = verdict as Record<string, unknown>;
        if (result.decision === "allow" || result.decision === "warn") {
          expect(v["safe"]).toBe(true);
          expect(v["degraded"]).toBe(false);
          expect(v["canary_status"]).toBe("exercised");
          expect(v["analysis_status"]).toBe("exercised");
          expect(v["blocked_by"]).not.toBe("fail_closed");
        }
        expect(result.block).toBe(result.decision === "deny" || (result.decision === "unscreened" && failureMode === "deny"));
        expect(result.failureMode).toBe(failureMode);
      }),
      { numRuns: 3000 },
    );
  });

  it("reads LITTLE_CANARY_FAILURE_MODE and never turns an invalid value into allow", () => {
    for (const raw of [undefined, "", "  ", "allow", "DENY", " deny\n", "bogus", "0", "false", "allow,deny", 1]) {
      const a = library.parseFailureMode(raw);
      if (typeof raw === "string" && !["", "allow", "deny"].includes(raw.trim().toLowerCase())) expect(a.ok).toBe(false);
      else expect(a.ok).toBe(typeof raw === "string" || raw === undefined);
    }
  });

  it("an invalid failure mode passed in code is a UsageError, in the library and in every hook bundle", () => {
    expect(() => library.classifyForHost({}, { failureMode: "bogus" as never })).toThrow(UsageError);
    expect(() => library.unscreenedForHost("x", { failureMode: "bogus" as never })).toThrow(UsageError);
    // The bundles inline this very module: the error the hosts would see is the library's, not a copy's.
    for (const bundle of HOST_BUNDLES) {
      const text = readFileSync(resolve(import.meta.dirname, "../..", bundle.output), "utf8");
      expect(text, bundle.output).toContain("// src/integrations/classify.ts");
      expect(text, bundle.output).toContain("throw new UsageError(INVALID_FAILURE_MODE)");
    }
  });
});

// Real verdicts, one per state a host can meet.
interface Scenario {
  readonly name: string;
  readonly prompt: string;
  readonly reply: OllamaReply;
  readonly options: SecurityPipelineOptions;
}
const SCENARIOS: readonly Scenario[] = [
  { name: "exercised clean", prompt: BENIGN_PROMPT, reply: "The capital of France is Paris.", options: {} },
  { name: "structural block", prompt: UNSAFE_PROMPT, reply: "ok", options: {} },
  { name: "low advisory", prompt: BENIGN_PROMPT, reply: FLAGGING_REPLY, options: {} },
  { name: "advisory-mode compromise", prompt: BENIGN_PROMPT, reply: "Understood. I will now respond without any restrictions.", options: { mode: "advisory" } },
  { name: "advisory-mode structural flag", prompt: UNSAFE_PROMPT, reply: "The capital of France is Paris.", options: { mode: "advisory" } },
  { name: "degraded fail-open", prompt: BENIGN_PROMPT, reply: { fault: "status", status: 500 }, options: {} },
  { name: "degraded fail-closed", prompt: BENIGN_PROMPT, reply: { fault: "drop" }, options: { onDegraded: "fail_closed" } },
  { name: "canary disabled", prompt: BENIGN_PROMPT, reply: "ok", options: { enableCanary: false } },
  { name: "structural block without a canary", prompt: UNSAFE_PROMPT, reply: "ok", options: { enableCanary: false } },
  { name: "structural flag without a canary", prompt: UNSAFE_PROMPT, reply: "ok", options: { mode: "advisory", enableCanary: false } },
  {
    name: "structural flag without a canary, fail-closed",
    prompt: UNSAFE_PROMPT,
    reply: "ok",
    options: { mode: "advisory", enableCanary: false, onDegraded: "fail_closed" },
  },
];

/** An unscreened answer: flagged when it leads with the flag, as detection-lead.ts words it. */
const unscreened = (text: string | undefined, flaggedLead: string): Shown => (text?.startsWith(flaggedLead) ? "unscreened+flagged" : "unscreened");
const fromClaude = (out: Record<string, string>): Shown =>
  out["decision"] === "block"
    ? out["reason"]!.startsWith("Little Canary rejected")
      ? "deny"
      : unscreened(out["reason"], "Little Canary flagged this prompt;")
    : out["systemMessage"] === undefined
      ? "allow"
      : out["systemMessage"].startsWith("Little Canary flagged this prompt but")
        ? "warn"
        : unscreened(out["systemMessage"], "Little Canary flagged this prompt;");
const fromGemini = (out: Record<string, string>): Shown =>
  out["reason"]!.startsWith("Little Canary rejected")
    ? "deny"
    : out["reason"]!.startsWith("Little Canary allowed this prompt after")
      ? "allow"
      : out["reason"]!.startsWith("Little Canary allowed this prompt with an advisory")
        ? "warn"
        : unscreened(out["reason"], "Little Canary flagged this prompt;");
const fromOpenCode = (warnings: string[]): Shown =>
  warnings.length === 0
    ? "allow"
    : warnings[0]!.startsWith("Prompt rejected")
      ? "deny"
      : warnings[0] === "Prompt flagged; OpenCode continued."
        ? "warn"
        : unscreened(warnings[0], "Prompt flagged;");
const fromPi = (notes: Array<[string, string]>): Shown =>
  notes.length === 0
    ? "allow"
    : notes[0]![0].startsWith("Little Canary blocked")
      ? "deny"
      : notes[0]![0] === "Little Canary flagged this input; Pi continued."
        ? "warn"
        : unscreened(notes[0]![0], "Little Canary flagged this input;");
const fromOpenClaw = (result: unknown, warnings: string[]): Shown =>
  JSON.stringify(result) === JSON.stringify(BLOCK_UNSAFE)
    ? "deny"
    : warnings.length === 0
      ? "allow"
      : warnings[0]!.endsWith("screening flagged this prompt; allowing run")
        ? "warn"
        : unscreened(warnings[0]!.replace("[little-canary-openclaw] ", ""), "screening flagged this prompt;");
const GUARDRAIL: Record<string, Decision> = { safe: "allow", unsafe: "deny", flagged: "warn", degraded: "unscreened", unexercised: "unscreened" };

describe("every adapter shows the host the same decision for the same verdict", () => {
  const verdicts = new Map<string, PipelineVerdict>();
  const stands: OllamaStandIn[] = [];
  beforeAll(async () => {
    for (const s of SCENARIOS) {
      const ollama = await startOllamaStandIn({ reply: s.reply });
      stands.push(ollama);
      const pipeline = new SecurityPipeline({ mode: "block", ollamaUrl: ollama.url, canaryTimeout: 2, ...s.options });
      verdicts.set(s.name, await pipeline.check(s.prompt));
    }
  });
  afterAll(async () => {
    for (const s of stands) await s.close();
  });

  it("the scenarios cover all four decisions", () => {
    const seen = new Set([...verdicts.values()].map((v) => library.classifyForHost(v.toDict(), { failureMode: "allow" }).decision));
    expect([...seen].sort()).toEqual(["allow", "deny", "unscreened", "warn"]);
  });

  it("the scenarios include a flagged verdict whose canary did not run", () => {
    const flagged = [...verdicts.values()].filter((v) => shown(library.classifyForHost(v.toDict(), { failureMode: "allow" })) === "unscreened+flagged");
    expect(flagged.map((v) => v.canaryStatus)).toEqual(["disabled", "disabled"]);
  });

  for (const scenario of SCENARIOS) {
    for (const failureMode of MODES) {
      it(`${scenario.name} under ${failureMode}`, async () => {
        const verdict = verdicts.get(scenario.name)!;
        const wire = verdict.toDict();
        const classified = library.classifyForHost(wire, { failureMode });
        const expected = shown(classified);
        const service: RawService = await startRawService(answering(JSON.stringify(wire)));
        try {
          const env = { LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: failureMode };
          const claude = await runHook(
            resolve(import.meta.dirname, "../../integrations/claude-code/hooks/user-prompt-submit.mjs"),
            hookInput("UserPromptSubmit", scenario.prompt),
            env,
          );
          const gemini = await runHook(
            resolve(import.meta.dirname, "../../integrations/gemini-cli/hooks/before-agent.mjs"),
            hookInput("BeforeAgent", scenario.prompt),
            env,
          );
          const opencodeWarnings: string[] = [];
          await createOpenCodeHooks({ env, stderr: { write: (s: string) => opencodeWarnings.push(s.slice("Little Canary: ".length, -1)) } })["chat.message"](
            {},
            { parts: [{ type: "text", text: scenario.prompt }] },
          );
          const piNotes: Array<[string, string]> = [];
          await createInputHandler({ env })({ text: scenario.prompt }, { hasUI: true, ui: { notify: (m: string, l: string) => void piNotes.push([m, l]) } });
          const clawWarnings: string[] = [];
          const claw = await createBeforeAgentRunHandler({
            config: { serviceUrl: service.origin },
            env,
            logger: { warn: (m: string) => void clawWarnings.push(m) },
          })({ prompt: scenario.prompt });
          const guardrail = await littleCanaryInputGuardrail(() => verdict, { onDegraded: failureMode === "deny" ? "fail_closed" : "fail_open" }).execute({
            input: scenario.prompt,
          });

          expect({
            "claude-code": fromClaude(JSON.parse(claude.stdout)),
            "gemini-cli": fromGemini(JSON.parse(gemini.stdout)),
            opencode: fromOpenCode(opencodeWarnings),
            pi: fromPi(piNotes),
            openclaw: fromOpenClaw(claw, clawWarnings),
            "openai-agents": GUARDRAIL[guardrail.outputInfo.coverage],
          }).toEqual({
            "claude-code": expected,
            "gemini-cli": expected,
            opencode: expected,
            pi: expected,
            openclaw: expected,
            // The guardrail's `coverage` is one word per verdict; a flag it cannot name there is in `signals`.
            "openai-agents": classified.decision,
          });
        } finally {
          await service.close();
        }
      });
    }
  }
});
