// The shape of one structural pattern rule, shared by the rule tables (rules.ts, indirect.ts,
// multilingual.ts). Kept on its own so that rules.ts can collect the other tables without
// them importing rules.ts back; the scopes are described in rules.ts.

/** Where a rule runs: which normalised views of a text it is matched against (rules.ts). */
export type RuleScope = "language" | "code" | "encoding" | "script";

/** One pattern rule: the reason label it reports and the expression that detects it. */
export interface Rule {
  readonly label: string;
  readonly scope: RuleScope;
  /** Always compiled with the `g` flag so matches can be enumerated (bounded) for `accept`. */
  readonly re: RegExp;
  readonly accept?: (match: RegExpExecArray) => boolean;
  /**
   * A literal that every match of `re` contains (case-sensitively): a text without it cannot
   * match, so the search is skipped. Only for literals the pattern itself makes mandatory.
   */
  readonly requires?: string;
}
