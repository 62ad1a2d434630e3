import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LiteralScan } from "../../src/structural/literal-scan.js";

/** The plain reading: the text with ASCII letters lower-cased holds one of the group's literals. */
const holdsByReading = (literals: readonly string[], text: string): boolean => {
  const lower = text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  return literals.some((literal) => lower.includes(literal.replace(/[A-Z]+/g, (letters) => letters.toLowerCase())));
};

describe("which groups of literals a text holds", () => {
  it("a literal ending inside another is found, as is one that starts where a longer one failed", () => {
    const scan = new LiteralScan([["he"], ["she"], ["hers"], ["his"]]);
    const found = scan.scan("ushers");
    expect([0, 1, 2, 3].map(found)).toEqual([true, true, true, false]);
    const again = scan.scan("shis");
    expect([0, 1, 2, 3].map(again)).toEqual([false, false, false, true]);
  });

  it("ASCII letters compare without case; other characters as written, and a character outside ASCII breaks a literal", () => {
    const scan = new LiteralScan([["ignore"], ["<|im"], ["a+b"]]);
    expect([0, 1, 2].map(scan.scan("IgNoRe <|IM_start A+B"))).toEqual([true, true, true]);
    expect([0, 1, 2].map(scan.scan("ign\u00e9ore <|\u0131m a b"))).toEqual([false, false, false]);
    // İ lower-cases to "i" plus a combining dot, but no expression reads it as an ASCII i.
    expect(scan.scan("\u0130GNORE")(0)).toBe(false);
  });

  it("a literal shared by groups marks each of them; a group without literals is never found", () => {
    const scan = new LiteralScan([["send", "mail"], [], ["mail"]]);
    expect([0, 1, 2].map(scan.scan("please EMAIL it"))).toEqual([true, false, true]);
    expect([0, 1, 2].map(scan.scan("please send it"))).toEqual([true, false, false]);
  });

  it("a literal repeated in a text is found once per text and forgotten by the next", () => {
    const scan = new LiteralScan([["ab"]]);
    expect(scan.scan("abababab")(0)).toBe(true);
    expect(scan.scan("ba ba")(0)).toBe(false);
    expect(scan.scan("")(0)).toBe(false);
  });

  it("an empty literal or one outside ASCII is refused", () => {
    expect(() => new LiteralScan([[""]])).toThrow(RangeError);
    expect(() => new LiteralScan([["caf\u00e9"]])).toThrow(RangeError);
  });

  it("on random groups and texts, exactly what the plain reading finds", () => {
    const letters = fc.constantFrom("a", "b", "A", "B", "c", "-", "|", "\n", "\u00e9", "\u0130");
    const literal = fc.array(fc.constantFrom("a", "b", "c", "-", "|", "\n"), { minLength: 1, maxLength: 4 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(
        fc.array(fc.array(literal, { maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.array(letters, { maxLength: 20 })),
        (groups, texts) => {
          const scan = new LiteralScan(groups);
          for (const chars of texts) {
            const text = chars.join("");
            const found = scan.scan(text);
            groups.forEach((group, g) => expect(found(g), `group ${g} on ${JSON.stringify(text)}`).toBe(holdsByReading(group, text)));
          }
        },
      ),
      { numRuns: 2000, seed: 7 },
    );
  });
});
