// Rule triggers: a cheap, sound pre-check that skips a built-in rule on a text it cannot match.
//
// Most rules begin with a word class at a word boundary (`\b(?:ignore|disregard|…)\s+…`) that
// most text lacks, yet running the expression costs a scan per rule. So every way a match can
// begin is walked in the expression's own source (never written by hand, so it cannot drift; the
// built-in rules' are stored, see RuleTriggers) and the literal start is collected, a few characters:
//   - "anchored": a word boundary, then word characters: the text must have a word starting so,
//     or, when the expression ends the word there (a boundary, whitespace, `\W`, punctuation)
//     before WORD_KEY_LENGTH characters, have that very word (`I\s+am`: the word "I", which
//     "island" is not);
//   - "loose": ASCII literals not after a boundary (`psutil.`, `<script`): the lower-cased text
//     must contain one;
//   - anything else (a class, `.`, a non-ASCII literal, an unparsed construct) can begin anywhere:
//     no trigger, the rule always runs.
//
// Sound (a skipped rule could not have matched): every path is walked, quantifiers and optional
// parts included, and a walk cut short keeps the shorter prefix or gives up (a weaker pre-check);
// letters are compared lower-cased on both sides, and since with `iu` U+017F (long s) and U+212A
// (Kelvin) fold to `s` and `k` as word characters, a text holding either skips the pre-check;
// the text's words are its maximal runs of `[A-Za-z0-9_]`, the characters `\b` sees.

import { hash } from "node:crypto";
import { LiteralScan } from "./literal-scan.js";

/** How many leading characters of a word, and of a loose literal, a trigger compares. */
const WORD_KEY_LENGTH = 4;
const LOOSE_KEY_LENGTH = 6;
/** The walk of one expression gives up (no trigger) after this many steps: a guard, never reached by the built-in rules. */
const MAX_STEPS = 2_000_000;
/** Deeper than this, a walk keeps the prefix it has (a nullable quantified group would recurse without end). */
const MAX_DEPTH = 400;

/** What a text must hold for a rule to have any chance of matching; null: it can match anything. */
export interface RuleTrigger {
  /** Lower-case starts of a word (at most WORD_KEY_LENGTH characters): one of the text's words must begin so. */
  readonly wordStarts: readonly string[];
  /** Lower-case whole words (shorter than WORD_KEY_LENGTH characters): one of the text's words must be one. */
  readonly wholeWords: readonly string[];
  /** Lower-case ASCII literals (at most LOOSE_KEY_LENGTH characters): the lower-cased text must contain one. */
  readonly loose: readonly string[];
}

// ---- a parser for the subset of regular-expression syntax the walk needs ---------------------

type Node =
  | { readonly t: "char"; readonly c: string }
  | { readonly t: "any" } // consumes a character we do not pin (class, `.`, escape class)
  | { readonly t: "nonword" } // consumes one character that is never a word character (\s, \W, a class of ASCII punctuation and spaces)
  | { readonly t: "boundary" } // \b
  | { readonly t: "zero" } // another zero-width assertion (^, $, \B, look-around)
  | { readonly t: "stop" } // something the walk does not follow (a back-reference): the prefix ends here
  | { readonly t: "group"; readonly alternatives: readonly (readonly Node[])[] }
  | { readonly t: "repeat"; readonly body: readonly Node[]; readonly min: number; readonly max: number };

/** The expression has no trigger: a construct the parser does not follow (the message names it), or a walk that gave up. */
class NoTrigger extends Error {}

/** What follows "(" in a group that is not a plain capture: non-capturing, look-around, or a name. */
const GROUP_KIND = /\?(?::|[=!]|<[=!]|<[^>]*>)/y;
/**
 * The body of a class that only holds characters that are never word characters: ASCII spaces and
 * punctuation written as themselves or escaped, `\s`, `\W`, `\t`, `\n`, `\r`, `\f`, `\v`. Not
 * negated, no range (a "-" is taken only first or last), nothing outside ASCII (under `iu` a Kelvin
 * sign in a class would match "k").
 */
const NONWORD_CLASS = /^-?(?:[ !"#$%&'()*+,./:;<=>?@[`{|}~]|\\[sWtnrfv]|\\[!-/:-@[-`{-~])+-?$/;
/** The repeat bounds `[min, max]` of the one-character quantifiers. */
const SIMPLE_QUANTIFIERS: Record<string, readonly [number, number]> = { "*": [0, Number.POSITIVE_INFINITY], "+": [1, Number.POSITIVE_INFINITY], "?": [0, 1] };

/** Parses `source` (as the RegExp constructor received it; `unicode`: the u or v flag) into the node tree above. */
function parse(source: string, unicode: boolean): readonly (readonly Node[])[] {
  let i = 0;
  const alternatives = (): Node[][] => {
    const alts: Node[][] = [[]];
    while (i < source.length) {
      const ch = source[i] as string;
      if (ch === ")") break;
      if (ch === "|") {
        i++;
        alts.push([]);
        continue;
      }
      (alts[alts.length - 1] as Node[]).push(parseQuantifier(parseAtom()));
    }
    return alts;
  };
  const parseAtom = (): Node => {
    const ch = source[i] as string;
    if (ch === "(") {
      GROUP_KIND.lastIndex = ++i;
      const kind = GROUP_KIND.exec(source)?.[0] ?? "";
      if (kind === "" && source[i] === "?") throw new NoTrigger("group kind");
      i += kind.length;
      const lookaround = /[=!]$/.test(kind);
      const inner = alternatives();
      if (source[i] !== ")") throw new NoTrigger("unclosed group");
      i++;
      return lookaround ? { t: "zero" } : { t: "group", alternatives: inner };
    }
    if (ch === "[") {
      const start = ++i;
      if (source[i] === "^") i++;
      // In JavaScript "[]" is the empty class and "[^]" any character; either way the class is one "any".
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
      if (source[i] !== "]") throw new NoTrigger("unclosed class");
      const body = source.slice(start, i++);
      return NONWORD_CLASS.test(body) ? { t: "nonword" } : { t: "any" };
    }
    if (ch === "." || ch === "^" || ch === "$") {
      i++;
      return { t: ch === "." ? "any" : "zero" };
    }
    if (ch === "\\") return parseEscape();
    if (ch === "*" || ch === "+" || ch === "?") throw new NoTrigger("quantifier without atom");
    // A lone surrogate pair is one code point; a non-ASCII literal stops a prefix either way.
    const cp = source.codePointAt(i) as number;
    const c = String.fromCodePoint(cp);
    i += c.length;
    return { t: "char", c };
  };
  const parseEscape = (): Node => {
    const e = source[i + 1];
    if (e === undefined) throw new NoTrigger("trailing backslash");
    i += 2;
    if (e === "b") return { t: "boundary" };
    if (e === "B") return { t: "zero" };
    if (e === "s" || e === "W") return { t: "nonword" };
    if ("SwdD".includes(e)) return { t: "any" };
    // Fixed-form escapes: without the u flag JavaScript reads a malformed one as a letter, so only
    // the well-formed form is accepted (a wrong guess at its extent could swallow a "|").
    const ahead = source.slice(i, i + 64);
    const take = (form: RegExp, node: Node): Node => {
      const m = form.exec(ahead);
      if (m === null) throw new NoTrigger(`escape \\${e}`);
      i += m[0].length;
      return node;
    };
    if (e === "p" || e === "P") {
      if (!unicode) throw new NoTrigger("property escape without the u flag");
      return take(/^\{[A-Za-z_]+(?:=[A-Za-z0-9_]+)?\}/, { t: "any" });
    }
    if (e === "k") {
      if (!unicode) throw new NoTrigger("named reference without the u flag");
      return take(/^<[A-Za-z_$][\w$]*>/, { t: "stop" });
    }
    // A back-reference, or without the u flag possibly an octal escape: a prefix ends there either way, and digits are never structure.
    if (e >= "1" && e <= "9") {
      while (i < source.length && /[0-9]/.test(source[i] as string)) i++;
      return { t: "stop" };
    }
    // "\0" then a digit is an octal escape without the u flag: the prefix ends there too.
    if (e === "0" && /^[0-9]/.test(ahead)) return { t: "stop" };
    const simple: Record<string, string> = { n: "\n", r: "\r", t: "\t", f: "\f", v: "\v", "0": "\0" };
    if (e in simple) return { t: "char", c: simple[e] as string };
    // Encoded characters: never part of a prefix, so only their extent matters.
    if (e === "x") return take(/^[0-9A-Fa-f]{2}/, { t: "stop" });
    if (e === "c") return take(/^[A-Za-z]/, { t: "stop" });
    if (e === "u") return take(unicode ? /^(?:[0-9A-Fa-f]{4}|\{[0-9A-Fa-f]{1,6}\})/ : /^[0-9A-Fa-f]{4}/, { t: "stop" });
    if (/[A-Za-z0-9]/.test(e)) throw new NoTrigger(`escape \\${e}`);
    return { t: "char", c: e };
  };
  const parseQuantifier = (atom: Node): Node => {
    const ch = source[i] ?? "";
    let bounds = SIMPLE_QUANTIFIERS[ch];
    if (ch === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24));
      if (m === null) throw new NoTrigger("brace");
      const min = Number(m[1]);
      bounds = [min, m[2] === undefined ? min : m[3] === "" ? Number.POSITIVE_INFINITY : Number(m[3])];
      i += m[0].length - 1;
    }
    if (bounds === undefined) return atom;
    i++;
    if (source[i] === "?") i++; // lazy: same language
    // A quantified assertion (only a look-ahead may be, outside the u flag) may be skipped: it anchors nothing.
    if (atom.t === "boundary" || atom.t === "zero") return { t: "zero" };
    return { t: "repeat", body: [atom], min: bounds[0], max: bounds[1] };
  };
  const top = alternatives();
  if (i !== source.length) throw new NoTrigger("unbalanced parenthesis");
  return top;
}

// ---- the walk --------------------------------------------------------------------------------

/** The rest of a path: a node list from an index, then what follows it. */
interface Continuation {
  readonly nodes: readonly Node[];
  readonly index: number;
  readonly next: Continuation | null;
}

const isWordChar = (c: string): boolean => /^[a-z0-9_]$/.test(c);
const isAscii = (c: string): boolean => c.length === 1 && c.charCodeAt(0) < 0x80;

interface Walk {
  steps: number;
  readonly words: Set<string>;
  readonly wholeWords: Set<string>;
  readonly loose: Set<string>;
}

/**
 * Walks every path from `cont` with `prefix` already matched. `boundary`: a \b was passed with
 * nothing consumed yet; `anchored`: the prefix began right after one (so at a word start).
 */
function walk(w: Walk, cont: Continuation | null, prefix: string, boundary: boolean, anchored: boolean, depth: number): void {
  if (++w.steps > MAX_STEPS) throw new NoTrigger();
  const emit = (): void => {
    if (prefix === "") throw new NoTrigger();
    (anchored ? w.words : w.loose).add(prefix);
  };
  // The word begun after a boundary ends here: the text must hold it whole (it is shorter than a key).
  const emitWhole = (): void => {
    if (anchored) w.wholeWords.add(prefix);
    else emit();
  };
  if (depth > MAX_DEPTH || prefix.length >= (anchored ? WORD_KEY_LENGTH : LOOSE_KEY_LENGTH)) return emit();
  let c = cont;
  while (c !== null && c.index >= c.nodes.length) c = c.next;
  if (c === null) return emit();
  const node = c.nodes[c.index] as Node;
  const rest: Continuation = { nodes: c.nodes, index: c.index + 1, next: c.next };
  switch (node.t) {
    case "boundary":
      // After a word's characters, a boundary says the next character is not one (or the text ends).
      if (anchored && prefix !== "") return emitWhole();
      return walk(w, rest, prefix, boundary || prefix === "", anchored, depth + 1);
    case "zero":
      return walk(w, rest, prefix, boundary, anchored, depth + 1);
    case "any":
    case "nonword":
      // Before anything is pinned, a character that is not pinned is passed over: a literal
      // after it is still in every match, though not at its start (so it is loose).
      if (prefix === "") return walk(w, rest, "", false, false, depth + 1);
      return node.t === "nonword" ? emitWhole() : emit();
    case "stop":
      // Not passed over: the parser does not always know how far it reaches (an octal escape
      // without the u flag takes the digits after it), so what follows may not be a literal.
      return emit();
    case "char": {
      // Only ASCII literals extend a prefix; a non-ASCII one may fold to letters the text spells otherwise.
      if (!isAscii(node.c)) return emit();
      const ch = node.c.toLowerCase();
      if (prefix === "") return walk(w, rest, ch, false, boundary && isWordChar(ch), depth + 1);
      if (!anchored || isWordChar(ch)) return walk(w, rest, prefix + ch, false, anchored, depth + 1);
      return emitWhole();
    }
    case "group":
      for (const alternative of node.alternatives) walk(w, { nodes: alternative, index: 0, next: rest }, prefix, boundary, anchored, depth + 1);
      return;
    case "repeat": {
      // Nothing pinned yet and nothing the body could pin: any number of its characters is passed over at once.
      if (prefix === "" && !pins(node.body)) return walk(w, rest, "", false, false, depth + 1);
      const again: Node = { t: "repeat", body: node.body, min: Math.max(0, node.min - 1), max: node.max - 1 };
      const once: Continuation = { nodes: node.body, index: 0, next: { nodes: [again], index: 0, next: rest } };
      if (node.min === 0) walk(w, rest, prefix, boundary, anchored, depth + 1);
      if (node.max > 0) walk(w, once, prefix, boundary, anchored, depth + 1);
      return;
    }
  }
}

/**
 * Whether the walk could pin something in a match of `nodes`, or cannot pass them over: a
 * character, or a node it stops at, in a group or repeat too. Only characters that are not
 * pinned (classes, `.`) and assertions are passed over.
 */
function pins(nodes: readonly Node[]): boolean {
  return nodes.some((node) =>
    node.t === "char" || node.t === "stop" ? true : node.t === "group" ? node.alternatives.some(pins) : node.t === "repeat" ? pins(node.body) : false,
  );
}

/** Keeps only the shortest of overlapping keys: a text holding "ign" also holds what "igno" needs. */
function minimal(keys: Set<string>): string[] {
  const sorted = [...keys].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  const kept: string[] = [];
  for (const k of sorted) if (!kept.some((shorter) => k.startsWith(shorter))) kept.push(k);
  return kept;
}

/** The trigger of a compiled rule expression, or null when every text must be searched. */
export function ruleTrigger(re: RegExp): RuleTrigger | null {
  try {
    // The v flag's nested classes and set operations are not parsed here.
    if (re.flags.includes("v")) return null;
    const top = parse(re.source, re.unicode);
    const w: Walk = { steps: 0, words: new Set(), wholeWords: new Set(), loose: new Set() };
    walk(w, { nodes: [{ t: "group", alternatives: top }], index: 0, next: null }, "", false, false, 0);
    const wordStarts = minimal(w.words);
    // A whole word that a kept start begins adds nothing: a text holding it has a word starting so.
    const wholeWords = [...w.wholeWords]
      .filter((word) => !wordStarts.some((start) => word.startsWith(start)))
      .sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
    return Object.freeze({ wordStarts: Object.freeze(wordStarts), wholeWords: Object.freeze(wholeWords), loose: Object.freeze(minimal(w.loose)) });
  } catch (error) {
    if (error instanceof NoTrigger) return null;
    throw error;
  }
}

// Characters that `\b` and letters treat as ASCII word characters under the `iu` flags.
const FOLDS_TO_ASCII_WORD = /[\u017f\u212a]/;

/** Base-38 digit of an ASCII word character, case-folded (a-z 1-26, 0-9 27-36, _ 37); 0 for anything else. */
const DIGIT = Uint8Array.from({ length: 128 }, (_, code) => "abcdefghijklmnopqrstuvwxyz0123456789_".indexOf(String.fromCharCode(code).toLowerCase()) + 1);

const digitAt = (text: string, i: number): number => {
  const code = text.charCodeAt(i);
  return code < 128 ? (DIGIT[code] as number) : 0;
};

/** Keys of a start of up to WORD_KEY_LENGTH characters are below this. */
const KEY_SPACE = 38 ** WORD_KEY_LENGTH;

/**
 * Which word starts the text being read has: `seen[key] === stamp`. One 2 MB table for the process
 * (allocated on first use), filled for one text per synchronous `admitted` call, with a new stamp
 * per text instead of clearing it.
 */
let seen: Uint8Array | null = null;
let stamp = 0;

/** Changes whenever the walk can derive another trigger from the same expression, so that every stored one goes stale. */
const DERIVATION_VERSION = 2;

/**
 * A short fingerprint of an expression's source and flags and of the walk's version: a stored
 * trigger serves only the expression it was derived from, by the walk as it is now.
 */
export function expressionFingerprint(re: RegExp): string {
  return hash("sha256", `${DERIVATION_VERSION} /${re.source}/${re.flags}`).slice(0, 16);
}

/**
 * The triggers of an ordered list of rule expressions, worked out once, and the rules a text
 * admits. `stored` holds triggers derived ahead of time (builtin-triggers.ts; deriving cost a
 * process's first check about 70 ms); a stale or missing entry is derived again, never trusted.
 */
export class RuleTriggers {
  #triggers: ReadonlyArray<RuleTrigger | null> | null = null;
  #wordKeys: ReadonlyArray<readonly number[]> = [];
  #loose: LiteralScan = new LiteralScan([]);

  constructor(
    private readonly expressions: readonly RegExp[],
    private readonly stored: readonly string[] = [],
  ) {}

  /** The trigger of each expression, in order (worked out on first use). */
  get triggers(): ReadonlyArray<RuleTrigger | null> {
    if (this.#triggers === null) {
      // A stored entry (`<fingerprint> <trigger as JSON>`) serves only if derived from the expression as it is now.
      const triggers = this.expressions.map((re, k): RuleTrigger | null => {
        const fingerprint = expressionFingerprint(re);
        return this.stored[k]?.startsWith(`${fingerprint} `) ? JSON.parse(this.stored[k].slice(fingerprint.length + 1)) : ruleTrigger(re);
      });
      // Each word start as a number (base-38 digits, none 0, so lengths never collide): no substring per word of a text.
      const startKey = (start: string): number => [...start].reduce((key, _c, i) => key * 38 + digitAt(start, i), 0);
      // A whole word's key is its start's followed by the digit 0, which no word character has.
      this.#wordKeys = triggers.map((t) => (t === null ? [] : [...t.wordStarts.map(startKey), ...t.wholeWords.map((word) => startKey(word) * 38)]));
      // Every expression's literals in one automaton: one read of the text finds all of them (an
      // alternation per expression read the whole text again for each rule whose literals it lacked).
      this.#loose = new LiteralScan(triggers.map((t) => t?.loose ?? []));
      this.#triggers = triggers;
    }
    return this.#triggers;
  }

  /**
   * For each expression, in order, whether `text` could match it: false only when the text has
   * none of the word starts and none of the literals the expression can begin with.
   */
  admitted(text: string): boolean[] {
    const triggers = this.triggers;
    // Long s and the Kelvin sign are word characters that fold to ASCII letters under `iu`.
    if (FOLDS_TO_ASCII_WORD.test(text)) return triggers.map(() => true);
    const table = markWordStarts(text);
    let holdsLiteral: ((k: number) => boolean) | null = null;
    return triggers.map((trigger, k) => {
      if (trigger === null) return true;
      for (const key of this.#wordKeys[k] as readonly number[]) if (table[key] === stamp) return true;
      if (trigger.loose.length === 0) return false;
      holdsLiteral ??= this.#loose.scan(text);
      return holdsLiteral(k);
    });
  }
}

/**
 * Marks, under a new stamp, the key of every start (one to WORD_KEY_LENGTH characters) of every
 * word of `text` (its maximal runs of `[A-Za-z0-9_]`), and of every word shorter than that as a
 * whole (its key followed by the digit 0).
 */
function markWordStarts(text: string): Uint8Array {
  seen ??= new Uint8Array(KEY_SPACE);
  if (++stamp > 255) {
    seen.fill(0);
    stamp = 1;
  }
  const n = text.length;
  let i = 0;
  while (i < n) {
    let d = digitAt(text, i);
    if (d === 0) {
      i++;
      continue;
    }
    let key = 0;
    for (let length = 0; length < WORD_KEY_LENGTH && d !== 0; length++) {
      key = key * 38 + d;
      seen[key] = stamp;
      d = ++i < n ? digitAt(text, i) : 0;
    }
    if (d === 0 && key < KEY_SPACE / 38) seen[key * 38] = stamp;
    while (d !== 0) d = ++i < n ? digitAt(text, i) : 0;
  }
  return seen;
}
