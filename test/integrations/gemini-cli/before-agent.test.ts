// The Gemini CLI BeforeAgent hook as Gemini runs it: `node` on the script with the hook input on
// stdin, against a real little-canary service on 127.0.0.1 port 0 (Ollama stand-in); stdout is
// compared byte for byte with the hook output Gemini CLI expects.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BENIGN_PROMPT, UNSAFE_PROMPT, serviceFor, startScreeningService, type CaseName } from "../../support/integrations/service.js";
import { answering, startRawService } from "../../support/integrations/raw-service.js";
import { hookInput, runHook } from "../../support/integrations/run-hook.js";
import { ADVISORY_NOTICE, startStructuralOnlyService } from "../../support/integrations/service.js";

const SCRIPT = resolve(import.meta.dirname, "../../../integrations/gemini-cli/hooks/before-agent.mjs");
const EVENT = "BeforeAgent";
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
const CLEAN = { decision: "allow", reason: "Little Canary allowed this prompt after exercised screening." };
const REJECTED = { decision: "deny", reason: "Little Canary rejected this prompt before the Gemini agent started." };
const FLAGGED = {
  decision: "allow",
  reason: "Little Canary allowed this prompt with an advisory.",
  systemMessage: "Little Canary flagged this prompt but the server's routing policy allowed it.",
};
const failOpen = (r: string) => ({
  decision: "allow",
  reason: `Little Canary screening unavailable: ${r}. Prompt allowed by configured fail-open policy.`,
  systemMessage: `Little Canary screening unavailable: ${r}. Gemini CLI continued because Little Canary is fail-open.`,
});
const failClosed = (r: string) => ({
  decision: "deny",
  reason: `Little Canary screening unavailable: ${r}. Prompt denied by configured fail-closed policy.`,
});

describe("the four acceptance cases in both failure modes", () => {
  const table: Array<[CaseName, "allow" | "deny", unknown]> = [
    ["benign", "allow", CLEAN],
    ["benign", "deny", CLEAN],
    ["unsafe", "allow", REJECTED],
    ["unsafe", "deny", REJECTED],
    ["flagged", "allow", FLAGGED],
    ["flagged", "deny", FLAGGED],
    ["down", "allow", failOpen("URLError")],
    ["down", "deny", failClosed("URLError")],
  ];
  it.each(table)("%s prompt with failure mode %s answers exactly the table's object", async (name, mode, expected) => {
    const { service, prompt } = await serviceFor(name);
    open.push(service);
    const run = await runHook(SCRIPT, hookInput(EVENT, prompt), {
      LITTLE_CANARY_ENDPOINT: service.checkEndpoint,
      LITTLE_CANARY_FAILURE_MODE: mode,
      // The hooks' largest timeout: a busy machine must not turn a benign answer into a failure.
      LITTLE_CANARY_TIMEOUT_MS: "5000",
    });
    expect(run.stdout).toBe(line(expected));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });
});

describe("a service without a canary (structural layer only)", () => {
  const flaggedLead = "Little Canary flagged this prompt; behavioral coverage was not exercised.";

  it.each(["fail_open", "fail_closed"] as const)(
    "a structural flag (service %s) is reported as a flag with its unexercised coverage, never as screening unavailable",
    async (onDegraded) => {
      const service = await startStructuralOnlyService({ onDegraded });
      open.push(service);
      const env = { LITTLE_CANARY_ENDPOINT: service.checkEndpoint };
      const allow = await runHook(SCRIPT, hookInput(EVENT, UNSAFE_PROMPT), env);
      const deny = await runHook(SCRIPT, hookInput(EVENT, UNSAFE_PROMPT), { ...env, LITTLE_CANARY_FAILURE_MODE: "deny" });
      expect(allow.stdout).toBe(
        line({
          decision: "allow",
          reason: `${flaggedLead} Prompt allowed by configured fail-open policy.`,
          systemMessage: `${flaggedLead} Gemini CLI continued because Little Canary is fail-open. ${ADVISORY_NOTICE}`,
        }),
      );
      expect(deny.stdout).toBe(
        line({ decision: "deny", reason: `${flaggedLead} Prompt denied by configured fail-closed policy.`, systemMessage: ADVISORY_NOTICE }),
      );
      expect(`${allow.stdout}${deny.stdout}`).not.toContain("screening unavailable");
    },
  );

  it("a structural block is a rejection, and a structurally clean prompt is still not reported clean", async () => {
    const service = await startStructuralOnlyService({ mode: "block" });
    open.push(service);
    const env = { LITTLE_CANARY_ENDPOINT: service.checkEndpoint };
    expect((await runHook(SCRIPT, hookInput(EVENT, UNSAFE_PROMPT), env)).stdout).toBe(line(REJECTED));
    expect((await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), env)).stdout).toBe(line(failOpen("behavioral coverage was not exercised")));
  });
});

describe("a prompt with nothing to screen", () => {
  it.each([
    ["empty", ""],
    ["whitespace only", " \n\t\u00a0\u3000 "],
  ])("an %s prompt is allowed with a reason that says so, without a request, under deny too", async (_label, prompt) => {
    const service = await startRawService(answering("{}"));
    open.push(service);
    const run = await runHook(SCRIPT, hookInput(EVENT, prompt), { LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(run.stdout).toBe(line({ decision: "allow", reason: "Little Canary had nothing to screen: the prompt was empty or whitespace only." }));
    expect(run.stderr).toBe("");
    expect(service.requests).toHaveLength(0);
  });
});

describe("failures and configuration", () => {
  it("a degraded verdict is allowed with a warning under allow and denied under deny", async () => {
    const service = await startScreeningService({ reply: { fault: "drop" } });
    open.push(service);
    const env = { LITTLE_CANARY_ENDPOINT: service.checkEndpoint };
    const allow = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), env);
    const deny = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), { ...env, LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(allow.stdout).toBe(line(failOpen("behavioral coverage was not exercised")));
    expect(deny.stdout).toBe(line(failClosed("behavioral coverage was not exercised")));
  });

  it("a non-loopback endpoint is denied under deny without a request", async () => {
    const run = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), {
      LITTLE_CANARY_ENDPOINT: "http://192.0.2.10:18421/check",
      LITTLE_CANARY_FAILURE_MODE: "deny",
    });
    expect(run.stdout).toBe(line(failClosed("invalid adapter configuration (endpoint must be an HTTP loopback /check URL without credentials or query data)")));
  });

  it("an invalid failure mode is reported and denies, even when stdin is bad (no quiet allow)", async () => {
    for (const input of ["{broken", hookInput(EVENT, BENIGN_PROMPT)]) {
      const run = await runHook(SCRIPT, input, { LITTLE_CANARY_FAILURE_MODE: "sometimes" });
      expect(run.stdout).toBe(line(failClosed("invalid adapter configuration (failure mode must be 'allow' or 'deny')")));
    }
  });

  it("a Claude Code event name is not accepted as BeforeAgent", async () => {
    const run = await runHook(SCRIPT, hookInput("UserPromptSubmit", BENIGN_PROMPT), { LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(run.stdout).toBe(line(failClosed("unexpected hook event")));
  });

  it("runs with node alone from a copy of the extension folder outside the repository", async () => {
    const service = await startScreeningService();
    open.push(service);
    const dir = mkdtempSync(join(tmpdir(), "lc-gemini-ext-"));
    try {
      cpSync(resolve(import.meta.dirname, "../../../integrations/gemini-cli"), dir, { recursive: true });
      const run = await runHook(
        join(dir, "hooks/before-agent.mjs"),
        hookInput(EVENT, BENIGN_PROMPT),
        {
          LITTLE_CANARY_ENDPOINT: service.checkEndpoint,
        },
        dir,
      );
      expect(run.stdout).toBe(line(CLEAN));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
