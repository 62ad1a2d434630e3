// classifyForHost: the decision every host adapter takes from one `/check` verdict, the only copy
// (the plugins are bundled from these sources; the OpenAI Agents guardrail imports it). Order,
// first match wins: required fields → `blocked_by: "fail_closed"` (coverage failed: unscreened,
// not a detection) → `safe: false` (deny) → coverage not exercised (unscreened) → advisory
// (missing: unscreened; flagged: warn) → allow. The failure mode decides if unscreened is refused.
import { isPlainObject } from "../core/guards.js";
import { UsageError } from "../core/errors.js";

/** What a host does with one input: pass it, warn, refuse it, or report that it was not screened. */
export type HostDecision = "allow" | "warn" | "deny" | "unscreened";
/** What a host does with `unscreened` input: let it through with a warning, or refuse it. */
export type FailureMode = "allow" | "deny";
/** Why a verdict is unscreened: no usable verdict at all, or a verdict whose coverage is incomplete. */
export type UnscreenedCause = "unavailable" | "incomplete";

/** One verdict classified for a host: the decision, why, and whether to refuse the input. */
export interface HostClassification {
  readonly decision: HostDecision;
  readonly cause: UnscreenedCause | null;
  /** For `unscreened`: what failed, in words safe to show a user (never input text). */
  readonly reason: string | null;
  /**
   * `advisory.flagged === true`, also on an unscreened verdict: there it is a detection (the
   * structural layer flagged the text) whose behavioral coverage is incomplete, and hosts name the
   * detection first, never as "screening unavailable" (adapter/detection-lead.ts).
   */
  readonly flagged: boolean;
  /** The host should refuse the input: `deny`, or `unscreened` under the `deny` failure mode. */
  readonly block: boolean;
  readonly failureMode: FailureMode;
}

/** Environment variable holding the failure mode (`allow` or `deny`). */
export const FAILURE_MODE_ENV = "LITTLE_CANARY_FAILURE_MODE";
/** The error text for a failure mode other than `allow`/`deny`. */
export const INVALID_FAILURE_MODE = "failure mode must be 'allow' or 'deny'";
/** The reason given when a verdict lacks a required coverage field. */
export const REASON_MISSING_FIELDS = "verdict omitted required coverage fields";
/** The reason given when a verdict is degraded or its canary or analysis did not run. */
export const REASON_NOT_EXERCISED = "behavioral coverage was not exercised";

/** A failure-mode setting, read: the mode, or the error to report. */
export type FailureModeParse = { readonly ok: true; readonly mode: FailureMode } | { readonly ok: false; readonly error: string };

/**
 * LITTLE_CANARY_FAILURE_MODE: `allow`|`deny`, trimmed, case-insensitive; unset, empty or
 * whitespace means `allow`. Anything else is an error value, never a silent allow.
 */
export function parseFailureMode(raw: unknown): FailureModeParse {
  const value = raw === undefined || raw === null ? "allow" : typeof raw === "string" ? raw.trim().toLowerCase() || "allow" : null;
  return value === "allow" || value === "deny" ? { ok: true, mode: value } : { ok: false, error: INVALID_FAILURE_MODE };
}

type Classified = Omit<HostClassification, "block" | "failureMode">;

const MISSING_FIELDS: Classified = Object.freeze({ decision: "unscreened", cause: "unavailable", reason: REASON_MISSING_FIELDS, flagged: false });
const notExercised = (flagged: boolean): Classified => ({ decision: "unscreened", cause: "incomplete", reason: REASON_NOT_EXERCISED, flagged });

/** The host-independent decision for a verdict as answered by `/check` (or `toDict()`). */
export function classifyVerdict(verdict: unknown): Classified {
  if (
    !isPlainObject(verdict) ||
    typeof verdict["safe"] !== "boolean" ||
    typeof verdict["degraded"] !== "boolean" ||
    typeof verdict["canary_status"] !== "string" ||
    typeof verdict["analysis_status"] !== "string"
  ) {
    return MISSING_FIELDS;
  }
  const advisory = verdict["advisory"];
  const flagged = isPlainObject(advisory) && advisory["flagged"] === true;
  if (verdict["blocked_by"] === "fail_closed") return notExercised(flagged);
  if (verdict["safe"] === false) return { decision: "deny", cause: null, reason: null, flagged };
  if (verdict["degraded"] || verdict["canary_status"] !== "exercised" || verdict["analysis_status"] !== "exercised") return notExercised(flagged);
  if (!isPlainObject(advisory) || typeof advisory["flagged"] !== "boolean") return MISSING_FIELDS;
  return { decision: flagged ? "warn" : "allow", cause: null, reason: null, flagged };
}

function withPolicy(classified: Classified, failureMode: unknown): HostClassification {
  if (failureMode !== "allow" && failureMode !== "deny") throw new UsageError(INVALID_FAILURE_MODE);
  const block = classified.decision === "deny" || (classified.decision === "unscreened" && failureMode === "deny");
  return Object.freeze({ ...classified, block, failureMode });
}

/**
 * What a host should do with one serialized verdict. Throws UsageError for a failure mode other
 * than `allow`/`deny` (read the environment with parseFailureMode and report its error).
 */
export function classifyForHost(verdict: unknown, options: { readonly failureMode: FailureMode }): HostClassification {
  return withPolicy(classifyVerdict(verdict), options?.failureMode);
}

/** The outcome when no verdict could be used (transport error, bad configuration): unscreened. */
export function unscreenedForHost(reason: string, options: { readonly failureMode: FailureMode }): HostClassification {
  return withPolicy({ decision: "unscreened", cause: "unavailable", reason, flagged: false }, options?.failureMode);
}
