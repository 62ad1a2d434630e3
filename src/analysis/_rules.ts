// Pattern rules and the vocabulary they share. Rules are matched against the normalised reply
// (see _text.ts): lowercase, whitespace runs already collapsed to one character. Two rules keep
// every pattern linear on hostile text: no quantifier is nested inside an unbounded one, and
// every gap between phrases is bounded (GAP). `\b` in a rule source is rewritten (see rx),
// because JavaScript's `\b` only knows ASCII word characters.
import type { Signal } from "./types.js";
import { makeSignal, type SignalCategory } from "./signals.js";
import { sentenceBounds } from "./_text.js";

export interface PatternRule {
  /** Stable identifier, used by tests and in the signal description. */
  readonly id: string;
  readonly description: string;
  readonly pattern: RegExp;
  /**
   * Tested on the sentence around the match; a hit cancels the rule. Used for negation
   * ("I cannot accept new instructions") and for contexts that make a phrase benign.
   */
  readonly veto?: RegExp;
  /** Overrides the category's default severity. */
  readonly severity?: number;
}

/**
 * BMP ranges treated as word characters besides ASCII `\w`: letters and digits of other
 * scripts, leaving out the punctuation blocks, surrogates and private use. An approximation of
 * `[\p{L}\p{N}]` that costs a fraction to compile: a full Unicode class inside lookarounds at
 * every boundary made the rule set take seconds to compile and slowed matching tenfold.
 */
const OTHER_WORD_CHAR =
  "[\\u00AA-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u1FFF\\u2070-\\u2DFF\\u2E80-\\u2FFF\\u3040-\\uD7FF\\uF900-\\uFDFF\\uFE70-\\uFEFE\\uFF10-\\uFFEF]";

/**
 * Word boundary for rule sources. Rule sources only put `\b` next to an ASCII literal, so an
 * ASCII boundary that also refuses a neighbouring letter of another script is exact there:
 * "dan" in "danés" is not a word.
 */
const WORD_BOUNDARY = `(?:\\b(?<!${OTHER_WORD_CHAR})(?!${OTHER_WORD_CHAR}))`;

/**
 * Compiles a rule source with the `u` flag, the boundary above in place of `\b`, and `\s` as
 * `[ \n]`: in normalised text whitespace is only ever a space or a line break, and the small
 * class compiles much faster than Unicode `\s`. Sources never use `\s` inside a class.
 */
export function rx(source: string, flags = ""): RegExp {
  const expanded = source.replaceAll("\\b", WORD_BOUNDARY).replaceAll("\\s", "[ \\n]");
  return new RegExp(expanded, `u${flags}`);
}

/** A bounded run of characters inside one sentence. */
export const GAP = String.raw`[^.!?\n]{0,40}?`;
export const LONG_GAP = String.raw`[^.!?\n]{0,80}?`;
/** One word (bounded). */
export const WORD = String.raw`[\p{L}\p{N}'-]{1,24}`;
/** Sentence negation: cancels rules whose match sits in a refusal or denial. */
export const NEGATION = rx(String.raw`\b(?:not|never|no longer|cannot|unable|refuse|decline)\b|n't\b`);
/** Named "modes" that only exist as jailbreak or privileged states of an assistant. */
export const MODE_NAME = String.raw`(?:developer|dev|dan|jailbreak|jailbroken|god|evil|debug|diagnostic|transparency|admin|administrator|maintenance|root|sudo|unrestricted|unfiltered|uncensored|unlocked|override|chaos|opposite|unsafe|superuser|privileged|elevated|freedom|anarchy|no-?filter|no-?restrictions?)`;
/** What an assistant's own limits are called. */
export const LIMIT_NOUN = String.raw`(?:restrictions?|limits|limitations?|filters?|filtering|censorship|rules|guidelines|guardrails|safeguards|constraints|boundaries|policies|checks|restraints|safety|ethics|morals)`;
/** What an assistant's own instructions are called. */
export const INSTRUCTION_NOUN = String.raw`(?:instructions|rules|guidelines|programming|directives|prompt|system prompt|restrictions|constraints|policies|training|settings|guardrails|safeguards|filters|limitations|ethics|principles|values|protocols)`;
/** A first-person future or present auxiliary: "i will", "i'll", "i am going to". */
export const I_WILL = String.raw`i\s?(?:will|'ll|shall|am going to|'m going to)`;

/** Runs `rules` in order over `text`; each matching rule is one signal. */
export function runRules(category: SignalCategory, rules: readonly PatternRule[], text: string): Signal[] {
  const signals: Signal[] = [];
  for (const rule of rules) {
    const hit = firstUnvetoedMatch(rule, text);
    if (hit !== undefined) {
      signals.push(makeSignal(category, rule.description, text, hit, rule.severity));
    }
  }
  return signals;
}

const globalForms = new WeakMap<RegExp, RegExp>();

/** A `g` copy of `pattern`, compiled once (compiling the rule set is the analyzer's main cost). */
function globalFormOf(pattern: RegExp): RegExp {
  let global = globalForms.get(pattern);
  if (global === undefined) {
    global = new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`);
    globalForms.set(pattern, global);
  }
  return global;
}

/**
 * Index of the first match not cancelled by the rule's veto. After a veto the search resumes
 * past the vetoed sentence, so every sentence is judged at most once and the loop is bounded
 * by the text length (a hostile reply cannot hide a real hit behind many vetoed ones).
 */
function firstUnvetoedMatch(rule: PatternRule, text: string): number | undefined {
  if (rule.veto === undefined) {
    const match = rule.pattern.exec(text);
    return match === null ? undefined : match.index;
  }
  const global = globalFormOf(rule.pattern);
  global.lastIndex = 0;
  for (let guard = 0; guard <= text.length; guard++) {
    const match = global.exec(text);
    if (match === null) return undefined;
    const end = match.index + match[0].length;
    const { from, to } = sentenceBounds(text, match.index, end);
    rule.veto.lastIndex = 0;
    if (!rule.veto.test(text.slice(from, to))) return match.index;
    global.lastIndex = Math.max(to, end, match.index + 1);
  }
  return undefined;
}
