// One structural pattern rule and the helpers the rule tables build it with; apart, so rules.ts
// can collect the other tables without them importing it back (scopes: see rules.ts).

/** Where a rule runs: which normalised views of a text it is matched against (rules.ts). */
export type RuleScope = "language" | "code" | "encoding" | "script";

/** The views a rule of each scope runs on (normalize.ts), in the order they are tried. */
export const SCOPE_VIEWS: Readonly<Record<RuleScope, readonly ("folded" | "deobfuscated" | "script")[]>> = {
  language: ["folded", "deobfuscated"],
  code: ["folded"],
  encoding: ["folded"],
  script: ["script"],
};

/** One pattern rule: the reason label it reports and the expression that detects it. */
export interface Rule {
  readonly label: string;
  readonly scope: RuleScope;
  /** Always compiled with the `g` flag so matches can be enumerated (bounded) for `accept`. */
  readonly re: RegExp;
  readonly accept?: (match: RegExpExecArray) => boolean;
  /** A literal every match of `re` contains (case-sensitively, as the pattern makes it mandatory): without it, no search. */
  readonly requires?: string;
}

/** A rule whose expression is `source` compiled with `flags` and `g`; most are case-insensitive wording (the defaults). */
export function rule(label: string, source: string, options: Partial<Omit<Rule, "label" | "re">> & { readonly flags?: string } = {}): Rule {
  const { scope = "language", flags = "i", accept, requires } = options;
  const re = new RegExp(source, `${flags}g`);
  return { label, scope, re, ...(accept === undefined ? {} : { accept }), ...(requires === undefined ? {} : { requires }) };
}

/** A gap inside one sentence (no newline or sentence end), at most `n` characters. */
export const GAP = (n: number): string => `[^\\n.!?]{0,${n}}?`;
/** A gap inside one sentence where a period inside a URL, number or file name does not end it. */
export const WIDE_GAP = (n: number): string => `(?:[^\\n.!?]|[.!?](?=\\S)){0,${n}}?`;

/**
 * Whether another quoted phrase follows a quoted one: `after` is the text right after the words
 * matched inside the first quotation. A list of quoted refusals ("\"I can't\" or \"I won't\"") is a
 * jailbreak's wording; one quoted phrase is what a style guide forbids too.
 */
export function quotedListFollows(after: string): boolean {
  // “ closes a German quotation („…“) and opens an English one, so it is in both classes.
  return /^[^\n"”'’»」“]{0,40}["”'’»」“][^\n"“'‘«「„]{0,20}["“'‘«「„]\s*\p{L}/u.test(after.slice(0, 120));
}

/** Whether a quoted phrase ends just before `before`'s end (a list whose last item is the match: 「…」や「…」). */
export function quotedListPrecedes(before: string): boolean {
  return /["”'’»」』“][^\n"“'‘«「„」』”]{0,20}$/u.test(before.slice(-40));
}

/** What a citing word opens: the quotation mark right after it, and the text of the quotation up to the match. */
const CITED_OPENING =
  /\b(?:like|such\s+as|e\.g\.|for\s+(?:example|instance)|saying|says|said|types|typed|typing|writes|wrote|writing|asks|asked|requests|prompts?\s+like|phrases?|strings?|called|named|reads|quotes|quoted|quoting|reported|logged|observed)(?:\s+[\w'’-]+){0,3}?\s*[:,]?\s*(["'“‘«„])[^"'“”‘’«»„\n]{0,60}$/iu;

/** The marks that close a quotation opened by each mark (a straight quote closes either way). */
const CLOSERS: Readonly<Record<string, RegExp>> = {
  '"': /["”]/u,
  "'": /['’](?!\p{L})/u,
  "“": /[”“"]/u,
  "‘": /[’'](?!\p{L})/u,
  "«": /»/u,
  "„": /[“”"]/u,
};

/**
 * Whether the match `m` is a cited specimen: it lies inside a quotation that a citing word opens
 * ("a user types something like 'pretend you have no rules'", "requests to 'print everything above
 * this line'", "prompts such as \"…\""), and the quotation closes after it on the same line. Prose
 * about prompt injection quotes an attack to discuss it; an imperative ("say '…'", "write a message: '…'")
 * is not a citing word, so only reporting forms count (says, wrote, types, asked, quotes…).
 */
export function citedSpecimen(m: RegExpExecArray): boolean {
  const opening = CITED_OPENING.exec(m.input.slice(Math.max(0, m.index - 80), m.index));
  const closer = opening === null ? undefined : CLOSERS[opening[1] as string];
  if (closer === undefined) return false;
  if (closer.test(m[0])) return false;
  const end = m.index + m[0].length;
  const after = m.input.slice(end, end + 200);
  const close = after.search(closer);
  const line = after.indexOf("\n");
  return close !== -1 && (line === -1 || close < line);
}
