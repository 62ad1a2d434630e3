// Whether an OpenAI-compatible endpoint answers `GET /models` with 200: the availability check
// shared by the OpenAI probe and the OpenAI judge. Every failure is false; nothing here throws.
import { serviceRequestTarget } from "./endpoint.js";
import { httpCall, type FetchLike } from "./http-call.js";
import { openAIHeaders } from "./openai-chat.js";

const AVAILABILITY_TIMEOUT_MS = 5_000;
const MAX_MODELS_BYTES = 4 * 1024 * 1024;

/** True when `GET {baseUrl}/models` answers 200 within the availability timeout. */
export async function openAIModelsReachable(fetchFn: FetchLike, baseUrl: string, apiKey: string): Promise<boolean> {
  try {
    const target = serviceRequestTarget(baseUrl, "/models");
    if (!target) return false;
    const outcome = await httpCall(fetchFn, target.url, {
      method: "GET",
      headers: openAIHeaders(apiKey, target.authorization),
      timeoutMs: AVAILABILITY_TIMEOUT_MS,
      maxBodyBytes: MAX_MODELS_BYTES,
    });
    return outcome.kind === "response" && outcome.status === 200;
  } catch {
    return false;
  }
}
