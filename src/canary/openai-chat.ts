// The OpenAI-compatible `/chat/completions` exchange, shared by the canary probe and the judge:
// the request body and the checks a completion must pass (an unfinished one is never a success).
import type { CanaryMetadata } from "./types.js";
import type { HttpCallOutcome } from "./http-call.js";
import { isPlainObject } from "../core/guards.js";
import { chatMessages, failed, parseJsonBody, readChatObject, type ChatOutcome, type ChatRequest } from "./chat-exchange.js";
import { finiteNonNegative } from "./options.js";

export function openAIChatBody(request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: chatMessages(request),
    max_tokens: request.maxTokens,
    temperature: request.temperature,
    stream: false,
  };
  if (request.seed !== null) body["seed"] = request.seed;
  return body;
}

const NOT_A_STRING = "API protocol error: response content must be a non-empty string";
const INCOMPLETE = "API protocol error: incomplete chat response";
const KNOWN_FINISH_REASONS = new Set(["stop", "length", "content_filter", "tool_calls", "function_call"]);

/** True when a 400 answer's error message (vLLM's and OpenAI's shapes) says "maximum context/model length"; the body is never shown. */
function isContextLengthRefusal(outcome: HttpCallOutcome): boolean {
  if (outcome.kind !== "response" || outcome.status !== 400) return false;
  const parsed = parseJsonBody(outcome.body);
  if (!parsed.ok || !isPlainObject(parsed.value)) return false;
  const error = parsed.value["error"];
  const texts = [isPlainObject(error) ? error["message"] : error, parsed.value["message"]];
  return texts.some((text) => typeof text === "string" && /maximum (context|model) length/i.test(text.slice(0, 4096)));
}

export function interpretOpenAIChat(outcome: HttpCallOutcome, texts: { readonly origin: string; readonly timeoutSeconds: number }): ChatOutcome {
  // An over-long prompt is refused, not cut: the check did not run, and sending the same prompt
  // again cannot change that, so it is its own failure and never a transport error to retry.
  if (isContextLengthRefusal(outcome)) {
    return failed("context_too_long", `the prompt is longer than the maximum context length of the server at ${texts.origin} (HTTP 400)`);
  }
  // vLLM and OpenAI answer 404 "The model `x` does not exist" for a model they do not serve.
  if (outcome.kind === "response" && outcome.status === 404 && /\bmodel\b.*\b(does not exist|not found)\b/is.test(outcome.body.slice(0, 4096))) {
    return failed("model_not_found", `the server at ${texts.origin} does not serve the canary model (HTTP 404)`, {}, 404);
  }
  const read = readChatObject(outcome, { service: "API", ...texts });
  if (!read.ok) return read;
  const data = read.data;
  const choices = data["choices"];
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
  const message = isPlainObject(first) ? first["message"] : undefined;
  const content = isPlainObject(message) ? message["content"] : undefined;
  if (typeof content !== "string" || content.trim() === "") return failed("empty_response", NOT_A_STRING);
  const finishReason = isPlainObject(first) ? first["finish_reason"] : undefined;
  // A missing (or null) finish_reason is accepted: several OpenAI-compatible servers omit it on
  // complete answers, and the Python package treated such replies as complete. Any reason that is present
  // and is not "stop" means the model did not finish normally.
  if (finishReason !== undefined && finishReason !== null && finishReason !== "stop") {
    const usage = isPlainObject(data["usage"]) ? data["usage"] : {};
    return failed(finishReason === "length" ? "output_limit" : "incomplete_response", INCOMPLETE, {
      finish_reason: typeof finishReason === "string" && KNOWN_FINISH_REASONS.has(finishReason) ? finishReason : null,
      completion_tokens: finiteNonNegative(usage["completion_tokens"]),
    });
  }
  return { ok: true, content, data };
}

export function openAISuccessMetadata(data: Readonly<Record<string, unknown>>): CanaryMetadata {
  const usage = isPlainObject(data["usage"]) ? data["usage"] : {};
  return {
    prompt_tokens: finiteNonNegative(usage["prompt_tokens"]),
    completion_tokens: finiteNonNegative(usage["completion_tokens"]),
    total_tokens: finiteNonNegative(usage["total_tokens"]),
  };
}

/** Authorization for an OpenAI-compatible call: the API key when set, else URL userinfo. */
export function openAIHeaders(apiKey: string, urlAuthorization: string | null): Record<string, string> {
  if (apiKey !== "") return { authorization: `Bearer ${apiKey}` };
  return urlAuthorization ? { authorization: urlAuthorization } : {};
}
