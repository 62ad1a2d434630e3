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
