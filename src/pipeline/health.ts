// Readiness report of a pipeline: configuration and whether the canary (and
// judge) backends answer. It never contains secrets, URL userinfo/paths or exception text.
import { endpointClass, endpointOrigin } from "../canary/endpoint.js";
import { OllamaCanaryProbe } from "../canary/ollama-probe.js";
import type { SecurityPipeline } from "./pipeline.js";

/** Readiness of a pipeline: its configuration and whether its backends answer; no secrets. */
export interface HealthReport {
  readonly structural_filter: boolean;
  readonly canary_enabled: boolean;
  readonly mode: string;
  readonly provider: string;
  readonly analyzer: "regex" | "llm_judge";
  readonly on_degraded: "fail_open" | "fail_closed";
  readonly canary_model?: string;
  readonly canary_available?: boolean;
  readonly canary_check?: "failed";
  /**
   * Ollama only: what the run's warm-up and GET /api/ps showed (docs/canary.md). `unknown`
   * until the first check; `too_small` means every check is degraded, so the report is not ready.
   */
  readonly canary_context?: "unknown" | "verified" | "too_small" | "unverified";
  readonly canary_timeout?: number;
  readonly temperature?: number;
  readonly ollama_url?: string;
  readonly base_url?: string;
  readonly endpoint_origin?: string;
  readonly endpoint_class?: "loopback" | "remote" | "invalid";
  readonly judge_model?: string;
  readonly judge_available?: boolean;
  readonly judge_check?: "failed";
  readonly ready: boolean;
  readonly degraded: boolean;
  readonly status: "ready" | "degraded";
  readonly coverage: "behavioral" | "structural_only" | "unscreened";
}

async function probeAvailability(check: () => Promise<boolean>): Promise<{ available: boolean; threw: boolean }> {
  try {
    return { available: (await check()) === true, threw: false };
  } catch {
    return { available: false, threw: true };
  }
}

export async function buildHealthReport(pipeline: SecurityPipeline): Promise<HealthReport> {
  const o = pipeline.options;
  const report: Record<string, unknown> = {
    structural_filter: o.enableStructuralFilter,
    canary_enabled: o.enableCanary,
    mode: o.mode,
    provider: o.provider,
    analyzer: o.judgeModel !== null ? "llm_judge" : "regex",
    on_degraded: o.onDegraded,
  };
  let ready = true;
  if (o.enableCanary) {
    const url = o.provider === "openai" ? o.baseUrl : o.ollamaUrl;
    const [canary, judge] = await Promise.all([
      probeAvailability(() => pipeline.probe.isAvailable()),
      o.judgeModel !== null && "isAvailable" in pipeline.analyzer
        ? probeAvailability(() => (pipeline.analyzer as unknown as { isAvailable(): Promise<boolean> }).isAvailable())
        : Promise.resolve(null),
    ]);
    report.canary_model = o.canaryModel;
    report.canary_available = canary.available;
    if (canary.threw) report.canary_check = "failed";
    report.canary_timeout = o.canaryTimeout;
    report.temperature = o.temperature;
    const origin = endpointOrigin(url);
    report[o.provider === "openai" ? "base_url" : "ollama_url"] = origin;
    report.endpoint_origin = origin === "<invalid endpoint>" ? "invalid" : origin;
    report.endpoint_class = endpointClass(url);
    ready = canary.available;
    if (pipeline.probe instanceof OllamaCanaryProbe) {
      // Read without a request: the health check never waits on a chat call.
      const known = pipeline.probe.knownRunContext;
      report.canary_context = known === null ? "unknown" : known.loaded.kind;
      if (known?.loaded.kind === "too_small") ready = false;
    }
    if (judge !== null) {
      report.judge_model = o.judgeModel;
      report.judge_available = judge.available;
      if (judge.threw) report.judge_check = "failed";
      ready = ready && judge.available;
    }
  }
  report.ready = ready;
  report.degraded = !ready;
  report.status = ready ? "ready" : "degraded";
  report.coverage = o.enableCanary ? "behavioral" : o.enableStructuralFilter ? "structural_only" : "unscreened";
  return report as unknown as HealthReport;
}
