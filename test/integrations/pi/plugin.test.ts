// The Pi input handler against a real little-canary service on 127.0.0.1 port 0 (Ollama
// stand-in): the value returned to Pi and the notifications, for the four acceptance cases in
// both failure modes.
import { afterEach, describe, expect, it } from "vitest";
import { createInputHandler } from "../../../src/integrations/pi/plugin.js";
import { piBundle } from "../../support/integrations/bundles.js";
import { BENIGN_PROMPT, UNSAFE_PROMPT, serviceFor, type CaseName } from "../../support/integrations/service.js";
import { answering, startRawService } from "../../support/integrations/raw-service.js";
import { ADVISORY_NOTICE, startStructuralOnlyService } from "../../support/integrations/service.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

function uiContext() {
  const notes: Array<[string, string]> = [];
  return { ctx: { hasUI: true, ui: { notify: (message: string, level: string) => void notes.push([message, level]) } }, notes };
}

describe("the four acceptance cases in both failure modes", () => {
  const table: Array<[CaseName, "allow" | "deny", string, Array<[string, string]>]> = [
    ["benign", "allow", "continue", []],
    ["benign", "deny", "continue", []],
    ["unsafe", "allow", "handled", [["Little Canary blocked this input before Pi started the turn.", "error"]]],
    ["unsafe", "deny", "handled", [["Little Canary blocked this input before Pi started the turn.", "error"]]],
    ["flagged", "allow", "continue", [["Little Canary flagged this input; Pi continued.", "warning"]]],
    ["flagged", "deny", "continue", [["Little Canary flagged this input; Pi continued.", "warning"]]],
    ["down", "allow", "continue", [["Little Canary screening unavailable; Pi continued.", "warning"]]],
    ["down", "deny", "handled", [["Little Canary screening unavailable; Pi stopped this input under the fail-closed policy.", "error"]]],
  ];
  it.each(table)("%s input under %s returns {action:%s} and notifies exactly so", async (name, mode, action, expected) => {
    const { service, prompt } = await serviceFor(name);
    open.push(service);
    // The adapters' largest timeout: a busy machine must not turn a benign answer into a failure.
    const handler = createInputHandler({
      env: { LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: mode, LITTLE_CANARY_TIMEOUT_MS: "5000" },
    });
    const { ctx, notes } = uiContext();
    expect(await handler({ text: prompt }, ctx)).toEqual({ action });
    expect(notes).toEqual(expected);
  });
});

describe("a service without a canary (structural layer only)", () => {
  it("a structural flag is named as a flag with its unexercised coverage: continued under allow, stopped under deny", async () => {
    const service = await startStructuralOnlyService();
    open.push(service);
    const lead = "Little Canary flagged this input; behavioral coverage was not exercised";
    for (const [mode, action, tail, level] of [
      ["allow", "continue", "Pi continued.", "warning"],
      ["deny", "handled", "Pi stopped this input under the fail-closed policy.", "error"],
    ] as const) {
      const handler = createInputHandler({ env: { LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: mode } });
      const { ctx, notes } = uiContext();
      expect(await handler({ text: UNSAFE_PROMPT }, ctx)).toEqual({ action });
      expect(notes).toEqual([
        [`${lead}; ${tail}`, level],
        [ADVISORY_NOTICE, "warning"],
      ]);
    }
  });

  it("a structurally clean input is still reported as incomplete coverage", async () => {
    const service = await startStructuralOnlyService({ mode: "block" });
    open.push(service);
    const handler = createInputHandler({ env: { LITTLE_CANARY_ENDPOINT: service.checkEndpoint } });
    const { ctx, notes } = uiContext();
    expect(await handler({ text: BENIGN_PROMPT }, ctx)).toEqual({ action: "continue" });
    expect(notes).toEqual([["Little Canary coverage is incomplete; Pi continued.", "warning"]]);
  });
});

describe("edges", () => {
  it("empty, whitespace-only or missing text continues without a request", async () => {
    const raw = await startRawService(answering("{}"));
    open.push(raw);
    const handler = createInputHandler({ env: { LITTLE_CANARY_ENDPOINT: raw.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: "deny" } });
    const { ctx, notes } = uiContext();
    expect(await handler({ text: "" }, ctx)).toEqual({ action: "continue" });
    expect(await handler({ text: " \n\t\u3000" }, ctx)).toEqual({ action: "continue" });
    expect(await handler({ images: [] }, ctx)).toEqual({ action: "continue" });
    expect(notes).toEqual([]);
    expect(raw.requests).toHaveLength(0);
  });

  it("text that is not a string cannot be screened: stopped under deny, continued with a warning under allow, no request", async () => {
    const raw = await startRawService(answering("{}"));
    open.push(raw);
    for (const [mode, action, level] of [
      ["deny", "handled", "error"],
      ["allow", "continue", "warning"],
    ] as const) {
      const handler = createInputHandler({ env: { LITTLE_CANARY_ENDPOINT: raw.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: mode } });
      for (const text of [["an array of text"], { text: "an object" }, 42]) {
        const { ctx, notes } = uiContext();
        expect(await handler({ text }, ctx)).toEqual({ action });
        expect(notes.map(([, l]) => l)).toEqual([level]);
      }
    }
    expect(raw.requests).toHaveLength(0);
  });

  it("without a UI the notification goes to stderr", async () => {
    const { service, prompt } = await serviceFor("flagged");
    open.push(service);
    const lines: string[] = [];
    const handler = createInputHandler({ env: { LITTLE_CANARY_ENDPOINT: service.checkEndpoint }, stderr: { write: (s: string) => lines.push(s) } });
    expect(await handler({ text: prompt }, { hasUI: false })).toEqual({ action: "continue" });
    expect(lines).toEqual(["Little Canary: Little Canary flagged this input; Pi continued.\n"]);
  });

  it("a degraded verdict is stopped under deny", async () => {
    const { startScreeningService } = await import("../../support/integrations/service.js");
    const service = await startScreeningService({ reply: { fault: "empty" } });
    open.push(service);
    const handler = createInputHandler({ env: { LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: "deny" } });
    const { ctx, notes } = uiContext();
    expect(await handler({ text: BENIGN_PROMPT }, ctx)).toEqual({ action: "handled" });
    expect(notes).toEqual([["Little Canary coverage is incomplete; Pi stopped this input under the fail-closed policy.", "error"]]);
  });

  it("a throwing notifier does not change the decision", async () => {
    const { service, prompt } = await serviceFor("unsafe");
    open.push(service);
    const handler = createInputHandler({ env: { LITTLE_CANARY_ENDPOINT: service.checkEndpoint } });
    const ctx = {
      hasUI: true,
      ui: {
        notify: () => {
          throw new Error("ui gone");
        },
      },
    };
    expect(await handler({ text: prompt }, ctx)).toEqual({ action: "handled" });
  });

  it("the checked-in extension bundle registers one input handler", async () => {
    const { default: registerExtension } = await piBundle();
    const registered: string[] = [];
    registerExtension({ on: (event: string) => void registered.push(event) });
    expect(registered).toEqual(["input"]);
  });
});
