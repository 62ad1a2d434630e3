// How many tokens a canary's context window must hold. Four per code point is pessimistic on purpose: a code point
// is at most 4 UTF-8 bytes, a byte-level BPE (or SentencePiece with byte fallback) spends at most one token per byte,
// and a prompt that does not fit is cut (Ollama silently; node-llama-cpp keeps the tail, so the embedded probe
// refuses it as `context_too_long`). Defaults give 15060 for an ingest segment (3500 code points).
import { codePointLength } from "../core/codepoints.js";

export const CHAT_TEMPLATE_ALLOWANCE = 64;
const MAX_TOKENS_PER_CODE_POINT = 4;

/** The context window (in tokens) the canary needs for one segment: the segment and the system prompt, the reply budget and the template allowance. */
export function requiredCanaryContext({ segmentChars, systemPrompt, maxTokens }: { segmentChars: number; systemPrompt: string; maxTokens: number }): number {
  return MAX_TOKENS_PER_CODE_POINT * (segmentChars + codePointLength(systemPrompt)) + Math.max(0, maxTokens) + CHAT_TEMPLATE_ALLOWANCE;
}

/** Tokens per embedded sequence that hold any window of `windowChars` code points and the whole reply; `templateTokens` is the exact count of the templated empty prompt. */
export function embeddedRequiredContext(need: { templateTokens: number; windowChars: number; maxTokens: number }): number {
  return need.templateTokens + MAX_TOKENS_PER_CODE_POINT * need.windowChars + need.maxTokens + CHAT_TEMPLATE_ALLOWANCE;
}
