// Turning the judge's one-word answer into an AnalysisResult. Only an exact
// SAFE or UNSAFE counts; everything else — prose, markdown, "MAYBE", a failed call — is an
// abstention that leaves the input unmeasured (risk null, degraded), never a pass. Summaries are
// fixed texts: no exception message, reply or input can reach them.
import type { AnalysisResult } from "../analysis/types.js";
import type { ChatOutcome } from "../canary/chat-exchange.js";
import { truncateCodePoints } from "../core/codepoints.js";
import { sha256Hex } from "../core/hash.js";
import type { JudgeIdentity } from "../analysis/identity.js";
import { JUDGE_SYSTEM_PROMPT } from "./judge-prompt.js";

export type JudgeLabel = "SAFE" | "UNSAFE";

/**
 * Version of the judge's rules: its instructions (judge-prompt.ts) and how its reply becomes a
 * result (this file). The verdict cache keys every stored verdict by it (alongside the judge
 * prompt's SHA-256); bump it in the same change as any edit to how a reply is read.
 */
export const JUDGE_RULES_VERSION = 1;

/** Judge replies longer than this cannot be a one-word answer; they are not scanned further. */
const MAX_PARSED_REPLY_UNITS = 64 * 1024;
const EVIDENCE_CODE_POINTS = 150;

/** Strips `<think>…</think>` blocks, trims and uppercases; exact SAFE/UNSAFE, else null. */
export function parseJudgeReply(reply: string): JudgeLabel | null {
  if (typeof reply !== "string" || reply.length > MAX_PARSED_REPLY_UNITS) return null;
  const trimmed = reply.trim();
  const withoutThinking = reply.replace(/<think>[\s\S]*?<\/think>/g, "").trim();
  const answer = (withoutThinking === "" ? trimmed : withoutThinking).toUpperCase();
  return answer === "UNSAFE" || answer === "SAFE" ? answer : null;
}

function judgeUnsafe(reply: string): AnalysisResult {
  return {
    riskScore: 1,
    shouldBlock: true,
    signals: [
      {
        category: "llm_judge",
        description: "LLM judge classified the canary response as compromised",
        severity: 1,
        evidence: truncateCodePoints(reply, EVIDENCE_CODE_POINTS),
      },
    ],
    summary: "LLM judge: canary response shows signs of compromise.",
    hardBlocked: true,
    degraded: false,
    canaryStatus: "exercised",
    analysisMethod: "llm_judge",
    analysisStatus: "exercised",
  };
}

function judgeSafe(): AnalysisResult {
  return {
    riskScore: 0,
    shouldBlock: false,
    signals: [],
    summary: "LLM judge: no signs of compromise in the canary response.",
    hardBlocked: false,
    degraded: false,
    canaryStatus: "exercised",
    analysisMethod: "llm_judge",
    analysisStatus: "exercised",
  };
}

/** The judge call failed or abstained: the canary ran, but its reply was not assessed. */
export function judgeFailed(): AnalysisResult {
  return {
    riskScore: null,
    shouldBlock: false,
    signals: [],
    summary: "LLM judge analysis failed; the canary response was not assessed (degraded).",
    hardBlocked: false,
    degraded: true,
    canaryStatus: "exercised",
    analysisMethod: "llm_judge",
    analysisStatus: "failed",
  };
}

/** The canary itself failed, so there is nothing to judge and no judge call is made. */
export function canaryNotExercised(): AnalysisResult {
  return {
    riskScore: null,
    shouldBlock: false,
    signals: [],
    summary: "Canary probe failed; no behavioral analysis was possible (degraded).",
    hardBlocked: false,
    degraded: true,
    canaryStatus: "failed",
    analysisMethod: "llm_judge",
    analysisStatus: "not_applicable",
  };
}

function fromLabel(label: JudgeLabel | null, reply: string): AnalysisResult {
  if (label === "UNSAFE") return judgeUnsafe(reply);
  if (label === "SAFE") return judgeSafe();
  return judgeFailed();
}

/**
 * The judge's result from its chat exchange (null: no request could be built). The canary's
 * reply is the evidence an UNSAFE label quotes, never the judge's own words.
 */
export function fromJudgeChat(chat: ChatOutcome | null, canaryReply: string): AnalysisResult {
  if (chat === null || !chat.ok) return judgeFailed();
  return fromLabel(parseJudgeReply(chat.content), canaryReply);
}

/** The identity of a judge client with `settings` (ollama-judge.ts, openai-judge.ts): rules, prompt, model and sampling. */
export function judgeIdentity(
  provider: JudgeIdentity["provider"],
  settings: { readonly model: string; readonly maxTokens: number; readonly temperature: number; readonly seed: number | null },
  numCtx: number | null,
): JudgeIdentity {
  return {
    method: "llm_judge",
    version: JUDGE_RULES_VERSION,
    provider,
    model: settings.model,
    promptSha256: sha256Hex(JUDGE_SYSTEM_PROMPT),
    numCtx,
    maxTokens: settings.maxTokens,
    temperature: settings.temperature,
    seed: settings.seed,
  };
}
