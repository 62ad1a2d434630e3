// What an OpenAI-compatible server (vLLM, or anything speaking its API) says about itself before any check: whether it
// answers and lists the model (the probe's and judge's availability check), its `max_model_len` and `root` in `GET
// <base>/models`, and whether it offers vLLM's `POST /tokenize` (an exact prompt count). Every failure is a value; no
// message carries a body, URL secret or key.
import { isPlainObject, parseUrl } from "../core/guards.js";
import { chatMessages, requestJson, type ChatMessages, type JsonAnswer } from "./chat-exchange.js";
import { endpointOrigin } from "./endpoint.js";
import type { FetchLike, HttpCallOutcome } from "./http-call.js";
import { quotedText } from "../core/display-text.js";
import { errorStatus, type ServedModels } from "./served-models.js";

/** `/models` lists every served model; generous, but bounded. */
const MAX_MODELS_BYTES = 4 * 1024 * 1024;
/** Cap on listed entries examined, so a hostile answer cannot make us loop for long. */
const MAX_MODEL_ENTRIES = 10_000;
const AVAILABILITY_TIMEOUT_MS = 5_000;
/** A `/tokenize` reply holds one id per prompt token; a segment's prompt is a few thousand. */
const MAX_TOKENIZE_BYTES = 16 * 1024 * 1024;
/** A fingerprint is an opaque short token (OpenAI: `fp_…`); anything else is not kept. */
const FINGERPRINT = /^[\x21-\x7e]{1,200}$/;

/** What one endpoint reported about itself. */
export interface OpenAIServerIdentity {
  /** The served model name, exactly as `GET /models` lists it (the `--served-model-name`). */
  readonly model: string;
  /** vLLM's `root` of that entry (the weights it loaded), or null when not listed. */
  readonly root: string | null;
  /** The context window the server holds for the model, or null when it reports none. */
  readonly maxModelLen: number | null;
  /** `system_fingerprint` of the probe's warm-up completion (openai-probe.ts), null until then or when not given. */
  readonly systemFingerprint: string | null;
  /** True when `POST /tokenize` answered a count (vLLM); false when it is absent (404) or unusable. */
  readonly tokenize: boolean;
  /** `usage.prompt_tokens` of the probe's warm-up completion, null until then or when not given. */
  readonly warmUpPromptTokens: number | null;
}

/** Why an endpoint could not be identified (the text is safe to show: origin and numbers only). */
type OpenAIIdentityFailure = {
  readonly kind: "unreachable" | "timeout" | "http_error" | "invalid_response" | "model_not_served";
  readonly message: string;
};

/** The identity of an endpoint, or why it could not be identified. */
export type OpenAIIdentityOutcome = { readonly ok: true; readonly identity: OpenAIServerIdentity } | ({ readonly ok: false } & OpenAIIdentityFailure);

/** The server every call below asks, about `model` (which `GET /models` must list), each request within `timeoutMs`. */
export interface OpenAIServer {
  readonly fetch: FetchLike;
  /** The full base URL (may hold userinfo: never shown). */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` when non-empty (else URL userinfo, else none). */
  readonly apiKey: string;
  readonly model: string;
  readonly timeoutMs: number;
}

/** Where vLLM serves `/tokenize`: beside `/v1`, at the server's root. */
export function tokenizeBaseUrl(baseUrl: string): string {
  const url = parseUrl(baseUrl);
  if (url === null) return baseUrl;
  url.pathname = url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "");
  url.search = "";
  url.hash = "";
  return url.toString();
}

/** One bounded request to `path` under `base` (default: the server's base URL), authenticated as an OpenAI-compatible call. */
function call(server: OpenAIServer, path: string, maxBodyBytes: number, json?: unknown, base = server.baseUrl): Promise<JsonAnswer> {
  return requestJson(server.fetch, base, path, { json, timeoutMs: server.timeoutMs, maxBodyBytes, apiKey: server.apiKey });
}

function transportText(outcome: HttpCallOutcome | null, where: string, what: string): OpenAIIdentityFailure | null {
  if (outcome === null) return { kind: "invalid_response", message: `${what} at ${where}: no request can be built for this URL` };
  switch (outcome.kind) {
    case "timeout":
      return { kind: "timeout", message: `${what} at ${where} did not answer in time` };
    case "unavailable":
      return { kind: "unreachable", message: `cannot connect to ${where} (${what})` };
    case "exception":
      return { kind: "unreachable", message: `${what} at ${where} failed (${outcome.errorClass})` };
    case "unreadable_body":
      return { kind: "invalid_response", message: `${what} at ${where} answered an unreadable body (HTTP ${outcome.status})` };
    case "response":
      return outcome.status === 200 ? null : { kind: "http_error", message: `${what} at ${where} answered HTTP ${outcome.status}` };
  }
}

/** A reply's `system_fingerprint` when it is an opaque short token, else null (never kept as text). */
export function fingerprintOf(value: unknown): string | null {
  return typeof value === "string" && FINGERPRINT.test(value) ? value : null;
}

const positiveInt = (value: unknown): number | null => (typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null);

/** The entries of a `/models` answer's `data` list (at most MAX_MODEL_ENTRIES), or null when it is not a model list. */
function modelEntries(object: Record<string, unknown> | null): Record<string, unknown>[] | null {
  const data = object?.["data"];
  return Array.isArray(data) ? data.slice(0, MAX_MODEL_ENTRIES).filter(isPlainObject) : null;
}

/** What a `GET /models` answer says about `model` (listed when some entry's `id` equals it). */
function servedIn({ outcome, object }: JsonAnswer, model: string): ServedModels {
  if (outcome?.kind === "unavailable") return { kind: "unreachable", cause: outcome.cause ?? null };
  const ids = modelEntries(object)
    ?.map((entry) => entry["id"])
    .filter((id): id is string => typeof id === "string");
  return ids === undefined ? { kind: "unknown", ...errorStatus(outcome) } : { kind: "listed", names: ids, hasModel: ids.includes(model) };
}

/** What `GET {baseUrl}/models` says about the model (listed when some entry's `id` equals it); never throws. */
export async function openAIServedModels(server: OpenAIServer): Promise<ServedModels> {
  return servedIn(await call(server, "/models", MAX_MODELS_BYTES), server.model);
}

/**
 * The OpenAI probe's and judge's availability check: `GET {baseUrl}/models` answers 200 in time and a model list in it
 * names the model. A server listing only other models fails every check, so it is not available (no readiness traffic);
 * an answer that is not a model list says nothing against the model.
 */
export async function openAIModelAvailable(server: OpenAIServer): Promise<boolean> {
  const answer = await call({ ...server, timeoutMs: AVAILABILITY_TIMEOUT_MS }, "/models", MAX_MODELS_BYTES);
  if (answer.outcome?.kind !== "response" || answer.outcome.status !== 200) return false;
  const served = servedIn(answer, server.model);
  return served.kind !== "listed" || served.hasModel;
}

/**
 * The exact prompt count of `messages` from vLLM's `POST /tokenize` (`{model, messages}` → `{count, …}`), "absent"
 * when the route does not exist (404, 405), null for any other answer or none (the caller falls back to its bound).
 */
export async function tokenizeCount(server: OpenAIServer, messages: ChatMessages): Promise<number | "absent" | null> {
  const json = { model: server.model, messages: chatMessages(messages), add_generation_prompt: true };
  const { outcome, object } = await call(server, "/tokenize", MAX_TOKENIZE_BYTES, json, tokenizeBaseUrl(server.baseUrl));
  if (outcome?.kind === "response" && (outcome.status === 404 || outcome.status === 405)) return "absent";
  return positiveInt(object?.["count"]);
}

/** Identifies an endpoint: `GET <baseUrl>/models` must list the model (its `max_model_len`, `root` read), `POST /tokenize` is tried once; never throws. */
export async function probeOpenAIIdentity(server: OpenAIServer): Promise<OpenAIIdentityOutcome> {
  const where = endpointOrigin(server.baseUrl);
  const listed = await call(server, "/models", MAX_MODELS_BYTES);
  const listFailure = transportText(listed.outcome, where, "GET /v1/models");
  if (listFailure !== null) return { ok: false, ...listFailure };
  const entries = modelEntries(listed.object);
  if (entries === null) return { ok: false, kind: "invalid_response", message: `GET /v1/models at ${where} did not answer a model list` };
  const entry = entries.find((e) => e["id"] === server.model);
  if (entry === undefined) {
    return {
      ok: false,
      kind: "model_not_served",
      message: `the server at ${where} does not list the model ${quotedText(server.model)} in GET /v1/models`,
    };
  }
  const root = typeof entry["root"] === "string" && entry["root"].length <= 1000 ? entry["root"] : null;
  const maxModelLen = positiveInt(entry["max_model_len"]);
  const counted = await tokenizeCount(server, { systemPrompt: "", userContent: "ping" });
  return {
    ok: true,
    identity: Object.freeze({
      model: server.model,
      root,
      maxModelLen,
      systemFingerprint: null,
      tokenize: typeof counted === "number",
      warmUpPromptTokens: null,
    }),
  };
}
