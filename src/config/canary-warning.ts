// The one-line stderr warnings that say the canary backend could not be reached (check, screen,
// ingest) and the setup hint that `demo --live` gives too. A user who has not started Ollama
// or pulled the model sees where the request went, for which model, and how to fix it, instead
// of a result that only says "degraded".
import type { CanaryProbe } from "../canary/types.js";
import type { BreakerTrip, CanaryOutageReason } from "../schedule/circuit-breaker.js";
import { displayText } from "../core/display-text.js";

/** How to get a local Ollama serving `model`. */
export function ollamaFixHint(model: string): string {
  return (
    "fix: install Ollama (https://ollama.com/download, or `curl -fsSL https://ollama.com/install.sh | sh`), " +
    `start it with \`ollama serve\`, then pull the canary model with \`ollama pull ${displayText(model)}\``
  );
}

/** Where the canary calls went: a redacted origin (no userinfo, no path) and the model. */
export interface CanaryTarget {
  readonly provider: "ollama" | "openai" | "embedded";
  readonly url: string;
  readonly model: string;
}

/** Where a pipeline's canary calls go (its probe's redacted origin) and for which model. */
export function canaryTarget(pipeline: { readonly probe: CanaryProbe }): CanaryTarget {
  return { provider: pipeline.probe.provider, url: pipeline.probe.endpointOrigin, model: pipeline.probe.model };
}

function fix(target: CanaryTarget): string {
  if (target.provider === "embedded") return "fix: a larger --timeout, a smaller model, or fewer --concurrency slots (docs/embedded.md)";
  return target.provider === "ollama"
    ? ollamaFixHint(target.model)
    : `fix: check that the server at ${target.url} is running and serves the model ${displayText(target.model)}`;
}

function what(reason: CanaryOutageReason, target: CanaryTarget): string {
  return reason === "timeout"
    ? `canary at ${target.url} (model ${displayText(target.model)}) did not answer before the timeout`
    : `canary unreachable at ${target.url} (model ${displayText(target.model)})`;
}

/** `warning: …` (one line, with a trailing newline) for checks whose canary call failed this way. */
export function canaryOutageWarning(target: CanaryTarget, reason: CanaryOutageReason, affected: string | null = null): string {
  const scope = affected === null ? "" : ` for ${affected}`;
  const timeoutHint = reason === "timeout" ? "; a slow CPU canary may need a larger --timeout" : "";
  return `warning: ${what(reason, target)}${scope}: ${reason}; the canary did not screen it${timeoutHint}; ${fix(target)}\n`;
}

/** `warning: …` (one line) when the circuit breaker stopped the canary calls of a batch. */
export function circuitOpenWarning(target: CanaryTarget, trip: BreakerTrip, notSent: string): string {
  return (
    `warning: ${what(trip.reason, target)}: ${trip.failures} checks in a row failed (${trip.reason}); ` +
    `stopped sending checks, ${notSent} not screened by the canary (error canary_circuit_open); ` +
    `--max-canary-failures N changes when this happens (0 never stops); ${tripFix(target, trip)}\n`
  );
}

/** A backend that answered earlier in the run is installed: it stopped or hung, so say that. */
function tripFix(target: CanaryTarget, trip: BreakerTrip): string {
  if (trip.answeredBefore === 0) return fix(target);
  return (
    `it had answered ${trip.answeredBefore} ${trip.answeredBefore === 1 ? "check" : "checks"} earlier in this run, so it stopped or hung mid-run: ` +
    `check that the server at ${target.url} is still running and not overloaded, then run again`
  );
}
