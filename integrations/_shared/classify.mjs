// The one verdict classifier every host adapter uses (issue 8, cli-server-demo.md §5 and §7
// item 10). Dependency-free on purpose: command hooks run it with `node` alone from a fresh
// checkout. src/integrations/classify.ts implements the same table for the library, and a matrix
// test runs both over the same verdicts, so a change here without the twin fails the build.
//
// Decisions, evaluated in this order (first match wins):
//   1. required fields    `safe`/`degraded` not booleans, `canary_status`/`analysis_status` not
//                         strings, or no object at all              -> unscreened (unavailable)
//   2. fail-closed        `blocked_by: "fail_closed"`: the service refused because coverage
//                         failed; that is not a detection           -> unscreened (incomplete)
//   3. unsafe             `safe === false`                          -> deny
//   4. coverage           `degraded`, or canary or analysis not `exercised`
//                                                                   -> unscreened (incomplete)
//   5. advisory           `advisory` missing or without a boolean `flagged`
//                                                                   -> unscreened (unavailable)
//                         `advisory.flagged === true`               -> warn
//   6. otherwise                                                    -> allow
// The failure mode then says what the host does with `unscreened`: let it through with a visible
// warning (`allow`, the default) or refuse it (`deny`). An invalid mode is never read as allow:
// parseFailureMode reports it and the adapters surface that report.

export const FAILURE_MODES = Object.freeze(["allow", "deny"]);
export const FAILURE_MODE_ENV = "LITTLE_CANARY_FAILURE_MODE";
export const INVALID_FAILURE_MODE = "failure mode must be 'allow' or 'deny'";
export const REASON_MISSING_FIELDS = "verdict omitted required coverage fields";
export const REASON_NOT_EXERCISED = "behavioral coverage was not exercised";

/**
 * Reads LITTLE_CANARY_FAILURE_MODE: `allow`|`deny`, trimmed and case-insensitive. Unset, empty or
 * whitespace means the default `allow` (the same rule as LITTLE_CANARY_TIMEOUT); anything else is
 * an error value, never a silent allow.
 * @param {unknown} raw
 * @returns {{ ok: true, mode: "allow" | "deny" } | { ok: false, error: string }}
 */
export function parseFailureMode(raw) {
  if (raw === undefined || raw === null) return { ok: true, mode: "allow" };
  if (typeof raw !== "string") return { ok: false, error: INVALID_FAILURE_MODE };
  const value = raw.trim().toLowerCase();
  if (value === "") return { ok: true, mode: "allow" };
  if (value === "allow" || value === "deny") return { ok: true, mode: value };
  return { ok: false, error: INVALID_FAILURE_MODE };
}

function isPlainObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The host-independent decision for one verdict as answered by `/check` (pipeline.md §5.4).
 * @param {unknown} verdict
 * @returns {{ decision: "allow" | "warn" | "deny" | "unscreened", cause: null | "unavailable" | "incomplete", reason: string | null, flagged: boolean }}
 */
export function classifyVerdict(verdict) {
  if (
    !isPlainObject(verdict) ||
    typeof verdict.safe !== "boolean" ||
    typeof verdict.degraded !== "boolean" ||
    typeof verdict.canary_status !== "string" ||
    typeof verdict.analysis_status !== "string"
  ) {
    return { decision: "unscreened", cause: "unavailable", reason: REASON_MISSING_FIELDS, flagged: false };
  }
  const advisory = verdict.advisory;
  const flagged = isPlainObject(advisory) && advisory.flagged === true;
  if (verdict.blocked_by === "fail_closed") {
    return { decision: "unscreened", cause: "incomplete", reason: REASON_NOT_EXERCISED, flagged };
  }
  if (verdict.safe === false) return { decision: "deny", cause: null, reason: null, flagged };
  if (verdict.degraded || verdict.canary_status !== "exercised" || verdict.analysis_status !== "exercised") {
    return { decision: "unscreened", cause: "incomplete", reason: REASON_NOT_EXERCISED, flagged };
  }
  if (!isPlainObject(advisory) || typeof advisory.flagged !== "boolean") {
    return { decision: "unscreened", cause: "unavailable", reason: REASON_MISSING_FIELDS, flagged: false };
  }
  if (flagged) return { decision: "warn", cause: null, reason: null, flagged: true };
  return { decision: "allow", cause: null, reason: null, flagged: false };
}

function checkedMode(options) {
  const mode = options === undefined || options === null ? undefined : options.failureMode;
  if (mode !== "allow" && mode !== "deny") throw new TypeError(INVALID_FAILURE_MODE);
  return mode;
}

/**
 * What a host should do with one verdict: the decision plus `block` (refuse the input), which is
 * true for `deny`, and for `unscreened` under the `deny` failure mode.
 * @param {unknown} verdict
 * @param {{ failureMode: "allow" | "deny" }} options
 */
export function classifyForHost(verdict, options) {
  const failureMode = checkedMode(options);
  const classified = classifyVerdict(verdict);
  return withPolicy(classified, failureMode);
}

/**
 * The outcome when no verdict could be used at all (transport error, bad configuration, bad hook
 * input): always `unscreened`, with `reason` naming what failed.
 * @param {string} reason
 * @param {{ failureMode: "allow" | "deny" }} options
 */
export function unscreenedForHost(reason, options) {
  const failureMode = checkedMode(options);
  return withPolicy({ decision: "unscreened", cause: "unavailable", reason, flagged: false }, failureMode);
}

function withPolicy(classified, failureMode) {
  const block = classified.decision === "deny" || (classified.decision === "unscreened" && failureMode === "deny");
  return Object.freeze({ ...classified, block, failureMode });
}
