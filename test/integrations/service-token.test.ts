// The host adapters against a service that requires a bearer token (`serve --token-file`): every
// HTTP adapter (the Claude Code and Gemini CLI hook bundles run as `node` children, the OpenCode,
// Pi and OpenClaw plugins in process) reads LITTLE_CANARY_TOKEN_FILE, sends its token on `/check`
// only, and screens as before; no token, a wrong one or an unusable file is a visible failure under
// the host's failure mode, and the token (or the file's path) is never in anything a host shows.
import { chmod, mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readAdapterToken } from "../../src/integrations/adapter/config.js";
import { UNAUTHORIZED } from "../../src/integrations/adapter/client.js";
import { BLOCK_UNSAFE, BLOCK_UNSCREENED, createBeforeAgentRunHandler } from "../../src/integrations/openclaw/plugin.js";
import { CANNOT_BLOCK, createOpenCodeHooks } from "../../src/integrations/opencode/plugin.js";
import { createInputHandler } from "../../src/integrations/pi/plugin.js";
import { answering, startRawService, type RawService } from "../support/integrations/raw-service.js";
import { hookInput, runHook } from "../support/integrations/run-hook.js";
import { BENIGN_PROMPT, UNSAFE_PROMPT, startScreeningService, type ScreeningService } from "../support/integrations/service.js";

const CLAUDE = resolve(import.meta.dirname, "../../integrations/claude-code/hooks/user-prompt-submit.mjs");
const GEMINI = resolve(import.meta.dirname, "../../integrations/gemini-cli/hooks/before-agent.mjs");
const TOKEN = "adapter-token-5f0c9e2b7d41a8c3";
const OTHER_TOKEN = "adapter-token-ffffffffffffffff";

let dir: string;
let tokenFile: string;
let wrongTokenFile: string;
let service: ScreeningService;
const open: Array<{ close(): Promise<void> }> = [];

async function secretFile(name: string, content: string, mode = 0o600): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  await chmod(path, mode);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-adapter-token-"));
  tokenFile = await secretFile("token", `${TOKEN}\n`);
  wrongTokenFile = await secretFile("wrong-token", OTHER_TOKEN);
  service = await startScreeningService({ token: TOKEN });
});
afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

/** Nothing a host is shown holds the token, nor the token file's path. */
function expectNoSecret(...outputs: string[]): void {
  for (const output of outputs) {
    expect(output).not.toContain(TOKEN);
    expect(output).not.toContain(OTHER_TOKEN);
    expect(output).not.toContain(dir);
  }
}

// The hooks' largest timeout: a busy machine must not turn a benign answer into a failure.
const hookEnv = (extra: Record<string, string>) => ({ LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_TIMEOUT_MS: "5000", ...extra });
const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const claudeFailOpen = (r: string) => ({
  systemMessage: `Little Canary screening unavailable: ${r}. Claude Code continued because Little Canary is fail-open.`,
});
const claudeFailClosed = (r: string) => ({
  decision: "block",
  reason: `Little Canary screening unavailable: ${r}. Prompt blocked by configured fail-closed policy.`,
});

describe("the Claude Code hook (bundle) against a service with a token", () => {
  it("with the right token, a benign prompt passes and an unsafe one is rejected", async () => {
    const benign = await runHook(CLAUDE, hookInput("UserPromptSubmit", BENIGN_PROMPT), hookEnv({ LITTLE_CANARY_TOKEN_FILE: tokenFile }));
    const unsafe = await runHook(CLAUDE, hookInput("UserPromptSubmit", UNSAFE_PROMPT), hookEnv({ LITTLE_CANARY_TOKEN_FILE: tokenFile }));
    expect(benign.stdout).toBe(line({}));
    expect(unsafe.stdout).toBe(line({ decision: "block", reason: "Little Canary rejected this prompt before Claude Code started the turn." }));
    expect(benign.stderr + unsafe.stderr).toBe("");
    expectNoSecret(benign.stdout, unsafe.stdout);
  });

  it.each([
    ["without a token", false, UNAUTHORIZED.missing],
    ["with another token", true, UNAUTHORIZED.refused],
  ])("%s, the 401 is its own failure: reported under allow, blocked under deny", async (_label, sendWrong, reason) => {
    const env = hookEnv(sendWrong ? { LITTLE_CANARY_TOKEN_FILE: wrongTokenFile } : {});
    const allow = await runHook(CLAUDE, hookInput("UserPromptSubmit", BENIGN_PROMPT), env);
    const deny = await runHook(CLAUDE, hookInput("UserPromptSubmit", BENIGN_PROMPT), { ...env, LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(allow.stdout).toBe(line(claudeFailOpen(reason)));
    expect(deny.stdout).toBe(line(claudeFailClosed(reason)));
    expect(allow.stderr + deny.stderr).toBe("");
    expectNoSecret(allow.stdout, deny.stdout);
  });
});

describe("the Gemini CLI hook (bundle) against a service with a token", () => {
  it("passes with the right token and denies under deny without it", async () => {
    const ok = await runHook(GEMINI, hookInput("BeforeAgent", BENIGN_PROMPT), hookEnv({ LITTLE_CANARY_TOKEN_FILE: tokenFile }));
    const refused = await runHook(GEMINI, hookInput("BeforeAgent", BENIGN_PROMPT), hookEnv({ LITTLE_CANARY_FAILURE_MODE: "deny" }));
    expect(JSON.parse(ok.stdout)).toMatchObject({ decision: "allow" });
    expect(JSON.parse(refused.stdout)).toMatchObject({ decision: "deny" });
    expect(refused.stdout).toContain(UNAUTHORIZED.missing);
    expectNoSecret(ok.stdout, refused.stdout, ok.stderr, refused.stderr);
  });
});

describe("a token file that cannot be used is a configuration problem, and nothing is sent", () => {
  let raw: RawService;
  beforeAll(async () => {
    raw = await startRawService(answering("{}"));
  });
  afterAll(async () => {
    await raw?.close();
  });

  const problem = (rule: string) => `invalid adapter configuration (LITTLE_CANARY_TOKEN_FILE: ${rule})`;
  it.each([
    ["a missing file", async () => join(dir, "absent"), "cannot read file (not_found)"],
    ["an empty file", async () => secretFile("empty", "\n"), "the token is empty"],
    ["a directory", async () => mkdir(join(dir, "a-dir"), { recursive: true }).then(() => join(dir, "a-dir")), "not a regular file"],
    ["a file others may read", async () => secretFile("loose", TOKEN, 0o644), "readable or writable by group or others (chmod 600 it)"],
    ["a token too short", async () => secretFile("short", "abc"), "the token must be at least 16 characters"],
  ])("%s: named under allow, blocked under deny, no request made", async (_label, make, rule) => {
    const path = await make();
    const env = { LITTLE_CANARY_ENDPOINT: raw.checkEndpoint, LITTLE_CANARY_TOKEN_FILE: path };
    const allow = await runHook(CLAUDE, hookInput("UserPromptSubmit", BENIGN_PROMPT), env);
    const deny = await runHook(CLAUDE, hookInput("UserPromptSubmit", BENIGN_PROMPT), { ...env, LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(allow.stdout).toBe(line(claudeFailOpen(problem(rule))));
    expect(deny.stdout).toBe(line(claudeFailClosed(problem(rule))));
    expect(raw.requests).toEqual([]);
    expectNoSecret(allow.stdout, deny.stdout);
  });

  it("a FIFO at the path is refused at once, not waited on", async () => {
    const { execFileSync } = await import("node:child_process");
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    expect(await readAdapterToken(fifo)).toEqual({ ok: false, problem: problem("not a regular file") });
  });
});

describe("the token goes in the Authorization header of /check only", () => {
  it("is sent as Bearer on /check, never on /health, never in a URL", async () => {
    const seen: Array<{ url: string; authorization: string | undefined }> = [];
    const verdict = answering(JSON.stringify({ safe: false, degraded: false, canary_status: "skipped_after_block", analysis_status: "not_applicable" }));
    const raw = await startRawService((req, res) => {
      seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
      verdict(req, res);
    });
    open.push(raw);
    const run = await runHook(CLAUDE, hookInput("UserPromptSubmit", BENIGN_PROMPT), {
      LITTLE_CANARY_ENDPOINT: raw.checkEndpoint,
      LITTLE_CANARY_TOKEN_FILE: tokenFile,
    });
    expect(JSON.parse(run.stdout)).toMatchObject({ decision: "block" });
    expect(seen.find((r) => r.url === "/check")?.authorization).toBe(`Bearer ${TOKEN}`);
    for (const request of seen) {
      if (request.url !== "/check") expect(request.authorization).toBeUndefined();
      expect(request.url).not.toContain(TOKEN);
    }
  });
});

describe("the plugins (OpenCode, Pi, OpenClaw) against a service with a token", () => {
  const env = (extra: Record<string, string>) => ({ LITTLE_CANARY_ENDPOINT: service.checkEndpoint, LITTLE_CANARY_TIMEOUT_MS: "5000", ...extra });

  it("OpenCode: silent with the right token; a visible 401 warning without it", async () => {
    const run = async (extra: Record<string, string>) => {
      const stderr: string[] = [];
      const hooks = createOpenCodeHooks({ env: env(extra), stderr: { write: (s: string) => stderr.push(s) } });
      await hooks["chat.message"]({}, { message: { id: "m1" }, parts: [{ type: "text", text: BENIGN_PROMPT }] });
      return stderr.join("");
    };
    expect(await run({ LITTLE_CANARY_TOKEN_FILE: tokenFile })).toBe("");
    const missing = await run({ LITTLE_CANARY_FAILURE_MODE: "deny" });
    expect(missing).toBe(`Little Canary: Screening unavailable: ${UNAUTHORIZED.missing}; OpenCode continued.${CANNOT_BLOCK}\n`);
    expectNoSecret(missing);
  });

  it("Pi: continues with the right token; stops the input under deny with a wrong one", async () => {
    const notes: Array<[string, string]> = [];
    const ctx = { hasUI: true, ui: { notify: (message: string, level: string) => void notes.push([message, level]) } };
    expect(await createInputHandler({ env: env({ LITTLE_CANARY_TOKEN_FILE: tokenFile }) })({ text: BENIGN_PROMPT }, ctx)).toEqual({ action: "continue" });
    expect(notes).toEqual([]);
    const wrong = createInputHandler({ env: env({ LITTLE_CANARY_TOKEN_FILE: wrongTokenFile, LITTLE_CANARY_FAILURE_MODE: "deny" }) });
    expect(await wrong({ text: BENIGN_PROMPT }, ctx)).toEqual({ action: "handled" });
    expect(notes).toEqual([[`Little Canary screening unavailable: ${UNAUTHORIZED.refused}; Pi stopped this input under the fail-closed policy.`, "error"]]);
    expectNoSecret(JSON.stringify(notes));
  });

  it("OpenClaw: blocks the unsafe prompt with the right token; blocks as unscreened under deny without it", async () => {
    const warnings: string[] = [];
    const logger = { warn: (m: string) => void warnings.push(m) };
    const withToken = createBeforeAgentRunHandler({ config: { serviceUrl: service.origin }, env: { LITTLE_CANARY_TOKEN_FILE: tokenFile }, logger });
    expect(await withToken({ prompt: UNSAFE_PROMPT })).toEqual(BLOCK_UNSAFE);
    expect(await withToken({ prompt: BENIGN_PROMPT })).toEqual({ outcome: "pass" });
    expect(warnings).toEqual([]);
    const without = createBeforeAgentRunHandler({ config: { serviceUrl: service.origin }, env: { LITTLE_CANARY_FAILURE_MODE: "deny" }, logger });
    expect(await without({ prompt: BENIGN_PROMPT })).toEqual(BLOCK_UNSCREENED);
    expect(warnings).toEqual([`[little-canary-openclaw] ${UNAUTHORIZED.missing}; blocking run (fail-closed policy)`]);
  });
});
