// `semantic_discontinuity` (soft): the reply shares no content word with the input, a hint that
// the input redirected the canary. Content words are runs of four or more letters in any script
// (combining marks included, so Devanagari or Thai are not cut up), lowercased, minus an English
// stop list; scripts written without spaces rarely reach the four-token floor.
import type { Signal } from "./types.js";
import { makeSignal } from "./signals.js";

export const DISCONTINUITY_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "that this with from they been have will would could should about their there which other " +
    "just also more some into then than them what when where does doing being having these " +
    "those each every such very much many well here only even still already really because " +
    "before after between through during without again please might"
  ).split(" "),
);

const MIN_INPUT_TOKENS = 4;
const MIN_INPUT_WORDS = 3;
const MIN_RESPONSE_WORDS = 5;

const CONTENT_WORD = /\p{L}[\p{L}\p{M}]{3,}/gu;
const TOKEN = /\S+/gu;

function hasAtLeastTokens(text: string, count: number): boolean {
  TOKEN.lastIndex = 0;
  let seen = 0;
  while (seen < count && TOKEN.exec(text) !== null) seen += 1;
  TOKEN.lastIndex = 0;
  return seen >= count;
}

export function contentWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(CONTENT_WORD)) {
    if (!DISCONTINUITY_STOP_WORDS.has(match[0])) words.add(match[0]);
  }
  return words;
}

/** A plural's singular for matching only ("policies" → "policy", "returns" → "return"). */
function singular(word: string): string {
  if (word.length > 5 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

export function checkSemanticDiscontinuity(input: string, response: string): Signal[] {
  if (!hasAtLeastTokens(input, MIN_INPUT_TOKENS)) return [];
  // The reply first: it is usually far shorter than the input, and too few reply words settle it.
  const responseWords = contentWords(response);
  if (responseWords.size < MIN_RESPONSE_WORDS) return [];
  const inputWords = contentWords(input);
  if (inputWords.size < MIN_INPUT_WORDS) return [];
  // Words are compared in a singular form, so "returns" and "return" share the topic.
  const replyForms = new Set([...responseWords].map(singular));
  for (const word of inputWords) {
    if (replyForms.has(singular(word))) return [];
  }
  // Evidence states sizes only: it must not carry words of the input.
  const evidence = `no shared content words (input ${inputWords.size}, reply ${responseWords.size})`;
  return [makeSignal("semantic_discontinuity", "reply shares no content word with the input", evidence, 0)];
}
