// The Hermes Agent plugin (integrations/hermes-agent, Python standard library only) runs its own
// unittest suite against real `serve` instances on 127.0.0.1: one in block mode that requires a
// bearer token, one whose canary is unreachable (degraded verdicts), and a port where nothing
// listens. The canary is the scripted Ollama stand-in, never a model. Skipped, saying so, where
// python3 is missing (it is present here and on CI).
import { spawn, spawnSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusedUrl } from "../support/free-port.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { pipelineFor, startService, type RunningService } from "../support/server-harness.js";

const ROOT = resolve(import.meta.dirname, "../..");
const PLUGIN = join(ROOT, "integrations/hermes-agent");
const TOKEN = "hermes-test-token-0123456789abcdef";
const MARKER = "CANARY-REPLY-MARKER-7f3a";
const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
const hasPython = python.status === 0;
if (!hasPython) console.warn("python3 not found: the Hermes Agent plugin's tests are skipped");

let ollama: OllamaStandIn;
let dir: string;
const services: RunningService[] = [];

beforeAll(async () => {
  ollama = await startOllamaStandIn({ reply: `${MARKER} Paris is the capital of France.` });
  dir = await mkdtemp(join(tmpdir(), "lc-hermes-"));
});
afterAll(async () => {
  for (const service of services.splice(0)) await service.close();
  await ollama?.close();
  await rm(dir, { recursive: true, force: true });
});

function runUnittest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn("python3", ["-B", "-m", "unittest", "discover", "-s", join(PLUGIN, "tests"), "-v"], {
      cwd: PLUGIN,
      env: { PATH: process.env["PATH"] ?? "", PYTHONDONTWRITEBYTECODE: "1", ...env },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.on("close", (code) => done({ code, output }));
  });
}

describe("integrations/hermes-agent", () => {
  it.skipIf(!hasPython)(
    "passes its Python tests against a real serve with a token, a degraded serve and a refused port",
    async () => {
      const tokenFile = join(dir, "token");
      await writeFile(tokenFile, `${TOKEN}\n`);
      await chmod(tokenFile, 0o600);
      const blocking = await startService(pipelineFor(ollama.url, { mode: "block" }), { token: TOKEN });
      const degraded = await startService(pipelineFor(await refusedUrl(), { mode: "block", onWarning: () => {} }), { token: TOKEN });
      services.push(blocking, degraded);
      const result = await runUnittest({
        LC_TEST_ENDPOINT: `${blocking.url}/check`,
        LC_TEST_TOKEN_FILE: tokenFile,
        LC_TEST_DEGRADED_ENDPOINT: `${degraded.url}/check`,
        LC_TEST_REFUSED_ENDPOINT: `${await refusedUrl()}/check`,
        LC_TEST_CANARY_MARKER: MARKER,
      });
      expect(result.output).toMatch(/\nOK\n/);
      expect(result.output).not.toContain("skipped");
      expect(result.code).toBe(0);
      // The plugin really screened through the service: the canary was asked.
      expect(ollama.chatRequests().length).toBeGreaterThan(0);
    },
    60_000,
  );
});
