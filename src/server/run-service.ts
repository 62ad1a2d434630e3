// The `serve` verb: one call builds the pipeline and the service, binds 127.0.0.1, logs the
// start-up banner, waits for `stop`, drains, and returns once every connection is closed. The
// log never carries request text. A bind failure is a ServerBindError, thrown before anything
// is logged.
import { endpointClass, endpointOrigin } from "../canary/endpoint.js";
import type { SecurityPipelineOptions } from "../pipeline/options.js";
import { SecurityPipeline } from "../pipeline/pipeline.js";
import { CanaryPool, pinCanaryPool } from "../canary/pool.js";
import { createServer, serviceControl, type ServeOptions } from "./create-server.js";
import { closeGracefully, listenLoopback } from "./lifecycle.js";
import type { ServerLog } from "./log.js";

/** Options of `runService`. */
export interface RunServiceOptions {
  /** The pipeline's options; its warnings go to `log`. */
  readonly pipeline: SecurityPipelineOptions;
  /** The service's limits and allowed origins. */
  readonly service: Omit<ServeOptions, "log">;
  /** Port on 127.0.0.1 (0: any free port). */
  readonly port: number;
  readonly log: ServerLog;
  /** Resolves to begin the shutdown (stop accepting, let accepted requests finish). */
  readonly stop: Promise<void>;
  /** Resolves to cut the drain short (the remaining connections are closed at once). */
  readonly force: Promise<void>;
}

/**
 * Run the loopback screening service until `stop` resolves and the drain has finished. Throws
 * `ServerBindError` when the port cannot be bound; whatever happens, no connection stays open.
 */
export async function runService(options: RunServiceOptions): Promise<void> {
  const { log } = options;
  const pipeline = new SecurityPipeline({ ...options.pipeline, onWarning: (message) => log("WARNING", message) });
  // A pool of canary endpoints is pinned to one identity before the service accepts a request.
  await pinCanaryPool(pipeline.probe);
  const server = createServer(pipeline, { ...options.service, log });
  try {
    const port = await listenLoopback(server, options.port);
    const d = pipeline.describe();
    log("INFO", "🐤 Little Canary server starting...");
    log("INFO", `   Mode: ${d.mode}${d.onDegraded === "fail_closed" ? " (fail-closed)" : ""}`);
    if (d.canaryEnabled) {
      log("INFO", `   Model: ${pipeline.options.canaryModel}`);
      const origin = pipeline.probe instanceof CanaryPool ? pipeline.probe.endpointOrigin : endpointOrigin(pipeline.options.ollamaUrl);
      log("INFO", `   ${pipeline.probe instanceof CanaryPool ? "Canary pool" : "Ollama"}: ${origin === "<invalid endpoint>" ? "invalid" : origin}`);
      log("INFO", `   Canary timeout: ${d.canaryTimeout}s`);
      if (endpointClass(pipeline.options.ollamaUrl) === "remote") {
        log("WARNING", `--ollama-url ${origin} is not a loopback address: raw input text will leave this machine`);
      }
    } else {
      log("WARNING", "   Canary: disabled (--no-canary); verdicts are structural only and say so");
    }
    const report = await serviceControl(server)?.health?.refresh();
    if (d.canaryEnabled) log("INFO", `   Available: ${report ? String(report.canary_available ?? "unknown") : "unknown"}`);
    log("INFO", `   Queue: ${options.service.maxConcurrent} concurrent, ${options.service.maxQueue} waiting`);
    log("INFO", `   Connections: at most ${options.service.maxConnections}`);
    const origins = options.service.allowOrigins ?? [];
    if (origins.length > 0) log("INFO", `   Allowed origins: ${origins.join(", ")}`);
    log("INFO", `   Port: ${port}`);
    if (report?.ready) log("INFO", `🐤 Canary server ready on http://127.0.0.1:${port}`);
    else log("WARNING", `🐤 Canary server listening — DEGRADED on http://127.0.0.1:${port}`);
    await options.stop;
    log("INFO", "🐤 Shutting down...");
    await closeGracefully(server, options.force);
    log("INFO", "🐤 Stopped");
  } finally {
    if (server.listening) server.closeAllConnections();
  }
}
