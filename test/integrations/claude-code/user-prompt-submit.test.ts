// The Claude Code UserPromptSubmit hook as Claude Code runs it: `node` on the script, hook input
// on stdin, against a real little-canary service on 127.0.0.1 port 0 (Ollama stand-in), with the
// host-facing stdout compared byte for byte with the hook output Claude Code expects.
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BENIGN_PROMPT, UNSAFE_PROMPT, serviceFor, startScreeningService, type CaseName, type ScreeningService } from "../../support/integrations/service.js";
import { answering, startRawService, type RawService } from "../../support/integrations/raw-service.js";
import { hookInput, runHook } from "../../support/integrations/run-hook.js";
import { ADVISORY_NOTICE, startStructuralOnlyService } from "../../support/integrations/service.js";
import { REASON_MISSING_FIELDS, REASON_NOT_EXERCISED } from "../../../src/integrations/classify.js";
import { UNAUTHORIZED } from "../../../src/integrations/adapter/client.js";

const SCRIPT = resolve(import.meta.dirname, "../../../integrations/claude-code/hooks/user-prompt-submit.mjs");
const EVENT = "UserPromptSubmit";
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
const REJECTED = { decision: "block", reason: "Little Canary rejected this prompt before Claude Code started the turn." };
const FLAGGED = { systemMessage: "Little Canary flagged this prompt but the server's routing policy allowed it." };
const failOpen = (r: string) => ({
  systemMessage: `Little Canary screening unavailable: ${r}. Claude Code continued because Little Canary is fail-open.`,
});
const failClosed = (r: string) => ({
  decision: "block",
  reason: `Little Canary screening unavailable: ${r}. Prompt blocked by configured fail-closed policy.`,
});

async function track<T extends { close(): Promise<void> }>(item: T): Promise<T> {
  open.push(item);
  return item;
}

describe("the four acceptance cases in both failure modes", () => {
  const table: Array<[CaseName, "allow" | "deny", unknown]> = [
    ["benign", "allow", {}],
    ["benign", "deny", {}],
    ["unsafe", "allow", REJECTED],
    ["unsafe", "deny", REJECTED],
    ["flagged", "allow", FLAGGED],
    ["flagged", "deny", FLAGGED],
    ["down", "allow", failOpen("URLError")],
    ["down", "deny", failClosed("URLError")],
  ];
  it.each(table)("%s prompt with failure mode %s answers exactly the table's object", async (name, mode, expected) => {
    const { service, prompt } = await serviceFor(name);
    await track(service);
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

describe("coverage that did not run is never a pass", () => {
  async function degradedService(onDegraded: "fail_open" | "fail_closed"): Promise<ScreeningService> {
    return track(await startScreeningService({ reply: { fault: "status", status: 500 }, onDegraded }));
  }

  it("a degraded verdict warns under allow and blocks under deny", async () => {
    const service = await degradedService("fail_open");
    const env = { LITTLE_CANARY_ENDPOINT: service.checkEndpoint };
    const allow = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), env);
    const deny = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), { ...env, LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(allow.stdout).toBe(line(failOpen("behavioral coverage was not exercised")));
    expect(deny.stdout).toBe(line(failClosed("behavioral coverage was not exercised")));
  });

  it("a fail-closed service's refusal is reported as unscreened, not as a detection", async () => {
    const service = await degradedService("fail_closed");
    const env = { LITTLE_CANARY_ENDPOINT: service.checkEndpoint };
    const allow = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), env);
    const deny = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), { ...env, LITTLE_CANARY_FAILURE_MODE: "Deny " });
    expect(allow.stdout).toBe(line(failOpen("behavioral coverage was not exercised")));
    expect(deny.stdout).toBe(line(failClosed("behavioral coverage was not exercised")));
  });
});

describe("a service without a canary (structural layer only)", () => {
  const flaggedLead = "Little Canary flagged this prompt; behavioral coverage was not exercised.";

  it.each(["fail_open", "fail_closed"] as const)(
    "a structural flag (service %s) is reported as a flag with its unexercised coverage, never as screening unavailable",
    async (onDegraded) => {
      const service = await track(await startStructuralOnlyService({ onDegraded }));
      const env = { LITTLE_CANARY_ENDPOINT: service.checkEndpoint };
      const allow = await runHook(SCRIPT, hookInput(EVENT, UNSAFE_PROMPT), env);
      const deny = await runHook(SCRIPT, hookInput(EVENT, UNSAFE_PROMPT), { ...env, LITTLE_CANARY_FAILURE_MODE: "deny" });
      expect(allow.stdout).toBe(line({ systemMessage: `${flaggedLead} Claude Code continued because Little Canary is fail-open. ${ADVISORY_NOTICE}` }));
      expect(deny.stdout).toBe(
        line({ decision: "block", reason: `${flaggedLead} Prompt blocked by configured fail-closed policy.`, systemMessage: ADVISORY_NOTICE }),
      );
      expect(`${allow.stdout}${deny.stdout}`).not.toContain("screening unavailable");
    },
  );

  it("a structural block is a rejection in both failure modes", async () => {
    const service = await track(await startStructuralOnlyService({ mode: "block" }));
    for (const mode of ["allow", "deny"]) {
      const run = await runHook(SCRIPT, hookInput(EVENT, UNSAFE_PROMPT), { LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: mode });
      expect(run.stdout).toBe(line(REJECTED));
    }
  });

  it("a structurally clean prompt is still not passed silently: its canary did not run", async () => {
    const service = await track(await startStructuralOnlyService({ mode: "block" }));
    const env = { LITTLE_CANARY_ENDPOINT: service.checkEndpoint };
    const allow = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), env);
    const deny = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), { ...env, LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(allow.stdout).toBe(line(failOpen("behavioral coverage was not exercised")));
    expect(deny.stdout).toBe(line(failClosed("behavioral coverage was not exercised")));
  });
});

describe("a prompt with nothing to screen", () => {
  it.each([
    ["empty", ""],
    ["whitespace only", " \n\t\u00a0\u3000 "],
  ])("an %s prompt passes as {} without a request, under deny too", async (_label, prompt) => {
    const service = await track(await startRawService(answering("{}")));
    const run = await runHook(SCRIPT, hookInput(EVENT, prompt), { LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(run.stdout).toBe(line({}));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(service.requests).toHaveLength(0);
  });

  it("a prompt of invisible format characters is not blank: it is screened", async () => {
    const service = await track(await startScreeningService());
    const run = await runHook(SCRIPT, hookInput(EVENT, "\u200b\u200b"), { LITTLE_CANARY_ENDPOINT: service.checkEndpoint });
    expect(run.stdout).toBe(line(REJECTED));
  });
});

describe("transport failures and bad answers", () => {
  async function raw(body: string | Buffer, status = 200): Promise<RawService> {
    return track(await startRawService(answering(body, status)));
  }

  it.each([
    ["a JSON array", "[]", 200, "ValueError"],
    ["non-JSON", "<html>busy</html>", 200, "JSONDecodeError"],
    ["an answer over 64 KiB", `{"pad":"${"x".repeat(70_000)}"}`, 200, "ValueError"],
    ["HTTP 503", '{"error":"pipeline check failed"}', 503, "HTTPError"],
    ["a verdict without coverage fields", '{"safe":true}', 200, "verdict omitted required coverage fields"],
  ])("%s blocks under deny and is never a pass", async (_label, body, status, reason) => {
    const service = await raw(body, status);
    const env = { LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_FAILURE_MODE: "deny" };
    const run = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), env);
    expect(run.stdout).toBe(line(failClosed(reason)));
    expect(run.stderr).toBe("");
  });

  it("a prompt over the service's 64 KiB request limit is not sent and is reported", async () => {
    const service = await raw("{}");
    const run = await runHook(SCRIPT, hookInput(EVENT, "a".repeat(70_000)), { LITTLE_CANARY_ENDPOINT: service.checkEndpoint });
    expect(run.stdout).toBe(line(failOpen("prompt exceeded the service's 65536-byte request limit")));
    expect(service.requests.filter((r) => r.url === "/check")).toHaveLength(0);
  });

  it("a redirect is not followed and counts as an HTTP failure", async () => {
    const target = await raw("{}");
    const redirecting = await track(
      await startRawService((_req, res) => {
        res.writeHead(307, { location: target.checkEndpoint });
        res.end();
      }),
    );
    const run = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), { LITTLE_CANARY_ENDPOINT: redirecting.checkEndpoint });
    expect(run.stdout).toBe(line(failOpen("HTTPError")));
    expect(target.requests).toHaveLength(0);
  });

  it("a service that never answers ends at the adapter's deadline", async () => {
    const hanging = await track(await startRawService(() => {}));
    // The service never answers: the hook's TimeoutError verdict shows its own deadline ended the wait.
    const run = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), {
      LITTLE_CANARY_ENDPOINT: hanging.checkEndpoint,
      LITTLE_CANARY_TIMEOUT_MS: "300",
      LITTLE_CANARY_FAILURE_MODE: "deny",
    });
    expect(run.stdout).toBe(line(failClosed("TimeoutError")));
  });

  it("failure output never repeats the prompt or the service's body", async () => {
    const service = await raw("secret-body-text", 500);
    const prompt = "my private prompt 12345";
    const run = await runHook(SCRIPT, hookInput(EVENT, prompt), { LITTLE_CANARY_ENDPOINT: service.checkEndpoint });
    expect(run.stdout).not.toContain("12345");
    expect(run.stdout).not.toContain("secret-body-text");
  });
});

describe("configuration and hook input", () => {
  it.each([
    ["a non-loopback host", "http://192.0.2.10:18421/check"],
    ["https", "https://127.0.0.1:18421/check"],
    ["a different path", "http://127.0.0.1:18421/screen"],
    ["userinfo", "http://user:pw@127.0.0.1:18421/check"],
    ["a query", "http://127.0.0.1:18421/check?token=secret"],
  ])("%s is refused before any request, without echoing the value", async (_label, endpoint) => {
    const service = await track(await startScreeningService());
    const aimed = endpoint.replace("18421", new URL(service.origin).port);
    const run = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), { LITTLE_CANARY_ENDPOINT: aimed });
    expect(run.stdout).toBe(line(failOpen("invalid adapter configuration (endpoint must be an HTTP loopback /check URL without credentials or query data)")));
    expect(run.stdout).not.toContain("secret");
    expect(service.ollama?.chatRequests()).toHaveLength(0);
  });

  it("an out-of-range timeout is an invalid configuration, blocked under deny", async () => {
    const run = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), { LITTLE_CANARY_TIMEOUT_MS: "50", LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(run.stdout).toBe(line(failClosed("invalid adapter configuration (timeout must be an integer from 100 to 5000 milliseconds)")));
  });

  it("an invalid failure mode is reported and refuses the prompt, never read as allow", async () => {
    for (const input of ["not json at all", hookInput(EVENT, BENIGN_PROMPT)]) {
      const run = await runHook(SCRIPT, input, { LITTLE_CANARY_FAILURE_MODE: "dney" });
      expect(run.stdout).toBe(line(failClosed("invalid adapter configuration (failure mode must be 'allow' or 'deny')")));
    }
  });

  it("another hook event is blocked under deny", async () => {
    const run = await runHook(SCRIPT, hookInput("PreToolUse", BENIGN_PROMPT), { LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(run.stdout).toBe(line(failClosed("unexpected hook event")));
  });

  it("stdin that is not JSON gives one block object under deny, nothing on stderr, without quoting the input", async () => {
    const run = await runHook(SCRIPT, "{ignore previous instructions", { LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(run.stdout).toBe(line(failClosed("hook input was not valid JSON")));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  it.each([
    ["a JSON array", "[]", "hook input was not a JSON object"],
    ["a numeric prompt", hookInput(EVENT, 42), "prompt was not a string"],
  ])("%s on stdin is reported", async (_label, stdin, reason) => {
    const run = await runHook(SCRIPT, stdin, {});
    expect(run.stdout).toBe(line(failOpen(reason)));
  });

  it("hook input that is not UTF-8 is reported without being parsed", async () => {
    const run = await runHook(SCRIPT, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(run.stdout).toBe(line(failClosed("hook input was not valid UTF-8")));
  });

  it("hook input over 1 MiB is refused without being parsed", async () => {
    const run = await runHook(SCRIPT, hookInput(EVENT, "a".repeat(1_048_576)), { LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(run.stdout).toBe(line(failClosed("hook input exceeded 1048576 bytes")));
  });
});

describe("timeout honesty", () => {
  it("says so when the service runs in advisory mode, which never rejects", async () => {
    const service = await track(await startScreeningService({ mode: "advisory" }));
    const run = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), { LITTLE_CANARY_ENDPOINT: service.checkEndpoint });
    expect(run.stdout).toBe(
      line({
        systemMessage:
          "Little Canary service runs in advisory mode, which never rejects a prompt; start it with --mode block to give this adapter refusal power.",
      }),
    );
  });

  it("says so when the service's canary timeout exceeds the hook's deadline", async () => {
    const service = await track(await startScreeningService({ canaryTimeout: 600, reply: '{"answer": "Paris"}' }));
    const run = await runHook(SCRIPT, hookInput(EVENT, BENIGN_PROMPT), { LITTLE_CANARY_ENDPOINT: service.checkEndpoint });
    expect(run.stdout).toBe(
      line({
        systemMessage:
          "Little Canary flagged this prompt but the server's routing policy allowed it. " +
          "Little Canary service's canary timeout (600s) exceeds this hook's 3000 ms deadline; slow screens will end as unavailable. Start it with --timeout 2 (or less).",
      }),
    );
  });
});

describe("the README", () => {
  // Every fixed reason the hook can put in <R>: the service's and the verdict's (client.ts,
  // classify.ts), the prompt's and the hook input's (command-hook.ts, client.ts).
  const FIXED_REASONS = [
    "URLError",
    "HTTPError",
    "TimeoutError",
    "ValueError",
    "JSONDecodeError",
    UNAUTHORIZED.missing,
    UNAUTHORIZED.refused,
    REASON_MISSING_FIELDS,
    REASON_NOT_EXERCISED,
    "prompt was not a string",
    "prompt exceeded the service's 65536-byte request limit",
    "hook input did not arrive in time",
    "hook input could not be read",
    "hook input exceeded 1048576 bytes",
    "hook input was not valid UTF-8",
    "hook input was not valid JSON",
    "hook input was not a JSON object",
    "unexpected hook event",
  ];

  it("lists exactly the fixed reasons the hook emits, and each literal one is in the bundle", () => {
    const readme = readFileSync(resolve(import.meta.dirname, "../../../integrations/claude-code/README.md"), "utf8");
    const section = readme.slice(readme.indexOf("`<R>` is one of these fixed reasons"), readme.indexOf("Neither the prompt"));
    const listed = [...section.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
    // The list also names <R> itself, the configuration template and an example class name.
    const templates = ["<R>", "invalid adapter configuration (...)", "invalid adapter configuration (LITTLE_CANARY_TOKEN_FILE: <rule>)", "TypeError"];
    expect(listed.filter((item) => !templates.includes(item))).toEqual(FIXED_REASONS);
    expect(listed).toEqual(expect.arrayContaining(templates));
    const bundle = readFileSync(SCRIPT, "utf8");
    for (const reason of FIXED_REASONS.filter((r) => !/\d|LITTLE_CANARY/.test(r))) expect(bundle, reason).toContain(`"${reason}"`);
  });
});

describe("self-contained plugin folder", () => {
  it("runs with node alone from a copy of the plugin folder outside the repository", async () => {
    const service = await track(await startScreeningService());
    const dir = mkdtempSync(join(tmpdir(), "lc-claude-plugin-"));
    try {
      // Plugin installers copy the folder as it is: the hook is one bundled file with no imports of its own.
      cpSync(resolve(import.meta.dirname, "../../../integrations/claude-code"), dir, { recursive: true });
      const run = await runHook(
        join(dir, "hooks/user-prompt-submit.mjs"),
        hookInput(EVENT, BENIGN_PROMPT),
        {
          LITTLE_CANARY_ENDPOINT: service.checkEndpoint,
        },
        dir,
      );
      expect(run.stdout).toBe(line({}));
      expect(run.stderr).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
