// The Ollama `/api/chat` exchange as data: the request body we send and the checks a reply must
// pass before its content counts (pipeline.md §2). Shared by the canary probe and the Ollama judge
// so both read the backend the same way. Failure texts are fixed strings: a response body, a URL
// secret or an exception message can never reach them.
import type { CanaryFailureCode, CanaryMetadata } from "./types.js";
import { formatSeconds, type HttpCallOutcome } from "./http-call.js";
import { finiteNonNegative } from "./options.js";

/** Enough for any honest chat reply of a few hundred tokens; a larger body is not trusted. */
export const MAX_CHAT_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface OllamaChatRequest {
  readonly model: string;
  readonly systemPrompt: string;
  readonly userContent: string;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly seed: number | null;
  readonly numCtx: number | null;
}

export function ollamaChatBody(request: OllamaChatRequest): Record<string, unknown> {
  const options: Record<string, unknown> = { num_predict: request.maxTokens, temperature: request.temperature };
  if (request.seed !== null) options["seed"] = request.seed;
  // Sent only when configured: Ollama reloads the model whenever num_ctx changes (decision 7).
  if (request.numCtx !== null) options["num_ctx"] = request.numCtx;
  return {
    model: request.model,
    messages: [
      { role: "system", content: request.systemPrompt },
      { role: "user", content: request.userContent },
    ],
    stream: false,
    // Thinking models would otherwise spend the token budget on hidden reasoning.
    think: false,
    options,
  };
}

export type ChatOutcome =
  | { readonly ok: true; readonly content: string; readonly data: Readonly<Record<string, unknown>> }
  | {
      readonly ok: false;
      readonly failureCode: CanaryFailureCode;
      readonly error: string;
      readonly metadata: CanaryMetadata;
    };

const INVALID_JSON = "Ollama protocol error: invalid JSON response";
const NOT_A_STRING = "Ollama protocol error: response content must be a non-empty string";
const INCOMPLETE = "Ollama protocol error: incomplete chat response";
const KNOWN_DONE_REASONS = new Set(["length", "stop", "unload"]);

export function failed(failureCode: CanaryFailureCode, error: string, metadata: CanaryMetadata = {}): ChatOutcome {
  return { ok: false, failureCode, error, metadata };
}

/** Maps transport outcomes that carry no usable body; null when there is a body to parse. */
export function transportFailure(
  outcome: HttpCallOutcome,
  texts: { readonly service: string; readonly origin: string; readonly timeoutSeconds: number },
): ChatOutcome | null {
  switch (outcome.kind) {
    case "timeout":
      return failed("timeout", `Canary timed out after ${formatSeconds(texts.timeoutSeconds)}s`);
    case "unavailable":
      return failed("unavailable", `Cannot connect to ${texts.service} at ${texts.origin}`);
    case "exception":
      return failed("probe_exception", `Canary probe failed (${outcome.errorClass})`);
    case "unreadable_body":
      if (outcome.status !== 200) {
        return failed("http_error", `${texts.service} returned HTTP status ${outcome.status}`);
      }
      return failed(
        "invalid_response",
        `${texts.service} protocol error: ` +
          (outcome.reason === "too_large" ? "response body too large" : "invalid JSON response"),
      );
    case "response":
      if (outcome.status !== 200) {
        return failed("http_error", `${texts.service} returned HTTP status ${outcome.status}`);
      }
      return null;
  }
}

export function parseJsonBody(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch {
    return { ok: false };
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Applies the §2 checks to a finished HTTP exchange with `/api/chat`. */
export function interpretOllamaChat(
  outcome: HttpCallOutcome,
  texts: { readonly origin: string; readonly timeoutSeconds: number },
): ChatOutcome {
  const transport = transportFailure(outcome, { service: "Ollama", ...texts });
  if (transport) return transport;
  if (outcome.kind !== "response") return failed("probe_exception", "Canary probe failed (Error)");
  const parsed = parseJsonBody(outcome.body);
  if (!parsed.ok) return failed("invalid_response", INVALID_JSON);
  const data = parsed.value;
  if (!isPlainObject(data)) return failed("invalid_response", NOT_A_STRING);
  // Content is checked before completion, as upstream does: `{}` is an empty reply, not a cut one.
  const message = data["message"];
  const content = isPlainObject(message) ? message["content"] : undefined;
  if (typeof content !== "string" || content.trim() === "") return failed("empty_response", NOT_A_STRING);
  const doneReason = data["done_reason"];
  if (data["done"] !== true || doneReason !== "stop") {
    const evalCount = data["eval_count"];
    return failed(doneReason === "length" ? "output_limit" : "incomplete_response", INCOMPLETE, {
      done_reason: typeof doneReason === "string" && KNOWN_DONE_REASONS.has(doneReason) ? doneReason : null,
      eval_count: Number.isSafeInteger(evalCount) && (evalCount as number) >= 0 ? (evalCount as number) : null,
    });
  }
  return { ok: true, content, data };
}

/** Backend timings and counts kept as evidence on success (decision 6: finite, non-negative or null). */
export function ollamaSuccessMetadata(data: Readonly<Record<string, unknown>>): CanaryMetadata {
  return {
    done_reason: "stop",
    total_duration: finiteNonNegative(data["total_duration"]),
    load_duration: finiteNonNegative(data["load_duration"]),
    prompt_eval_count: finiteNonNegative(data["prompt_eval_count"]),
    eval_count: finiteNonNegative(data["eval_count"]),
    eval_duration: finiteNonNegative(data["eval_duration"]),
  };
}
