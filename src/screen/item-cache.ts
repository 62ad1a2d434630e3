// `screen --cache PATH`: the verdict cache around each item's check (check-item.ts), under the
// pipeline's canary identity with scope `screen_item` (never confused with an ingest segment). A
// stored value is a miss unless its verdict matches the schema, gives again the state it was
// stored with, and had canary and analysis run. A reused item says so (`reused`, `checked_at`).
import { isPlainObject } from "../core/guards.js";
import { pipelineIdentity, type CacheIdentity, type IdentityOutcome } from "../cache/identity.js";
import type { VerdictCache } from "../cache/verdict-cache.js";
import { knownModelDigest } from "../canary/identity.js";
import type { OpenAIContextProof } from "../canary/openai-context-gate.js";
import { VerdictJsonSchema, type VerdictJson } from "../documents/verdict-schema.js";
import type { BatchItem } from "../documents/schemas.js";
import { isGenuinePipeline } from "../pipeline/genuine.js";
import { batchStateOfJson, type ItemVerdictCache } from "./check-item.js";

/** True when the canary and the analysis both ran for this verdict and its coverage held. */
function exercised(verdict: VerdictJson): boolean {
  return !verdict.degraded && verdict.canary_status === "exercised" && verdict.analysis_status === "exercised";
}

/** The identity a screen run's cached verdicts are keyed by, or why there is none. */
export async function screenCacheIdentity(pipeline: unknown, server: OpenAIContextProof | null): Promise<IdentityOutcome> {
  const modelDigest = await knownModelDigest(isGenuinePipeline(pipeline) ? pipeline.probe : null).catch(() => null);
  return pipelineIdentity(pipeline, { scope: "screen_item", modelDigest, server });
}

/** An ItemVerdictCache over `store` under `identity`. */
export function screenItemCache(store: VerdictCache, identity: CacheIdentity): ItemVerdictCache {
  return {
    lookup(sha256): BatchItem | null {
      const stored = store.get(sha256, identity.key);
      if (stored === null) return null;
      const value = stored.value;
      const length = isPlainObject(value) ? value["length"] : undefined;
      const parsed = VerdictJsonSchema.safeParse(isPlainObject(value) ? value["verdict"] : undefined);
      if (!parsed.success || typeof length !== "number" || !exercised(parsed.data) || batchStateOfJson(parsed.data) !== stored.state) return null;
      return { index: 0, id: null, source: null, sha256, length, state: stored.state, verdict: parsed.data, reused: true, checked_at: stored.checkedAt };
    },
    store(sha256, item) {
      if (item.verdict === undefined || !exercised(item.verdict) || item.reused === true) return;
      store.put({ textSha256: sha256, identity, state: item.state, exercised: true, value: { verdict: item.verdict, length: item.length } });
    },
  };
}
