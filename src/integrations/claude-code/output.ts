// Claude Code's answer objects for UserPromptSubmit. Only keys from Codex's hook schema are used
// (`decision` is only ever "block"), so the same output is valid when Codex CLI runs this hook.
// Key order is fixed: decision, reason, systemMessage.
import type { HostClassification } from "../classify.js";
import { withNotices, type HookAnswer } from "../adapter/command-hook.js";

/** The block reason for an unsafe prompt. */
const REJECTED = "Little Canary rejected this prompt before Claude Code started the turn.";
/** The system message for a flagged (allowed) prompt. */
const FLAGGED = "Little Canary flagged this prompt but the server's routing policy allowed it.";

/** The hook's answer for one outcome; health notices are appended to `systemMessage`. */
export function renderClaudeCode(outcome: HostClassification, notices: readonly string[]): HookAnswer {
  const answer: HookAnswer = {};
  let message: string | undefined;
  if (outcome.decision === "deny") {
    answer["decision"] = "block";
    answer["reason"] = REJECTED;
  } else if (outcome.decision === "unscreened" && outcome.block) {
    answer["decision"] = "block";
    answer["reason"] = `Little Canary screening unavailable: ${outcome.reason}. Prompt blocked by configured fail-closed policy.`;
  } else if (outcome.decision === "unscreened") {
    message = `Little Canary screening unavailable: ${outcome.reason}. Claude Code continued because Little Canary is fail-open.`;
  } else if (outcome.decision === "warn") {
    message = FLAGGED;
  }
  const systemMessage = withNotices(message, notices);
  if (systemMessage !== undefined) answer["systemMessage"] = systemMessage;
  return answer;
}
