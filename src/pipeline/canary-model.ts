// The model check every checking command runs once before its first check (Ollama: GET /api/tags;
// OpenAI-compatible: GET /models); a refusal names the model, the server, what it serves and the
// fix. A server that does not answer is each command's own rule (check and screen fail open,
// ingest refuses); its cause is kept for the command's warning.
import { canaryKind } from "../canary/identity.js";
import { missingModelError, type ServedModels } from "../canary/served-models.js";
import type { NetworkFailureCause } from "../canary/http-call.js";
import type { CanaryProbe } from "../canary/types.js";

/** What the last model check of a probe found unreachable, by probe (read by the warnings). */
const unreachableCauses = new WeakMap<CanaryProbe, NetworkFailureCause | null>();

/**
 * Asks `probe`'s server for its model list, once, and throws CanaryModelError when the list
 * does not hold the probe's model. Resolves to what the server said, or null for a probe this
 * check does not apply to (a pool pins its own identity; the embedded canary is a file).
 */
export async function confirmCanaryModel(probe: CanaryProbe): Promise<ServedModels | null> {
  const kind = canaryKind(probe);
  if (kind !== "ollama" && kind !== "openai") return null;
  // One endpoint of a provider: its model list says whether the server has the model.
  const endpoint = probe as CanaryProbe & { readonly provider: "ollama" | "openai"; servedModels(): Promise<ServedModels> };
  const served = await endpoint.servedModels();
  if (served.kind === "unreachable") unreachableCauses.set(probe, served.cause);
  else unreachableCauses.delete(probe);
  const missing = missingModelError(endpoint.provider, probe.model, probe.endpointOrigin, served);
  if (missing !== null) throw missing;
  return served;
}

/** The cause the last model check of `probe` found its server unreachable for; undefined when it was reachable or not checked. */
export function lastUnreachableCause(probe: CanaryProbe): NetworkFailureCause | null | undefined {
  return unreachableCauses.get(probe);
}
