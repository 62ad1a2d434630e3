// Each CLI command is flags → one library call → print → exit code: the command files stay small
// and the demo and serve sequences are library verbs a library user can call without the CLI.
import { readdirSync, readFileSync } from "node:fs";
import { createServer as createNetServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayLines } from "../../src/demo/render.js";
import { DemoArgumentError } from "../../src/demo/live-endpoint.js";
import { LittleCanaryError, runDemoCommand, runService, ServerBindError } from "../../src/index.js";

const COMMANDS = join(import.meta.dirname, "../../cli/commands");

function occupiedPort(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({ server, port: typeof address === "object" && address !== null ? address.port : 0 });
    });
  });
}

const SERVICE = { maxConcurrent: 2, maxQueue: 3, readTimeoutMs: 1000, maxConnections: 8, allowOrigins: [] };
const NO_CANARY = { enableCanary: false };

describe("thin CLI commands", () => {
  it("every cli/commands/*.ts is at most 80 lines", () => {
    const files = readdirSync(COMMANDS).filter((name) => name.endsWith(".ts"));
    expect(files).toEqual(expect.arrayContaining(["check.ts", "demo.ts", "eval.ts", "ingest.ts", "screen.ts", "serve.ts", "verify.ts"]));
    const over = files.filter((name) => readFileSync(join(COMMANDS, name), "utf8").split("\n").length - 1 > 80);
    expect(over).toEqual([]);
  });

  it("demo, eval and serve commands do no reading, writing, binding or capture work themselves", () => {
    for (const name of ["demo.ts", "eval.ts", "serve.ts"]) {
      const text = readFileSync(join(COMMANDS, name), "utf8");
      expect(text, name).not.toMatch(/node:fs|node:http|writeCapture|captureFromLive|runReplay|runLive|listenLoopback|closeGracefully|new SecurityPipeline/);
    }
  });

  it("runDemoCommand replays without a capture as REPLAY UNAVAILABLE, exit 2, no model call", async () => {
    const notes: string[] = [];
    const result = await runDemoCommand({ live: false, backend: "ollama", model: "m", endpoint: "x", env: {}, onReplayError: (line) => notes.push(line) });
    expect(result.outcome.status).toBe("REPLAY UNAVAILABLE");
    expect(result.exitCode).toBe(2);
    expect(result.modelCall).toBe(false);
    expect(result.lines).toEqual(replayLines(result.outcome));
    expect(notes).toEqual([]);
  });

  it("runDemoCommand refuses a non-loopback live endpoint before any request or timeout read", async () => {
    let disclosed = false;
    const run = runDemoCommand({
      live: true,
      backend: "ollama",
      model: "qwen2.5:1.5b",
      endpoint: "http://192.0.2.1:11434",
      // An invalid timeout in the environment is not read: the endpoint is refused first.
      env: { LITTLE_CANARY_TIMEOUT: "nonsense" },
      onDisclosure: async () => {
        disclosed = true;
      },
    });
    await expect(run).rejects.toBeInstanceOf(DemoArgumentError);
    // A caller that catches the library's base error and reads its code catches this one too.
    await expect(run).rejects.toBeInstanceOf(LittleCanaryError);
    await expect(run).rejects.toMatchObject({ code: "demo_argument" });
    expect(disclosed).toBe(false);
  });

  it("runService binds 127.0.0.1, logs the banner without request text, and returns after stop and drain", async () => {
    const log: string[] = [];
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const done = runService({
      pipeline: NO_CANARY,
      service: SERVICE,
      port: 0,
      log: (level, message) => log.push(`${level} ${message}`),
      stop: stopped,
      force: new Promise(() => {}),
    });
    await expect.poll(() => log.find((line) => line.includes("Port:"))).toBeDefined();
    const port = Number(/Port: (\d+)/.exec(log.join("\n"))?.[1]);
    const reply = await fetch(`http://127.0.0.1:${port}/check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "hello secret" }),
    });
    expect(reply.status).toBe(200);
    stop();
    await done;
    expect(log).toContain("INFO    Queue: 2 concurrent, 3 waiting");
    expect(log.at(-1)).toBe("INFO 🐤 Stopped");
    expect(log.join("\n")).not.toContain("hello secret");
  });

  it("runService rejects with ServerBindError (code bind_failed) on a taken port, before any banner", async () => {
    const { server, port } = await occupiedPort();
    try {
      const log: string[] = [];
      const run = runService({
        pipeline: NO_CANARY,
        service: SERVICE,
        port,
        log: (_level, message) => log.push(message),
        stop: new Promise(() => {}),
        force: new Promise(() => {}),
      });
      await expect(run).rejects.toMatchObject({ code: "bind_failed" });
      await expect(run).rejects.toBeInstanceOf(ServerBindError);
      // One base class for every library error, this one too.
      await expect(run).rejects.toBeInstanceOf(LittleCanaryError);
      expect(log).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
