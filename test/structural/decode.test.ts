import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  BASE64_RUN,
  caesarShift,
  decodeBase64Text,
  decodeHexText,
  locateEncodedInjection,
  reverseCodePoints,
  utf8DropInvalid,
} from "../../src/structural/decode.js";

const b64 = (s: string): string => Buffer.from(s).toString("base64");
const isTarget = (t: string): boolean => t.includes("TARGET");

/** The encoding of the outermost run a payload was found under, "budget", or null. */
const findEncodedInjection = (...args: Parameters<typeof locateEncodedInjection>): string | null => {
  const found = locateEncodedInjection(...args);
  return found === null || found === "budget" ? found : found.kind;
};

/** The runs of `text` that may be base64 (one or more wrapped lines of symbols), in order. */
const base64Runs = (text: string): string[] => Array.from(text.matchAll(BASE64_RUN), (m) => m[0]);

describe("decoding primitives", () => {
  test("base64 runs are exactly the matches of the plain run pattern (the start guard only saves work)", () => {
    const plain = /[A-Za-z0-9+/_-]{8,}(?:\r?\n[A-Za-z0-9+/_-]{8,}){0,256}={0,2}/g;
    const alphabet = fc.constantFrom("a", "Z", "0", "+", "/", "_", "-", "=", "\n", "\r", " ", ".", "é");
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 200 }).map((cs) => cs.join("")),
        fc.integer({ min: 1, max: 12 }),
        (text, repeat) => {
          const input = text.repeat(repeat);
          expect(base64Runs(input)).toEqual(Array.from(input.matchAll(plain), (m) => m[0]));
        },
      ),
      { numRuns: 500 },
    );
    // Past the cap of 256 continuation lines, a new run starts on the next line.
    const wrapped = `${"QUJDREVGR0g=\n".repeat(3)}${"AAAAAAAAAA\n".repeat(300)}`;
    expect(base64Runs(wrapped)).toEqual(Array.from(wrapped.matchAll(plain), (m) => m[0]));
    expect(base64Runs(wrapped).length).toBeGreaterThan(2);
  });

  test("invalid UTF-8 bytes are dropped, not replaced", () => {
    expect(utf8DropInvalid(Uint8Array.from([0x68, 0xff, 0x69]))).toBe("hi");
  });

  test("base64 and base64url decode to printable text; binary does not", () => {
    expect(decodeBase64Text(b64("hello there, general reader"))).toBe("hello there, general reader");
    expect(decodeBase64Text(Buffer.from("hello there?>?>?> general").toString("base64url"))).toBe("hello there?>?>?> general");
    expect(decodeBase64Text(Buffer.from(Array.from({ length: 40 }, (_, i) => i)).toString("base64"))).toBeNull();
  });

  test("a mix of both base64 alphabets is not base64", () => {
    expect(decodeBase64Text("abcd+efgh_ijklmnopqrstuvwx")).toBeNull();
  });

  test("hex runs decode with any prefix style", () => {
    expect(decodeHexText("\\x68\\x65\\x6c\\x6c\\x6f\\x20\\x77\\x6f\\x72\\x6c\\x64")).toBe("hello world");
    expect(decodeHexText("%68%65%6c%6c%6f%20%77%6f%72%6c%64")).toBe("hello world");
  });

  test("caesar and reverse keep non-letters and surrogate pairs intact", () => {
    expect(caesarShift("Abc, xyz!", 13)).toBe("Nop, klm!");
    expect(reverseCodePoints("a😀b")).toBe("b😀a");
  });
});

describe("bounded layered search", () => {
  test("three layers of base64 are undone within the default depth", () => {
    expect(findEncodedInjection(`x ${b64(b64(b64("the TARGET phrase here")))}`, isTarget)).toBe("base64");
  });

  test("a payload deeper than maxDepth is not reached, and that is reported as a budget stop, not a pass", () => {
    const deep = b64(b64(b64("the TARGET phrase here")));
    expect(findEncodedInjection(`x ${deep}`, isTarget, { maxDepth: 2, maxCandidates: 512, maxDecodedUnits: 1 << 20 })).toBe("budget");
  });

  test("the candidate cap stops the search with a budget finding (decoys cannot buy a clean verdict)", () => {
    const decoys = Array.from({ length: 5 }, (_, i) => b64(`decoy number ${i} padding text`)).join(" ");
    const text = `${decoys} ${b64("the TARGET phrase here")}`;
    expect(findEncodedInjection(text, isTarget)).toBe("base64");
    expect(findEncodedInjection(text, isTarget, { maxDepth: 3, maxCandidates: 3, maxDecodedUnits: 1 << 20 })).toBe("budget");
  });

  test("the decoded-size cap stops the search with a budget finding", () => {
    const text = `${b64("x".repeat(3000))} ${b64("the TARGET phrase here")}`;
    expect(findEncodedInjection(text, isTarget, { maxDepth: 3, maxCandidates: 512, maxDecodedUnits: 1000 })).toBe("budget");
  });

  test("text whose decodable content was all inspected without a match is not a finding", () => {
    expect(findEncodedInjection(`note: ${b64("an ordinary sentence about the weather")}`, isTarget)).toBeNull();
    expect(findEncodedInjection("plain prose without any encoded content at all", isTarget)).toBeNull();
  });

  test("a whole-text transform is not applied to its own output: a reversed 'backwards' reads 'sdrawkcab', a cue that must not start the search over", () => {
    // Reversed, rotated or shifted again, the text is one already inspected: no budget stop for that.
    expect(findEncodedInjection("This release is backwards compatible with 2.x.", isTarget)).toBeNull();
    expect(findEncodedInjection("rot13 of the text: ebg13 decode this", isTarget)).toBeNull();
    expect(findEncodedInjection("a caesar cipher, or pnrfne, or dbftbs", isTarget)).toBeNull();
    // A payload is still found under each, and under one transform inside another.
    expect(findEncodedInjection("read it backwards: esarhp TEGRAT eht", isTarget)).toBe("reverse");
    expect(findEncodedInjection(`backwards: ${reverseCodePoints(`rot13 ${caesarShift("the TARGET phrase", 13)}`)}`, isTarget)).toBe("reverse");
    expect(findEncodedInjection(`sdrawkcab ${b64(reverseCodePoints("backwards: the TARGET phrase"))}`, isTarget)).toBe("base64");
  });
});
