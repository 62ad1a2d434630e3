// The SHA-256 helpers: the hex check accepts exactly what the pattern /^[0-9a-f]{64}$/ accepts
// (sha256Hex's own output among it), for strings near it and values that are not strings.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSha256Hex, sha256Hex } from "../../src/core/hash.js";

const PATTERN = /^[0-9a-f]{64}$/;

describe("isSha256Hex", () => {
  it("accepts exactly 64 lowercase hex digits", () => {
    const digit = fc.constantFrom(..."0123456789abcdefABCDEFgz-\u0660\u0130\u{1d7ce} \n");
    const near = fc.oneof(
      fc.string({ unit: digit, minLength: 62, maxLength: 66 }),
      fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 63, maxLength: 65 }),
      fc
        .tuple(fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 64, maxLength: 64 }), fc.nat(63), digit)
        .map(([hex, at, unit]) => `${hex.slice(0, at)}${unit}${hex.slice(at + 1)}`),
      fc.string(),
    );
    fc.assert(
      fc.property(near, (text) => {
        expect(isSha256Hex(text)).toBe(PATTERN.test(text));
      }),
      { numRuns: 3000 },
    );
    expect(isSha256Hex(sha256Hex("x"))).toBe(true);
    expect(isSha256Hex(`${sha256Hex("x")}\n`)).toBe(false);
    for (const value of [null, undefined, 64, ["a"], { length: 64 }]) expect(isSha256Hex(value)).toBe(false);
  });
});
