// The OpenCode hooks against a real little-canary service on 127.0.0.1 port 0 (Ollama stand-in):
// what OpenCode sees (message parts, tool output, toasts, stderr) for the four acceptance cases
// in both failure modes, plus the OpenCode-specific cases.
import { afterEach, describe, expect, it } from "vitest";
import { createOpenCodeHooks, WITHHELD_REJECTED, WITHHELD_UNSCREENED, CANNOT_BLOCK } from "../../../src/integrations/opencode/plugin.js";
import { openCodeBundle } from "../../support/integrations/bundles.js";
import { BENIGN_PROMPT, UNSAFE_PROMPT, serviceFor, type CaseName } from "../../support/integrations/service.js";
import { answering, startRawService } from "../../support/integrations/raw-service.js";
import { ADVISORY_NOTICE, startStructuralOnlyService } from "../../support/integrations/service.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

function host(env: Record<string, string>) {
  const toasts: unknown[] = [];
  const stderr: string[] = [];
  const client = { tui: { showToast: async (arg: unknown) => void toasts.push(arg) } };
  const hooks = createOpenCodeHooks({ client, env, stderr: { write: (s: string) => stderr.push(s) } });
  const warnings = () => stderr.map((line) => line.replace(/^Little Canary: /, "").replace(/\n$/, ""));
  return { hooks, toasts, stderr, warnings };
}

const CLEAN_VERDICT = JSON.stringify({
  safe: true,
  safe_input: "x",
  total_latency: 0.1,
  blocked_by: null,
  summary: "ok",
  canary_risk_score: 0,
  degraded: false,
  canary_status: "exercised",
  analysis_method: "regex",
  analysis_status: "exercised",
  layers: [],
  advisory: { flagged: false, severity: "none", signals: [], message: "" },
});

describe("chat.message: the four acceptance cases in both failure modes", () => {
  const table: Array<[CaseName, "allow" | "deny", string[]]> = [
    ["benign", "allow", []],
    ["benign", "deny", []],
    ["unsafe", "allow", ["Prompt rejected by the screening service; this OpenCode hook cannot block the turn."]],
    ["unsafe", "deny", ["Prompt rejected by the screening service; this OpenCode hook cannot block the turn."]],
    ["flagged", "allow", ["Prompt flagged; OpenCode continued."]],
    ["flagged", "deny", ["Prompt flagged; OpenCode continued."]],
    ["down", "allow", ["Screening unavailable; OpenCode continued."]],
    ["down", "deny", [`Screening unavailable; OpenCode continued.${CANNOT_BLOCK}`]],
  ];
  it.each(table)("%s prompt under %s leaves the message unchanged and warns exactly so", async (name, mode, expected) => {
    const { service, prompt } = await serviceFor(name);
    open.push(service);
    // The adapters' largest timeout: a busy machine must not turn a benign answer into a failure.
    const h = host({ LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: mode, LITTLE_CANARY_TIMEOUT_MS: "5000" });
    const output = { message: { id: "m1" }, parts: [{ type: "text", text: prompt }] };
    const before = JSON.stringify(output);
    await h.hooks["chat.message"]({}, output);
    expect(JSON.stringify(output)).toBe(before);
    expect(h.warnings()).toEqual(expected);
    expect(h.toasts).toEqual(expected.map((message) => ({ body: { title: "Little Canary", message, variant: "warning" } })));
  });
});

describe("tool.execute.after: the four acceptance cases in both failure modes", () => {
  const withheld = "Tool result withheld before OpenCode sent it to the model.";
  const table: Array<[CaseName, "allow" | "deny", string | null, string[]]> = [
    ["benign", "allow", null, []],
    ["benign", "deny", null, []],
    ["unsafe", "allow", WITHHELD_REJECTED, [withheld]],
    ["unsafe", "deny", WITHHELD_REJECTED, [withheld]],
    ["flagged", "allow", null, ["Tool result flagged; OpenCode continued."]],
    ["flagged", "deny", null, ["Tool result flagged; OpenCode continued."]],
    ["down", "allow", null, ["Tool-result screening unavailable; OpenCode continued."]],
    ["down", "deny", WITHHELD_UNSCREENED, [`${withheld.slice(0, -1)} because screening did not complete (fail-closed policy).`]],
  ];
  it.each(table)("%s tool text under %s", async (name, mode, replacement, expected) => {
    const { service, prompt } = await serviceFor(name);
    open.push(service);
    // The adapters' largest timeout: a busy machine must not turn a benign answer into a failure.
    const h = host({ LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: mode, LITTLE_CANARY_TIMEOUT_MS: "5000" });
    const output = { title: "read", output: prompt, metadata: {} };
    await h.hooks["tool.execute.after"]({ tool: "read" }, output);
    expect(output.output).toBe(replacement ?? prompt);
    expect(h.warnings()).toEqual(expected);
  });
});

describe("a service without a canary (structural layer only)", () => {
  it("a structural flag is named as a flag with its incomplete coverage, at the prompt and for a tool result", async () => {
    const service = await startStructuralOnlyService();
    open.push(service);
    const allow = host({ LITTLE_CANARY_ENDPOINT: service.checkEndpoint });
    await allow.hooks["chat.message"]({}, { parts: [{ type: "text", text: UNSAFE_PROMPT }] });
    const kept = { output: UNSAFE_PROMPT };
    await allow.hooks["tool.execute.after"]({}, kept);
    expect(kept.output).toBe(UNSAFE_PROMPT);
    expect(allow.warnings()).toEqual([
      "Prompt flagged; screening coverage is incomplete; OpenCode continued.",
      ADVISORY_NOTICE,
      "Tool result flagged; screening coverage is incomplete; OpenCode continued.",
    ]);
  });

  it("under deny a flagged tool result is withheld and named as flagged", async () => {
    const service = await startStructuralOnlyService();
    open.push(service);
    const deny = host({ LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: "deny" });
    const output = { output: UNSAFE_PROMPT };
    await deny.hooks["tool.execute.after"]({}, output);
    expect(output.output).toBe(WITHHELD_UNSCREENED);
    expect(deny.warnings()).toEqual([
      "Tool result flagged and withheld before OpenCode sent it to the model because screening did not complete (fail-closed policy).",
      ADVISORY_NOTICE,
    ]);
  });
});

describe("what is screened", () => {
  it("sends nothing for a message or tool output that is empty or whitespace only", async () => {
    const raw = await startRawService(answering(CLEAN_VERDICT));
    open.push(raw);
    const h = host({ LITTLE_CANARY_ENDPOINT: raw.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: "deny" });
    await h.hooks["chat.message"]({}, { parts: [{ type: "text", text: " \n\t\u3000" }] });
    const output = { output: "\n\n", content: [{ type: "text", text: " " }] };
    await h.hooks["tool.execute.after"]({}, output);
    expect(output).toEqual({ output: "\n\n", content: [{ type: "text", text: " " }] });
    expect(raw.requests).toHaveLength(0);
    expect(h.warnings()).toEqual([]);
  });

  it("sends only the non-synthetic, non-ignored text parts", async () => {
    const raw = await startRawService(answering(CLEAN_VERDICT));
    open.push(raw);
    const h = host({ LITTLE_CANARY_ENDPOINT: raw.checkEndpoint });
    const output = {
      parts: [
        { type: "text", text: "current prompt" },
        { type: "text", text: "injected context", synthetic: true },
        { type: "text", text: "hidden", ignored: true },
        { type: "file", url: "file:///etc/passwd" },
      ],
    };
    await h.hooks["chat.message"]({}, output);
    expect(raw.requests.filter((r) => r.url === "/check").map((r) => r.body)).toEqual(['{"text":"current prompt"}']);
    expect(h.warnings()).toEqual([]);
  });

  it("withholds every screened part of an unsafe tool result and keeps images and resource URIs", async () => {
    const { service, prompt } = await serviceFor("unsafe");
    open.push(service);
    const h = host({ LITTLE_CANARY_ENDPOINT: service.checkEndpoint });
    const output = {
      output: prompt,
      content: [
        { type: "text", text: prompt },
        { type: "image", data: "iVBOR", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///notes.txt", text: "more text" } },
      ],
    };
    await h.hooks["tool.execute.after"]({}, output);
    expect(output).toEqual({
      output: WITHHELD_REJECTED,
      content: [
        { type: "text", text: WITHHELD_REJECTED },
        { type: "image", data: "iVBOR", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///notes.txt", text: WITHHELD_REJECTED } },
      ],
    });
  });

  it("a non-loopback endpoint is never contacted and the problem is reported", async () => {
    const h = host({ LITTLE_CANARY_ENDPOINT: "http://192.0.2.10:18421/check" });
    await h.hooks["chat.message"]({}, { parts: [{ type: "text", text: BENIGN_PROMPT }] });
    expect(h.warnings()).toEqual([
      "Screening unavailable: invalid adapter configuration (endpoint must be an HTTP loopback /check URL without credentials or query data); OpenCode continued.",
    ]);
  });

  it("a failing toast does not stop the stderr warning", async () => {
    const stderr: string[] = [];
    const client = { tui: { showToast: async () => Promise.reject(new Error("tui gone")) } };
    const hooks = createOpenCodeHooks({ client, env: { LITTLE_CANARY_FAILURE_MODE: "bogus" }, stderr: { write: (s: string) => stderr.push(s) } });
    await hooks["chat.message"]({}, { parts: [{ type: "text", text: BENIGN_PROMPT }] });
    expect(stderr).toEqual([
      "Little Canary: Screening unavailable: invalid adapter configuration (failure mode must be 'allow' or 'deny'); OpenCode continued. This OpenCode hook cannot block the turn, so the fail-closed policy could not be applied.\n",
    ]);
  });

  it("the checked-in entry module exports exactly one plugin function, which returns both hooks", async () => {
    const entry = await openCodeBundle();
    expect(Object.keys(entry)).toEqual(["LittleCanaryPlugin"]);
    const { LittleCanaryPlugin } = entry;
    const hooks = await LittleCanaryPlugin({ client: {} });
    expect(Object.keys(hooks).sort()).toEqual(["chat.message", "tool.execute.after"]);
  });
});
