// SecurityPipeline: the checks of base.ts with the canary backends this library builds from the
// options (clients.ts), built at construction so `probe` and `analyzer` are there at once. The
// instance is frozen after construction, so no caller can swap its probe, analyzer or `check`
// (ingest relies on that to trust its verdicts).
import type { Analyzer } from "../analysis/types.js";
import type { CanaryProbe } from "../canary/types.js";
import { PipelineBase } from "./base.js";
import { buildAnalyzer, buildProbe } from "./clients.js";
import { buildHealthReport, type HealthReport } from "./health.js";
import type { SecurityPipelineOptions } from "./options.js";

/**
 * The screening pipeline: the structural filter, then the canary probe and its analysis; every
 * verdict says what was detected and how much was inspected.
 */
export class SecurityPipeline extends PipelineBase {
  declare readonly probe: CanaryProbe;
  declare readonly analyzer: Analyzer;

  constructor(options: SecurityPipelineOptions = {}) {
    super(options, (resolved, systemPrompt) => ({
      probe: buildProbe(resolved, options, systemPrompt),
      analyzer: buildAnalyzer(resolved, options, systemPrompt),
    }));
  }

  /** Readiness of the pipeline and its backends. */
  async healthCheck(): Promise<HealthReport> {
    return buildHealthReport(this);
  }
}
