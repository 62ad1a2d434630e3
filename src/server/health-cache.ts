// Readiness for `/health` without a long wait on the canary backend (a hanging probe must not make
// the service look dead). The pipeline's health check runs at most once at a time; a result is
// reused for `ttlMs` from when its check started, refreshed in the background at half that age.
// An older result is never served as current: the caller waits up to `staleWaitMs` for the
// refresh, else the report says stale and not ready. Before the first result it is never ready.
import { orAbort } from "../core/or-abort.js";
import { pendingHealthReport, type HealthReport } from "../pipeline/health.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";

export interface CachedHealth {
  /**
   * The readiness result, taken less than `ttlMs` ago; null before the first one exists or when
   * the last one is older than the reuse window (see `stale`).
   */
  readonly report: HealthReport | null;
  /** Milliseconds since the last result's check started, or null before the first one. */
  readonly ageMs: number | null;
  /** True when a result exists but is older than the reuse window and no fresher one came in time. */
  readonly stale: boolean;
}

/** How long `/health` waits for a refresh of a result older than its reuse window. */
export const DEFAULT_STALE_WAIT_MS = 250;

export interface HealthCacheOptions {
  /** Monotonic clock in milliseconds (tests). */
  readonly now?: () => number;
  /** Upper bound of the wait for a refresh when the cached result is too old (default 250 ms). */
  readonly staleWaitMs?: number;
}

export class HealthCache {
  readonly #pipeline: SecurityPipeline;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #staleWaitMs: number;
  #report: HealthReport | null = null;
  #takenAt = 0;
  #inFlight: Promise<HealthReport> | null = null;

  constructor(pipeline: SecurityPipeline, ttlMs: number, options: HealthCacheOptions = {}) {
    this.#pipeline = pipeline;
    this.#ttlMs = ttlMs;
    this.#now = options.now ?? (() => performance.now());
    this.#staleWaitMs = options.staleWaitMs ?? DEFAULT_STALE_WAIT_MS;
  }

  #age(): number | null {
    return this.#report === null ? null : Math.max(0, this.#now() - this.#takenAt);
  }

  #snapshot(): CachedHealth | null {
    const ageMs = this.#age();
    if (ageMs === null || ageMs >= this.#ttlMs) return null;
    // Refresh ahead of expiry so the next caller still finds a result inside the window.
    if (ageMs >= this.#ttlMs / 2) void this.refresh();
    return { report: this.#report, ageMs, stale: false };
  }

  /**
   * The readiness result to serve now. A result inside the reuse window is returned at once;
   * otherwise a refresh starts and is awaited for at most `staleWaitMs`.
   */
  async current(): Promise<CachedHealth> {
    const fresh = this.#snapshot();
    if (fresh !== null) return fresh;
    await orAbort(this.refresh(), AbortSignal.timeout(this.#staleWaitMs)).catch(() => undefined);
    const after = this.#snapshot();
    if (after !== null) return after;
    return { report: null, ageMs: this.#age(), stale: this.#report !== null };
  }

  /** One refresh (shared by concurrent callers). Never rejects: a throwing check is "not ready". */
  refresh(): Promise<HealthReport> {
    if (this.#inFlight) return this.#inFlight;
    const startedAt = this.#now();
    const run = (async () => {
      let report: HealthReport;
      try {
        report = await this.#pipeline.healthCheck();
      } catch {
        report = { ...pendingHealthReport(this.#pipeline), canary_available: false, canary_check: "failed", ready: false, degraded: true, status: "degraded" };
      }
      this.#report = report;
      this.#takenAt = startedAt;
      return report;
    })();
    this.#inFlight = run;
    void run.finally(() => {
      if (this.#inFlight === run) this.#inFlight = null;
    });
    return run;
  }
}
