// Readiness for `/health` without waiting on the canary backend (weak point 2). The pipeline's
// health check (a GET /api/tags with its own short deadline) runs in the background at most once
// at a time; `/health` answers at once with the last result, which is at most `ttlMs` old when
// the backend answers promptly. Before the first result exists the report says so and is never
// "ready": an unknown backend is not a working one.
import type { HealthReport } from "../pipeline/health.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";

export interface CachedHealth {
  readonly report: HealthReport | null;
  /** Milliseconds since the report was taken, or null before the first one. */
  readonly ageMs: number | null;
}

export class HealthCache {
  readonly #pipeline: SecurityPipeline;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #report: HealthReport | null = null;
  #takenAt = 0;
  #inFlight: Promise<HealthReport> | null = null;

  constructor(pipeline: SecurityPipeline, ttlMs: number, now: () => number = () => performance.now()) {
    this.#pipeline = pipeline;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** The cached report; starts a background refresh when it is missing or stale. */
  current(): CachedHealth {
    if (this.#report === null || this.#now() - this.#takenAt >= this.#ttlMs) void this.refresh();
    return { report: this.#report, ageMs: this.#report === null ? null : Math.max(0, this.#now() - this.#takenAt) };
  }

  /** One refresh (shared by concurrent callers). Never rejects: a throwing check is "not ready". */
  refresh(): Promise<HealthReport> {
    if (this.#inFlight) return this.#inFlight;
    const run = (async () => {
      try {
        const report = await this.#pipeline.healthCheck();
        this.#report = report;
      } catch {
        this.#report = { ...(this.#report ?? pendingReport(this.#pipeline)), canary_available: false, canary_check: "failed", ready: false, degraded: true, status: "degraded" };
      }
      this.#takenAt = this.#now();
      return this.#report;
    })();
    this.#inFlight = run;
    void run.finally(() => {
      if (this.#inFlight === run) this.#inFlight = null;
    });
    return run;
  }
}

/** The configuration part of a health report, before any backend answer: never ready. */
export function pendingReport(pipeline: SecurityPipeline): HealthReport {
  const d = pipeline.describe();
  const o = pipeline.options;
  const ready = !d.canaryEnabled;
  return {
    structural_filter: d.structuralFilter,
    canary_enabled: d.canaryEnabled,
    mode: d.mode,
    provider: o.provider,
    analyzer: o.judgeModel !== null ? "llm_judge" : "regex",
    on_degraded: d.onDegraded,
    ...(d.canaryEnabled ? { canary_model: o.canaryModel, canary_available: false, canary_timeout: o.canaryTimeout } : {}),
    ready,
    degraded: !ready,
    status: ready ? "ready" : "degraded",
    coverage: d.canaryEnabled ? "behavioral" : d.structuralFilter ? "structural_only" : "unscreened",
  };
}
