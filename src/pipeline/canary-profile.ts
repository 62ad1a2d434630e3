// What a pipeline's checks cost the canary, read once per batch run (`ingest`, `screen`), so the
// checks certain not to call it can still run after the circuit breaker opened. Only a genuine
// pipeline's options are trusted (genuine.ts); anything else is assumed to call it every time.
import { isGenuinePipeline } from "./genuine.js";

/**
 * `canaryCalls` is false only for a library pipeline with the canary disabled (structural checks
 * only). `skipsCanaryOn` tells whether a check of a text is certain not to call the canary (none
 * at all, or a structural block that ends the check first); null when that cannot be known.
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
  if (!o.enableStructuralFilter || !o.skipCanaryIfStructuralBlocks || o.mode === "advisory") return { canaryCalls: true, skipsCanaryOn: null };
  const filter = pipeline.structuralFilter;
  return { canaryCalls: true, skipsCanaryOn: (text) => filter.check(text).blocked };
}
