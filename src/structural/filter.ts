// StructuralFilter: the in-process first layer of screening. No model, no network.
//
// Contract: `check(text)` runs every check in this order — length (code points), control
// characters, suspicious invisible Unicode, the built-in rules then custom patterns, then
// decode-then-recheck — and returns a frozen FilterResult: each reason at most once, in that
// order; `blocked` exactly when there is a reason; `inputSanitized` the input when clean, else "";
// `matches` pairs each reason with its fixed explanation and code-point locations (locate.ts),
// never the matched text. A clean result means only that no covered shape was found. Every check
// runs even after one fired (a rule is skipped only on a view it cannot match, rule-triggers.ts);
// the work is linear in the input apart from the capped decode search.

import { UsageError } from "../core/errors.js";
import { codePointLength } from "../core/codepoints.js";
import { brandRegistry } from "../core/own-brand.js";
import { compileCustomPatterns, type CompiledCustomPattern, type CustomPattern } from "./custom.js";
import { type EncodedFinding, locateEncodedInjection } from "./decode.js";
import * as L from "./labels.js";
import { addLocation, customLocations, matchOf, ruleLocations, type MatchLocation, type StructuralMatch, TextMaps } from "./locate.js";
import { deobfuscatedView, foldedView, mapViewSpan, scriptView } from "./normalize.js";
import { BUILTIN_TRIGGERS } from "./builtin-triggers.js";
import { RuleTriggers } from "./rule-triggers.js";
import { type Rule, SCOPE_VIEWS } from "./rule.js";
import { BUILTIN_RULES, ruleMatches, STRUCTURAL_RULES_VERSION } from "./rules.js";
import { type CharacterScan, scanCharacters } from "./unicode.js";

/** What the structural filter found: whether the text is blocked, and why. */
export interface FilterResult {
  readonly blocked: boolean;
  readonly reasons: readonly string[];
  /** Per reason, in order: its one-line explanation and up to three code-point locations `[start, end)`, never the matched text. */
  readonly matches: readonly StructuralMatch[];
  readonly inputSanitized: string;
}

/** Options of StructuralFilter. */
export interface StructuralFilterOptions {
  /** Longest accepted input, in Unicode code points. Default 4000. */
  readonly maxInputLength?: number;
  readonly customPatterns?: ReadonlyArray<CustomPattern>;
  /** Receives configuration warnings (an invalid custom pattern). Never given input text. */
  readonly onWarning?: (message: string) => void;
}

/** Everything of a structural filter that can change what its check of the same text finds. */
export interface StructuralIdentity {
  /** The built-in rules' version (STRUCTURAL_RULES_VERSION). */
  readonly rulesVersion: number;
  /** The custom patterns as compiled (source, flags, reason), in order; empty without any. */
  readonly customPatterns: StructuralFilter["customPatternSummary"];
  readonly maxInputLength: number;
}

// Private to this module (core/own-brand.ts): only the library's own, unmodified filter reports an identity.
const brands = brandRegistry<"structural_filter">();

/** The identity of `filter` when it is the library's own, unmodified StructuralFilter, else null. */
export function verifiedStructuralIdentity(filter: unknown): StructuralIdentity | null {
  return brands.isOwn(filter, "structural_filter") ? (filter as StructuralFilter).identity() : null;
}

/** Default largest input, in code points. */
const DEFAULT_MAX_INPUT_LENGTH = 4000;

/** The built-in rules' triggers, in BUILTIN_RULES order (stored: see builtin-triggers.ts). */
const TRIGGERS = new RuleTriggers(
  BUILTIN_RULES.map((r) => r.re),
  BUILTIN_TRIGGERS,
);

/** A view a rule runs on, and which rules it admits (read on first need, see rule-triggers.ts). */
class View {
  #admitted: boolean[] | null = null;

  constructor(readonly text: string) {}

  /** Whether built-in rule `k` matches this view; a view without any word or literal the rule can begin with is not searched. */
  hits(k: number): boolean {
    this.#admitted ??= TRIGGERS.admitted(this.text);
    return this.#admitted[k] === true && ruleMatches(BUILTIN_RULES[k] as Rule, this.text);
  }
}

// Printable ASCII plus tab/newline/CR: nothing to strip, decompose or fold, so both normalised
// views equal the text itself and the normalisation passes can be skipped.
const PLAIN_ASCII = /^[\t\n\r\x20-\x7e]*$/;
const NOTHING_SCANNED: CharacterScan = Object.freeze({ control: false, suspiciousUnicode: false, controlAt: -1, suspiciousAt: -1 });

function viewsOf(text: string, plain = PLAIN_ASCII.test(text)) {
  const foldedText = plain ? text : foldedView(text);
  const deobfuscatedText = deobfuscatedView(foldedText);
  const scriptText = plain ? text : scriptView(text);
  const folded = new View(foldedText);
  return {
    folded,
    // Null when de-obfuscation changes nothing (most text): the same view again would only run every language rule twice.
    deobfuscated: deobfuscatedText === null ? null : new View(deobfuscatedText),
    // Equal views share their words, read once.
    script: scriptText === foldedText ? folded : new View(scriptText),
  };
}

function ruleHits(k: number, views: ReturnType<typeof viewsOf>, includeEncoding: boolean): boolean {
  const { scope } = BUILTIN_RULES[k] as Rule;
  return (includeEncoding || scope !== "encoding") && SCOPE_VIEWS[scope].some((name) => views[name]?.hits(k) === true);
}

const NO_MATCHES: readonly StructuralMatch[] = Object.freeze([]);

/**
 * The `matches` of a text with reasons: what the check located (length, characters), each rule's
 * and custom pattern's matches mapped back from their views, and the encoded run of a payload;
 * a reason without a narrower location (the encoding budget) covers the whole text.
 */
function locateReasons(
  text: string,
  plain: boolean,
  reasons: readonly string[],
  known: ReadonlyMap<string, readonly MatchLocation[]>,
  ruleReasons: readonly string[],
  customHits: readonly CompiledCustomPattern[],
  encoded: EncodedFinding | null,
): readonly StructuralMatch[] {
  const maps = new TextMaps(text, plain);
  const located = new Map(known);
  for (const label of ruleReasons) located.set(label, ruleLocations(label, maps));
  for (const c of customHits) located.set(c.reason, customLocations(c.re, maps));
  // The encoded reason is always the last one.
  if (encoded !== null) located.set(reasons[reasons.length - 1] as string, encodedLocations(encoded, maps));
  return Object.freeze(reasons.map((reason) => matchOf(reason, located.get(reason) ?? [], maps)));
}

/**
 * Where a decoded payload sits in the text: the encoded run; for a whole-text rotation or
 * reversal that matched at once, the matches in the decoded text placed back (same code points
 * for a letter shift, mirrored for a reversal), else the whole text.
 */
function encodedLocations(encoded: EncodedFinding, maps: TextMaps): MatchLocation[] {
  if (encoded.wholeDecoded === undefined) return [mapViewSpan(maps.identity, encoded.start, encoded.end)];
  const decodedMaps = new TextMaps(encoded.wholeDecoded, PLAIN_ASCII.test(encoded.wholeDecoded));
  const n = maps.identity.length;
  const spans: MatchLocation[] = [];
  const counted = (r: Rule): boolean => r.scope !== "encoding" && !(encoded.kind === "reverse" && r.label === L.ADVERSARIAL_SUFFIX);
  for (const label of new Set(BUILTIN_RULES.filter(counted).map((r) => r.label))) {
    for (const l of ruleLocations(label, decodedMaps)) {
      if (!addLocation(spans, encoded.kind === "reverse" ? { start: n - l.end, end: n - l.start } : l)) return spans;
    }
  }
  return spans.length > 0 ? spans : [maps.whole];
}

/** The structural filter: the in-process first layer of screening (no model, no network). */
export class StructuralFilter {
  readonly maxInputLength: number;
  readonly #custom: readonly CompiledCustomPattern[];

  constructor(options: StructuralFilterOptions = {}) {
    const max = options.maxInputLength ?? DEFAULT_MAX_INPUT_LENGTH;
    if (typeof max !== "number" || !Number.isSafeInteger(max) || max <= 0) {
      throw new UsageError("maxInputLength must be a positive safe integer");
    }
    const onWarning = options.onWarning ?? (() => undefined);
    if (typeof onWarning !== "function") throw new UsageError("onWarning must be a function");
    this.maxInputLength = max;
    this.#custom = compileCustomPatterns(options.customPatterns, onWarning);
    brands.brand(this, "structural_filter", new.target === StructuralFilter);
  }

  /** What can change this filter's findings on the same text (read by the verdict cache). */
  identity(): StructuralIdentity {
    return { rulesVersion: STRUCTURAL_RULES_VERSION, customPatterns: this.customPatternSummary, maxInputLength: this.maxInputLength };
  }

  /** The custom patterns applied, in order, as compiled (source, flags, reason): what tells two filters' cache keys apart. */
  get customPatternSummary(): ReadonlyArray<{ readonly source: string; readonly flags: string; readonly reason: string }> {
    return Object.freeze(this.#custom.map((c) => Object.freeze({ source: c.re.source, flags: c.re.flags, reason: c.reason })));
  }

  /** Runs every check in order (length, control characters, invisible Unicode, rules, custom patterns, decode-then-recheck). */
  check(text: string): FilterResult {
    if (typeof text !== "string") {
      const value: unknown = text;
      const type = value === null ? "null" : Array.isArray(value) ? "array" : value instanceof Uint8Array ? value.constructor.name : typeof value;
      throw new TypeError(`text must be a string, got ${type}`);
    }
    const reasons: string[] = [];
    // Where each reason matched, as far as the check itself knows; rule and custom-pattern
    // locations are found afterwards, and only for a text that has reasons.
    const known = new Map<string, readonly MatchLocation[]>();
    const found = (reason: string, start: number, end: number): void => {
      reasons.push(reason);
      known.set(reason, [{ start, end }]);
    };
    // A text has no more code points than UTF-16 units, so a short one needs no count.
    if (text.length > this.maxInputLength) {
      const length = codePointLength(text);
      // Located at the part beyond the limit: what the filter would not inspect.
      if (length > this.maxInputLength) found(L.lengthReason(length, this.maxInputLength), this.maxInputLength, length);
    }

    // Printable ASCII with tab, newline and CR holds nothing the character scan could find.
    const plain = PLAIN_ASCII.test(text);
    const chars = plain ? NOTHING_SCANNED : scanCharacters(text);
    if (chars.control) found(L.CONTROL, chars.controlAt, chars.controlAt + 1);
    if (chars.suspiciousUnicode) found(L.UNICODE, chars.suspiciousAt, chars.suspiciousAt + 1);

    const views = viewsOf(text, plain);
    // A label found once is not searched for again (several rules share one).
    const ruleReasons: string[] = [];
    for (const [k, r] of BUILTIN_RULES.entries()) if (!ruleReasons.includes(r.label) && ruleHits(k, views, true)) ruleReasons.push(r.label);
    const customHits: CompiledCustomPattern[] = [];
    for (const c of this.#custom) {
      const already = ruleReasons.includes(c.reason) || customHits.some((hit) => hit.reason === c.reason);
      if (!already && (c.re.test(text) || c.re.test(views.folded.text))) customHits.push(c);
    }
    reasons.push(...ruleReasons, ...customHits.map((c) => c.reason));

    // A decoded payload is an injection when a rule other than the visible-encoding rows hits it;
    // in a reversed text not the adversarial-suffix rule, which reads the order of brackets, and
    // a reversal closes every bracket before it opens it.
    const encoded = locateEncodedInjection(text, (decoded, kind) => {
      const decodedViews = viewsOf(decoded);
      return BUILTIN_RULES.some((rule, k) => !(kind === "reverse" && rule.label === L.ADVERSARIAL_SUFFIX) && ruleHits(k, decodedViews, false));
    });
    if (encoded !== null) reasons.push(encoded === "budget" ? L.ENCODING_BUDGET : L.encodedReason(encoded.kind));
    const payload = encoded === "budget" ? null : encoded;

    return filterResult(text, reasons, reasons.length === 0 ? NO_MATCHES : locateReasons(text, plain, reasons, known, ruleReasons, customHits, payload));
  }
}

/** The frozen FilterResult of `text` with `reasons` located at `matches`, which are frozen too (a worker's arrive as plain copies). */
export function filterResult(text: string, reasons: readonly string[], matches: readonly StructuralMatch[]): FilterResult {
  for (const m of matches) {
    for (const l of m.locations) Object.freeze(l);
    Object.freeze(m.locations);
    Object.freeze(m);
  }
  const blocked = reasons.length > 0;
  return Object.freeze({
    blocked,
    reasons: Object.freeze(reasons),
    matches: matches.length === 0 ? NO_MATCHES : Object.freeze(matches),
    inputSanitized: blocked ? "" : text,
  });
}
