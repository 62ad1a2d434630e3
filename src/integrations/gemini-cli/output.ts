// Gemini CLI's answer objects for BeforeAgent: every answer carries `decision` (allow|deny) and
// `reason`; warnings go in `systemMessage`. Key order is fixed: decision, reason, systemMessage.
import type { HostClassification } from "../classify.js";
import { hookAnswer, type HookAnswer } from "../adapter/command-hook.js";
import { detectionLead } from "../adapter/detection-lead.js";

/** The reason for a clean, exercised prompt. */
const ALLOWED = "Little Canary allowed this prompt after exercised screening.";
/** The reason for an unsafe prompt. */
const REJECTED = "Little Canary rejected this prompt before the Gemini agent started.";
/** The reason for a flagged (allowed) prompt. */
const ALLOWED_WITH_ADVISORY = "Little Canary allowed this prompt with an advisory.";
/** The system message for a flagged (allowed) prompt. */
const FLAGGED = "Little Canary flagged this prompt but the server's routing policy allowed it.";

/** The answer for a prompt with nothing to screen (empty, or Unicode whitespace alone): allowed, no request made, and `reason` says why. */
export const GEMINI_CLI_NOTHING_TO_SCREEN: HookAnswer = Object.freeze({
  decision: "allow",
  reason: "Little Canary had nothing to screen: the prompt was empty or whitespace only.",
});

/** The hook's answer for one outcome; health notices are appended to `systemMessage`. */
export function renderGeminiCli(outcome: HostClassification, notices: readonly string[]): HookAnswer {
  const unavailable = `${detectionLead(outcome, "prompt") ?? `Little Canary screening unavailable: ${outcome.reason}`}.`;
  if (outcome.decision === "deny") return hookAnswer({ decision: "deny", reason: REJECTED }, undefined, notices);
  if (outcome.decision === "warn") return hookAnswer({ decision: "allow", reason: ALLOWED_WITH_ADVISORY }, FLAGGED, notices);
  if (outcome.decision === "allow") return hookAnswer({ decision: "allow", reason: ALLOWED }, undefined, notices);
  if (outcome.block) return hookAnswer({ decision: "deny", reason: `${unavailable} Prompt denied by configured fail-closed policy.` }, undefined, notices);
  const message = `${unavailable} Gemini CLI continued because Little Canary is fail-open.`;
  return hookAnswer({ decision: "allow", reason: `${unavailable} Prompt allowed by configured fail-open policy.` }, message, notices);
}
