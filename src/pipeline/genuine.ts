// Whether a pipeline is one this library built and nobody has re-wired since: the exact
// SecurityPipeline class (not a subclass), frozen at construction so its probe, analyzer and
// `check` cannot be swapped. Callers that trust a pipeline's verdicts without re-checking them
// (the ingest context gate, the verdict cache's identity) start from this test, and so does what
// a pipeline's checks cost the canary, read once per batch run (`ingest`, `screen`) so the checks
// certain not to call it can still run after the circuit breaker opened.
import { SecurityPipeline } from "./pipeline.js";

/** True for a frozen instance of SecurityPipeline itself (a subclass or a look-alike is not genuine). */
export function isGenuinePipeline(pipeline: unknown): pipeline is SecurityPipeline {
  return pipeline instanceof SecurityPipeline && Object.getPrototypeOf(pipeline) === SecurityPipeline.prototype && Object.isFrozen(pipeline);
}

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
