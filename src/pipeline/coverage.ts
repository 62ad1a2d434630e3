// Why a layer did not give behavioural coverage: the probe's failure codes plus the pipeline's own.
import type { CanaryFailureCode } from "../canary/types.js";

/**
 * Why a check did not cover all of its input (or the canary did not run), as recorded in verdicts and manifests.
 * `input_too_long`: the text needs more windows than `maxSegments`, so the canary was not run.
 */
export type CoverageReason = CanaryFailureCode | "probe_failed" | "analysis_failed" | "input_too_long";
