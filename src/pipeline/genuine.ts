// Whether a pipeline is one this library built and nobody has re-wired since: the exact
// SecurityPipeline class (not a subclass), frozen at construction so its probe, analyzer and
// `check` cannot be swapped. Callers that trust a pipeline's verdicts without re-checking them
// (the ingest context gate, the verdict cache's identity) start from this test.
import { SecurityPipeline } from "./pipeline.js";

/** True for a frozen instance of SecurityPipeline itself (a subclass or a look-alike is not genuine). */
export function isGenuinePipeline(pipeline: unknown): pipeline is SecurityPipeline {
  return pipeline instanceof SecurityPipeline && Object.getPrototypeOf(pipeline) === SecurityPipeline.prototype && Object.isFrozen(pipeline);
}
