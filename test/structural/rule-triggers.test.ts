// Rule triggers (src/structural/rule-triggers.ts) let the filter skip a rule on a text that has
// no word or literal the rule can begin with. A trigger that is too narrow would be a silent miss,
// so these tests hold it to the expressions themselves: hand-written shapes for each construct the
// walk follows, every built-in rule against every example sentence of this suite's structural tests
// and the fixture corpora, and random texts made from each rule's own words.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deobfuscatedView, foldedView, scriptView } from "../../src/structural/normalize.js";
import { RuleTriggers, ruleTrigger } from "../../src/structural/rule-triggers.js";
import { BUILTIN_RULES } from "../../src/structural/rules.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../..");

/** The rule's own answer (no trigger, no `requires`, no accept predicate). */
function patternMatches(re: RegExp, text: string): boolean {
  return new RegExp(re.source, re.flags).test(text);
}

function admits(re: RegExp, text: string): boolean {
  return new RuleTriggers([re]).admitted(text)[0] === true;
}

/** The built-in rules' triggers, as the filter holds them. */
const BUILTIN = new RuleTriggers(BUILTIN_RULES.map((rule) => rule.re));

describe("the trigger of an expression", () => {
  it("a word class after a boundary gives the starts of its words, cut to four letters", () => {
    expect(ruleTrigger(/\b(?:ignore|disregard|set\s+aside)\s+all/gi)).toEqual({ wordStarts: ["disr", "igno"], wholeWords: ["set"], loose: [] });
  });

  it("an optional part gives both the part and what follows it", () => {
    const re = /\b(?:an)?statt\s+zu/gi;
    expect(ruleTrigger(re)?.wordStarts).toEqual(["anst", "stat"]);
    expect(admits(re, "statt zu")).toBe(true);
    expect(admits(re, "anstatt zu")).toBe(true);
    expect(admits(re, "instead of")).toBe(false);
  });

  it("a repeated part is followed by itself or by what comes after", () => {
    const re = /\b(?:ab)+c/g;
    expect(patternMatches(re, "ababc")).toBe(true);
    expect(admits(re, "ababc")).toBe(true);
    expect(admits(re, "abc")).toBe(true);
    expect(admits(re, "abd")).toBe(false);
  });

  it("a word ends at the first character that is not a word character, and one shorter than a key must then be in the text whole", () => {
    expect(ruleTrigger(/\bdon't\s+stop/g)).toEqual({ wordStarts: [], wholeWords: ["don"], loose: [] });
    // Whitespace, \W, a boundary, or a class of ASCII spaces and punctuation end the word.
    for (const re of [/\bI\s+am/gi, /\bI\Wam/gi, /\bI\b/gi, /\bI[ \t,.-]am/gi, /\bI[\s-]am/gi]) {
      expect(ruleTrigger(re), String(re)).toEqual({ wordStarts: [], wholeWords: ["i"], loose: [] });
      expect(admits(re, "island am")).toBe(false);
      expect(admits(re, "so I am")).toBe(true);
      expect(admits(re, "so i,am")).toBe(true);
    }
    // A class that may hold a word character, a range, a negation or a letter outside ASCII does not end it.
    for (const re of [/\bI[\w ]am/gi, /\bI[!-/]am/gi, /\bI[^a]am/gi, /\bI[ \u212a]am/giu, /\bI\Sam/gi, /\bI.am/gi]) {
      expect(ruleTrigger(re)?.wordStarts, String(re)).toEqual(["i"]);
      expect(admits(re, "island am")).toBe(true);
    }
    // Optional whitespace lets the word go on; a start that covers a whole word makes it redundant.
    expect(ruleTrigger(/\byou\s*are/gi)).toEqual({ wordStarts: ["youa"], wholeWords: ["you"], loose: [] });
    expect(ruleTrigger(/\b(?:you\s|yo)/gi)).toEqual({ wordStarts: ["yo"], wholeWords: [], loose: [] });
    // Four characters and more are a start either way.
    expect(ruleTrigger(/\bthose\s/gi)).toEqual({ wordStarts: ["thos"], wholeWords: [], loose: [] });
  });

  it("a start that is not at a boundary is a literal the text must contain", () => {
    const re = /psutil\.cpu|<script/g;
    expect(ruleTrigger(re)).toEqual({ wordStarts: [], wholeWords: [], loose: ["<scrip", "psutil"] });
    expect(admits(re, "import xpsutil.cpu")).toBe(true);
    expect(admits(re, "<SCRIPT>")).toBe(true);
    expect(admits(re, "script")).toBe(false);
  });

  it("a class or any character before anything is pinned is passed over: what follows is a literal the text must contain", () => {
    expect(ruleTrigger(/(?:["']\s*)?\bplease/g)).toEqual({ wordStarts: ["plea"], wholeWords: [], loose: [] });
    expect(ruleTrigger(/.foo/g)).toEqual({ wordStarts: [], wholeWords: [], loose: ["foo"] });
    expect(ruleTrigger(/(?:^|[;&|])[ \t]*(?:[$#>][ \t]*)?sudo\s/g)).toEqual({ wordStarts: [], wholeWords: [], loose: ["sudo"] });
    expect(ruleTrigger(/^[ \t>*_#-]{0,8}[[(]?(?:system|developer)\b/gim)).toEqual({ wordStarts: [], wholeWords: [], loose: ["develo", "system"] });
    for (const [re, text] of [
      [/.foo/g, "xfoo"],
      [/(?:^|[^\p{L}])IGNORE/giu, "1ignore"],
      [/(?:^|[;&|])[ \t]*sudo\s/g, "a;  sudo x"],
      [/[a-z]+\d+bar/gi, "abc12BAR"],
    ] as const) {
      expect(patternMatches(re, text)).toBe(true);
      expect(admits(re, text)).toBe(true);
    }
    expect(admits(/.foo/g, "fo o")).toBe(false);
  });

  it("a path with no literal, or a non-ASCII literal first, leaves the rule without a trigger", () => {
    expect(ruleTrigger(/\b(?:ignore|忽略)/gu)).toBeNull();
    expect(ruleTrigger(/\bfoo|\d+/g)).toBeNull();
    expect(ruleTrigger(/\bfoo|[a-z]+\s*/g)).toBeNull();
    expect(ruleTrigger(/\bfoo|\s+и/giu)).toBeNull();
  });

  it("look-arounds and anchors do not consume; a back-reference ends the prefix", () => {
    expect(ruleTrigger(/(?<!\bnot\s)\b(?=i)ignore/gi)?.wordStarts).toEqual(["igno"]);
    expect(ruleTrigger(/\b(a)\1bc/g)?.wordStarts).toEqual(["a"]);
    expect(ruleTrigger(/^\s*foo/gm)).toEqual({ wordStarts: [], wholeWords: [], loose: ["foo"] });
    // A back-reference is not passed over, even before anything is pinned.
    expect(ruleTrigger(/(a)?\1bc/g)).toBeNull();
    // A quantified look-ahead (legal without the u flag) can be skipped, so it anchors nothing.
    const lookahead = new RegExp(["(?=\\b)?", "ignore"].join(""), "g");
    expect(patternMatches(lookahead, "xignore")).toBe(true);
    expect(admits(lookahead, "xignore")).toBe(true);
  });

  it("an escape the walk does not know gives no trigger rather than a guess", () => {
    // An identity escape of a letter (legal without the u flag), held in a variable so no linter rewrites it.
    const source = ["\\bfoo", "\\q"].join("");
    expect(ruleTrigger(new RegExp(source, "g"))).toBeNull();
  });

  it("a malformed escape that JavaScript reads as a letter without the u flag gives no trigger, so no alternative is lost", () => {
    // Each source's escape is malformed, so JavaScript reads it as a plain letter and "|" starts a
    // second alternative; a walk that guessed the escape's length would swallow that alternative.
    const cases: Array<[string, string]> = [
      ["\\bq\\x|zzz", "zzz"],
      ["\\bq\\u|zzzzz", "zzzzz"],
      ["\\bq\\c|zz", "zz"],
      ["\\bq\\k<|zz>", "zz>"],
      ["\\bq\\p{|zz}", "zz}"],
      ["\\01abc", "\u0001abc"],
    ];
    for (const [source, text] of cases) {
      const re = new RegExp(source, "gi");
      expect(patternMatches(re, text)).toBe(true);
      expect(admits(re, text)).toBe(true);
    }
    // Well-formed escapes keep their trigger.
    expect(ruleTrigger(/\bq\x41|\bzz/gi)?.wordStarts).toEqual(["q", "zz"]);
    expect(ruleTrigger(/\bq\p{L}|\bzz/giu)?.wordStarts).toEqual(["q", "zz"]);
    // The v flag (nested classes, set operations) is not parsed at all; built at run time, since the compile target predates it.
    const vSource = ["\\bab", "[[a]--[b]]"].join("|");
    expect(ruleTrigger(new RegExp(vSource, "gv"))).toBeNull();
  });

  it("letters compare without case, and long s and the Kelvin sign (which fold to s and k under iu) turn the pre-check off", () => {
    const re = /\bstop\b/giu;
    expect(admits(re, "STOP now")).toBe(true);
    expect(patternMatches(re, "\u017ftop now")).toBe(true);
    expect(admits(re, "\u017ftop now")).toBe(true);
    const kelvin = /\bkill\b/giu;
    expect(patternMatches(kelvin, "\u212aill it")).toBe(true);
    expect(admits(kelvin, "\u212aill it")).toBe(true);
    expect(admits(re, "go on")).toBe(false);
  });

  it("a word inside a longer run of word characters is not a word start", () => {
    const re = /\bignore/gi;
    expect(patternMatches(re, "preignore")).toBe(false);
    expect(admits(re, "preignore")).toBe(false);
    expect(admits(re, "pre-ignore")).toBe(true);
    expect(admits(re, "pre_ignore")).toBe(false);
  });
});

/** String literals of this suite's structural test files, plus the fixture corpora's prompts. */
function exampleTexts(): string[] {
  const texts = new Set<string>();
  for (const name of readdirSync(here)) {
    if (!name.endsWith(".ts")) continue;
    const source = readFileSync(path.join(here, name), "utf8");
    for (const m of source.matchAll(/"((?:[^"\\\n]|\\.){12,})"|`((?:[^`\\$]|\\.){12,})`/g)) {
      const body = (m[1] ?? m[2] ?? "").replace(/\\n/g, "\n").replace(/\\(.)/g, "$1");
      texts.add(body);
    }
  }
  for (const file of ["mixed.json", "benign-neighbours.json"]) {
    const cases = JSON.parse(readFileSync(path.join(repoRoot, "fixtures/corpora", file), "utf8")) as Array<{ prompt: string }>;
    for (const c of cases) texts.add(c.prompt);
  }
  return [...texts];
}

function viewsOf(text: string): string[] {
  const folded = foldedView(text);
  const views = [text, folded, scriptView(text)];
  const deobfuscated = deobfuscatedView(folded);
  if (deobfuscated !== null) views.push(deobfuscated);
  return views;
}

describe("every built-in rule's trigger admits every text the rule matches", () => {
  const texts = exampleTexts();

  it("on the example sentences of the structural tests and the fixture corpora", () => {
    expect(texts.length).toBeGreaterThan(500);
    const exercised = new Set<string>();
    const misses: string[] = [];
    for (const text of texts) {
      for (const view of viewsOf(text)) {
        const admitted = BUILTIN.admitted(view);
        BUILTIN_RULES.forEach((rule, k) => {
          if (!patternMatches(rule.re, view)) return;
          exercised.add(rule.re.source);
          if (admitted[k] !== true) misses.push(`${rule.label}: ${JSON.stringify(view.slice(0, 80))}`);
        });
      }
    }
    expect(misses).toEqual([]);
    // Not vacuous: most rules match some example.
    expect(exercised.size).toBeGreaterThan(BUILTIN_RULES.length * 0.7);
  });

  it("on the matching examples changed at random: case, glued words and characters on either side", () => {
    const pairs: Array<{ k: number; view: string }> = [];
    BUILTIN_RULES.forEach((rule, k) => {
      for (const text of texts) for (const view of viewsOf(text)) if (patternMatches(rule.re, view)) pairs.push({ k, view });
    });
    const glue = fc.constantFrom("", " ", "-", "_", "x", "9", "pre", "\u017f", "\u212a", "\u00e9", "\n", ": ");
    let matched = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: pairs.length - 1 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }),
        glue,
        glue,
        (k, flips, before, after) => {
          const pair = pairs[k] as (typeof pairs)[number];
          const rule = BUILTIN_RULES[pair.k] as (typeof BUILTIN_RULES)[number];
          const view = pair.view;
          const chars = [...view];
          const cased = chars.map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase())).join("");
          const t = before + cased + after;
          if (!patternMatches(rule.re, t)) return;
          matched++;
          expect(BUILTIN.admitted(t)[pair.k]).toBe(true);
        },
      ),
      { numRuns: 3000, seed: 14 },
    );
    expect(matched).toBeGreaterThan(1000);
  });

  it("a text with none of a rule's words is not searched by it, and most prose skips most rules", () => {
    const prose = "The river runs past the garden in the morning; a quiet paper lies on the kitchen table.";
    const admitted = BUILTIN.admitted(prose);
    const skipped = BUILTIN_RULES.filter((_rule, k) => admitted[k] !== true);
    expect(skipped.length).toBeGreaterThan(BUILTIN_RULES.length / 2);
    for (const rule of skipped) expect(patternMatches(rule.re, prose)).toBe(false);
  });
});

describe("what a text admits is exactly what its words and literals give", () => {
  /**
   * The plain reading of a trigger: a word of the text begins with one of its starts or is one of its whole words, or the text
   * with its ASCII letters lower-cased holds one of its literals. Only ASCII letters are folded:
   * no other character matches an ASCII letter under `i` or `iu` but long s and the Kelvin sign,
   * which turn the pre-check off (checked below), so "İ" lower-cased to "i" plus a dot must not count.
   */
  const admittedByReading = (
    trigger: { wordStarts: readonly string[]; wholeWords: readonly string[]; loose: readonly string[] } | null,
    text: string,
  ): boolean => {
    if (trigger === null || /[\u017f\u212a]/.test(text)) return true;
    const words = (text.match(/[A-Za-z0-9_]+/g) ?? []).map((word) => word.toLowerCase());
    const lower = text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
    return (
      trigger.wordStarts.some((start) => words.some((word) => word.startsWith(start))) ||
      trigger.wholeWords.some((whole) => words.includes(whole)) ||
      trigger.loose.some((literal) => lower.includes(literal))
    );
  };

  it("no character outside ASCII matches an ASCII letter without case but long s and the Kelvin sign", () => {
    const folded: string[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (/[a-z]/iu.test(ch) || /[a-z]/i.test(ch)) folded.push(ch);
    }
    expect(folded).toEqual(["\u017f", "\u212a"]);
  });

  it("what ends a whole word (whitespace, \\W, a class of ASCII spaces and punctuation) never matches an ASCII word character, whatever the flags", () => {
    const enders = ["\\s", "\\W", "[ \\t,.;:!?'\"()\\-]", "[\\s\\W]"];
    const matched: string[] = [];
    for (const flags of ["", "i", "u", "iu", "v", "iv", "im", "ium"]) {
      for (const source of enders) {
        if (flags.includes("v") && source.includes("\\-")) continue; // the v flag's class syntax differs; no built-in rule uses it
        const re = new RegExp(source, flags);
        for (let code = 0; code < 128; code++) {
          const ch = String.fromCharCode(code);
          if (/[A-Za-z0-9_]/.test(ch) && re.test(ch)) matched.push(`${source}/${flags} ${ch}`);
        }
      }
    }
    expect(matched).toEqual([]);
  });

  it("a literal with characters that are special in an expression is looked for as written", () => {
    const triggers = new RuleTriggers([/<\|start|\[inst\]|psutil\.|\*\*\*|a\+b|x\\y/]);
    expect([...(triggers.triggers[0]?.loose ?? [])].sort()).toEqual(["***", "<|star", "[inst]", "a+b", "psutil", "x\\y"]);
    for (const text of ["say <|start", "an [INST] tag", "PSUTIL", "***", "a+b", "x\\y"]) expect(triggers.admitted(text)).toEqual([true]);
    for (const text of ["<start", "[inst", "inst]", "psuti", "**", "aab", "ab", "xy", "x\\"]) expect(triggers.admitted(text)).toEqual([false]);
  });

  it("for every built-in rule, on random texts of its own words, literals and the characters around them", () => {
    const pieces = [...new Set(BUILTIN.triggers.flatMap((t) => (t === null ? [] : [...t.wordStarts, ...t.wholeWords, ...t.loose])))];
    const piece = fc.oneof(
      fc.constantFrom(...pieces),
      fc.constantFrom(...pieces).map((p) => p.toUpperCase()),
      fc.constantFrom(" ", "_", "-", "x", "9", "\n", "<", "[", "|", "\\", ".", "é", "\u017f", "İ"),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join("");
        const admitted = BUILTIN.admitted(text);
        BUILTIN.triggers.forEach((trigger, k) => expect(admitted[k], `rule ${k} on ${JSON.stringify(text)}`).toBe(admittedByReading(trigger, text)));
      }),
      { numRuns: 3000, seed: 28 },
    );
  });
});
