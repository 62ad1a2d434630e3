// Whether an OpenAI-compatible endpoint answers `GET /models` with 200 and lists the model: the availability check
// shared by the OpenAI probe and the OpenAI judge, and which models it lists (the pre-run model
// check). Every failure is a value; nothing here throws.
import { serviceRequestTarget } from "./endpoint.js";
import { httpCall, type FetchLike, type HttpCallOutcome } from "./http-call.js";
import { isPlainObject } from "../core/guards.js";
import { parseJsonBody } from "./chat-exchange.js";
import type { ServedModels } from "./served-models.js";
import { openAIHeaders } from "./openai-chat.js";

const AVAILABILITY_TIMEOUT_MS = 5_000;
const MAX_MODELS_BYTES = 4 * 1024 * 1024;

/** One bounded `GET {baseUrl}/models`; null when no request can be built for the URL. */
async function getModels(fetchFn: FetchLike, baseUrl: string, apiKey: string, timeoutMs: number): Promise<HttpCallOutcome | null> {
  const target = serviceRequestTarget(baseUrl, "/models");
  if (!target) return null;
  return httpCall(fetchFn, target.url, { method: "GET", headers: openAIHeaders(apiKey, target.authorization), timeoutMs, maxBodyBytes: MAX_MODELS_BYTES });
}

/** Cap on listed entries examined, so a hostile answer cannot make us loop for long. */
const MAX_MODEL_ENTRIES = 10_000;

/** What a `GET /models` answer says about `model` (listed when some entry's `id` equals it). */
function servedIn(outcome: HttpCallOutcome | null, model: string): ServedModels {
  if (outcome === null) return { kind: "unknown" };
  if (outcome.kind === "unavailable") return { kind: "unreachable", cause: outcome.cause ?? null };
  if (outcome.kind !== "response" || outcome.status !== 200) return { kind: "unknown" };
  const parsed = parseJsonBody(outcome.body);
  if (!parsed.ok || !isPlainObject(parsed.value) || !Array.isArray(parsed.value["data"])) return { kind: "unknown" };
  const ids = (parsed.value["data"] as unknown[])
    .slice(0, MAX_MODEL_ENTRIES)
    .map((entry) => (isPlainObject(entry) && typeof entry["id"] === "string" ? entry["id"] : null))
    .filter((id): id is string => id !== null);
  return { kind: "listed", names: ids, hasModel: ids.includes(model) };
}

/** What `GET {baseUrl}/models` says about `model` (listed when some entry's `id` equals it); never throws. */
export async function openAIServedModels(fetchFn: FetchLike, baseUrl: string, apiKey: string, model: string, timeoutMs: number): Promise<ServedModels> {
  try {
    return servedIn(await getModels(fetchFn, baseUrl, apiKey, timeoutMs), model);
  } catch {
    return { kind: "unknown" };
  }
}

/**
 * The availability check of the OpenAI probe and judge: `GET {baseUrl}/models` answers 200 within
 * the availability timeout, and a model list in it names `model`. A server that lists its models
 * without this one answers every check with an error, so it is not available (a readiness probe
 * must not send it traffic); an answer that is not a model list says nothing against the model.
 */
export async function openAIModelAvailable(fetchFn: FetchLike, baseUrl: string, apiKey: string, model: string): Promise<boolean> {
  try {
    const outcome = await getModels(fetchFn, baseUrl, apiKey, AVAILABILITY_TIMEOUT_MS);
    if (outcome?.kind !== "response" || outcome.status !== 200) return false;
    const served = servedIn(outcome, model);
    return served.kind !== "listed" || served.hasModel;
  } catch {
    return false;
  }
}
