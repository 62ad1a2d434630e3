// What a pipeline's checks cost the canary, read once per batch run (`ingest`, `screen`): whether
// any check calls it, and for which texts a check is certain not to, so those can still run
// after the canary circuit breaker (pipeline/circuit-breaker.ts) opened. It trusts the options of
// a genuine pipeline only (genuine.ts); anything else is assumed to call the canary every time.
import { isGenuinePipeline } from "./genuine.js";

/**
 * How a pipeline's checks relate to the canary, read once per run. `canaryCalls` is false only
 * for a library pipeline with the canary disabled: its checks are structural only and cost
 * microseconds. `skipsCanaryOn` tells, for a text, whether a check of it is certain not to call
 * the canary (no canary at all, or a structural block that ends the check first), so it can
 * still run after the breaker opened, or after a record stopped, at no canary cost; null when
 * that cannot be known.
 */
export interface CanaryProfile {
  readonly canaryCalls: boolean;
  readonly skipsCanaryOn: ((text: string) => boolean) | null;
}

/** The canary profile of `pipeline`: exact for a genuine pipeline, "always calls" for anything else. */
export function canaryProfile(pipeline: unknown): CanaryProfile {
  // Only a frozen pipeline of this library's own class is known to behave as its options say.
  if (!isGenuinePipeline(pipeline)) return { canaryCalls: true, skipsCanaryOn: null };
  const o = pipeline.options;
  if (!o.enableCanary) return { canaryCalls: false, skipsCanaryOn: () => true };
  if (!o.enableStructuralFilter || !o.skipCanaryIfStructuralBlocks || o.mode === "advisory") {
    return { canaryCalls: true, skipsCanaryOn: null };
  }
  const filter = pipeline.structuralFilter;
  return { canaryCalls: true, skipsCanaryOn: (text) => filter.check(text).blocked };
}
