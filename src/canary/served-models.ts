// Whether the canary's server serves the model, asked once before the first check, and the one-line messages that say
// what is wrong and how to fix it. A server's model names are untrusted: the list printed is capped and cleaned.
import { LittleCanaryError } from "../core/errors.js";
import type { HttpCallOutcome, NetworkFailureCause } from "./http-call.js";

/** What the server's model list said (or why there is none). */
export type ServedModels =
  | { readonly kind: "listed"; readonly names: readonly string[]; readonly hasModel: boolean }
  | { readonly kind: "unreachable"; readonly cause: NetworkFailureCause | null }
  /**
   * It answered, but not with a model list (an error status, then in `status`; another shape), or it did not answer in
   * time (`timedOut`: whether it accepted the connection is not known).
   */
  | { readonly kind: "unknown"; readonly timedOut?: true; readonly status?: number };

/** A canary refusal before any check (model, context, pool), code "backend"; `message` is the one line shown to the user. */
export class CanaryRefusal extends LittleCanaryError {
  constructor(message: string) {
    super("backend", message);
  }
}

/** The canary model is not served where the canary calls go: no check can run (message: modelNotFoundMessage). */
export class CanaryModelError extends CanaryRefusal {
  override readonly name = "CanaryModelError";
  /** The coverage reason a check would have had. */
  readonly reason = "model_not_found" as const;
}

/** Most model names printed from a server's list; the rest are counted. */
const MAX_LISTED = 12;
const MAX_NAME_CHARS = 80;

/** The HTTP status of an answer that was not 200 (a model list refused with an error status), as ServedModels' `status`; else nothing. */
export function errorStatus(outcome: HttpCallOutcome | null | undefined): { readonly status?: number } {
  return (outcome?.kind === "response" || outcome?.kind === "unreadable_body") && outcome.status !== 200 ? { status: outcome.status } : {};
}

/** A plain model tag (letters, digits and `._:/@+-`) prints as it is; anything else JSON-quoted. */
export function printableModelName(name: string): string {
  return /^[A-Za-z0-9._:/@+-]{1,200}$/.test(name) ? name : JSON.stringify(name);
}

/** One server-supplied name: control and format characters removed, at most MAX_NAME_CHARS code points. */
function sanitizedName(name: string): string {
  const points = [...name.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "")];
  const cut = points.length > MAX_NAME_CHARS ? `${points.slice(0, MAX_NAME_CHARS).join("")}…` : points.join("");
  return cut === "" ? '""' : cut;
}

/** `a, b, c` or `a, b and 3 more`: the first `max` of `items` (each through `show`), then how many more; what a message shows of a list. */
export function shownList(items: readonly string[], max: number, show: (item: string) => string = (item) => item): string {
  const shown = items.slice(0, max).map(show).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/** The fix for a model an OpenAI-compatible server does not serve (its refusal, its warm-up failure, its outage warning). */
export const OPENAI_MODEL_FIX = "fix: serve that model there, or give --canary-model one it serves";

/** `canary model M is not available at ORIGIN (it serves: …); fix: ollama pull M` (Ollama), or `… is not served at ORIGIN …; fix: …` (OpenAI-compatible). */
export function modelNotFoundMessage(
  provider: "ollama" | "openai",
  model: string,
  origin: string,
  served: readonly string[],
  role: "canary" | "judge" = "canary",
): string {
  const m = printableModelName(model);
  const list = served.length === 0 ? "nothing" : shownList(served, MAX_LISTED, sanitizedName);
  // The judge is optional: leaving it out is a fix too.
  const orWithout = role === "judge" ? ", or run without --judge-model" : "";
  return provider === "ollama"
    ? `${role} model ${m} is not available at ${origin} (it serves: ${list}); fix: ollama pull ${m}${orWithout}`
    : `${role} model ${m} is not served at ${origin} (it serves: ${list}); ${OPENAI_MODEL_FIX}${orWithout}`;
}

/**
 * The fix for a server that could not be reached: start it or give its URL, or, on a port fetch
 * never connects to (9, 25, 6000, …, whatever listens there), move it to another port. `pool`: an
 * endpoint of a pool, whose URL is one of --canary-endpoint's.
 */
export function unreachableFix(provider: "ollama" | "openai", cause: NetworkFailureCause | null, pool = false): string {
  // A pool's endpoint was given in --canary-endpoint, with the others: its URL there is what to fix.
  const flag = pool ? "--canary-endpoint" : provider === "ollama" ? "--ollama-url" : "--base-url";
  if (cause === "a port fetch never connects to") {
    return `fix: serve the canary on another port (Ollama's own is 11434) and ${pool ? `give that in ${flag}` : `pass it with ${flag}`}`;
  }
  if (cause === "TLS failure") {
    // An https:// URL at a plain-HTTP port, or a certificate Node does not trust: the URL or the trust store is what to fix.
    return `fix: use http:// in ${flag} if the server speaks plain HTTP (Ollama does), or make Node trust its certificate (NODE_EXTRA_CA_CERTS)`;
  }
  const start = provider === "ollama" ? "start it (ollama serve)" : "start the server";
  return pool ? `fix: ${start} or correct its URL in ${flag}` : `fix: ${start} or pass ${flag}`;
}

/** `canary at ORIGIN is not reachable (cause); fix: …` (unreachableFix). */
export function unreachableMessage(provider: "ollama" | "openai", origin: string, cause: NetworkFailureCause | null): string {
  return `canary at ${origin} is not reachable (${cause ?? "no answer"}); ${unreachableFix(provider, cause)}`;
}

/** The refusal for a model the server does not list, or null (a server with no list is left to the checks). */
export function missingModelError(
  provider: "ollama" | "openai",
  model: string,
  origin: string,
  served: ServedModels,
  role: "canary" | "judge" = "canary",
): CanaryModelError | null {
  if (served.kind !== "listed" || served.hasModel) return null;
  return new CanaryModelError(modelNotFoundMessage(provider, model, origin, served.names, role));
}
