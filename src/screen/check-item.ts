// One item's check, the single copy used by the in-memory `screenItems` and the streaming
// `screenFile`: the item's provenance (index, id, source, SHA-256 and code-point length of its
// text, never the text), then the pipeline's verdict and its batch state, or `degraded` with a
// stable error name when the check failed or the circuit breaker stopped canary calls.
//
// A verdict cache wraps the check here and only here (`ItemVerdictCache`): a hit is reused
// without a pipeline call, and only an item whose layers all ran (pass, flag or block) is
// offered for storing, so a degraded or unexercised result is never reused.
import { createHash } from "node:crypto";
import { codePointLength } from "../core/codepoints.js";
import type { BatchItem } from "../documents/schemas.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import { isGenuineVerdict } from "../pipeline/verdict.js";
import { type CanaryCircuitBreaker, CIRCUIT_OPEN_ERROR, canaryProfile, observeCanary } from "../schedule/circuit-breaker.js";
import type { ScreenItem } from "./admit.js";
import { batchState } from "./state.js";

/** The states whose verdict may be reused: every layer ran, so the result says something. */
const REUSABLE_STATES: ReadonlySet<BatchItem["state"]> = new Set(["pass", "flag", "block"]);

/**
 * Where a verdict cache plugs in. The cache owns its key: `textSha256` is the item text's
 * SHA-256, and the canary identity (model, prompt, options…) is the cache's own concern.
 */
export interface ItemVerdictCache {
  /** A stored item for this text, or null. Its index, id and source are replaced by the current item's. */
  lookup(textSha256: string): Promise<BatchItem | null> | BatchItem | null;
  /** Offers a freshly checked item; called only for `pass`, `flag` and `block`. */
  store(textSha256: string, item: BatchItem): Promise<void> | void;
}

/** What `itemChecker` needs besides the pipeline. */
export interface ItemCheckOptions {
  /** Shared by every item of a batch: once open, items that need the canary are not sent. */
  readonly breaker: CanaryCircuitBreaker;
  readonly cache?: ItemVerdictCache;
}

/** The check of one item against `pipeline`, as a function of the item (see the file comment). */
export function itemChecker(pipeline: Pick<SecurityPipeline, "check">, options: ItemCheckOptions): (item: ScreenItem) => Promise<BatchItem> {
  const { breaker, cache } = options;
  const profile = canaryProfile(pipeline);
  const check = async (item: ScreenItem, provenance: Omit<BatchItem, "state">): Promise<BatchItem> => {
    if (breaker.open && !(profile.skipsCanaryOn?.(item.text) ?? false)) {
      return { ...provenance, state: "degraded", error: CIRCUIT_OPEN_ERROR };
    }
    try {
      const verdict = await pipeline.check(item.text);
      if (!isGenuineVerdict(verdict)) throw new TypeError("check did not return a PipelineVerdict");
      const record = verdict.toRecord();
      breaker.record(observeCanary(record));
      return { ...provenance, state: batchState(verdict), verdict: record };
    } catch (error) {
      // An item whose check failed was not screened: degraded, with only the error's class name.
      const name = error instanceof Error ? error.constructor.name : "Error";
      return { ...provenance, state: "degraded", error: name };
    }
  };
  return async (item) => {
    const provenance = {
      index: item.index,
      id: item.id,
      source: item.source,
      sha256: createHash("sha256").update(item.text, "utf8").digest("hex"),
      length: codePointLength(item.text),
    };
    if (cache === undefined) return check(item, provenance);
    const hit = await cache.lookup(provenance.sha256);
    if (hit !== null && hit.sha256 === provenance.sha256 && hit.length === provenance.length && REUSABLE_STATES.has(hit.state)) {
      return { ...hit, index: provenance.index, id: provenance.id, source: provenance.source };
    }
    const result = await check(item, provenance);
    if (REUSABLE_STATES.has(result.state)) await cache.store(provenance.sha256, result);
    return result;
  };
}
