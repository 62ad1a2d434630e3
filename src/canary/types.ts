// Contract between a canary probe and the rest of the pipeline. A probe never throws for backend
// trouble: every failure is a CanaryResult with success=false, response "" and a failure code, so a
// screen that did not run can never look like a pass (startCanaryResult builds each result, timed).
import type { ChatSettings } from "./options.js";

const CANARY_FAILURE_CODES = [
  "http_error",
  "invalid_response",
  "output_limit",
  "incomplete_response",
  "empty_response",
  "timeout",
  "unavailable",
  "probe_exception",
  "context_truncated",
  /** The server refused the prompt as longer than its context window (HTTP 400); nothing was screened. */
  "context_too_long",
  /** Nothing proves the canary saw the whole prompt (no exact count and no bound that vouches for it, or no usage). */
  "context_unverified",
  /** The server does not have the model (Ollama: HTTP 404 "model '…' not found"); nothing was screened. */
  "model_not_found",
] as const;
/** Why a canary call failed (a stable code, kept in verdicts and manifests). */
export type CanaryFailureCode = (typeof CANARY_FAILURE_CODES)[number];

/** Backend-reported numbers kept as evidence; values are finite numbers or null. */
export type CanaryMetadata = Readonly<Record<string, number | string | null>>;

/** The outcome of one canary call: the reply on success, else a failure code and message. */
export interface CanaryResult {
  /** The canary's reply, verbatim; "" whenever success is false. Never leaves the pipeline. */
  readonly response: string;
  /** Wall time of the call in seconds. */
  readonly latency: number;
  readonly model: string;
  readonly success: boolean;
  /** Human-readable failure; never contains a response body, URL userinfo or a secret. */
  readonly error: string | null;
  readonly failureCode: CanaryFailureCode | null;
  readonly metadata: CanaryMetadata;
  /** The HTTP status of a failed call that got a non-200 answer (`http_error`); absent otherwise. */
  readonly httpStatus?: number;
}

/** Where the canary runs: an Ollama server, an OpenAI-compatible server, or in this process (node-llama-cpp). */
export type CanaryProvider = "ollama" | "openai" | "embedded";

/** A canary backend: sends untrusted text to a powerless model and returns its reply (`timeoutSeconds`: the deadline of each call). */
export interface CanaryProbe extends ChatSettings {
  readonly provider: CanaryProvider;
  readonly systemPrompt: string;
  /** Redacted `scheme://host[:port]` of the endpoint, or "<invalid endpoint>". */
  readonly endpointOrigin: string;
  /**
   * Sends `userInput` to the canary; never throws for backend trouble. `signal`: the caller's
   * abort, which abandons the call (a failed result) and closes its connection.
   */
  test(userInput: string, signal?: AbortSignal): Promise<CanaryResult>;
  /** Whether the backend answers and has the model; never throws. */
  isAvailable(): Promise<boolean>;
}

/** Builds the one result of a call (see the header). */
export interface CanaryResultBuilder {
  success(response: string, metadata: CanaryMetadata): CanaryResult;
  failure(failureCode: CanaryFailureCode, error: string, metadata?: CanaryMetadata, httpStatus?: number): CanaryResult;
}

/** Starts the latency clock of one probe call for `model`. */
export function startCanaryResult(model: string, now: () => number): CanaryResultBuilder {
  const started = now();
  const latency = (): number => Math.max(0, (now() - started) / 1000);
  return {
    success: (response, metadata) => ({ response, latency: latency(), model, success: true, error: null, failureCode: null, metadata }),
    failure: (failureCode, error, metadata = {}, httpStatus) => {
      const failed: CanaryResult = { response: "", latency: latency(), model, success: false, error, failureCode, metadata };
      return httpStatus === undefined ? failed : { ...failed, httpStatus };
    },
  };
}
