// SecurityPipeline's options as a caller gives them: the settings of canary/pipeline-options.ts
// (validated there, with their defaults) and the callbacks, typed with the pipeline's verdict.
import type { PIPELINE_CALLBACK_NAMES, PipelineSettings } from "../canary/pipeline-options.js";
import type { PipelineVerdict } from "./verdict.js";

/** Callbacks a pipeline calls after each check, by outcome. */
export interface PipelineCallbacks extends Partial<Record<(typeof PIPELINE_CALLBACK_NAMES)[number], (verdict: PipelineVerdict) => void>> {
  /** Called for a clean, exercised pass. */
  readonly onPass?: (verdict: PipelineVerdict) => void;
  /** Called for a blocked verdict. */
  readonly onBlock?: (verdict: PipelineVerdict) => void;
  /** Called for a verdict that passed with an advisory. */
  readonly onFlag?: (verdict: PipelineVerdict) => void;
  /** Called for a degraded verdict. */
  readonly onDegraded?: (verdict: PipelineVerdict) => void;
  /** Called for a verdict whose canary layer did not run. */
  readonly onUnexercised?: (verdict: PipelineVerdict) => void;
}

/** Options of SecurityPipeline; validated at construction (canary/pipeline-options.ts, `resolvePipelineOptions`). */
export interface SecurityPipelineOptions extends PipelineSettings {
  readonly callbacks?: PipelineCallbacks;
}
