// Gemini CLI's answer objects for BeforeAgent: every answer carries `decision` (allow|deny) and
// `reason`; warnings go in `systemMessage`. Key order is fixed: decision, reason, systemMessage.
import type { HostClassification } from "../classify.js";
import { withNotices, type HookAnswer } from "../adapter/command-hook.js";

/** The reason for a clean, exercised prompt. */
const ALLOWED = "Little Canary allowed this prompt after exercised screening.";
/** The reason for an unsafe prompt. */
const REJECTED = "Little Canary rejected this prompt before the Gemini agent started.";
/** The reason for a flagged (allowed) prompt. */
const ALLOWED_WITH_ADVISORY = "Little Canary allowed this prompt with an advisory.";
/** The system message for a flagged (allowed) prompt. */
const FLAGGED = "Little Canary flagged this prompt but the server's routing policy allowed it.";

/** The hook's answer for one outcome; health notices are appended to `systemMessage`. */
export function renderGeminiCli(outcome: HostClassification, notices: readonly string[]): HookAnswer {
  let answer: HookAnswer;
  let message: string | undefined;
  if (outcome.decision === "deny") {
    answer = { decision: "deny", reason: REJECTED };
  } else if (outcome.decision === "unscreened" && outcome.block) {
    answer = {
      decision: "deny",
      reason: `Little Canary screening unavailable: ${outcome.reason}. Prompt denied by configured fail-closed policy.`,
    };
  } else if (outcome.decision === "unscreened") {
    answer = {
      decision: "allow",
      reason: `Little Canary screening unavailable: ${outcome.reason}. Prompt allowed by configured fail-open policy.`,
    };
    message = `Little Canary screening unavailable: ${outcome.reason}. Gemini CLI continued because Little Canary is fail-open.`;
  } else if (outcome.decision === "warn") {
    answer = { decision: "allow", reason: ALLOWED_WITH_ADVISORY };
    message = FLAGGED;
  } else {
    answer = { decision: "allow", reason: ALLOWED };
  }
  const systemMessage = withNotices(message, notices);
  if (systemMessage !== undefined) answer["systemMessage"] = systemMessage;
  return answer;
}
