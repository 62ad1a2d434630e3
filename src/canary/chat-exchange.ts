// Exchanges with a backend, as values: the bounded requests, the reply checks every provider
// shares (transport, status, a JSON object), and each provider's own chat protocol: Ollama's
// `/api/chat` and the OpenAI-compatible `/chat/completions` (request body, reply checks, evidence).
// Failure texts are fixed: a body, a URL secret or an exception message never reaches them.
import { isPlainObject } from "../core/guards.js";
import type { CanaryFailureCode, CanaryMetadata } from "./types.js";
import { serviceRequestTarget, type ServiceRequestTarget } from "./endpoint.js";
import { formatSeconds, httpCall, type FetchLike, type HttpCallOptions, type HttpCallOutcome } from "./http-call.js";
import { finiteNonNegative, type ChatSettings } from "./options.js";

/** Enough for any honest chat reply of a few hundred tokens; a larger body is not trusted. */
const MAX_CHAT_RESPONSE_BYTES = 4 * 1024 * 1024;

export type ChatOutcome =
  | { readonly ok: true; readonly content: string; readonly data: Readonly<Record<string, unknown>> }
  | {
      readonly ok: false;
      readonly failureCode: CanaryFailureCode;
      readonly error: string;
      readonly metadata: CanaryMetadata;
      /** The HTTP status of a non-200 answer (`http_error`), so a caller can tell a 503 from a 400. */
      readonly httpStatus?: number;
    };

/** One request: the role's prompt and reply budget; model, temperature and seed are the backend's. */
export interface ChatTurn {
  readonly systemPrompt: string;
  readonly userContent: string;
  readonly maxTokens: number;
  /** The caller's abort: the request is abandoned at once (HttpCallOptions.signal). Never sent. */
  readonly signal?: AbortSignal;
}

/** The two messages of a chat: what /tokenize counts. */
export type ChatMessages = Pick<ChatTurn, "systemPrompt" | "userContent">;

/** One chat request as both providers take it; a provider adds its own settings (Ollama: num_ctx). */
interface ChatRequest extends ChatTurn, Pick<ChatSettings, "model" | "temperature" | "seed"> {}

/** The two messages of every chat we send (and count with /tokenize): the system prompt, then the text, unmodified. */
export function chatMessages(turn: ChatMessages): ReadonlyArray<{ readonly role: string; readonly content: string }> {
  return [
    { role: "system", content: turn.systemPrompt },
    { role: "user", content: turn.userContent },
  ];
}

/** Where a chat client sends its requests. `baseUrl` may hold userinfo; only `origin` is shown. */
export interface ChatEndpoint {
  readonly fetch: FetchLike;
  readonly baseUrl: string;
  readonly origin: string;
  readonly timeoutSeconds: number;
}

/** What a failure message may name: the service ("Ollama", "API"), the origin and the deadline, never the full URL. */
export interface ReplyTexts {
  readonly service: string;
  readonly origin: string;
  readonly timeoutSeconds: number;
}

/** A failed exchange or check: its code, its fixed message and the evidence the result keeps. */
export type ChatFailure = Extract<ChatOutcome, { ok: false }>;

/** A ChatFailure (`httpStatus` only when there is one, so that results compare equal). */
export function failed(failureCode: CanaryFailureCode, error: string, metadata: CanaryMetadata = {}, httpStatus?: number): ChatFailure {
  return httpStatus === undefined ? { ok: false, failureCode, error, metadata } : { ok: false, failureCode, error, metadata, httpStatus };
}

/** The failure of an outcome that carries no usable body; null for a 200 answer with a body to parse. */
function transportFailure(outcome: HttpCallOutcome, texts: ReplyTexts): ChatFailure | null {
  if (outcome.kind === "timeout") return failed("timeout", `Canary timed out after ${formatSeconds(texts.timeoutSeconds)}s`);
  if (outcome.kind === "unavailable") return failed("unavailable", `Cannot connect to ${texts.service} at ${texts.origin}`);
  if (outcome.kind === "exception") return failed("probe_exception", `Canary probe failed (${outcome.errorClass})`);
  if (outcome.status !== 200) return failed("http_error", `${texts.service} returned HTTP status ${outcome.status}`, {}, outcome.status);
  if (outcome.kind === "response") return null;
  return failed("invalid_response", `${texts.service} protocol error: ${outcome.reason === "too_large" ? "response body too large" : "invalid JSON response"}`);
}

export function parseJsonBody(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The reply as a JSON object, or the failure every provider reports the same way. */
export function readChatObject(outcome: HttpCallOutcome, texts: ReplyTexts): { readonly ok: true; readonly data: Record<string, unknown> } | ChatFailure {
  const transport = transportFailure(outcome, texts);
  if (transport !== null || outcome.kind !== "response") return transport ?? failed("probe_exception", "Canary probe failed (Error)");
  const parsed = parseJsonBody(outcome.body);
  if (!parsed.ok) return failed("invalid_response", `${texts.service} protocol error: invalid JSON response`);
  // `[]` and other non-objects have no content at all; they are reported like `{}`.
  if (!isPlainObject(parsed.value)) return failed("invalid_response", emptyContent(texts.service));
  return { ok: true, data: parsed.value };
}

/**
 * Request targets by endpoint and path: an endpoint is frozen and every check posts to the same path, so the base URL
 * is parsed once, not per check (again if the base URL changed); held only as long as the endpoint itself.
 */
const targetsByEndpoint = new WeakMap<ChatEndpoint, { readonly baseUrl: string; readonly targets: Map<string, ServiceRequestTarget | null> }>();

function chatTarget(endpoint: ChatEndpoint, path: string): ServiceRequestTarget | null {
  let entry = targetsByEndpoint.get(endpoint);
  if (entry === undefined || entry.baseUrl !== endpoint.baseUrl) {
    entry = { baseUrl: endpoint.baseUrl, targets: new Map() };
    targetsByEndpoint.set(endpoint, entry);
  }
  let target = entry.targets.get(path);
  if (target === undefined) {
    const fresh = serviceRequestTarget(entry.baseUrl, path);
    target = fresh === null ? null : Object.freeze(fresh);
    entry.targets.set(path, target);
  }
  return target;
}

/** A backend's answer to one request: its outcome (null: no request can be built), and the body of a 200 answer as a JSON object, else null. */
export interface JsonAnswer {
  readonly outcome: HttpCallOutcome | null;
  readonly object: Record<string, unknown> | null;
}

/** What one request sends: a JSON body (a GET without one), its bounds, and an API key sent as a Bearer token when non-empty. */
type RequestSpec = Pick<HttpCallOptions, "json" | "timeoutMs" | "maxBodyBytes" | "signal"> & { readonly apiKey?: string };

/** One bounded request to `target`, authorized by the API key when set, else by the configured URL's userinfo, else not. */
function send(fetchFn: FetchLike, target: ServiceRequestTarget, { json, timeoutMs, maxBodyBytes, apiKey = "", signal }: RequestSpec): Promise<HttpCallOutcome> {
  const authorization = apiKey !== "" ? `Bearer ${apiKey}` : target.authorization;
  const headers: Record<string, string> = authorization ? { authorization } : {};
  return httpCall(fetchFn, target.url, { method: json === undefined ? "GET" : "POST", headers, json, timeoutMs, maxBodyBytes, ...(signal ? { signal } : {}) });
}

/** One bounded request to `path` under `baseUrl` (a GET unless `json` is given); never throws. */
export async function requestJson(fetchFn: FetchLike, baseUrl: string, path: string, request: RequestSpec): Promise<JsonAnswer> {
  const target = serviceRequestTarget(baseUrl, path);
  if (!target) return { outcome: null, object: null };
  const outcome = await send(fetchFn, target, request).catch((): HttpCallOutcome => ({ kind: "exception", errorClass: "Error" }));
  const parsed = outcome.kind === "response" && outcome.status === 200 ? parseJsonBody(outcome.body) : null;
  return { outcome, object: parsed?.ok && isPlainObject(parsed.value) ? parsed.value : null };
}

/** POSTs `body` to `path` under the endpoint, bounded in time and size; null when no request can be built. */
export async function postChat(
  endpoint: ChatEndpoint,
  path: string,
  body: Record<string, unknown>,
  apiKey: string,
  signal?: AbortSignal,
): Promise<HttpCallOutcome | null> {
  const target = chatTarget(endpoint, path);
  if (!target) return null;
  const spec = { json: body, timeoutMs: endpoint.timeoutSeconds * 1000, maxBodyBytes: MAX_CHAT_RESPONSE_BYTES, apiKey };
  return send(endpoint.fetch, target, signal ? { ...spec, signal } : spec);
}

/** The failure text of a reply without content (also of one that is not a JSON object at all). */
function emptyContent(service: string): string {
  return `${service} protocol error: response content must be a non-empty string`;
}

/** A reply that stopped early: `output_limit` when it ran out of tokens, else `incomplete_response`. */
function unfinished(service: string, reason: unknown, metadata: CanaryMetadata): ChatFailure {
  return failed(reason === "length" ? "output_limit" : "incomplete_response", `${service} protocol error: incomplete chat response`, metadata);
}

/** What the reply checks name in their messages, and the reply budget the request asked for (`max_tokens`, `num_predict`). */
type ProtocolTexts = Omit<ReplyTexts, "service"> & { readonly maxTokens?: number };

/** A chat request with Ollama's own setting: the context window sent as options.num_ctx. */
export interface OllamaChatRequest extends ChatRequest {
  readonly numCtx: number | null;
}

export function ollamaChatBody(request: OllamaChatRequest): Record<string, unknown> {
  const options: Record<string, unknown> = { num_predict: request.maxTokens, temperature: request.temperature };
  if (request.seed !== null) options["seed"] = request.seed;
  // Sent only when configured: Ollama reloads the model whenever num_ctx changes.
  if (request.numCtx !== null) options["num_ctx"] = request.numCtx;
  // `think: false`: thinking models would otherwise spend the token budget on hidden reasoning.
  return { model: request.model, messages: chatMessages(request), stream: false, think: false, options };
}

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
export function interpretOllamaChat(outcome: HttpCallOutcome, texts: ProtocolTexts): ChatOutcome {
  const missing = ollamaModelMissing(outcome, texts.origin);
  if (missing !== null) return missing;
  const read = readChatObject(outcome, { service: "Ollama", ...texts });
  if (!read.ok) return read;
  const data = read.data;
  // Content is checked before completion: `{}` is an empty reply, not a cut one.
  const message = data["message"];
  const content = isPlainObject(message) ? message["content"] : undefined;
  if (typeof content !== "string" || content.trim() === "") return failed("empty_response", emptyContent("Ollama"));
  const doneReason = data["done_reason"];
  if (data["done"] !== true || doneReason !== "stop") {
    const evalCount = data["eval_count"];
    return unfinished("Ollama", doneReason, {
      done_reason: typeof doneReason === "string" && KNOWN_DONE_REASONS.has(doneReason) ? doneReason : null,
      eval_count: Number.isSafeInteger(evalCount) && (evalCount as number) >= 0 ? (evalCount as number) : null,
    });
  }
  return { ok: true, content, data };
}

/** Backend timings and counts kept as evidence on success (finite, non-negative or null). */
function ollamaSuccessMetadata(data: Readonly<Record<string, unknown>>): CanaryMetadata {
  return {
    done_reason: "stop",
    total_duration: finiteNonNegative(data["total_duration"]),
    load_duration: finiteNonNegative(data["load_duration"]),
    prompt_eval_count: finiteNonNegative(data["prompt_eval_count"]),
    eval_count: finiteNonNegative(data["eval_count"]),
    eval_duration: finiteNonNegative(data["eval_duration"]),
  };
}

function openAIChatBody(request: ChatRequest): Record<string, unknown> {
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

/** Applies the reply checks to a finished HTTP exchange with `/chat/completions` (an unfinished completion is never a success). */
export function interpretOpenAIChat(outcome: HttpCallOutcome, texts: ProtocolTexts): ChatOutcome {
  // An over-long prompt is refused, not cut: the check did not run, and a retry cannot change that, so it is its own failure.
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
  if (typeof content !== "string" || content.trim() === "") return failed("empty_response", emptyContent("API"));
  const finishReason = isPlainObject(first) ? first["finish_reason"] : undefined;
  const usage = isPlainObject(data["usage"]) ? data["usage"] : {};
  const completionTokens = finiteNonNegative(usage["completion_tokens"]);
  // A missing or null finish_reason is accepted (compatible servers omit it on complete answers, as the Python package knew); any but "stop" is unfinished.
  if (finishReason !== undefined && finishReason !== null && finishReason !== "stop") {
    return unfinished("API", finishReason, {
      finish_reason: typeof finishReason === "string" && KNOWN_FINISH_REASONS.has(finishReason) ? finishReason : null,
      completion_tokens: completionTokens,
    });
  }
  // Without a finish_reason, a reply that used the whole budget asked for may have been cut there: never a complete one.
  if (finishReason !== "stop" && texts.maxTokens !== undefined && completionTokens !== null && completionTokens >= texts.maxTokens) {
    return unfinished("API", "length", { finish_reason: null, completion_tokens: completionTokens });
  }
  return { ok: true, content, data };
}

/** The token counts an OpenAI-compatible reply reports, kept as evidence on success. */
function openAISuccessMetadata(data: Readonly<Record<string, unknown>>): CanaryMetadata {
  const usage = isPlainObject(data["usage"]) ? data["usage"] : {};
  return {
    prompt_tokens: finiteNonNegative(usage["prompt_tokens"]),
    completion_tokens: finiteNonNegative(usage["completion_tokens"]),
    total_tokens: finiteNonNegative(usage["total_tokens"]),
  };
}

/** What differs between the providers' chat calls: the path, the request body, the reply checks and the evidence kept. */
export const CHAT_PROTOCOLS = {
  ollama: { service: "Ollama", path: "/api/chat", body: ollamaChatBody, interpret: interpretOllamaChat, replyMetadata: ollamaSuccessMetadata },
  openai: { service: "API", path: "/chat/completions", body: openAIChatBody, interpret: interpretOpenAIChat, replyMetadata: openAISuccessMetadata },
} as const;
