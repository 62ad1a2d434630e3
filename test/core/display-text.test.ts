// The one helper every message uses for a path, id or name, and the last line of defence the
// CLI's stderr applies to whole messages.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { displayText, neutraliseCommandLines } from "../../src/core/display-text.js";

/** Lines as a CI log reader splits them (LF, CR, CRLF, NEL and the Unicode separators). */
const logLines = (text: string): string[] => text.split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/u);
const startsCommand = (line: string): boolean => line.trimStart().startsWith("::");

describe("displayText", () => {
  it("leaves an ordinary path, id or name as it is", () => {
    for (const value of ["/tmp/records.jsonl", "kb-returns", "llama3.2:1b", "C:\\data\\in.jsonl", "données/é.jsonl", "a::b", ""]) {
      expect(displayText(value)).toBe(value);
    }
  });

  it("JSON-quotes a name holding a line break, with the break escaped", () => {
    expect(displayText("x\n::error title=INJ::pwned.jsonl")).toBe('"x\\n::error title=INJ::pwned.jsonl"');
    expect(displayText("a\rb")).toBe('"a\\rb"');
    expect(displayText("a\tb")).toBe('"a\\tb"');
  });

  it("escapes DEL, C1 controls, the line and paragraph separators and bidi controls, which JSON would keep raw", () => {
    expect(displayText("a\u2028b")).toBe('"a\\u2028b"');
    expect(displayText("a\u2029b")).toBe('"a\\u2029b"');
    expect(displayText("a\u0085b")).toBe('"a\\u0085b"');
    expect(displayText("a\u009bb")).toBe('"a\\u009bb"');
    expect(displayText("a\u007fb")).toBe('"a\\u007fb"');
    expect(displayText("a\u202eb")).toBe('"a\\u202eb"');
    expect(displayText("a\u2066b")).toBe('"a\\u2066b"');
    expect(displayText("a\x1b[31mb")).toBe('"a\\u001b[31mb"');
  });

  it("quotes a name that starts with a colon, so a message that begins with it cannot start a command", () => {
    expect(displayText("::error::x")).toBe('"::error::x"');
    expect(displayText("  ::add-mask::x")).toBe('"  ::add-mask::x"');
  });

  it("escapes a lone surrogate instead of passing it on", () => {
    expect(displayText("a\ud800b")).toBe('"a\\ud800b"');
  });

  it("never returns a line break or a control character, whatever the input (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (value) => {
        const shown = displayText(value);
        expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u);
        expect(logLines(`error: ${shown}`).some(startsCommand)).toBe(false);
        expect(startsCommand(shown)).toBe(false);
        // The quoted form reads back as the value: nothing is lost, only escaped.
        if (shown !== value) expect(JSON.parse(shown)).toBe(value);
      }),
    );
  });
});

describe("neutraliseCommandLines", () => {
  it("escapes a line break that a line starting with '::' follows, and keeps the rest", () => {
    expect(neutraliseCommandLines("error: cannot read x\n::error title=INJ::pwned.jsonl\n")).toBe(
      "error: cannot read x\\u000a::error title=INJ::pwned.jsonl\n",
    );
    expect(neutraliseCommandLines("a\r\n  ::add-mask::s\n")).toBe("a\\u000d\\u000a  ::add-mask::s\n");
    expect(neutraliseCommandLines("usage: x\n\nOptions:\n  --help\n")).toBe("usage: x\n\nOptions:\n  --help\n");
    expect(neutraliseCommandLines("\rscreen: 1/2\x1b[K")).toBe("\rscreen: 1/2\x1b[K");
  });

  it("keeps a message's own first line, so an annotation written whole stays a command", () => {
    expect(neutraliseCommandLines("::error file=a,line=1,title=x::blocked\n")).toBe("::error file=a,line=1,title=x::blocked\n");
  });

  it("escapes NEL, VT, FF and the Unicode separators wherever they are", () => {
    expect(neutraliseCommandLines("a\u2028b\u2029c\u0085d\ve\ff\n")).toBe("a\\u2028b\\u2029c\\u0085d\\u000be\\u000cf\n");
  });

  it("no line after a message's first starts with '::', whatever the message holds (property)", () => {
    const piece = fc.constantFrom("\n", "\r", "\r\n", "\u2028", "\u2029", "\u0085", "\v", "\f", " ", "\t", ":", "::", "error", "x");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const lines = logLines(neutraliseCommandLines(`error: ${pieces.join("")}\n`));
        expect(lines.slice(1).some(startsCommand)).toBe(false);
      }),
    );
  });
});
