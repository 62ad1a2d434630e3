// Decode-then-recheck: text hidden as base64 (either alphabet, possibly wrapped), hex (pairs, \xNN,
// %NN, 0xNN), ROT13/Caesar or reversed is decoded and rechecked by the caller, and searched again
// (base64 in base64, …), every loop bounded (DecodeLimits; a layer's runs are disjoint slices of
// its text). The label names the outermost encoding.

import type { EncodingKind } from "./labels.js";
import { codePointLength } from "../core/codepoints.js";

export interface DecodeLimits {
  /** Layers of encoding undone, counting the outermost as 1. */
  readonly maxDepth: number;
  /** Decoded candidates examined in total, over all layers. */
  readonly maxCandidates: number;
  /** UTF-16 units of decoded text examined in total, over all layers. */
  readonly maxDecodedUnits: number;
}

const DEFAULT_DECODE_LIMITS: DecodeLimits = Object.freeze({
  maxDepth: 3,
  maxCandidates: 512,
  maxDecodedUnits: 1 << 20,
});

const MIN_BASE64_CHARS = 20;
const MIN_DECODED_CODE_POINTS = 6; // "more than 5 characters", as the Python package counts

// Base64 segments of 8+ symbols, joined across line breaks (MIME wraps at 76), optional padding;
// the segment class excludes the newline, so the repetition is unambiguous. A match can only begin
// where a run of symbols begins, so the look-behind changes no match: it only stops the engine
// trying every position inside each word of prose.
export const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{8,}(?:\r?\n[A-Za-z0-9+/_-]{8,}){0,256}={0,2}/g;
// 10+ hex byte pairs, each optionally prefixed (\x, %, 0x) and followed by a short separator.
const HEX_RUN = /(?:(?:\\x|%|0x)?[0-9A-Fa-f]{2}[ \t\n,:]{0,2}){10,}/g;
const HEX_PAIR = /(?:\\x|%|0x)?([0-9A-Fa-f]{2})/g;

const ROT13_CUE = /\b(?:rot-?13|caesar|cipher|decrypt|decipher|decode this)\b/i;
const CAESAR_CUE = /\bcaesar\b/i;
const REVERSE_CUE = /\b(?:revers(?:e|ed|ing)|backwards?|sdrawkcab|mirror(?:ed)?)\b/i;

// Python's str.isprintable() (no Cc/Cf/Cs/Co/Cn/Zl/Zp, no Zs but the space), except that tab,
// newline and CR are allowed: a hidden multi-line payload is still a payload.
const NON_PRINTABLE = /(?![ \t\n\r])[\p{C}\p{Z}]/u;

const UTF8 = new TextDecoder("utf-8");

/** UTF-8 decode that drops invalid bytes (Python's errors="ignore"), not U+FFFD them. */
export function utf8DropInvalid(bytes: Uint8Array): string {
  return UTF8.decode(bytes).replace(/\uFFFD/g, "");
}

/** Decoded text worth rechecking: long enough and made only of printable characters. */
function asPrintableText(decoded: string): string | null {
  if (codePointLength(decoded) < MIN_DECODED_CODE_POINTS) return null;
  return NON_PRINTABLE.test(decoded) ? null : decoded;
}

/** Lenient base64/base64url decode of `run` to printable text, or null. */
export function decodeBase64Text(run: string): string | null {
  const symbols = run.replace(/[\s=]/g, "");
  if (symbols.length < MIN_BASE64_CHARS || symbols.length % 4 === 1) return null;
  // One payload uses one alphabet; a mix is prose or a path, not base64.
  if (/[+/]/.test(symbols) && /[-_]/.test(symbols)) return null;
  return asPrintableText(utf8DropInvalid(Buffer.from(symbols, "base64")));
}

/** Decode a run of hex byte pairs (any of the accepted prefixes) to printable text, or null. */
export function decodeHexText(run: string): string | null {
  const bytes: number[] = [];
  for (const m of run.matchAll(HEX_PAIR)) bytes.push(Number.parseInt(m[1] as string, 16));
  return asPrintableText(utf8DropInvalid(Uint8Array.from(bytes)));
}

/** Shift ASCII letters by `k` places (13 = ROT13); everything else is kept. */
export function caesarShift(text: string, k: number): string {
  return text.replace(/[A-Za-z]/g, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + k) % 26) + base);
  });
}

/** Reverse by code points (never splits a surrogate pair). */
export function reverseCodePoints(text: string): string {
  return Array.from(text).reverse().join("");
}

/** A decoded run: its `start`/`end` are in the text it was found in, which is the input only on the first layer. */
type Candidate = Omit<EncodedFinding, "wholeDecoded"> & { readonly text: string };

/**
 * The decodable candidates of one layer, in a fixed order: base64, hex, rot13, caesar, reverse.
 * `madeBy` is how the layer itself was decoded: the same whole-text transform again is left out,
 * since it only gives back a text already inspected (a reversal of a reversal is the text before
 * it; a letter shift of a shifted text is another shift of the text before it, all of which were
 * tried there). Without that, a reversed "backwards" reads "sdrawkcab", a cue to reverse again,
 * and an ordinary "backwards compatible" used up the search and was held as uninspectable.
 */
function* candidatesOf(text: string, madeBy: EncodingKind | null = null): Generator<Candidate> {
  for (const [kind, run, decode] of [["base64", BASE64_RUN, decodeBase64Text] as const, ["hex", HEX_RUN, decodeHexText] as const]) {
    for (const m of text.matchAll(run)) {
      const decoded = decode(m[0]);
      if (decoded !== null) yield { kind, text: decoded, start: m.index, end: m.index + m[0].length };
    }
  }
  const all = { start: 0, end: text.length };
  if (madeBy !== "rot13" && ROT13_CUE.test(text)) yield { kind: "rot13", text: caesarShift(text, 13), ...all };
  if (madeBy !== "caesar" && CAESAR_CUE.test(text)) {
    for (let k = 1; k < 26; k++) if (k !== 13) yield { kind: "caesar", text: caesarShift(text, k), ...all };
  }
  if (madeBy !== "reverse" && REVERSE_CUE.test(text)) yield { kind: "reverse", text: reverseCodePoints(text), ...all };
}

/** Where decode-then-recheck found a payload: the outermost encoding and its run in the input. */
export interface EncodedFinding {
  readonly kind: EncodingKind;
  /** UTF-16 `[start, end)` of the outermost encoded run in the input (the whole input for rot13, caesar, reverse). */
  readonly start: number;
  readonly end: number;
  /**
   * For a whole-input rot13, caesar or reverse decoding that matched at once: the decoded text, whose
   * code points are the input's (shifted, or in reverse order), so a match can be placed exactly.
   */
  readonly wholeDecoded?: string;
}

/**
 * The outermost encoded run (with its encoding) under which some decoded layer satisfies
 * `isInjection`, breadth-first; null when everything decodable was inspected and nothing matched;
 * "budget" when the limits stopped the search with encoded content uninspected (ordinary text
 * never comes near), a finding, not a pass: decoys or one more layer must not buy a clean verdict.
 */
export function locateEncodedInjection(
  text: string,
  isInjection: (decoded: string, kind: EncodingKind) => boolean,
  limits: DecodeLimits = DEFAULT_DECODE_LIMITS,
): EncodedFinding | "budget" | null {
  let layer: Array<{ outer: EncodedFinding | null; text: string; madeBy: EncodingKind | null }> = [{ outer: null, text, madeBy: null }];
  let candidates = 0;
  let units = 0;
  for (let depth = 1; depth <= limits.maxDepth && layer.length > 0; depth++) {
    const next: Array<{ outer: EncodedFinding; text: string; madeBy: EncodingKind }> = [];
    for (const item of layer) {
      for (const candidate of candidatesOf(item.text, item.madeBy)) {
        candidates++;
        units += candidate.text.length;
        if (candidates > limits.maxCandidates || units > limits.maxDecodedUnits) return "budget";
        const outer = item.outer ?? { kind: candidate.kind, start: candidate.start, end: candidate.end };
        if (isInjection(candidate.text, candidate.kind)) {
          const whole = item.outer === null && (candidate.kind === "rot13" || candidate.kind === "caesar" || candidate.kind === "reverse");
          return whole ? { ...outer, wholeDecoded: candidate.text } : outer;
        }
        next.push({ outer, text: candidate.text, madeBy: candidate.kind });
      }
    }
    layer = next;
  }
  // Depth exhausted: decoded text that still holds a decodable layer was never inspected.
  if (layer.some((item) => !candidatesOf(item.text, item.madeBy).next().done)) return "budget";
  return null;
}
