// `little-canary serve`: flags → the `serve` verb (`runService`: one pipeline, binds 127.0.0.1,
// logs to stderr, never stdout and never request text, and returns only after SIGINT/SIGTERM and
// a clean drain) → exit code. Exit 0 after shutdown, 1 when the port cannot be bound, 2 for usage or
// configuration errors, the signal's code (130, 143) when a second interrupt left requests
// unanswered. The library is imported when the command runs.
import { Command, Option } from "commander";
import { DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_QUEUE, DEFAULT_PORT, DEFAULT_READ_TIMEOUT_MS } from "../../src/verbs/defaults.js";
import { SERVE_ERROR_EXIT } from "../exit-codes.js";
import { signalExitCode, writeOut, type CliIo } from "../io.js";
import { addCanaryFlags, nonNegativeIntArg, positiveIntArg, timeoutArg } from "../flags.js";
import { SERVE_HELP } from "../help.js";
import type { RunState } from "../run-state.js";
import { allowOriginArg, portArg, type ServeFlags } from "../serve-args.js";

/** Runs the service until SIGINT/SIGTERM and a drain; returns the exit code. */
export async function run(flags: ServeFlags, io: CliIo): Promise<number> {
  const [{ serve, ServerBindError }, { waitForSignals }, { verbIo }] = await Promise.all([
    import("../../src/verbs/serve.js"),
    import("../serve-flags.js"),
    import("../verb-io.js"),
  ]);
  // Listened for only once the service starts (the verb asks), so a refused start leaves no handler.
  const started: { signals?: ReturnType<typeof waitForSignals> } = {};
  try {
    const unanswered = await serve({ ...flags, io: verbIo(io), stopSignals: () => (started.signals = waitForSignals(io)) });
    // A second interrupt cut the drain short: not a clean stop, so the signal's own code.
    return unanswered > 0 ? signalExitCode(started.signals?.forcedBy() ?? "SIGINT") : 0;
  } catch (error) {
    if (!(error instanceof ServerBindError)) throw error;
    await writeOut(io.stderr, `error: ${error.message}\n`);
    return SERVE_ERROR_EXIT[error.code];
  }
}

/** Defines `serve` with its flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  const command = new Command("serve")
    .description("Run the loopback screening service: GET /health, GET /ready, POST /check and POST /screen on 127.0.0.1.")
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
    .option(
      "--token-file <path>",
      "require Authorization: Bearer <token> on POST /check and /screen; the file (mode 0600) holds the token, at least 16 characters",
    )
    .addHelpText("after", SERVE_HELP)
    .action(async (flags: ServeFlags) => {
      state.exitCode = await run(flags, io);
    });
  return command;
}
