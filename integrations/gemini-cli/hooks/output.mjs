// Gemini CLI's answer objects for BeforeAgent (cli-server-demo.md §5.2 table): every answer
// carries `decision` (allow|deny) and `reason`; warnings go in `systemMessage`. Key order is
// fixed: decision, reason, systemMessage.
import { withNotices } from "../_shared/command-hook.mjs";

export const ALLOWED = "Little Canary allowed this prompt after exercised screening.";
export const REJECTED = "Little Canary rejected this prompt before the Gemini agent started.";
export const ALLOWED_WITH_ADVISORY = "Little Canary allowed this prompt with an advisory.";
export const FLAGGED = "Little Canary flagged this prompt but the server's routing policy allowed it.";

/**
 * @param {{ decision: "allow" | "warn" | "deny" | "unscreened", block: boolean, reason: string | null }} outcome
 * @param {string[]} notices health notices (service cannot gate), appended to systemMessage
 * @returns {Record<string, string>}
 */
export function renderGeminiCli(outcome, notices) {
  let answer;
  let message;
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
  if (systemMessage !== undefined) answer.systemMessage = systemMessage;
  return answer;
}
