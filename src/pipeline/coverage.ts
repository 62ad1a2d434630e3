// Why a layer did not give behavioural coverage: the probe's failure codes plus the pipeline's own.
import type { CanaryFailureCode } from "../canary/types.js";

export type CoverageReason = CanaryFailureCode | "probe_failed" | "analysis_failed";
