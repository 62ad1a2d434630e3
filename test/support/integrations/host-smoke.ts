// Runs every shipped host plugin from a folder the way its host would: a plain `node` child
// process, with only PATH and the adapter settings in its environment and a working directory
// outside the repository, so a plugin that needs node_modules, a symlink or the repository
// cannot pass. Each host is fed one unsafe verdict and must refuse (or withhold) through its own
// channel. Used for the checked-in folders and for the installed npm tarball.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { answering, startRawService } from "./raw-service.js";
import { hookInput, runHook } from "./run-hook.js";

/** A verdict the classifier reads as `deny` (a structural block). */
const UNSAFE_WIRE_VERDICT = {
  safe: false,
  degraded: false,
  canary_status: "skipped_after_block",
  analysis_status: "not_applicable",
  blocked_by: "structural_filter",
  advisory: { flagged: false, signals: [] },
};

function runNode(source: string, env: Record<string, string>, cwd: string): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", source], {
      cwd,
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), code }));
  });
}

/** What each host answered for the unsafe verdict (parsed from its own channel). */
export interface HostSmokeResult {
  readonly "claude-code": unknown;
  readonly "gemini-cli": unknown;
  readonly opencode: unknown;
  readonly pi: unknown;
  readonly openclaw: unknown;
}

/** The answers every host must give for UNSAFE_WIRE_VERDICT. */
export const EXPECTED_SMOKE: HostSmokeResult = {
  "claude-code": { decision: "block", reason: "Little Canary rejected this prompt before Claude Code started the turn." },
  "gemini-cli": { decision: "deny", reason: "Little Canary rejected this prompt before the Gemini agent started." },
  opencode: { output: "[Little Canary withheld this tool result after the tool ran; the screening service rejected its text.]" },
  pi: { action: "handled" },
  openclaw: {
    outcome: "block",
    reason: "Little Canary returned an unsafe verdict.",
    message: "Little Canary blocked this run. Review the prompt and screening details before retrying.",
  },
};

/**
 * Runs each host plugin found under `integrationsDir` (a folder laid out like integrations/)
 * against a loopback service answering an unsafe verdict, from working directory `cwd`.
 */
export async function runEveryHost(integrationsDir: string, cwd: string): Promise<HostSmokeResult> {
  const service = await startRawService(answering(JSON.stringify(UNSAFE_WIRE_VERDICT)));
  try {
    const env = { LITTLE_CANARY_ENDPOINT: service.checkEndpoint };
    const prompt = "a prompt for the smoke test";
    const claude = await runHook(join(integrationsDir, "claude-code/hooks/user-prompt-submit.mjs"), hookInput("UserPromptSubmit", prompt), env, cwd);
    const gemini = await runHook(join(integrationsDir, "gemini-cli/hooks/before-agent.mjs"), hookInput("BeforeAgent", prompt), env, cwd);
    const url = (host: string): string => JSON.stringify(pathToFileURL(join(integrationsDir, host, "index.mjs")).href);
    const opencode = await runNode(
      `const m = await import(${url("opencode")});
       const hooks = await m.LittleCanaryPlugin({ client: {} });
       const output = { output: ${JSON.stringify(prompt)} };
       await hooks["tool.execute.after"]({}, output);
       process.stdout.write(JSON.stringify(output));`,
      env,
      cwd,
    );
    const pi = await runNode(
      `const m = await import(${url("pi")});
       let handler;
       m.default({ on: (event, h) => { if (event === "input") handler = h; } });
       process.stdout.write(JSON.stringify(await handler({ text: ${JSON.stringify(prompt)} }, { hasUI: false })));`,
      env,
      cwd,
    );
    const openclaw = await runNode(
      `const m = await import(${url("openclaw")});
       let handler;
       m.default.register({ pluginConfig: { serviceUrl: ${JSON.stringify(service.origin)} }, logger: { warn() {} }, on: (event, h) => { if (event === "before_agent_run") handler = h; } });
       process.stdout.write(JSON.stringify(await handler({ prompt: ${JSON.stringify(prompt)} })));`,
      {},
      cwd,
    );
    const parse = (run: { stdout: string; stderr: string; code: number | null }, host: string): unknown => {
      if (run.code !== 0) throw new Error(`${host} exited with ${run.code}: ${run.stderr}`);
      return JSON.parse(run.stdout);
    };
    return {
      "claude-code": parse(claude, "claude-code"),
      "gemini-cli": parse(gemini, "gemini-cli"),
      opencode: parse(opencode, "opencode"),
      pi: parse(pi, "pi"),
      openclaw: parse(openclaw, "openclaw"),
    };
  } finally {
    await service.close();
  }
}
