// The CI report rules, one table for SARIF (`rules`), JUnit (a failure's `type`) and GitHub (the
// annotation title): one per detection kind and one per coverage failure, the latter at the level
// of a finding ("error"): a text that was not screened must fail a gate as loudly as one caught.

/** How a CI system should treat a result of this rule. */
type ReportLevel = "error" | "warning";

/** Whether a rule reports something found in the text or text that was not (fully) screened. */
type RuleKind = "detection" | "coverage";

/** One report rule. */
export interface ReportRule {
  /** Stable identifier, e.g. `little-canary/block-structural`. */
  readonly id: string;
  /** Short PascalCase name (SARIF `name`). */
  readonly name: string;
  readonly kind: RuleKind;
  readonly level: ReportLevel;
  /** One sentence for the rule's short description. */
  readonly summary: string;
  /** What a reviewer does with a result of the rule (SARIF `help`). */
  readonly help: string;
}

const DETECTION_HELP =
  "Read the record at this line. A false block can be admitted by listing the record's content hash in an allow file (ingest --allow FILE).";
const COVERAGE_HELP =
  "The text was not fully screened: fix the cause named in the message and run again. A coverage failure is never admitted by an allow file.";
const STRUCTURAL_HELP =
  "Each related location names one structural reason with a one-line explanation of what the rule looks for, and its offsets (properties textStart and textEnd, code points of the segment's text, half-open) where it matched. " +
  DETECTION_HELP;

const rule = (slug: string, name: string, kind: RuleKind, level: ReportLevel, summary: string, help?: string): ReportRule =>
  Object.freeze({ id: `little-canary/${slug}`, name, kind, level, summary, help: help ?? (kind === "detection" ? DETECTION_HELP : COVERAGE_HELP) });

/** Every rule, in the order they are listed in a SARIF report (the order is part of the format: results name their rule's index). */
export const REPORT_RULES = Object.freeze({
  blockStructural: rule(
    "block-structural",
    "StructuralInjection",
    "detection",
    "error",
    "The structural checks found a prompt-injection shape in the text.",
    STRUCTURAL_HELP,
  ),
  blockCanary: rule("block-canary", "CanaryTakeover", "detection", "error", "The canary model's reply showed strong signs that the text took control of it."),
  flagCanary: rule("flag-canary", "CanarySuspicion", "detection", "warning", "The canary model's reply showed weaker signs that the text took control of it."),
  degraded: rule(
    "degraded",
    "ScreenDegraded",
    "coverage",
    "error",
    "The check did not complete (the canary or its analysis failed): the text was not screened.",
  ),
  unexercised: rule(
    "unexercised",
    "ScreenUnexercised",
    "coverage",
    "error",
    "The canary did not run on the text (disabled or not reached): only part of the screen ran.",
  ),
  checkError: rule("check-error", "CheckError", "coverage", "error", "The check failed with an error: the text was not screened."),
  malformed: rule("malformed", "RecordMalformed", "coverage", "error", "The record is not a valid input record, so it was not screened."),
  overBudget: rule("over-budget", "RecordOverBudget", "coverage", "error", "The record exceeds a run limit, so it was not screened."),
  incomplete: rule("incomplete", "ScreenIncomplete", "coverage", "error", "Only part of the record was screened."),
});

/** The rules as a list, in report order. */
export const RULE_LIST: readonly ReportRule[] = Object.freeze(Object.values(REPORT_RULES));

/** The position of `rule` in RULE_LIST (SARIF `ruleIndex`). */
export function ruleIndex(rule: ReportRule): number {
  return RULE_LIST.indexOf(rule);
}
