// The escaping rules of the CI reports: workflow commands, XML, Markdown, and the id label that
// keeps untrusted ids out of all three.
import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/hash.js";
import { escapeCommandData, escapeCommandProperty, escapeMarkdown } from "../../src/report/github.js";
import { xmlEscape } from "../../src/report/junit.js";
import { idLabel } from "../../src/report/report-item.js";

describe("escaping", () => {
  it("workflow-command data escapes %, CR and LF; properties also : and ,", () => {
    expect(escapeCommandData("100% done\r\n::error::x")).toBe("100%25 done%0D%0A::error::x");
    expect(escapeCommandProperty("a,b:c%\n")).toBe("a%2Cb%3Ac%25%0A");
    // Escaping % first: an already-escaped-looking value is not decoded into a line break.
    expect(escapeCommandData("%0A")).toBe("%250A");
  });

  it("a workflow command never carries a raw control, C1, separator or bidi character (an input path may hold ESC)", () => {
    const hostile = "in\u001b[31m\u009b2J\u2028\u202ex\u0000.jsonl";
    for (const escaped of [escapeCommandData(hostile), escapeCommandProperty(hostile)]) {
      expect(escaped).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/u);
      expect(escaped).toContain("\\u001b[31m");
    }
    // The line breaks keep the runner's own escapes, which it decodes.
    expect(escapeCommandData("a\r\nb")).toBe("a%0D%0Ab");
  });

  it("XML escaping leaves well-formed XML for markup, control characters and lone surrogates", () => {
    const hostile = `a<b>&"'\u0000\u0007\ud800z\n\t`;
    const escaped = xmlEscape(hostile);
    expect(escaped).toBe("a&lt;b&gt;&amp;&quot;&apos;\ufffd\ufffd\ufffdz&#10;&#9;");
    expect(XMLValidator.validate(`<r a="${escaped}">${escaped}</r>`)).toBe(true);
    // Astral characters are kept.
    expect(xmlEscape("\u{1F600}")).toBe("\u{1F600}");
  });

  it("Markdown escaping removes line breaks and pipes' meaning, and HTML", () => {
    expect(escapeMarkdown("a|b\n<img src=x>")).toBe("a\\|b &lt;img src=x&gt;");
    expect(escapeMarkdown("`code` *x* [l](u)")).toBe("\\`code\\` \\*x\\* \\[l\\]\\(u\\)");
    // A mention of a user or team renders as plain text; an ampersand before it stays escaped too.
    expect(escapeMarkdown("@github/security & @me")).toBe("&#64;github/security &amp; &#64;me");
  });

  it("a plain id is its own label; anything else, or a long one, is its digest label", () => {
    expect(idLabel("doc-1.v2@site/a+b")).toBe("doc-1.v2@site/a+b");
    const hostile = "x\n::error::y";
    expect(idLabel(hostile)).toBe(`sha256:${sha256Hex(hostile).slice(0, 16)}`);
    expect(idLabel("a".repeat(101))).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(idLabel("doc 1")).toMatch(/^sha256:/);
    expect(idLabel(null)).toBeNull();
    expect(idLabel(null, "ab".repeat(32))).toBe(`sha256:${"ab".repeat(8)}`);
  });
});
