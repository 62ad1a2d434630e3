// The built-in rules' triggers are stored in src/structural/builtin-triggers.ts, so that the
// first check of a process does not derive them (about 70 ms). This suite derives them again
// from the rules and holds the stored file to the result, byte for byte: after a rule changes,
// `npx vitest run test/structural/builtin-triggers.test.ts -u` rewrites the file.
import { describe, expect, it } from "vitest";
import { BUILTIN_TRIGGERS } from "../../src/structural/builtin-triggers.js";
import { expressionFingerprint, RuleTriggers, ruleTrigger } from "../../src/structural/rule-triggers.js";
import { BUILTIN_RULES } from "../../src/structural/rules.js";

const HEADER = `// Generated from the built-in rules by test/structural/builtin-triggers.test.ts, which fails while
// this file is stale: \`npx vitest run test/structural/builtin-triggers.test.ts -u\` rewrites it.

/** Each built-in rule's trigger, in order: \`<fingerprint of its expression> <ruleTrigger(expression) as JSON>\` ("null": none). */`;

/** A string literal as biome writes it: the quote that needs fewer escapes, double on a tie. */
function literal(text: string): string {
  const quote = text.split("'").length < text.split('"').length ? "'" : '"';
  return quote + text.replaceAll("\\", "\\\\").replaceAll(quote, `\\${quote}`) + quote;
}

function storedEntry(re: RegExp): string {
  return `${expressionFingerprint(re)} ${JSON.stringify(ruleTrigger(re))}`;
}

describe("the stored triggers of the built-in rules", () => {
  it("are what the rules derive today (the file is regenerated with -u)", async () => {
    const entries = BUILTIN_RULES.map((rule) => `  ${literal(storedEntry(rule.re))},`);
    const source = [HEADER, "export const BUILTIN_TRIGGERS: readonly string[] = [", ...entries, "];", ""].join("\n");
    await expect(source).toMatchFileSnapshot("../../src/structural/builtin-triggers.ts");
  });

  it("give the filter the same triggers as deriving them", () => {
    const expressions = BUILTIN_RULES.map((rule) => rule.re);
    expect(new RuleTriggers(expressions, BUILTIN_TRIGGERS).triggers).toEqual(new RuleTriggers(expressions).triggers);
  });

  it("an entry derived from another expression is not used: the trigger is derived again", () => {
    const re = /\bignore\s+all/gi;
    const stale = `${expressionFingerprint(/\bforget\s+all/gi)} ${JSON.stringify({ wordStarts: ["forg"], loose: [] })}`;
    const triggers = new RuleTriggers([re], [stale]);
    expect(triggers.triggers).toEqual([ruleTrigger(re)]);
    expect(triggers.admitted("ignore all")).toEqual([true]);
  });
});
