import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_NESTING_DEPTH, parseJsonBytes } from "../../src/core/parse-line.js";
import { parseJsonLine } from "../support/core-text.js";
import { isBlankBytes, isBlankLine } from "../../src/jsonl/read.js";

/** Strings that may hold lone surrogate halves (JSON.stringify escapes those as \udXXX). */
const anyUnit = fc.oneof(
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)),
);
const jsonValue = fc.jsonValue({ maxDepth: 6, stringUnit: anyUnit });

function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === "string") return !value.isWellFormed();
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).some(([k, v]) => !k.isWellFormed() || hasLoneSurrogate(v));
  }
  return false;
}

/** Object members in the source text: `:` tokens outside strings. */
function countMembers(text: string): number {
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ":") members++;
  }
  return members;
}

function countKeys(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countKeys(v), 0);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).reduce((n, [, v]) => n + 1 + countKeys(v), 0);
  }
  return 0;
}

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === "object" && value !== null) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

describe("strict JSON line parser", () => {
  it("gives exactly what JSON.parse gives for any serialized JSON value", () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const text = JSON.stringify(value);
        const result = parseJsonLine(text);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.value).toStrictEqual(JSON.parse(text));
        expect(result.loneSurrogate).toBe(hasLoneSurrogate(value));
      }),
      { numRuns: 400 },
    );
  });

  it("accepts any JSON whitespace between tokens, including a lone carriage return", () => {
    const whitespace = fc.constantFrom(" ", "\t", "\r", "  \t\r");
    fc.assert(
      fc.property(jsonValue, whitespace, (value, ws) => {
        // Pretty-printing puts line feeds only between tokens; a JSONL line cannot hold them.
        const text = ws + JSON.stringify(value, null, 1).replaceAll("\n", ws) + ws;
        const result = parseJsonLine(text);
        expect(result.ok && result.value).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 200 },
    );
  });

  it("agrees with JSON.parse on JSON-like noise: accepted only if JSON.parse accepts, refusals explained", () => {
    const token = fc.constantFrom(
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      " ",
      '"a"',
      '"\\u0061"',
      '"b"',
      "1",
      "-0",
      "1.5e3",
      "1e400",
      "-",
      "0x1",
      "01",
      "true",
      "tru",
      "null",
      "NaN",
      "Infinity",
      '"\\ud800"',
      '"\\x"',
      '"',
      "\\",
      "\t",
      "\u00e9",
      "\u2028",
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 30 }), (tokens) => {
        const text = tokens.join("");
        let reference: { ok: true; value: unknown } | { ok: false };
        try {
          reference = { ok: true, value: JSON.parse(text) };
        } catch {
          reference = { ok: false };
        }
        const result = parseJsonLine(text);
        if (result.ok) {
          expect(reference).toStrictEqual({ ok: true, value: result.value });
          return;
        }
        if (!reference.ok) {
          // The parser stops at the first broken rule, which may come before the syntax error.
          expect(["malformed_json", "duplicate_key", "too_deep", "non_finite_number"]).toContain(result.code);
          return;
        }
        // JSON.parse accepted it, so we must have refused for one of our stricter rules.
        if (result.code === "duplicate_key") expect(countKeys(reference.value)).toBeLessThan(countMembers(text));
        else if (result.code === "non_finite_number") expect(JSON.stringify(reference.value)).toMatch(/null/);
        else if (result.code === "too_deep") expect(depthOf(reference.value)).toBeGreaterThan(MAX_NESTING_DEPTH);
        else expect.unreachable(`unexpected refusal ${result.code}`);
      }),
      { numRuns: 2000 },
    );
  });

  it("never throws on arbitrary strings, including lone surrogates and control characters", () => {
    fc.assert(
      fc.property(fc.string({ unit: anyUnit, maxLength: 200 }), (text) => {
        const result = parseJsonLine(text);
        expect(typeof result.ok).toBe("boolean");
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses duplicate keys at any depth after unescaping, even with equal values", () => {
    for (const text of [
      '{"text":"a","text":"b"}',
      '{"a":1,"\\u0061":1}',
      '{"x":{"y":{"k":1,"k":2}}}',
      '[1,{"k":null,"k":null}]',
      '{"__proto__":1,"__proto__":2}',
    ]) {
      const result = parseJsonLine(text);
      expect(result.ok ? "ok" : result.code, text).toBe("duplicate_key");
    }
  });

  it("keeps __proto__ as an own key and never changes a prototype", () => {
    const result = parseJsonLine('{"__proto__":{"polluted":true},"a":{"__proto__":[]}}');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const value = result.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toStrictEqual(JSON.parse('{"polluted":true}'));
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(result.value).toStrictEqual(JSON.parse('{"__proto__":{"polluted":true},"a":{"__proto__":[]}}'));
  });

  it("refuses NaN and Infinity tokens as malformed and an overflowing number as non-finite", () => {
    for (const text of ["NaN", "Infinity", "-Infinity", '{"k":NaN}']) {
      const result = parseJsonLine(text);
      expect(result.ok ? "ok" : result.code).toBe("malformed_json");
    }
    for (const text of ["1e400", "-1e400", '{"k":[1e309]}']) {
      const result = parseJsonLine(text);
      expect(result.ok ? "ok" : result.code).toBe("non_finite_number");
    }
    expect(parseJsonLine("1e-400")).toStrictEqual({ ok: true, value: 0, loneSurrogate: false });
  });

  it("flags an escaped lone surrogate anywhere, but not an escaped pair", () => {
    expect(parseJsonLine('{"\\udc00":"x"}')).toMatchObject({ ok: true, loneSurrogate: true });
    expect(parseJsonLine('["ok",["\\ud800x"]]')).toMatchObject({ ok: true, loneSurrogate: true });
    expect(parseJsonLine('"\\ud83d\\ude00"')).toStrictEqual({ ok: true, value: "\u{1f600}", loneSurrogate: false });
    expect(parseJsonLine('"\\ud83d\u{1f600}"')).toMatchObject({ ok: true, loneSurrogate: true });
  });

  it("accepts nesting up to the depth cap and refuses one level more", () => {
    const nest = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);
    expect(parseJsonLine(nest(MAX_NESTING_DEPTH)).ok).toBe(true);
    const refused = parseJsonLine(nest(MAX_NESTING_DEPTH + 1));
    expect(refused.ok ? "ok" : refused.code).toBe("too_deep");
  });

  it("refuses generated deep nesting of arrays and objects without overflowing the stack", () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_NESTING_DEPTH + 1, max: 200_000 }), fc.boolean(), fc.boolean(), (depth, objects, closed) => {
        const open = objects ? '{"a":'.repeat(depth) : "[".repeat(depth);
        const close = closed ? (objects ? "}" : "]").repeat(depth) : "";
        const result = parseJsonLine(`${open}1${close}`);
        expect(result.ok ? "ok" : result.code).toBe("too_deep");
      }),
      { numRuns: 30 },
    );
  });

  it("never puts input text into a failure message", () => {
    for (const text of ['{"MARKER_ONE":1,"MARKER_ONE":2}', '{"a":MARKER_TWO}', '"MARKER_THREE', "[1e999999, 'MARKER_FOUR']"]) {
      const result = parseJsonLine(text);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).not.toMatch(/MARKER/);
    }
  });
});

describe("parsing bytes keeps the strict UTF-8 and blank-line rules", () => {
  const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const decodes = (bytes: Uint8Array): boolean => {
    try {
      fatal.decode(bytes);
      return true;
    } catch {
      return false;
    }
  };
  // Bytes around the UTF-8 edge cases: overlongs, surrogates, > U+10FFFF, truncated sequences.
  const edgyByte = fc.constantFrom(0x22, 0x61, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x9f, 0xa0, 0x8f, 0x90);

  it("parseJsonBytes refuses exactly the bytes a fatal TextDecoder refuses", () => {
    fc.assert(
      fc.property(fc.array(edgyByte, { maxLength: 12 }), (inner) => {
        const bytes = Uint8Array.from([0x22, ...inner.filter((b) => b !== 0x22), 0x22]);
        const result = parseJsonBytes(bytes);
        if (decodes(bytes)) {
          expect(result).toMatchObject({ ok: true, value: JSON.parse(fatal.decode(bytes)) });
        } else {
          expect(result).toMatchObject({ ok: false, code: "invalid_utf8" });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("isBlankBytes agrees with isBlankLine on the decoded line", () => {
    const unit = fc.constantFrom(
      " ",
      "\t",
      "\u000b",
      "\u001c",
      "\u0085",
      "\u00a0",
      "\u1680",
      "\u2000",
      "\u200a",
      "\u200b",
      "\u2028",
      "\u3000",
      "\ufeff",
      "x",
      "{",
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 8 }), (units) => {
        const line = units.join("");
        expect(isBlankBytes(Buffer.from(line))).toBe(isBlankLine(line));
      }),
    );
  });
});
