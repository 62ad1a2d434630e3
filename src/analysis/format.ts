// `tool_hallucination` and `format_anomaly`: a canary has no tools, so a reply
// shaped like a tool or function call shows the input steered it into acting. Both are soft
// signals: code and JSON are also ordinary answers.
import type { Signal } from "./types.js";
import { makeSignal } from "./signals.js";
import { type PatternRule, patternRule, r, runRules } from "./_rules.js";

// Tool-call syntax counts wherever it stands: no quotation or refusal context cancels it.
const ANYWHERE = { quotesCount: true } as const;
const TOOL_RULES: readonly PatternRule[] = [
  patternRule(
    "tool-fence",
    "code fence tagged as a tool or function call",
    r`\x60\x60\x60\s?(?:tool_call|function_call|api_call|tool_use|tool_code)\b`,
    ANYWHERE,
  ),
  patternRule("tool-json", "JSON object shaped like a tool invocation", r`\{\s?"(?:action|tool|function|command|tool_call|function_call)"\s?:`, ANYWHERE),
  patternRule("tool-tag", "tool-call markup", r`<(?:tool_call|function_call|api_request|tool_use)>`, ANYWHERE),
];

/** One signal per matching rule, read on the syntax-preserving form of the reply. */
export function checkToolHallucination(syntaxText: string): Signal[] {
  return runRules("tool_hallucination", TOOL_RULES, syntaxText);
}

/** The raw, untrimmed reply starts with a code fence or a JSON object. */
export function checkFormatAnomaly(rawResponse: string): Signal[] {
  if (rawResponse.startsWith("```") || rawResponse.startsWith("{")) {
    return [makeSignal("format_anomaly", "reply starts with a code block or JSON", rawResponse, 0)];
  }
  return [];
}
