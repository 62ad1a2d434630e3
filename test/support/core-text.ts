// Whole-text forms of two core functions the product only uses in pieces (moved out of src/core,
// which does not ship them): a string parsed by the strict grammar, and a canonical object built
// around the item texts of its one array.
import { canonicalObjectFrame } from "../../src/core/canonical.js";
import { parseJsonBytes, type LineParseResult, type ParseOptions } from "../../src/core/parse-line.js";

/**
 * Parses one line or document strictly; never throws for any string input. The string is
 * encoded as UTF-8 first (it should be well-formed: a raw lone surrogate becomes U+FFFD).
 */
export function parseJsonLine(text: string, options: ParseOptions = {}): LineParseResult {
  return parseJsonBytes(Buffer.from(text, "utf8"), options);
}

/**
 * The canonical text of `{ ...rest, [key]: items }` given `rest` (already checked) and the
 * canonical texts of the items (see canonicalObjectFrame for the rules it applies).
 */
export function canonicalObjectWithArray(rest: Readonly<Record<string, unknown>>, key: string, itemTexts: readonly string[]): string {
  const frame = canonicalObjectFrame(rest, key);
  return `${frame.prefix}${itemTexts.join(",")}${frame.suffix}`;
}
