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
  /** A paragraph on what the rule means (SARIF `fullDescription`). */
  readonly description: string;
  /** What a reviewer does with a result of the rule (SARIF `help`). */
  readonly help: string;
  /**
   * GitHub code scanning's `security-severity` (0.1-10, as a string): the number GitHub ranks a
   * security alert by (9.0+ critical, 7.0+ high, 4.0+ medium).
   */
  readonly securitySeverity: string;
  /** SARIF `properties.tags`: `security` makes GitHub show a result as a security alert. */
  readonly tags: readonly string[];
}

const DETECTION_HELP =
  "Read the record at this line. A false block can be admitted by listing the record's content hash in an allow file (ingest --allow FILE).";
const COVERAGE_HELP =
  "The text was not fully screened: fix the cause named in the message and run again. A coverage failure is never admitted by an allow file.";
const STRUCTURAL_HELP =
  "Each related location names one structural reason with a one-line explanation of what the rule looks for, and its offsets (properties textStart and textEnd, code points of the segment's text, half-open) where it matched. " +
  DETECTION_HELP;

/**
 * Severities: a block is high, a flag medium, and a text that was not (fully) screened high as
 * well: it must rank beside a caught injection, never below it, since nothing vouches for it.
 */
const SEVERITY: Readonly<Record<ReportLevel | "coverage", string>> = { error: "8.0", warning: "5.0", coverage: "7.5" };

/**
 * Tags GitHub code scanning reads: `security` files the result as a security alert, and CWE-1427
 * ("Improper Neutralization of Input Used for LLM Prompting") names what a detection is.
 */
const TAGS: Readonly<Record<RuleKind, readonly string[]>> = {
  detection: Object.freeze(["security", "prompt-injection", "external/cwe/cwe-1427"]),
  coverage: Object.freeze(["security", "prompt-injection", "coverage"]),
};

const DETECTION_DESCRIPTION =
  "little-canary screens untrusted text before an agent or a retrieval index consumes it: structural checks look for prompt-injection shapes, then a powerless canary model reads the text and its reply is analysed for signs that the text took control of it. ";
const COVERAGE_DESCRIPTION =
  "A coverage result is not evidence against the text: it says the screen could not vouch for it. It is reported at the level of a finding, so that an unscreened text fails a gate as loudly as a caught one. ";

/** A rule's words: its summary, what its description adds to its kind's, and its help when not its kind's. */
type RuleText = readonly [summary: string, detail: string, help?: string];

const rule = (slug: string, name: string, kind: RuleKind, level: ReportLevel, [summary, detail, help]: RuleText): ReportRule =>
  Object.freeze({
    id: `little-canary/${slug}`,
    name,
    kind,
    level,
    summary,
    description: `${kind === "detection" ? DETECTION_DESCRIPTION : COVERAGE_DESCRIPTION}${detail}`,
    help: help ?? (kind === "detection" ? DETECTION_HELP : COVERAGE_HELP),
    securitySeverity: SEVERITY[kind === "coverage" ? "coverage" : level],
    tags: TAGS[kind],
  });

/** Every rule, in the order they are listed in a SARIF report (the order is part of the format: results name their rule's index). */
export const REPORT_RULES = Object.freeze({
  blockStructural: rule("block-structural", "StructuralInjection", "detection", "error", [
    "The structural checks found a prompt-injection shape in what they screened.",
    "The structural checks blocked the text (in mode advisory, flagged it): it holds a shape that addresses a model rather than a reader (an instruction override, a forced persona, a fake system tag or prompt update, a request for the system prompt, hidden control or Unicode characters). Each related location names one reason.",
    STRUCTURAL_HELP,
  ]),
  blockCanary: rule("block-canary", "CanaryTakeover", "detection", "error", [
    "The canary model's reply showed strong signs that the text took control of it.",
    "The canary model read the text with no tools and no authority; its reply showed strong signs of takeover (for example it obeyed the text instead of doing its task), so the text would likely do the same to the model it was meant for. In mode advisory such a text is flagged rather than blocked, under this rule all the same.",
  ]),
  flagCanary: rule("flag-canary", "CanarySuspicion", "detection", "warning", [
    "The canary model's reply showed weaker signs that the text took control of it.",
    "The canary's reply showed weaker signs of takeover than a block needs (mode full or advisory decides what a flag does): the text is suspicious and worth a reviewer's look. A structural match or a strong canary finding flagged in mode advisory is reported under its own rule instead.",
  ]),
  degraded: rule("degraded", "ScreenDegraded", "coverage", "error", [
    "The check did not complete (the canary or its analysis failed): the text was not screened.",
    "The canary could not be reached, timed out, or its reply could not be analysed, so the check did not complete.",
  ]),
  unexercised: rule("unexercised", "ScreenUnexercised", "coverage", "error", [
    "The canary did not run on the text (disabled or not reached): only part of the screen ran.",
    "Only the structural checks ran (the canary was disabled, for example with --no-canary, or not reached): the layer that catches what the structural checks cannot was not exercised.",
  ]),
  checkError: rule("check-error", "CheckError", "coverage", "error", [
    "The check failed with an error: the text was not screened.",
    "The check of the text ended with an error before a verdict.",
  ]),
  malformed: rule("malformed", "RecordMalformed", "coverage", "error", [
    "The record is not a valid input record, so it was not screened.",
    "ingest: the record is not a valid input record (not JSON, or not of the record shape), so there was no text to screen.",
  ]),
  overBudget: rule("over-budget", "RecordOverBudget", "coverage", "error", [
    "The record exceeds a run limit, so it was not screened.",
    "ingest: the record exceeds a limit of the run (its size or segment count), so it was held without being screened.",
  ]),
  incomplete: rule("incomplete", "ScreenIncomplete", "coverage", "error", [
    "Only part of the record was screened.",
    "ingest: some segments of the record were screened and others were not, so the record as a whole is not vouched for.",
  ]),
});

/** The rules as a list, in report order. */
export const RULE_LIST: readonly ReportRule[] = Object.freeze(Object.values(REPORT_RULES));

/** The position of `rule` in RULE_LIST (SARIF `ruleIndex`). */
export function ruleIndex(rule: ReportRule): number {
  return RULE_LIST.indexOf(rule);
}
