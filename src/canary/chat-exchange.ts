// Exchanges with a backend, as values: the bounded requests, and the reply checks every provider
// shares (transport, status, a JSON object); ollama-chat.ts and openai-chat.ts add their own.
// Failure texts are fixed: a body, a URL secret or an exception message never reaches them.
import { isPlainObject } from "../core/guards.js";
import type { CanaryFailureCode, CanaryMetadata } from "./types.js";
import { serviceRequestTarget, type ServiceRequestTarget } from "./endpoint.js";
import { formatSeconds, httpCall, type FetchLike, type HttpCallOutcome } from "./http-call.js";
import type { ChatSettings } from "./options.js";

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
}

/** The two messages of a chat: what /tokenize counts. */
export type ChatMessages = Pick<ChatTurn, "systemPrompt" | "userContent">;

/** One chat request as both providers take it; a provider adds its own settings (Ollama: num_ctx). */
export interface ChatRequest extends ChatTurn, Pick<ChatSettings, "model" | "temperature" | "seed"> {}

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
  if (!isPlainObject(parsed.value)) return failed("invalid_response", `${texts.service} protocol error: response content must be a non-empty string`);
  return { ok: true, data: parsed.value };
}

/**
 * Request targets by endpoint and path. A backend's endpoint is frozen and every check of a run
 * posts to the same path, so the base URL is parsed once, not once per check. Keyed by the base
 * URL too, so an endpoint object that was changed is parsed again. Held only as long as the
 * endpoint itself.
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

/** The configured URL's userinfo as the only header (how every call but an OpenAI-compatible one authenticates). */
export function basicAuthorization(urlAuthorization: string | null): Record<string, string> {
  return urlAuthorization ? { authorization: urlAuthorization } : {};
}

/** One bounded request to `path` under `baseUrl` (a GET unless `json` is given); never throws. */
export async function requestJson(
  fetchFn: FetchLike,
  baseUrl: string,
  path: string,
  request: {
    readonly json?: unknown;
    readonly timeoutMs: number;
    readonly maxBodyBytes: number;
    readonly headersFor?: (urlAuthorization: string | null) => Record<string, string>;
  },
): Promise<JsonAnswer> {
  const target = serviceRequestTarget(baseUrl, path);
  if (!target) return { outcome: null, object: null };
  let outcome: HttpCallOutcome;
  try {
    const { json, timeoutMs, maxBodyBytes, headersFor = basicAuthorization } = request;
    outcome = await httpCall(fetchFn, target.url, {
      method: json === undefined ? "GET" : "POST",
      headers: headersFor(target.authorization),
      json,
      timeoutMs,
      maxBodyBytes,
    });
  } catch {
    outcome = { kind: "exception", errorClass: "Error" };
  }
  const parsed = outcome.kind === "response" && outcome.status === 200 ? parseJsonBody(outcome.body) : null;
  return { outcome, object: parsed?.ok && isPlainObject(parsed.value) ? parsed.value : null };
}

/** POSTs `body` to `path` under the endpoint, bounded in time and size; null when no request can be built. */
export async function postChat(
  endpoint: ChatEndpoint,
  path: string,
  body: Record<string, unknown>,
  headersFor: (urlAuthorization: string | null) => Record<string, string>,
): Promise<HttpCallOutcome | null> {
  const target = chatTarget(endpoint, path);
  if (!target) return null;
  return httpCall(endpoint.fetch, target.url, {
    method: "POST",
    headers: headersFor(target.authorization),
    json: body,
    timeoutMs: endpoint.timeoutSeconds * 1000,
    maxBodyBytes: MAX_CHAT_RESPONSE_BYTES,
  });
}
