// The canary's server checked and reported: the model check every checking command runs once before
// its first check (Ollama: GET /api/tags; OpenAI-compatible: GET /models; a refusal names the model,
// the server, what it serves and the fix; a server that does not answer is each command's own rule,
// check and screen fail open, ingest refuses), and the one-line stderr warnings that say the canary
// could not be reached, did not answer in time, or does not have the model (check, screen, ingest),
// and the setup hint of `demo --live`. A user sees where the request went, for which model, and the
// fix that fits the failure (raise --timeout, pull the model, start the server), instead of a
// result that only says "degraded".
import { canaryKind } from "../canary/identity.js";
import type { CanaryProbe } from "../canary/types.js";
import type { NetworkFailureCause } from "../canary/http-call.js";
import { missingModelError, OPENAI_MODEL_FIX, printableModelName, unreachableFix, unreachableMessage, type ServedModels } from "../canary/served-models.js";
import type { BreakerTrip, CanaryOutageReason } from "./circuit-breaker.js";
import { displayText } from "../core/display-text.js";

/** What the last model check of each probe found (read by the warnings and modelCheckProblem). */
const lastChecks = new WeakMap<CanaryProbe, ServedModels>();

/**
 * Why the canary is not ready, in one line with its fix, when the last model check of `probe`
 * says so (no call of its own, so nothing here can hold up a shutdown): not reachable, not
 * answering in time, answering the model list's request with an HTTP error status (named, with
 * the request), or answering without a model list (a server that is not the one named).
 * A missing model is the check's own refusal; anything else, or no check yet, is null.
 */
export function modelCheckProblem(probe: CanaryProbe): string | null {
  const served = lastChecks.get(probe);
  if (served === undefined || served.kind === "listed") return null;
  const provider = probe.provider === "openai" ? "openai" : "ollama";
  const origin = probe.endpointOrigin;
  if (served.kind === "unreachable") return unreachableMessage(provider, origin, served.cause);
  const list = provider === "openai" ? "GET /models" : "GET /api/tags";
  // A timeout is all the check saw: a server that never accepted the connection ends the same way as one that accepted it and hung.
  if (served.timedOut === true)
    return `canary at ${origin} did not answer ${list} before the timeout; fix: check that the server is running, reachable from here, and not stuck or still starting`;
  const flag = provider === "openai" ? "--base-url" : "--ollama-url";
  if (served.status !== undefined) {
    const server = provider === "openai" ? "an OpenAI-compatible server" : "Ollama";
    return `canary at ${origin} answered ${list} with HTTP ${served.status}, not with a model list; fix: if it is ${server}, see its log for the error; if not, point ${flag} at ${server}`;
  }
  return `canary at ${origin} answered, but not with a model list, so it may not be the server ${flag} should name; fix: point ${flag} at it`;
}

/**
 * What `check` and `screen` warn about once their checks are done: the model check's problem
 * (modelCheckProblem) when the run's own canary warnings said nothing. A server whose model list
 * could not be read but whose chats answered would otherwise pass unremarked (serve logs the same
 * line); when the checks failed too, their warning already names that server and its fix, and the
 * fact is not told twice. Null without a canary, or when its model list was read.
 */
export function unreadModelListProblem(pipeline: { readonly probe: CanaryProbe | null } | undefined, canaryWarned: boolean): string | null {
  const probe = pipeline?.probe ?? null;
  if (probe === null || canaryWarned) return null;
  const served = lastChecks.get(probe);
  // The checks' chats were answered (else they would have warned): the server was reached, only
  // its model list was not read, so "not reachable" would contradict the run's own results.
  if (served?.kind === "unreachable") {
    const list = probe.provider === "openai" ? "GET /models" : "GET /api/tags";
    return `canary at ${probe.endpointOrigin} answered the checks, but its model list (${list}) could not be read (${served.cause ?? "no answer"}); the model it serves was not confirmed`;
  }
  return modelCheckProblem(probe);
}

/**
 * Asks `probe`'s server for its model list, once, and throws CanaryModelError when the list
 * does not hold the probe's model. Resolves to what the server said, or null for a probe this
 * check does not apply to (a pool pins its own identity; the embedded canary is a file).
 */
export async function confirmCanaryModel(probe: CanaryProbe): Promise<ServedModels | null> {
  const kind = canaryKind(probe);
  if (kind !== "ollama" && kind !== "openai") return null;
  // One endpoint of a provider: its model list says whether the server has the model.
  const endpoint = probe as CanaryProbe & { readonly provider: "ollama" | "openai"; servedModels(): Promise<ServedModels> };
  const served = await endpoint.servedModels();
  lastChecks.set(probe, served);
  const missing = missingModelError(endpoint.provider, probe.model, probe.endpointOrigin, served);
  if (missing !== null) throw missing;
  return served;
}

/** How to get a local Ollama serving `model`. */
export function ollamaFixHint(model: string): string {
  return (
    "fix: install Ollama (https://ollama.com/download, or `curl -fsSL https://ollama.com/install.sh | sh`), " +
    `start it with \`ollama serve\`, then pull the canary model with \`ollama pull ${displayText(model)}\``
  );
}

/** Where the canary calls went: a redacted origin (no userinfo, no path), the model and the call's deadline. */
export interface CanaryTarget {
  readonly provider: "ollama" | "openai" | "embedded";
  readonly url: string;
  readonly model: string;
  /** The per-call timeout in seconds, named by a timeout's hint; absent when unknown. */
  readonly timeoutSeconds?: number;
  /** Why the pre-run model check found the server unreachable, when it did and could tell. */
  readonly unreachableCause?: NetworkFailureCause | null;
  /** The pre-run model check found a model list there: the server is the kind the flag should name. */
  readonly modelListed?: boolean;
}

/** Where a pipeline's canary calls go (its probe's redacted origin), for which model, its timeout, and what the model check saw. */
export function canaryTarget(pipeline: { readonly probe: CanaryProbe }): CanaryTarget {
  const probe = pipeline.probe;
  // Undefined when the model check found the server reachable, or did not run.
  const last = lastChecks.get(probe);
  const cause = last?.kind === "unreachable" ? last.cause : undefined;
  return {
    provider: probe.provider,
    url: probe.endpointOrigin,
    model: probe.model,
    timeoutSeconds: probe.timeoutSeconds,
    ...(cause !== undefined ? { unreachableCause: cause } : {}),
    ...(last?.kind === "listed" ? { modelListed: true } : {}),
  };
}

/** The hint that fits the failure: a larger --timeout, the model pulled, or the server started. */
function fix(target: CanaryTarget, reason: CanaryOutageReason): string {
  if (target.provider === "embedded") return "fix: a larger --timeout, a smaller model, or fewer --concurrency slots (docs/embedded.md)";
  const model = printableModelName(target.model);
  if (reason === "timeout") {
    // A timeout does not say whether the server accepted the connection and was slow, or never accepted it: the fix covers both.
    const now = target.timeoutSeconds === undefined ? "" : ` (now ${target.timeoutSeconds}s)`;
    return (
      `fix: if the canary is slow, raise --timeout${now} (a CPU canary may need several minutes per check); ` +
      "if not, check that the server is running and that nothing drops the connection on the way"
    );
  }
  if (reason === "model_not_found") {
    return target.provider === "ollama" ? `fix: ollama pull ${model}` : OPENAI_MODEL_FIX;
  }
  return unreachableFix(target.provider, target.unreachableCause ?? null);
}

/** How many checks a warning is about: their count, and its words ("3 items of 10"). */
export interface AffectedItems {
  readonly count: number;
  readonly words: string;
  /** The checks failed for more than one reason: the line then says what all of them share, not the first reason's story. */
  readonly mixed?: boolean;
}

/** ` for 3 items of 10`, or nothing for a single check. */
function scopeOf(affected: AffectedItems | null): string {
  return affected === null ? "" : ` for ${affected.words}`;
}

/** "the canary did not screen it", or "them" when `affected` counts more than one. */
function notScreened(affected: AffectedItems | null): string {
  return `the canary did not screen ${(affected?.count ?? 1) === 1 ? "it" : "them"}`;
}

function what(reason: CanaryOutageReason, target: CanaryTarget): string {
  const model = printableModelName(target.model);
  if (reason === "timeout") return `canary at ${target.url} (model ${model}) did not answer before the timeout`;
  if (reason === "model_not_found") return `canary model ${model} is not available at ${target.url}`;
  const cause = target.unreachableCause ?? null;
  return `canary at ${target.url} is not reachable${cause === null ? "" : ` (${cause})`}`;
}

/** `warning: …` (one line, with a trailing newline) for checks whose canary call failed this way. */
export function canaryOutageWarning(target: CanaryTarget, reason: CanaryOutageReason, affected: AffectedItems | null = null): string {
  const scope = scopeOf(affected);
  return `warning: ${what(reason, target)}${scope}: ${reason}; ${notScreened(affected)}; ${fix(target, reason)}\n`;
}

/** Canary failures that mean a server answered, but not as the canary's server does: most often another service at that URL. */
const WRONG_ANSWERS: ReadonlySet<string> = new Set(["http_error", "invalid_response"]);

/**
 * `warning: …` (one line) for checks whose canary call was answered but not used (`reason`, the
 * first one's coverage reason; `affected`: how many, and as "3 items of 10"): an HTTP error status or
 * a body of another shape names the server's address as the likely cause, unless the server
 * listed its models before the run (an error status is then its own failure); any other reason
 * (an empty or cut-off reply, a prompt not shown read whole) has its own fix.
 */
export function canaryReplyWarning(target: CanaryTarget, reason: string, affected: AffectedItems | null = null): string {
  if (reason === "input_too_long") return notSentWarning(target, affected);
  if (!WRONG_ANSWERS.has(reason) || target.provider === "embedded") return unusableReplyWarning(target, reason, affected);
  const [server, flag] = target.provider === "ollama" ? ["Ollama", "--ollama-url"] : ["an OpenAI-compatible server", "--base-url"];
  const scope = scopeOf(affected);
  // It listed its models before the run: the right kind of server, failing these calls itself.
  const ownFailure = reason === "http_error" && target.modelListed === true;
  const fixText = ownFailure
    ? "fix: the server listed its models before the run, so it failed these calls itself: see its log (out of memory, a model that failed to load) (docs/troubleshooting.md)"
    : `fix: check that ${flag} is ${server} serving that model (docs/troubleshooting.md)`;
  // Several reasons: only some of the replies were HTTP errors or of another shape, so the line
  // says what they all share, and the most common reason's fix.
  const leadIn =
    affected?.mixed === true
      ? `answered, but its reply could not be used (${reason})`
      : ownFailure
        ? `answered with an HTTP error status (${reason})`
        : `answered, but not as ${server} does (${reason})`;
  return `warning: canary at ${target.url} (model ${printableModelName(target.model)}) ${leadIn}${scope}; ${notScreened(affected)}; ${fixText}\n`;
}

/** Not a reply at all: a text past the most windows one check screens is never sent to the canary. */
function notSentWarning(target: CanaryTarget, affected: AffectedItems | null): string {
  const scope = scopeOf(affected);
  return (
    `warning: a text needs more canary windows than one check screens (input_too_long)${scope}, so it was not sent to the canary at ${target.url}; ` +
    `${notScreened(affected)}; fix: split the text into smaller texts (the library's maxSegments option raises the limit; docs/canary.md)\n`
  );
}

/**
 * `warning: …` (one line) when the circuit breaker stopped the canary calls of a batch; `notSent`
 * says how many were then never sent ("5 items of 8"), null when none was left to send; `failed`
 * how many more the canary did not screen because their own check failed ("5 items whose check
 * failed (timeout)"), null for none, so the line counts every item the canary did not screen.
 */
export function circuitOpenWarning(target: CanaryTarget, trip: BreakerTrip, notSent: string | null, failed: string | null = null): string {
  const unsent = notSent === null ? "but every check had already been sent" : `${notSent} not screened by the canary (error canary_circuit_open)`;
  const alsoFailed = failed === null ? "" : `, and ${failed}`;
  return (
    `warning: ${what(trip.reason, target)}: ${trip.failures} checks in a row failed (${trip.reason}); ` +
    `stopped sending checks, ${unsent}${alsoFailed}; ` +
    `--max-canary-failures N changes when this happens (0 never stops); ${tripFix(target, trip)}\n`
  );
}

/**
 * What a run says the moment its breaker opens (without the `warning: ` prefix), before the
 * summary's circuitOpenWarning: the progress line goes on counting `things` that are now held or
 * degraded without a canary call, and the person watching it should know why at once.
 */
export function circuitOpenedNow(trip: BreakerTrip, things: "records" | "items"): string {
  return (
    `the canary stopped answering: ${trip.failures} checks in a row failed (${trip.reason}); ` +
    `no more checks are sent to it in this run, so the ${things} left are not screened by the canary; ` +
    "the summary at the end says how many and what to fix"
  );
}

/** A backend that answered earlier in the run is installed: it stopped or hung, so say that. */
function tripFix(target: CanaryTarget, trip: BreakerTrip): string {
  if (trip.answeredBefore === 0) return fix(target, trip.reason);
  if (trip.reason === "model_not_found")
    return `it had answered ${checks(trip.answeredBefore)} earlier in this run, so the model was removed mid-run: ${fix(target, trip.reason)}`;
  return (
    `it had answered ${checks(trip.answeredBefore)} earlier in this run, so it stopped or hung mid-run: ` +
    `check that the server at ${target.url} is still running and not overloaded, then run again`
  );
}

function checks(n: number): string {
  return `${n} ${n === 1 ? "check" : "checks"}`;
}

/** What to do about a canary reply that came but could not be used, by its coverage reason. */
function unusableReplyFix(target: CanaryTarget, reason: string): string {
  const model = printableModelName(target.model);
  if (reason === "empty_response") {
    const byHand = target.provider === "ollama" ? `try it by hand (ollama run ${model}) or ` : "";
    return `fix: the model replied with nothing: ${byHand}choose another --canary-model`;
  }
  if (reason === "output_limit" || reason === "incomplete_response") {
    return "fix: the reply ended before it was complete: read the server's log; a model or server that stops early cannot vouch for a text";
  }
  if (reason.startsWith("context_")) return "fix: the canary did not show it read the whole prompt: see the canary's context in docs/troubleshooting.md";
  return "fix: run again; if it repeats, see docs/troubleshooting.md";
}

/**
 * `warning: …` (one line) for checks whose canary call came back but could not be used (an empty
 * or cut-off reply, a prompt the server may not have read whole, an unforeseen error): such a
 * check is degraded like an outage, and the run says so on stderr as it does for an outage.
 */
function unusableReplyWarning(target: CanaryTarget, reason: string, affected: AffectedItems | null): string {
  const scope = scopeOf(affected);
  return (
    `warning: canary at ${target.url} (model ${printableModelName(target.model)}) answered, but its reply could not be used (${reason})${scope}; ` +
    `${notScreened(affected)}; ${unusableReplyFix(target, reason)}\n`
  );
}
