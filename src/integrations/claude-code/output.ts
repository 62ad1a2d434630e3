// Claude Code's answer objects for UserPromptSubmit. Only keys from Codex's hook schema are used
// (`decision` is only ever "block"), so the same output is valid when Codex CLI runs this hook.
// Key order is fixed: decision, reason, systemMessage.
import type { HostClassification } from "../classify.js";
import { hookAnswer, type HookAnswer } from "../adapter/command-hook.js";
import { detectionLead } from "../adapter/detection-lead.js";

/** The block reason for an unsafe prompt. */
const REJECTED = "Little Canary rejected this prompt before Claude Code started the turn.";
/** The system message for a flagged (allowed) prompt. */
const FLAGGED = "Little Canary flagged this prompt but the server's routing policy allowed it.";

/**
 * The answer for a prompt with nothing to screen (empty, or Unicode whitespace alone): no request
 * is made. Claude Code reads `reason` only with a block and shows `systemMessage` as a warning,
 * and an empty prompt is not one, so the answer is the pass-through `{}`.
 */
export const CLAUDE_CODE_NOTHING_TO_SCREEN: HookAnswer = Object.freeze({});

/** The hook's answer for one outcome; health notices are appended to `systemMessage`. */
export function renderClaudeCode(outcome: HostClassification, notices: readonly string[]): HookAnswer {
  const unavailable = `${detectionLead(outcome, "prompt") ?? `Little Canary screening unavailable: ${outcome.reason}`}.`;
  if (outcome.decision === "deny") return hookAnswer({ decision: "block", reason: REJECTED }, undefined, notices);
  if (outcome.decision !== "unscreened") return hookAnswer({}, outcome.decision === "warn" ? FLAGGED : undefined, notices);
  if (outcome.block) return hookAnswer({ decision: "block", reason: `${unavailable} Prompt blocked by configured fail-closed policy.` }, undefined, notices);
  return hookAnswer({}, `${unavailable} Claude Code continued because Little Canary is fail-open.`, notices);
}
