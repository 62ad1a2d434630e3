// One call runs the demo's replay or live contrast, records a live capture when asked, and returns
// the outcome with its exit code and text, so a caller only prints.
import { resolveCanaryTimeout } from "../canary/timeout.js";
import { runLive } from "./live.js";
import { validateDemoBackend, validateDemoModel, validateLiveEndpoint } from "./live-endpoint.js";
import { demoExitCode, type DemoOutcome, type RecordResult } from "./outcome.js";
import { captureFromLive, checkRecordPath, replaceableByCapture, writeCapture } from "./record.js";
import { liveResultLines, replayLines } from "./render.js";
import { runReplay } from "./replay.js";
import { displayText } from "../core/display-text.js";

/** Options of `runDemoCommand`. */
export interface DemoCommandOptions {
  /** Live contrast against a loopback Ollama; otherwise replay. */
  readonly live: boolean;
  /** Replay only: the capture file to replay (absent: replay is unavailable). */
  readonly capturePath?: string;
  /** Live only: where a verified run is written as a capture (checked before the run: checkRecordPath). */
  readonly recordPath?: string;
  /** Live only: backend name, model tag and endpoint, validated before any request. */
  readonly backend: string;
  readonly model: string;
  readonly endpoint: string;
  /** Live only: the per-call timeout asked for (else LITTLE_CANARY_TIMEOUT in `env`, else the default). */
  readonly timeoutSeconds?: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Live only: awaited before any request, with the validated endpoint and model. */
  readonly onDisclosure?: (endpoint: string, model: string) => Promise<void>;
  /** Live only: awaited once the inventory named the model's digest. */
  readonly onModelDigest?: (digest: string) => Promise<void>;
  /** Replay only: a diagnostic line (no newline) when loading or analysis failed inside the library. */
  readonly onReplayError?: (line: string) => void;
  /** Live only: a diagnostic line (no newline) about the capture, awaited before the result. */
  readonly onNote?: (line: string) => Promise<void>;
  /** The capture's recording time (defaults to now). */
  readonly now?: () => Date;
}

/**
 * Run the demo: replay a capture, or run the live contrast (recorded to `recordPath` before the
 * result returns, so `exitCode` covers it). Returns the outcome, whether a model was called, the exit
 * code (0 verified, 1 a complete run that disagrees, 2 unavailable, incomplete, or no capture
 * written) and the human-readable result `lines` (no newlines). Throws `DemoArgumentError` for an invalid live argument
 * (a record path that could not take the capture included), before any request; the timeout is read only once the
 * arguments are valid, and never by replay.
 */
export async function runDemoCommand(options: DemoCommandOptions) {
  if (!options.live) {
    const outcome = await runReplay({
      ...(options.capturePath !== undefined ? { capturePath: options.capturePath } : {}),
      onInternalError: (where, errorClass) => options.onReplayError?.(`demo: replay ${where} failed (${errorClass})`),
    });
    return { outcome, modelCall: false, exitCode: demoExitCode(outcome), lines: replayLines(outcome) };
  }
  validateDemoBackend(options.backend);
  const endpoint = validateLiveEndpoint(options.endpoint);
  const model = validateDemoModel(options.model);
  // Before the run, not after it: a path that can never take the capture would waste every model call.
  if (options.recordPath !== undefined) await checkRecordPath(options.recordPath);
  const timeoutSeconds = resolveCanaryTimeout(options.timeoutSeconds, options.env);
  const outcome = await runLive({
    endpoint,
    model,
    timeoutSeconds,
    onDisclosure: async () => options.onDisclosure?.(endpoint, model),
    onModelDigest: options.onModelDigest,
  });
  // A live run that could not start (no Ollama, no model) says why on stderr too, in the one
  // line every command prints for it; the report on stdout keeps it as well.
  if (outcome.status === "DEGRADED / UNEXERCISED" && outcome.error !== null) await options.onNote?.(`error: ${outcome.error}`);
  const record =
    options.recordPath === undefined
      ? "not_requested"
      : await recordCapture(options.recordPath, outcome, options.now?.() ?? new Date(), async (line) => await options.onNote?.(line));
  return { outcome, modelCall: outcome.modelCall, exitCode: demoExitCode(outcome, record), lines: liveResultLines(outcome) };
}

async function recordCapture(path: string, outcome: DemoOutcome, now: Date, note: (line: string) => Promise<void>): Promise<RecordResult> {
  const capture = captureFromLive(outcome, now);
  if (capture === null) {
    await note("DEMO ERROR: no capture recorded: only a verified live contrast is recorded");
    return "not_recorded";
  }
  if (!(await replaceableByCapture(path))) {
    await note(`DEMO ERROR: ${displayText(path)} exists and is not a demo capture; it is never replaced (give --record a new path)`);
    return "write_failed";
  }
  try {
    await writeCapture(path, capture);
  } catch {
    await note(`DEMO ERROR: the capture file ${displayText(path)} could not be written`);
    return "write_failed";
  }
  await note(`demo: capture recorded in ${path} (payload_sha256 ${capture.payload_sha256})`);
  return "recorded";
}
