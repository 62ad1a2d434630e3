// SecurityPipeline's options as a caller gives them: the settings of canary/pipeline-options.ts
// (validated there, with their defaults) and the callbacks, typed with the pipeline's verdict.
import type { PIPELINE_CALLBACK_NAMES, PipelineSettings } from "../canary/pipeline-options.js";
import type { PipelineVerdict } from "./verdict.js";

/**
 * Callbacks a pipeline calls after each check, by outcome (first match wins): `onBlock` (blocked),
 * `onDegraded`, `onFlag` (passed with an advisory), `onUnexercised` (the canary layer did not run),
 * `onPass` (a clean, exercised pass).
 */
export type PipelineCallbacks = Readonly<Partial<Record<(typeof PIPELINE_CALLBACK_NAMES)[number], (verdict: PipelineVerdict) => void>>>;

/** Options of SecurityPipeline; validated at construction (canary/pipeline-options.ts, `resolvePipelineOptions`). */
export interface SecurityPipelineOptions extends PipelineSettings {
  readonly callbacks?: PipelineCallbacks;
}
