// `system_prompt_leak`: the reply reproduces part of the canary's system prompt (whichever is
// configured). The prompt is normalised like a reply and cut into clauses at punctuation, leading
// conjunctions dropped; a clause of three or more words is a fragment, reproduced when the reply
// holds the whole clause or any four consecutive words of it with two content words ("not adopt
// other personas", not "do not adopt other"). One signal per clause, so a full echo scores high.
import type { Signal } from "./types.js";
import { makeSignal } from "./signals.js";
import { normalizeForMatching } from "./_text.js";
import { DISCONTINUITY_STOP_WORDS } from "./discontinuity.js";
import { codePointLength } from "../core/codepoints.js";

export interface LeakFragment {
  /** The clause's words joined by single spaces. */
  readonly clause: string;
  /** Word runs whose presence in a reply counts as reproducing the clause. */
  readonly triggers: readonly string[];
}

const NGRAM = 4;
const MIN_CLAUSE_WORDS = 3;
const MIN_CONTENT_WORDS = 2;
/** Bounds on the (trusted but arbitrary) prompt, so derivation cost stays fixed. */
const MAX_CLAUSES = 200;
const MAX_CLAUSE_WORDS = 64;

const CLAUSE_BREAK = /[.!?;:,\n()[\]"]+/u;
const WORD_TOKEN = /[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu;
const LEADING_CONJUNCTIONS = new Set(["and", "but", "or", "so", "then", "also"]);

function words(text: string): string[] {
  return Array.from(text.matchAll(WORD_TOKEN), (match) => match[0]);
}

function isContentWord(word: string): boolean {
  const letters = word.replace(/'.*$/u, "");
  return codePointLength(letters) >= 4 && !DISCONTINUITY_STOP_WORDS.has(letters);
}

function contentCount(tokens: readonly string[]): number {
  return tokens.filter(isContentWord).length;
}

export function deriveLeakFragments(systemPrompt: string): LeakFragment[] {
  const fragments: LeakFragment[] = [];
  const seen = new Set<string>();
  for (const piece of normalizeForMatching(systemPrompt).split(CLAUSE_BREAK)) {
    if (fragments.length >= MAX_CLAUSES) break;
    let tokens = words(piece).slice(0, MAX_CLAUSE_WORDS);
    while (tokens.length > 0 && LEADING_CONJUNCTIONS.has(tokens[0] ?? "")) tokens = tokens.slice(1);
    if (tokens.length < MIN_CLAUSE_WORDS || contentCount(tokens) < MIN_CONTENT_WORDS) continue;
    const clause = tokens.join(" ");
    if (seen.has(clause)) continue;
    seen.add(clause);
    // Every run of NGRAM words with enough content words; the whole clause when there is none.
    const triggers = [...runsOf(tokens, NGRAM)].filter((gram) => contentCount(gram.split(" ")) >= MIN_CONTENT_WORDS);
    fragments.push({ clause, triggers: triggers.length > 0 ? triggers : [clause] });
  }
  return fragments;
}

/** Words in a trigger (its words are joined by single spaces), counted without splitting it: this runs per trigger per reply. */
function wordCountOf(trigger: string): number {
  let count = 1;
  for (let i = trigger.indexOf(" "); i !== -1; i = trigger.indexOf(" ", i + 1)) count++;
  return count;
}

/** Every run of `size` consecutive words of `tokens`, joined by spaces. */
function runsOf(tokens: readonly string[], size: number): Set<string> {
  const runs = new Set<string>();
  for (let start = 0; start + size <= tokens.length; start++) {
    runs.add(tokens.slice(start, start + size).join(" "));
  }
  return runs;
}

/** `replyText` is the normalised reply (see _text.ts). */
export function checkSystemPromptLeak(replyText: string, fragments: readonly LeakFragment[]): Signal[] {
  if (fragments.length === 0) return [];
  const tokens = words(replyText);
  const runsBySize = new Map<number, Set<string>>();
  const signals: Signal[] = [];
  fragments.forEach((fragment, index) => {
    for (const trigger of fragment.triggers) {
      const size = wordCountOf(trigger);
      // A run longer than the reply cannot be in it.
      if (size > tokens.length) continue;
      let runs = runsBySize.get(size);
      if (runs === undefined) {
        runs = runsOf(tokens, size);
        runsBySize.set(size, runs);
      }
      if (runs.has(trigger)) {
        // Evidence is the prompt's own words, never the reply around them.
        signals.push(makeSignal("system_prompt_leak", `reply reproduces system prompt clause ${index + 1}`, trigger, 0));
        return;
      }
    }
  });
  return signals;
}
