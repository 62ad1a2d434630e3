// How many tokens the canary's context window must hold for one segment: four per code point of
// the segment and the system prompt, the reply budget and a chat-template allowance, pessimistic
// because an Ollama prompt that does not fit is cut silently. Defaults give 15044.
import { codePointLength } from "../core/codepoints.js";

export const CHAT_TEMPLATE_ALLOWANCE = 64;

export interface RequiredContextInput {
  readonly segmentChars: number;
  readonly systemPrompt: string;
  readonly maxTokens: number;
}

/** The context window (in tokens) the canary needs for one segment, estimated pessimistically (see the header). */
export function requiredCanaryContext({ segmentChars, systemPrompt, maxTokens }: RequiredContextInput): number {
  return 4 * segmentChars + 4 * codePointLength(systemPrompt) + Math.max(0, maxTokens) + CHAT_TEMPLATE_ALLOWANCE;
}
