// Readiness report of a pipeline: configuration and whether the canary (and
// judge) backends answer. It never contains secrets, URL userinfo/paths or exception text.
import { endpointClass, endpointOrigin } from "../canary/endpoint.js";
import { canaryKind, poolMembers } from "../canary/identity.js";
import type { RunContext } from "../canary/run-context.js";
import type { CanaryClients, PipelineBase } from "./base.js";
import type { CanaryProbe } from "../canary/types.js";
import type { ResolvedPipelineOptions } from "../canary/pipeline-options.js";

/** What a readiness report reads of a pipeline: its options and its two backends (pipeline.ts calls this module). */
export type HealthSubject = Pick<PipelineBase, "options"> & CanaryClients;

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
  /**
   * A canary pool only: each endpoint's origin, in the pool's order. `endpoint_origin` then lists
   * them too (the first four), `endpoint_class` is `remote` when any of them is (raw text leaves
   * the machine), and there is no `ollama_url` / `base_url`: the pool replaced that one URL.
   */
  readonly canary_endpoints?: readonly string[];
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

/** The report before its verdict fields; built in the order its keys are serialized. */
type HealthDraft = { -readonly [K in keyof Omit<HealthReport, "ready" | "degraded" | "status" | "coverage">]: HealthReport[K] };

/**
 * Adds to `report` where the checks go (the endpoint, or the pool's) and what is known of the
 * canary's context window, all read without a request; says whether that context is too small.
 */
function whereChecksGo(pipeline: HealthSubject, report: HealthDraft): { readonly contextTooSmall: boolean } {
  const o = pipeline.options;
  const pool = poolMembers(pipeline.probe);
  if (o.provider === "embedded") {
    // In this process: there is no URL to show.
    report.endpoint_origin = "embedded";
  } else if (pool !== null) {
    // The checks go to the pool's endpoints, never to the provider's default URL.
    const origins = pool.map((probe) => probe.endpointOrigin);
    report.endpoint_origin = pipeline.probe.endpointOrigin;
    report.endpoint_class = poolClass(origins);
    report.canary_endpoints = origins;
  } else {
    const url = o.provider === "openai" ? o.baseUrl : o.ollamaUrl;
    const origin = endpointOrigin(url);
    report[o.provider === "openai" ? "base_url" : "ollama_url"] = origin;
    report.endpoint_origin = origin === "<invalid endpoint>" ? "invalid" : origin;
    report.endpoint_class = endpointClass(url);
  }
  if (canaryKind(pipeline.probe) !== "ollama") return { contextTooSmall: false };
  // Read without a request: the health check never waits on a chat call (the Ollama probe's knownRunContext).
  const known = (pipeline.probe as CanaryProbe & { readonly knownRunContext: RunContext | null }).knownRunContext;
  report.canary_context = known === null ? "unknown" : known.loaded.kind;
  return { contextTooSmall: known?.loaded.kind === "too_small" };
}

/** The configuration part of a report, which no backend's answer changes. */
function configuration(o: ResolvedPipelineOptions): HealthDraft {
  return {
    structural_filter: o.enableStructuralFilter,
    canary_enabled: o.enableCanary,
    mode: o.mode,
    provider: o.provider,
    analyzer: o.judgeModel !== null ? "llm_judge" : "regex",
    on_degraded: o.onDegraded,
  };
}

/** `report` with its verdict fields: whether it is ready, and what a check covers. */
function concluded(report: HealthDraft, ready: boolean, o: ResolvedPipelineOptions): HealthReport {
  return {
    ...report,
    ready,
    degraded: !ready,
    status: ready ? "ready" : "degraded",
    coverage: o.enableCanary ? "behavioral" : o.enableStructuralFilter ? "structural_only" : "unscreened",
  };
}

/** The class of a pool's endpoints together: invalid if any is, else remote if any is (text leaves the machine), else loopback. */
function poolClass(origins: readonly string[]): NonNullable<HealthReport["endpoint_class"]> {
  const classes = origins.map((origin) => endpointClass(origin));
  return classes.includes("invalid") ? "invalid" : classes.includes("remote") ? "remote" : "loopback";
}

/** The report before any backend has answered (`/health` before its first check): never ready while there is a canary to ask. */
export function pendingHealthReport(pipeline: HealthSubject, checkFailed = false): HealthReport {
  const o = pipeline.options;
  const report = configuration(o);
  if (o.enableCanary) {
    // In the order a finished report has its keys (buildHealthReport).
    Object.assign(report, {
      canary_model: o.canaryModel,
      canary_available: false,
      ...(checkFailed ? { canary_check: "failed" as const } : {}),
      canary_timeout: o.canaryTimeout,
      temperature: o.temperature,
    });
    // Where the checks go is known without asking: a report waiting on its backend says it too.
    whereChecksGo(pipeline, report);
  }
  return concluded(report, !o.enableCanary, o);
}

/** The readiness report of `pipeline`: its configuration, then each backend asked whether it answers. */
export async function buildHealthReport(pipeline: HealthSubject): Promise<HealthReport> {
  const o = pipeline.options;
  const report = configuration(o);
  let ready = true;
  if (o.enableCanary) {
    // The judge's own readiness check (the regex analyzer has none).
    const judgeCheck = o.judgeModel !== null ? pipeline.analyzer.isAvailable?.bind(pipeline.analyzer) : undefined;
    const [canary, judge] = await Promise.all([
      probeAvailability(() => pipeline.probe.isAvailable()),
      judgeCheck !== undefined ? probeAvailability(judgeCheck) : Promise.resolve(null),
    ]);
    report.canary_model = o.canaryModel;
    report.canary_available = canary.available;
    if (canary.threw) report.canary_check = "failed";
    report.canary_timeout = o.canaryTimeout;
    report.temperature = o.temperature;
    const { contextTooSmall } = whereChecksGo(pipeline, report);
    ready = canary.available && !contextTooSmall;
    // `judge` is non-null only when a judge model is set; the second test says so to the compiler.
    if (judge !== null && o.judgeModel !== null) {
      report.judge_model = o.judgeModel;
      report.judge_available = judge.available;
      if (judge.threw) report.judge_check = "failed";
      ready = ready && judge.available;
    }
  }
  return concluded(report, ready, o);
}
