// `little-canary serve`: the loopback screening service (docs/serve.md). Parses the
// flags, builds one pipeline, binds 127.0.0.1, logs to stderr (never stdout, never request text),
// and resolves only after SIGINT/SIGTERM and a clean drain. Exit 0 after shutdown, 1 when the port
// cannot be bound, 2 for usage or configuration errors.
import { Command, InvalidArgumentError, Option } from "commander";
import { endpointClass, endpointOrigin } from "../../src/canary/endpoint.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { createServer, serviceControl } from "../../src/server/create-server.js";
import { normalizeAllowedOrigin } from "../../src/server/caller-origin.js";
import { DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_QUEUE, DEFAULT_PORT, DEFAULT_READ_TIMEOUT_MS } from "../../src/server/limits.js";
import { closeGracefully, listenLoopback, ServerBindError } from "../../src/server/lifecycle.js";
import { streamLog } from "../../src/server/log.js";
import type { CliIo } from "../io.js";
import { writeOut } from "../io.js";
import { addCanaryFlags, nonNegativeIntArg, pipelineOptionsFromFlags, positiveIntArg, timeoutArg, type CanaryFlags } from "../options.js";
import type { RunState } from "../run-state.js";
import { LONG_TEXT_HELP } from "./check.js";

export interface ServeFlags extends CanaryFlags {
  port: number;
  maxConcurrent: number;
  maxQueue: number;
  readTimeout: number;
  maxConnections: number;
  /** Absent when the flag was not given. */
  allowOrigin?: string[];
}

/** `--allow-origin` (repeatable): each value an http(s) origin, kept in normalised form. */
export function allowOriginArg(raw: string, previous: string[] = []): string[] {
  const origin = normalizeAllowedOrigin(raw);
  if (origin === null) {
    throw new InvalidArgumentError("must be an http(s) origin such as http://localhost:3000 (no path, query or user info)");
  }
  return previous.includes(origin) ? previous : [...previous, origin];
}

/** `--port`: an integer 0..65535 (0 = a port chosen by the OS). */
export function portArg(raw: string): number {
  const text = raw.trim();
  if (!/^[+-]?\d{1,12}$/.test(text)) {
    throw new InvalidArgumentError(`invalid port: '${raw.slice(0, 40)}' is not an integer`);
  }
  const port = Number(text);
  if (port < 0 || port > 65535) throw new InvalidArgumentError(`invalid port: ${port} is outside the valid range 0..65535`);
  return port;
}

/** Resolves once the first SIGINT/SIGTERM arrives; `second` resolves on the next one. */
function waitForSignals(io: CliIo): { first: Promise<void>; second: Promise<void>; dispose: () => void } {
  let count = 0;
  let wakeFirst: () => void = () => {};
  let wakeSecond: () => void = () => {};
  const first = new Promise<void>((resolve) => (wakeFirst = resolve));
  const second = new Promise<void>((resolve) => (wakeSecond = resolve));
  const dispose = io.onSignal(() => {
    count++;
    if (count === 1) wakeFirst();
    else wakeSecond();
  });
  return { first, second, dispose };
}

export async function runServe(flags: ServeFlags, io: CliIo): Promise<number> {
  const pipelineOptions = pipelineOptionsFromFlags(flags, io);
  const log = streamLog(io.stderr);
  const pipeline = new SecurityPipeline({ ...pipelineOptions, onWarning: (message) => log("WARNING", message) });
  const server = createServer(pipeline, {
    maxConcurrent: flags.maxConcurrent,
    maxQueue: flags.maxQueue,
    readTimeoutMs: Math.max(1, Math.round(flags.readTimeout * 1000)),
    maxConnections: flags.maxConnections,
    allowOrigins: flags.allowOrigin ?? [],
    log,
  });
  const signals = waitForSignals(io);
  try {
    let port: number;
    try {
      port = await listenLoopback(server, flags.port);
    } catch (error) {
      if (error instanceof ServerBindError) {
        await writeOut(io.stderr, `error: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
    const d = pipeline.describe();
    log("INFO", "🐤 Little Canary server starting...");
    log("INFO", `   Mode: ${d.mode}${d.onDegraded === "fail_closed" ? " (fail-closed)" : ""}`);
    if (d.canaryEnabled) {
      log("INFO", `   Model: ${pipeline.options.canaryModel}`);
      const origin = endpointOrigin(pipeline.options.ollamaUrl);
      log("INFO", `   Ollama: ${origin === "<invalid endpoint>" ? "invalid" : origin}`);
      log("INFO", `   Canary timeout: ${d.canaryTimeout}s`);
      if (endpointClass(pipeline.options.ollamaUrl) === "remote") {
        log("WARNING", `--ollama-url ${origin} is not a loopback address: raw input text will leave this machine`);
      }
    } else {
      log("WARNING", "   Canary: disabled (--no-canary); verdicts are structural only and say so");
    }
    const report = await serviceControl(server)?.health?.refresh();
    if (d.canaryEnabled) log("INFO", `   Available: ${report ? String(report.canary_available ?? "unknown") : "unknown"}`);
    log("INFO", `   Queue: ${flags.maxConcurrent} concurrent, ${flags.maxQueue} waiting`);
    log("INFO", `   Connections: at most ${flags.maxConnections}`);
    if (flags.allowOrigin !== undefined) log("INFO", `   Allowed origins: ${flags.allowOrigin.join(", ")}`);
    log("INFO", `   Port: ${port}`);
    if (report?.ready) log("INFO", `🐤 Canary server ready on http://127.0.0.1:${port}`);
    else log("WARNING", `🐤 Canary server listening — DEGRADED on http://127.0.0.1:${port}`);
    await signals.first;
    log("INFO", "🐤 Shutting down...");
    await closeGracefully(server, signals.second);
    log("INFO", "🐤 Stopped");
    return 0;
  } finally {
    signals.dispose();
    if (server.listening) server.closeAllConnections();
  }
}

export function serveCommand(io: CliIo, state: RunState): Command {
  const command = new Command("serve")
    .description("Run the loopback screening service: GET /health and POST /check on 127.0.0.1.")
    .option("--port <n>", "port on 127.0.0.1 (0 = any free port)", portArg, DEFAULT_PORT);
  addCanaryFlags(command, "advisory")
    .option("--fail-closed", "deny (safe:false) when behavioural coverage failed or did not run")
    .option("--max-concurrent <n>", "checks running at once", positiveIntArg, DEFAULT_MAX_CONCURRENT)
    .option("--max-queue <n>", "checks waiting for a slot before 503 + Retry-After", nonNegativeIntArg, DEFAULT_MAX_QUEUE)
    .addOption(
      new Option("--read-timeout <seconds>", "deadline for a client's body, and for its headers (those at most 5 s)")
        .argParser(timeoutArg)
        .default(DEFAULT_READ_TIMEOUT_MS / 1000),
    )
    .option("--max-connections <n>", "open connections at once; beyond it the oldest idle or stalled one is closed", positiveIntArg, DEFAULT_MAX_CONNECTIONS)
    .option("--allow-origin <origin>", "answer browser requests from this origin, with CORS headers (repeatable; others get 403)", allowOriginArg)
    .addHelpText(
      "after",
      `
The service binds 127.0.0.1 only. Mode defaults to advisory (flag, never block) on purpose;
use --mode block or --fail-closed where the service routes text. HTTP 200 does not mean
screened: read safe, degraded, canary_status and analysis_status of each verdict.
Logs go to stderr and never contain request text. Stop with Ctrl-C (twice to skip the drain).
${LONG_TEXT_HELP}

Exit codes: 0 after shutdown; 1 the port could not be bound; 2 usage or configuration error.

Examples:
  little-canary serve
  little-canary serve --port 0 --mode block --fail-closed --timeout 60
  curl -s -H 'content-type: application/json' -d '{"text":"hello"}' http://127.0.0.1:18421/check`,
    )
    .action(async (flags: ServeFlags) => {
      state.exitCode = await runServe(flags, io);
    });
  return command;
}
