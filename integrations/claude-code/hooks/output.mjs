// Claude Code's answer objects for UserPromptSubmit (cli-server-demo.md §5.1 table). Only keys
// from Codex's hook schema are used (`decision` is only ever "block"), so the same output is
// valid when Codex CLI runs this hook. Key order is fixed: decision, reason, systemMessage.
import { withNotices } from "../_shared/command-hook.mjs";

export const REJECTED = "Little Canary rejected this prompt before Claude Code started the turn.";
export const FLAGGED = "Little Canary flagged this prompt but the server's routing policy allowed it.";

/**
 * @param {{ decision: "allow" | "warn" | "deny" | "unscreened", block: boolean, reason: string | null }} outcome
 * @param {string[]} notices health notices (service cannot gate), appended to systemMessage
 * @returns {Record<string, string>}
 */
export function renderClaudeCode(outcome, notices) {
  const answer = {};
  let message;
  if (outcome.decision === "deny") {
    answer.decision = "block";
    answer.reason = REJECTED;
  } else if (outcome.decision === "unscreened" && outcome.block) {
    answer.decision = "block";
    answer.reason = `Little Canary screening unavailable: ${outcome.reason}. Prompt blocked by configured fail-closed policy.`;
  } else if (outcome.decision === "unscreened") {
    message = `Little Canary screening unavailable: ${outcome.reason}. Claude Code continued because Little Canary is fail-open.`;
  } else if (outcome.decision === "warn") {
    message = FLAGGED;
  }
  const systemMessage = withNotices(message, notices);
  if (systemMessage !== undefined) answer.systemMessage = systemMessage;
  return answer;
}
