// A circuit breaker for canary calls in a batch (`ingest`, `screen`): a dead or hung backend would
// otherwise cost every remaining check its own failure or full timeout (a hung Ollama at 600 s is
// about a week for 1,000 records). After `threshold` consecutive checks (in completion order)
// whose canary call failed as unreachable or timed out, it opens for the rest of the run: callers
// stop calling the canary, report the rest as not screened, and print one warning. It reads
// serialized verdicts only (test/architecture/layers.test.ts holds it to documents/ imports).
import type { VerdictJson } from "../documents/verdict-schema.js";

/** Consecutive unreachable/timeout failures that open the breaker unless a flag changes it. */
export const DEFAULT_MAX_CANARY_FAILURES = 5;

/** The `error` of a segment or item not sent to the canary because the breaker had opened. */
export const CIRCUIT_OPEN_ERROR = "canary_circuit_open";

/**
 * The canary failures that say "the backend is not there" rather than "this one reply was bad":
 * no answer, no answer in time, or a server without the canary model (removed mid-run).
 */
export type CanaryOutageReason = "unavailable" | "timeout" | "model_not_found";

const OUTAGE_REASONS: ReadonlySet<string> = new Set<CanaryOutageReason>(["unavailable", "timeout", "model_not_found"]);

/** What one check says about the canary backend. */
export type CanaryObservation =
  | { readonly kind: "outage"; readonly reason: CanaryOutageReason }
  | { readonly kind: "answered" }
  | { readonly kind: "not_called" };

/** Why and when the breaker opened. */
export interface BreakerTrip {
  readonly reason: CanaryOutageReason;
  /** The consecutive failures that opened it (the threshold). */
  readonly failures: number;
  /** Checks of this run the canary had answered before it failed: > 0 means it died mid-run. */
  readonly answeredBefore: number;
}

/**
 * Reads the canary layer of a serialized verdict: an `unavailable`, `timeout` or `model_not_found`
 * coverage reason is an outage; any other canary attempt (a reply, even a bad one, means the backend is there)
 * is `answered`; a check that skipped or disabled the canary says nothing about it.
 */
export function observeCanary(verdict: VerdictJson): CanaryObservation {
  const layer = canaryLayer(verdict);
  if (layer === undefined || layer.status === "skipped") return { kind: "not_called" };
  const failed = failedCanaryReason(verdict);
  if (failed !== null && OUTAGE_REASONS.has(failed)) return { kind: "outage", reason: failed as CanaryOutageReason };
  return { kind: "answered" };
}

function canaryLayer(verdict: VerdictJson): VerdictJson["layers"][number] | undefined {
  return verdict.layers.find((l) => l.name === "canary_probe");
}

/** The coverage reason of a serialized verdict's failed canary layer (an outage or any other failure), or null. */
export function failedCanaryReason(verdict: VerdictJson): string | null {
  const layer = canaryLayer(verdict);
  return layer?.status === "failed" ? (layer.coverage_reason ?? null) : null;
}

/** Counts consecutive canary outages; once open it stays open for the rest of the run. */
export class CanaryCircuitBreaker {
  readonly threshold: number;
  #consecutive = 0;
  #answered = 0;
  #trip: BreakerTrip | null = null;

  readonly #onOpen: ((trip: BreakerTrip) => void) | undefined;

  /**
   * `threshold` 0 never opens (every check is sent whatever happens). `onOpen` hears the trip
   * once, when it opens: a long run says so then, not only in its summary at the end.
   */
  constructor(threshold: number = DEFAULT_MAX_CANARY_FAILURES, onOpen?: (trip: BreakerTrip) => void) {
    if (!Number.isSafeInteger(threshold) || threshold < 0) throw new RangeError("threshold must be a non-negative integer");
    this.threshold = threshold;
    this.#onOpen = onOpen;
  }

  /** True once the breaker has opened: send no more canary calls. */
  get open(): boolean {
    return this.#trip !== null;
  }

  /** Why it opened, or null while closed. */
  get trip(): BreakerTrip | null {
    return this.#trip;
  }

  /** Feeds one check's outcome. */
  record(observation: CanaryObservation): void {
    if (this.#trip !== null || observation.kind === "not_called") return;
    if (observation.kind === "answered") {
      this.#consecutive = 0;
      this.#answered++;
      return;
    }
    this.#consecutive++;
    if (this.threshold > 0 && this.#consecutive >= this.threshold) {
      this.#trip = Object.freeze({ reason: observation.reason, failures: this.#consecutive, answeredBefore: this.#answered });
      this.#onOpen?.(this.#trip);
    }
  }
}
