// Classification of one segment's serialized verdict under strict/v1. It works on the verdict as
// JSON (after the canonical round trip), never on a live object, so `verify` recomputes the
// recorded state from the manifest alone with this same function. Anything ambiguous is an
// error, which holds the record; only a verdict every rule agrees on is an exercised pass.
// A fail-closed denial (`blocked_by: "fail_closed"`) is `degraded`, not `block`: it says coverage
// failed, not that anything was detected (ingest never enables fail-closed; this keeps such a
// verdict visible as operational), and its `blocked_by` is not a detection signal.
import { compareCodePoints } from "../core/code-point-order.js";
import { truncateCodePoints } from "../core/codepoints.js";
import { isPlainObject } from "../core/guards.js";
import { VerdictJsonSchema, type VerdictJson } from "./verdict-schema.js";
import { MAX_SIGNAL_CHARS, MAX_SIGNALS_PER_RECORD } from "./policy.js";

/** A classified segment: its state and whether the canary exercised it. */
export interface Classified {
  readonly state: "pass" | "flag" | "block" | "degraded" | "unexercised";
  readonly exercised: boolean;
}

/** Why a verdict could not be classified. */
export interface ClassifyError {
  /** Stable code for the segment's `error` field. */
  readonly error: "invalid_verdict" | "unsupported_analysis";
  /** Which rule failed; never contains verdict text. */
  readonly message: string;
}

const invalid = (message: string): ClassifyError => ({ error: "invalid_verdict", message });

// Python's `dict.get`: an absent key reads as null. Own keys only, so an inherited property
// can never stand in for a field.
function field(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : null;
}

/** The shape rules and the schema (unless the verdict already matched it); returns the typed verdict or the first problem. */
function checkShape(verdictJson: unknown, schemaChecked: boolean): VerdictJson | ClassifyError {
  if (!isPlainObject(verdictJson)) return invalid("verdict must be an object");
  const safe = field(verdictJson, "safe");
  const degraded = field(verdictJson, "degraded");
  if (typeof safe !== "boolean" || typeof degraded !== "boolean") return invalid("safe and degraded must be booleans");
  const advisory = field(verdictJson, "advisory");
  if (advisory !== null && !(isPlainObject(advisory) && typeof field(advisory, "flagged") === "boolean")) {
    return invalid("advisory must be an object with a boolean flagged");
  }
  const risk = field(verdictJson, "canary_risk_score");
  if (risk !== null && !(typeof risk === "number" && Number.isFinite(risk) && risk >= 0 && risk <= 1)) {
    return invalid("canary_risk_score must be a finite number in [0, 1]");
  }
  if (safe && field(verdictJson, "blocked_by") !== null) return invalid("a safe verdict must not name a blocking layer");
  if (schemaChecked) return verdictJson as VerdictJson;
  const parsed = VerdictJsonSchema.safeParse(verdictJson);
  if (!parsed.success) return invalid("verdict does not match the verdict schema");
  return parsed.data;
}

/**
 * `(state, exercised)` of a serialized verdict, or the reason it cannot be classified.
 * `schemaChecked`: the verdict is zod's output of VerdictJsonSchema (verify's manifest record
 * schema holds each segment's verdict to it), which is not parsed again; the other rules still run.
 */
export function classifySegmentVerdict(verdictJson: unknown, schemaChecked = false): Classified | ClassifyError {
  const shaped = checkShape(verdictJson, schemaChecked);
  if ("error" in shaped) return shaped;
  const v = shaped;
  const risk = v.canary_risk_score;
  const exercised = !v.degraded && v.canary_status === "exercised" && v.analysis_status === "exercised" && risk !== null;
  if (v.blocked_by === "fail_closed") return { state: "degraded", exercised: false };
  if (!v.safe) return { state: "block", exercised };
  if (v.degraded) return { state: "degraded", exercised: false };
  if (v.advisory.flagged) return { state: "flag", exercised };
  if (v.canary_status !== "exercised" || v.analysis_status !== "exercised") return { state: "unexercised", exercised: false };
  if (v.analysis_method === "llm_judge") return { error: "unsupported_analysis", message: "strict/v1 does not accept llm_judge verdicts" };
  // strict/v1 treats any measured non-zero risk as a detection.
  if (risk !== null && risk > 0) return { state: "flag", exercised };
  return { state: "pass", exercised };
}

export function isClassifyError(result: Classified | ClassifyError): result is ClassifyError {
  return "error" in result;
}

/**
 * Detection signals of one classified verdict: its `blocked_by` (unless a fail-closed denial)
 * plus the advisory's string signals when it is flagged, each cut to 128 code points.
 * Returns [] for anything that is not an object; call it only for classified segments.
 */
export function extractSignals(verdictJson: unknown): string[] {
  if (!isPlainObject(verdictJson)) return [];
  const signals: string[] = [];
  const blockedBy = field(verdictJson, "blocked_by");
  if (typeof blockedBy === "string" && blockedBy !== "fail_closed") signals.push(blockedBy);
  const advisory = field(verdictJson, "advisory");
  if (isPlainObject(advisory) && field(advisory, "flagged") === true) {
    const listed = field(advisory, "signals");
    if (Array.isArray(listed)) {
      for (const s of listed) if (typeof s === "string") signals.push(s);
    }
  }
  return signals.map((s) => truncateCodePoints(s, MAX_SIGNAL_CHARS));
}

/** `detection_signals` of a record: the code-point-sorted union, first 32. */
export function detectionSignals(perSegment: Iterable<readonly string[]>): string[] {
  const union = new Set<string>();
  for (const signals of perSegment) for (const s of signals) union.add(s);
  return [...union].sort(compareCodePoints).slice(0, MAX_SIGNALS_PER_RECORD);
}
