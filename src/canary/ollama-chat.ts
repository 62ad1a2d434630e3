// The Ollama `/api/chat` exchange, shared by the canary probe and the judge: the request body and
// the checks a reply must pass before its content counts.
import type { CanaryMetadata } from "./types.js";
import type { HttpCallOutcome } from "./http-call.js";
import { isPlainObject } from "../core/guards.js";
import { chatMessages, failed, parseJsonBody, readChatObject, type ChatFailure, type ChatOutcome, type ChatRequest } from "./chat-exchange.js";
import { finiteNonNegative } from "./options.js";

/** A chat request with Ollama's own setting: the context window sent as options.num_ctx. */
export interface OllamaChatRequest extends ChatRequest {
  readonly numCtx: number | null;
}

export function ollamaChatBody(request: OllamaChatRequest): Record<string, unknown> {
  const options: Record<string, unknown> = { num_predict: request.maxTokens, temperature: request.temperature };
  if (request.seed !== null) options["seed"] = request.seed;
  // Sent only when configured: Ollama reloads the model whenever num_ctx changes.
  if (request.numCtx !== null) options["num_ctx"] = request.numCtx;
  return {
    model: request.model,
    messages: chatMessages(request),
    stream: false,
    // Thinking models would otherwise spend the token budget on hidden reasoning.
    think: false,
    options,
  };
}

const NOT_A_STRING = "Ollama protocol error: response content must be a non-empty string";
const INCOMPLETE = "Ollama protocol error: incomplete chat response";
const KNOWN_DONE_REASONS = new Set(["length", "stop", "unload"]);

/** `model_not_found` when `/api/chat` answered 404 "model '…' not found" (never pulled, or removed mid-run), else null. */
export function ollamaModelMissing(outcome: HttpCallOutcome, origin: string): ChatFailure | null {
  if (outcome.kind !== "response" || outcome.status !== 404) return null;
  const parsed = parseJsonBody(outcome.body);
  const error = parsed.ok && isPlainObject(parsed.value) ? parsed.value["error"] : undefined;
  if (typeof error !== "string" || !/\bmodel\b.*\bnot found\b/is.test(error.slice(0, 1000))) return null;
  return failed("model_not_found", `Ollama at ${origin} does not have the canary model (HTTP 404)`, {}, 404);
}

/** Applies the reply checks to a finished HTTP exchange with `/api/chat`. */
export function interpretOllamaChat(outcome: HttpCallOutcome, texts: { readonly origin: string; readonly timeoutSeconds: number }): ChatOutcome {
  const missing = ollamaModelMissing(outcome, texts.origin);
  if (missing !== null) return missing;
  const read = readChatObject(outcome, { service: "Ollama", ...texts });
  if (!read.ok) return read;
  const data = read.data;
  // Content is checked before completion: `{}` is an empty reply, not a cut one.
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

/** Backend timings and counts kept as evidence on success (finite, non-negative or null). */
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
