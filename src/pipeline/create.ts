// A pipeline that loads the canary backends only when it runs a canary: a one-off check with the
// canary off (`check --no-canary`) then loads none of the ~50 backend and judge modules.
import { PipelineBase } from "./base.js";
import { resolvePipelineOptions } from "../canary/pipeline-options.js";
import type { SecurityPipelineOptions } from "./options.js";

/**
 * A SecurityPipeline for `options`, or, with the canary off, the same checks without its
 * backends. Every option is validated before anything is loaded: a refusal (UsageError) is
 * thrown synchronously, as `new SecurityPipeline(options)` throws it.
 */
export function createPipeline(options: SecurityPipelineOptions): Promise<PipelineBase> {
  if (!resolvePipelineOptions(options).enableCanary) return Promise.resolve(new PipelineBase(options, null));
  return import("./pipeline.js").then(({ SecurityPipeline }) => new SecurityPipeline(options));
}
