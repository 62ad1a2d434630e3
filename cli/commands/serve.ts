// `little-canary serve`: flags → `runService` (builds one pipeline, binds 127.0.0.1, logs to
// stderr, never stdout and never request text, and returns only after SIGINT/SIGTERM and a clean
// drain) → exit code. Exit 0 after shutdown, 1 when the port cannot be bound, 2 for usage or
// configuration errors.
import { Command, Option } from "commander";
import { DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_QUEUE, DEFAULT_PORT, DEFAULT_READ_TIMEOUT_MS } from "../../src/server/limits.js";
import { ServerBindError } from "../../src/server/lifecycle.js";
import { streamLog } from "../../src/server/log.js";
import { runService } from "../../src/server/run-service.js";
import { SERVE_ERROR_EXIT } from "../exit-codes.js";
import { writeOut, type CliIo } from "../io.js";
import { addCanaryFlags, nonNegativeIntArg, positiveIntArg, timeoutArg } from "../options.js";
import type { RunState } from "../run-state.js";
import { allowOriginArg, portArg, serviceOptionsFromFlags, waitForSignals, type ServeFlags } from "../serve-flags.js";
import { LONG_TEXT_HELP } from "./check.js";

export { allowOriginArg, portArg, type ServeFlags };

export async function runServe(flags: ServeFlags, io: CliIo): Promise<number> {
  const options = serviceOptionsFromFlags(flags, io);
  const signals = waitForSignals(io);
  try {
    await runService({ ...options, log: streamLog(io.stderr), stop: signals.first, force: signals.second });
    return 0;
  } catch (error) {
    if (!(error instanceof ServerBindError)) throw error;
    await writeOut(io.stderr, `error: ${error.message}\n`);
    return SERVE_ERROR_EXIT[error.code];
  } finally {
    signals.dispose();
  }
}

export function serveCommand(io: CliIo, state: RunState): Command {
  const command = new Command("serve")
    .description("Run the loopback screening service: GET /health, GET /ready and POST /check on 127.0.0.1.")
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
    .option("--access-log", "write one JSON line per request to stderr (time, method, route, status, verdict class, latency; never the text)")
    .addHelpText(
      "after",
      `
The service binds 127.0.0.1 only. Mode defaults to advisory (flag, never block) on purpose;
use --mode block or --fail-closed where the service routes text. HTTP 200 does not mean
screened: read safe, degraded, canary_status and analysis_status of each verdict.
Logs go to stderr and never contain request text. GET /ready is 503 while the canary is down
(readiness probes); GET /health is always 200 (liveness). Stop with Ctrl-C (twice to skip the drain).
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
