// How many tokens the embedded canary's context must hold. node-llama-cpp keeps the tail of an
// over-long input, so the probe refuses a prompt that does not fit (`context_too_long`), and the
// context is sized for the longest window: the templated empty prompt's exact tokens, at most
// MAX_TOKENS_PER_CODE_POINT per code point of the window, the reply budget and a small allowance.
import { CHAT_TEMPLATE_ALLOWANCE } from "./context.js";

/**
 * The most tokens one code point can cost: a code point is at most 4 UTF-8 bytes, and a
 * byte-level BPE or a SentencePiece vocabulary with byte fallback spends at most one token per byte.
 */
const MAX_TOKENS_PER_CODE_POINT = 4;

/** What sizing a context needs: the template's own tokens, the window, the reply budget. */
export interface EmbeddedContextNeed {
  /** Tokens of the templated prompt (system prompt, an empty user message, the reply cue). */
  readonly templateTokens: number;
  /** Code points of the longest window the pipeline sends. */
  readonly windowChars: number;
  readonly maxTokens: number;
}

/** Tokens per sequence that hold any window of `windowChars` code points and the whole reply. */
export function embeddedRequiredContext({ templateTokens, windowChars, maxTokens }: EmbeddedContextNeed): number {
  return templateTokens + MAX_TOKENS_PER_CODE_POINT * windowChars + maxTokens + CHAT_TEMPLATE_ALLOWANCE;
}

/** The refusal text for a prompt that does not fit (no prompt text, only counts). */
export function contextTooLongMessage(promptTokens: number, maxTokens: number, contextSize: number): string {
  return (
    `the prompt needs ${promptTokens} tokens (counted with the model's own tokenizer) and ${maxTokens} for the reply, ` +
    `more than the embedded canary's context of ${contextSize} tokens; nothing was evaluated`
  );
}
