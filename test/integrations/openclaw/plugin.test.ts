// The OpenClaw before_agent_run handler against a real little-canary service on 127.0.0.1 port 0
// (Ollama stand-in): the value returned to OpenClaw and the logger warnings, for the four
// acceptance cases in both failure modes.
import { afterEach, describe, expect, it } from "vitest";
import { BLOCK_FLAGGED_UNSCREENED, BLOCK_UNSAFE, BLOCK_UNSCREENED, createBeforeAgentRunHandler } from "../../../src/integrations/openclaw/plugin.js";
import { openClawBundle } from "../../support/integrations/bundles.js";
import { BENIGN_PROMPT, UNSAFE_PROMPT, serviceFor, startScreeningService, type CaseName } from "../../support/integrations/service.js";
import { answering, startRawService } from "../../support/integrations/raw-service.js";
import { ADVISORY_NOTICE, startStructuralOnlyService } from "../../support/integrations/service.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

function handlerFor(serviceUrl: string, env: Record<string, string> = {}) {
  const warnings: string[] = [];
  const handler = createBeforeAgentRunHandler({ config: { serviceUrl }, env, logger: { warn: (m: string) => void warnings.push(m) } });
  return { handler, warnings };
}
const P = "[little-canary-openclaw] ";

describe("the four acceptance cases in both failure modes", () => {
  const table: Array<[CaseName, "allow" | "deny", unknown, string[]]> = [
    ["benign", "allow", { outcome: "pass" }, []],
    ["benign", "deny", { outcome: "pass" }, []],
    ["unsafe", "allow", BLOCK_UNSAFE, []],
    ["unsafe", "deny", BLOCK_UNSAFE, []],
    ["flagged", "allow", { outcome: "pass" }, [`${P}screening flagged this prompt; allowing run`]],
    ["flagged", "deny", { outcome: "pass" }, [`${P}screening flagged this prompt; allowing run`]],
    ["down", "allow", { outcome: "pass" }, [`${P}screening failed (URLError); allowing run`]],
    ["down", "deny", BLOCK_UNSCREENED, [`${P}screening failed (URLError); blocking run (fail-closed policy)`]],
  ];
  it.each(table)("%s prompt under %s", async (name, mode, expected, warnings) => {
    const { service, prompt } = await serviceFor(name);
    open.push(service);
    const h = handlerFor(service.origin, { LITTLE_CANARY_FAILURE_MODE: mode });
    expect(await h.handler({ prompt, messages: [] })).toEqual(expected);
    expect(h.warnings).toEqual(warnings);
  });

  it("the block objects are exactly the documented ones", () => {
    expect(BLOCK_UNSAFE).toEqual({
      outcome: "block",
      reason: "Little Canary returned an unsafe verdict.",
      message: "Little Canary blocked this run. Review the prompt and screening details before retrying.",
    });
  });
});

describe("a service without a canary (structural layer only)", () => {
  it("a structural flag is named as a flag with its unexercised coverage: passed under allow, blocked as flagged under deny", async () => {
    const service = await startStructuralOnlyService();
    open.push(service);
    const allow = handlerFor(service.origin);
    const deny = handlerFor(service.origin, { LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(await allow.handler({ prompt: UNSAFE_PROMPT })).toEqual({ outcome: "pass" });
    expect(allow.warnings).toEqual([`${P}screening flagged this prompt; behavioral coverage was not exercised; allowing run`, `${P}${ADVISORY_NOTICE}`]);
    expect(await deny.handler({ prompt: UNSAFE_PROMPT })).toEqual(BLOCK_FLAGGED_UNSCREENED);
    expect(deny.warnings).toEqual([
      `${P}screening flagged this prompt; behavioral coverage was not exercised; blocking run (fail-closed policy)`,
      `${P}${ADVISORY_NOTICE}`,
    ]);
  });

  it("a structural block is the unsafe block; a structurally clean prompt still warns of degraded coverage", async () => {
    const service = await startStructuralOnlyService({ mode: "block" });
    open.push(service);
    const h = handlerFor(service.origin);
    expect(await h.handler({ prompt: UNSAFE_PROMPT })).toEqual(BLOCK_UNSAFE);
    expect(await h.handler({ prompt: BENIGN_PROMPT })).toEqual({ outcome: "pass" });
    expect(h.warnings).toEqual([`${P}screening coverage is degraded; allowing run`]);
  });

  it("the flagged block object is exactly the documented one", () => {
    expect(BLOCK_FLAGGED_UNSCREENED).toEqual({
      outcome: "block",
      reason: "Little Canary flagged this prompt; screening did not complete.",
      message: "Little Canary blocked this run: it flagged the prompt, and the fail-closed policy applies because screening did not complete.",
    });
  });
});

describe("what is screened and where it may go", () => {
  it("screens event.prompt only; history is ignored and an empty or whitespace-only prompt sends nothing", async () => {
    const raw = await startRawService(answering("{}"));
    open.push(raw);
    const h = handlerFor(raw.origin, { LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(await h.handler({ prompt: "", messages: [{ role: "user", content: UNSAFE_PROMPT }] })).toEqual({ outcome: "pass" });
    expect(await h.handler({ prompt: " \n\t\u3000" })).toEqual({ outcome: "pass" });
    expect(await h.handler({ messages: [{ role: "user", content: UNSAFE_PROMPT }] })).toEqual({ outcome: "pass" });
    expect(raw.requests).toHaveLength(0);
  });

  it("a prompt that is not a string cannot be screened: blocked under deny, passed with a warning under allow, no request", async () => {
    const raw = await startRawService(answering("{}"));
    open.push(raw);
    for (const prompt of [[UNSAFE_PROMPT], { text: UNSAFE_PROMPT }, 42]) {
      const deny = handlerFor(raw.origin, { LITTLE_CANARY_FAILURE_MODE: "deny" });
      expect(await deny.handler({ prompt })).toEqual(BLOCK_UNSCREENED);
      expect(deny.warnings).toEqual([`${P}screening failed (prompt was not a string); blocking run (fail-closed policy)`]);
      const allow = handlerFor(raw.origin);
      expect(await allow.handler({ prompt })).toEqual({ outcome: "pass" });
      expect(allow.warnings).toEqual([`${P}screening failed (prompt was not a string); allowing run`]);
    }
    expect(raw.requests).toHaveLength(0);
  });

  it.each([
    ["https", "https://127.0.0.1:PORT"],
    ["a non-loopback host", "http://192.0.2.10:PORT"],
    ["a path", "http://127.0.0.1:PORT/check"],
    ["userinfo", "http://user:secret@127.0.0.1:PORT"],
  ])("a service URL with %s passes with one warning and no request", async (_label, template) => {
    const raw = await startRawService(answering("{}"));
    open.push(raw);
    const h = handlerFor(template.replace("PORT", new URL(raw.origin).port));
    expect(await h.handler({ prompt: BENIGN_PROMPT })).toEqual({ outcome: "pass" });
    expect(h.warnings).toEqual([
      `${P}invalid adapter configuration (service URL must be an HTTP loopback origin without credentials, path or query data); allowing run`,
    ]);
    expect(raw.requests).toHaveLength(0);
  });

  it("localhost is accepted like every other adapter (not only 127.0.0.1)", async () => {
    const service = await startScreeningService();
    open.push(service);
    const h = handlerFor(service.origin.replace("127.0.0.1", "localhost"));
    expect(await h.handler({ prompt: UNSAFE_PROMPT })).toEqual(BLOCK_UNSAFE);
  });

  it.each([
    ["413", "{}", 413, "screening service returned an HTTP error"],
    ["503", '{"error":"pipeline check failed"}', 503, "screening service returned an HTTP error"],
    ["malformed JSON", "{nope", 200, "screening service returned an unreadable verdict"],
  ])("%s passes with exactly one warning and no error detail", async (_label, body, status, warning) => {
    const raw = await startRawService(answering(body, status));
    open.push(raw);
    const h = handlerFor(raw.origin);
    expect(await h.handler({ prompt: BENIGN_PROMPT })).toEqual({ outcome: "pass" });
    expect(h.warnings).toEqual([`${P}${warning}; allowing run`]);
  });

  it("a degraded verdict passes with one warning, and blocks under deny (canary_status is read too)", async () => {
    const service = await startScreeningService({ reply: { fault: "garbage" } });
    open.push(service);
    const allow = handlerFor(service.origin);
    const deny = handlerFor(service.origin, { LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(await allow.handler({ prompt: BENIGN_PROMPT })).toEqual({ outcome: "pass" });
    expect(allow.warnings).toEqual([`${P}screening coverage is degraded; allowing run`]);
    expect(await deny.handler({ prompt: BENIGN_PROMPT })).toEqual(BLOCK_UNSCREENED);
  });

  it("the timeout option bounds a hanging service", async () => {
    const hanging = await startRawService(() => {});
    open.push(hanging);
    const warnings: string[] = [];
    const handler = createBeforeAgentRunHandler({
      config: { serviceUrl: hanging.origin, timeoutMs: 200 },
      env: {},
      logger: { warn: (m: string) => void warnings.push(m) },
    });
    // The service never answers: the TimeoutError warning shows the 200 ms option ended the wait.
    expect(await handler({ prompt: BENIGN_PROMPT })).toEqual({ outcome: "pass" });
    expect(warnings).toEqual([`${P}screening failed (TimeoutError); allowing run`]);
  });

  it("the checked-in bundle registers before_agent_run with a 12 s hook budget", async () => {
    const { default: plugin } = await openClawBundle();
    expect(plugin.id).toBe("little-canary-openclaw");
    const calls: Array<[string, unknown]> = [];
    plugin.register({ pluginConfig: {}, logger: { warn: () => {} }, on: (event: string, _h: unknown, opts: unknown) => void calls.push([event, opts]) });
    expect(calls).toEqual([["before_agent_run", { timeoutMs: 12000 }]]);
  });
});
