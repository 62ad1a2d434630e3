// The `serve` verb: one call builds the pipeline and the service, binds 127.0.0.1 (a bind failure is a
// ServerBindError, before anything is logged), logs the banner, waits for `stop`, drains, and
// returns once every connection is closed. The log never carries request text.
import { endpointClass, endpointOrigin } from "../canary/endpoint.js";
import type { SecurityPipelineOptions } from "../pipeline/options.js";
import { SecurityPipeline } from "../pipeline/pipeline.js";
import { preflightCanary } from "../pipeline/canary-preflight.js";
import { poolMembers } from "../canary/identity.js";
import { CanaryModelError } from "../canary/served-models.js";
import { modelCheckProblem } from "../pipeline/canary-warning.js";
import { createServer, serviceControl, type ServeOptions } from "./create-server.js";
import { closeGracefully, listenLoopback } from "./lifecycle.js";
import type { ServerLog } from "./access-log.js";
import { displayText } from "../core/display-text.js";

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

/** Logs how the service stopped: every request answered, or how many a second interrupt left unanswered; returns that count. */
function logUnanswered(log: ServerLog, unanswered: number): number {
  if (unanswered === 0) log("INFO", "🐤 Stopped");
  else log("WARNING", `🐤 Stopped with ${unanswered} request${unanswered === 1 ? "" : "s"} unanswered: a second interrupt cut the drain short`);
  return unanswered;
}

/** What a start-up wait that the first interrupt ended gives instead of its value. */
const STOPPED: unique symbol = Symbol("stopped");

/** Says, before the pre-start check of the canary, which canary it is and how long it may wait (nothing without a canary). */
function logCanaryCheck(pipeline: SecurityPipeline, log: ServerLog): void {
  const d = pipeline.describe();
  if (!d.canaryEnabled) return;
  const o = pipeline.options;
  if (o.provider === "embedded") {
    log("INFO", "🐤 Opening the embedded canary before listening (model file checked and loaded)...");
    return;
  }
  const members = poolMembers(pipeline.probe);
  const origin = members !== null ? pipeline.probe.endpointOrigin : endpointOrigin(o.provider === "openai" ? o.baseUrl : o.ollamaUrl);
  // One server's model list waits the canary timeout, at most 30 s (canary/chat-backend.ts); an
  // OpenAI-compatible server then answers one warm-up chat, which may take the whole timeout; a
  // pool asks each replica and then pins the pool, so no single figure bounds it.
  const list = Math.min(o.canaryTimeout, 30);
  const wait =
    members !== null ? "" : o.provider === "openai" ? ` (its model list up to ${list}s, then one warm-up call up to ${o.canaryTimeout}s)` : ` (up to ${list}s)`;
  const where = origin === "<invalid endpoint>" ? "invalid endpoint" : origin;
  log("INFO", `🐤 Checking the canary before listening: ${where}, model ${displayText(o.canaryModel)}${wait}...`);
}

/**
 * Run the loopback screening service until `stop` resolves and the drain has finished; resolves
 * with the requests left unanswered when `force` cut the drain short (0 after a full drain). Throws
 * `ServerBindError` when the port cannot be bound; whatever happens, no connection stays open.
 */
export async function runService(options: RunServiceOptions): Promise<number> {
  const { log } = options;
  const pipeline = new SecurityPipeline({ ...options.pipeline, onWarning: (message) => log("WARNING", message) });
  // Before the port is bound: a canary pool is pinned to one identity, and a server that cannot
  // hold a whole window refuses the start. A canary that accepts connections but never answers
  // holds the start for the model list's deadline, so the log says first what it waits for.
  logCanaryCheck(pipeline, log);
  // The start-up waits (the canary check, the first health report) end at the first interrupt:
  // a canary that never answers must not hold a Ctrl-C for the whole timeout.
  let interrupted = false;
  const stopped = options.stop.then((): typeof STOPPED => {
    interrupted = true;
    return STOPPED;
  });
  const served = await Promise.race([
    stopped,
    preflightCanary(pipeline).catch((error: unknown) => {
      // A check abandoned at an interrupt ends in silence: the log already said how the start ended.
      if (interrupted) return null;
      // An Ollama without the canary model: the service starts degraded (it never refuses, so
      // putting it in front of a flow cannot break it) and the start-up log says what to pull.
      // Its context is proved on the first call; an OpenAI-compatible server's proof was not
      // made, so that start is refused.
      if (!(error instanceof CanaryModelError) || pipeline.options.provider !== "ollama") throw error;
      log("WARNING", error.message);
      return null;
    }),
  ]);
  if (served === STOPPED) {
    log("INFO", "🐤 Interrupted before the service started: nothing was served");
    return 0;
  }
  const server = createServer(pipeline, { ...options.service, log });
  try {
    const port = await listenLoopback(server, options.port);
    const d = pipeline.describe();
    log("INFO", "🐤 Little Canary server starting...");
    log("INFO", `   Mode: ${d.mode}${d.onDegraded === "fail_closed" ? " (fail-closed)" : ""}`);
    if (d.canaryEnabled) {
      const o = pipeline.options;
      log("INFO", `   Model: ${displayText(o.canaryModel)}`);
      const members = poolMembers(pipeline.probe);
      const url = o.provider === "openai" ? o.baseUrl : o.ollamaUrl;
      const origin = members !== null ? pipeline.probe.endpointOrigin : endpointOrigin(url);
      const kind = members !== null ? "Canary pool" : o.provider === "openai" ? "OpenAI-compatible server" : "Ollama";
      if (o.provider === "embedded") log("INFO", `   Embedded canary (in this process): model file SHA-256 ${o.embedded?.sha256 ?? "unknown"}`);
      else log("INFO", `   ${kind}: ${origin === "<invalid endpoint>" ? "invalid" : origin}`);
      const counted = served?.prompt_count === "tokenize" ? "POST /tokenize" : "the conservative bound";
      if (served !== null) log("INFO", `   max_model_len: ${served.max_model_len} (prompts counted by ${counted})`);
      log("INFO", `   Canary timeout: ${d.canaryTimeout}s`);
      const remote =
        members !== null ? members.some((m) => endpointClass(m.endpointOrigin) === "remote") : o.provider !== "embedded" && endpointClass(url) === "remote";
      const flag = o.provider === "openai" ? "--base-url" : "--ollama-url";
      if (remote) log("WARNING", `${flag} ${origin} is not a loopback address: raw input text will leave this machine`);
    } else {
      log("WARNING", "   Canary: disabled (--no-canary); verdicts are structural only and say so");
      // Nothing can be fully screened without a canary, so fail-closed denies every text.
      if (d.onDegraded === "fail_closed") log("WARNING", "   Fail-closed without a canary: every check is denied (blocked_by fail_closed)");
    }
    const health = await Promise.race([stopped, serviceControl(server)?.health?.refresh()]);
    if (health === STOPPED) {
      log("INFO", "🐤 Interrupted before the service was ready: shutting down");
      return logUnanswered(log, await closeGracefully(server, options.force));
    }
    const report = health;
    if (d.canaryEnabled) log("INFO", `   Available: ${report ? String(report.canary_available ?? "unknown") : "unknown"}`);
    log("INFO", `   Queue: ${options.service.maxConcurrent} concurrent, ${options.service.maxQueue} waiting`);
    log("INFO", `   Connections: at most ${options.service.maxConnections}`);
    const origins = options.service.allowOrigins ?? [];
    if (origins.length > 0) log("INFO", `   Allowed origins: ${origins.join(", ")}`);
    // That a token is set, never the token.
    if (options.service.token !== undefined) log("INFO", "   Bearer token: required on POST /check and POST /screen");
    if (options.service.accessLog !== undefined) log("INFO", "   Access log: one JSON line per request (never the text)");
    log("INFO", `   Port: ${port}`);
    if (report?.ready) log("INFO", `🐤 Canary server ready on http://127.0.0.1:${port}`);
    else {
      log("WARNING", `🐤 Canary server listening — DEGRADED on http://127.0.0.1:${port}`);
      const why = d.canaryEnabled ? modelCheckProblem(pipeline.probe) : null;
      if (why !== null) log("WARNING", `   ${why}`);
    }
    await options.stop;
    log("INFO", "🐤 Shutting down...");
    return logUnanswered(log, await closeGracefully(server, options.force));
  } finally {
    if (server.listening) server.closeAllConnections();
  }
}
